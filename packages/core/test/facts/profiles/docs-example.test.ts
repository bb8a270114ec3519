import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const coreDir = fileURLToPath(new URL("../../../", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../../../../", import.meta.url));
const example = readFileSync(new URL("../../../examples/ladder-hud.ts", import.meta.url), "utf8");

describe("docs/facts.md Check timing, ladder and HUD example", () => {
  test("docs/facts.md shows examples/ladder-hud.ts exactly", () => {
    const doc = readFileSync(`${repoRoot}docs/facts.md`, "utf8");
    const start = doc.indexOf("\n## Check timing, ladder and HUD\n");
    expect(start).toBeGreaterThanOrEqual(0);
    const end = doc.indexOf("\n## ", start + 1);
    const section = doc.slice(start, end < 0 ? undefined : end);
    expect(section).toContain(`\`\`\`ts\n${example}\`\`\``);
  });

  test("it runs as written: the ladder after three turns and the HUD text", () => {
    const out = execFileSync(
      `${repoRoot}node_modules/.bin/tsx`,
      ["--conditions=@turngate/source", "examples/ladder-hud.ts"],
      { cwd: coreDir, encoding: "utf8" },
    );
    expect(out).toBe(
      [
        "R1 typecheck p95 4200 ms",
        "R2 unit      p95 9100 ms",
        "R4 e2e       p95 99000 ms",
        "[verification]",
        "elapsed: 45s - since last edit: 20s",
        "last check: R4 -> failed @30s ago - STALE (1 file(s) changed since)",
        "next check: R1 tsc --noEmit - est 4s (p95 warm)",
        "full verify: R4 playwright test - est 1m39s (p95 warm)",
        "",
      ].join("\n"),
    );
  });
});
