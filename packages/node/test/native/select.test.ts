/**
 * Issue 17 item 2: `TURNGATE_NATIVE` picks the path. Unset: the addon when it is built;
 * `0`: the TypeScript path; `1`: the addon or an error naming why it is missing (never a
 * silent fallback); anything else: an error naming the values it takes.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { nativeMode, nativeStatus, selectNative } from "../../src/native/select.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../../..");

/** Constructs a WorkspaceObserver in a fresh process with `env`; prints native or the error. */
function observerIn(env: Record<string, string>): unknown {
  const script = `import { WorkspaceObserver } from "@turngate/node";
try { const o = new WorkspaceObserver(process.cwd()); console.log(JSON.stringify({ native: o.native })); }
catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`;
  const out = spawnSync(
    process.execPath,
    ["--conditions=@turngate/source", "--import", "tsx", "--input-type=module", "-e", script],
    {
      cwd: join(repoRoot, "packages/node"),
      encoding: "utf8",
      env: { ...process.env, ...env },
      timeout: testTimeout(60_000),
    },
  );
  return JSON.parse(out.stdout);
}

describe("TURNGATE_NATIVE", () => {
  test("unset or empty → auto, 1 → native, 0 → typescript; anything else is invalid_env naming the values", () => {
    expect(nativeMode({})).toBe("auto");
    expect(nativeMode({ TURNGATE_NATIVE: "" })).toBe("auto");
    expect(nativeMode({ TURNGATE_NATIVE: "1" })).toBe("native");
    expect(nativeMode({ TURNGATE_NATIVE: "0" })).toBe("typescript");
    expect(() => nativeMode({ TURNGATE_NATIVE: "yes" })).toThrow(
      expect.objectContaining({
        code: "invalid_env",
        message:
          'TURNGATE_NATIVE="yes" is not understood: use 1 (require @turngate/native), 0 (TypeScript path) or leave it unset (native when built)',
      }),
    );
  });

  test("with the addon built: 1 and unset select it, 0 selects the TypeScript path", () => {
    expect(selectNative({ TURNGATE_NATIVE: "1" })?.available).toBe(true);
    expect(selectNative({})?.available).toBe(true);
    expect(selectNative({ TURNGATE_NATIVE: "0" })).toBeUndefined();
    expect(nativeStatus({})).toBe("native");
    expect(nativeStatus({ TURNGATE_NATIVE: "0" })).toBe("typescript (TURNGATE_NATIVE=0)");
  });

  test("without the addon: 1 is native_unavailable with the reason and the fix; unset falls back to TypeScript", () => {
    expect(observerIn({ TURNGATE_NATIVE: "1", TURNGATE_NATIVE_DISABLE: "1" })).toEqual({
      code: "native_unavailable",
      message:
        "TURNGATE_NATIVE=1 requires @turngate/native, which is unavailable: disabled by TURNGATE_NATIVE_DISABLE=1. Build it with `pnpm --filter @turngate/native build` (needs cargo), or unset TURNGATE_NATIVE",
    });
    expect(observerIn({ TURNGATE_NATIVE: "", TURNGATE_NATIVE_DISABLE: "1" })).toEqual({
      native: false,
    });
    expect(observerIn({ TURNGATE_NATIVE: "1" })).toEqual({ native: true });
    expect(observerIn({ TURNGATE_NATIVE: "0" })).toEqual({ native: false });
  });
});
