/**
 * `cache.toolchain` rows in turngate.config.json (docs/scale-out.md "Many machines"): a version
 * pattern that does not compile is refused when the file is loaded, at its field (issue 36), not
 * turned into a silent `version: null` in every cache key.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";
import { loadConfig } from "../src/config.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function root(config: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), "tg-config-"));
  dirs.push(dir);
  writeFileSync(join(dir, "turngate.config.json"), `${JSON.stringify(config)}\n`);
  return dir;
}

test("a cache.toolchain version pattern that does not compile names its field", () => {
  const ok = { id: "node", probe: { spec: ["node", "--version"], versionPattern: "v(\\d+)" } };
  const bad = { id: "x", probe: ["x", "--version"], versionPattern: "-B)" };
  const dir = root({ cache: { toolchain: [ok, bad] } });
  expect(() => loadConfig(dir)).toThrow(
    `invalid ${join(dir, "turngate.config.json")} at cache.toolchain.1.versionPattern: Invalid regex: Invalid regular expression: /-B)/u: Unmatched ')'`,
  );
  expect(loadConfig(root({ cache: { toolchain: [ok] } })).cache?.toolchain).toEqual([ok]);
});
