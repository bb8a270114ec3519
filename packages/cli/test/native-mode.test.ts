/**
 * Issue 17 item 2 through the CLI: `TURNGATE_NATIVE=1` without the addon stops `turngate
 * run` before the agent starts, with the reason and the fix; a bad value is named.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { cliBundleArgs } from "./cli-bundle.js";
import { gitProject } from "./helpers.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const bundle = cliBundleArgs();

function turngate(args: string[], env: Record<string, string>) {
  return spawnSync(process.execPath, [...bundle, ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: testTimeout(60_000),
    env: { ...process.env, ...env },
  });
}

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe("turngate run and TURNGATE_NATIVE", () => {
  test("TURNGATE_NATIVE=1 without the addon: exit 1, native_unavailable with the fix, the agent never runs", () => {
    const p = gitProject({ "value.txt": "41\n" });
    cleanup = p.cleanup;
    const agent = p.agent("agent.js", `require("node:fs").writeFileSync("ran.txt", "1\\n");`);
    const out = turngate(["run", "--root", p.root, "--check", "true", "--", "node", agent], {
      TURNGATE_NATIVE: "1",
      TURNGATE_NATIVE_DISABLE: "1",
    });
    expect({ status: out.status, stderr: out.stderr }).toEqual({
      status: 1,
      stderr:
        "turngate: error: TURNGATE_NATIVE=1 requires @turngate/native, which is unavailable: disabled by TURNGATE_NATIVE_DISABLE=1. Build it with `pnpm --filter @turngate/native build` (needs cargo), or unset TURNGATE_NATIVE [native_unavailable]\n",
    });
    expect(existsSync(join(p.root, "ran.txt"))).toBe(false);
  });

  test("TURNGATE_NATIVE=yes is invalid_env naming the values; =0 runs the turn on the TypeScript path", () => {
    const p = gitProject({ "value.txt": "41\n" });
    cleanup = p.cleanup;
    const agent = p.agent("agent.js", `require("node:fs").writeFileSync("value.txt", "42\\n");`);
    const bad = turngate(["run", "--root", p.root, "--check", "true", "--", "node", agent], {
      TURNGATE_NATIVE: "yes",
    });
    expect({ status: bad.status, stderr: bad.stderr }).toEqual({
      status: 1,
      stderr:
        'turngate: error: TURNGATE_NATIVE="yes" is not understood: use 1 (require @turngate/native), 0 (TypeScript path) or leave it unset (native when built) [invalid_env]\n',
    });
    const ts = turngate(["run", "--root", p.root, "--check", "true", "--", "node", agent], {
      TURNGATE_NATIVE: "0",
    });
    expect(ts.status).toBe(0);
    expect(ts.stdout).toContain("verified");
  });
});
