/**
 * The result cache with the default state folder inside the workspace (`.turngate/`, issue
 * #20; found by the attacker review): the cache's event log and local entries are written
 * while the checks run, so they must be turngate's own files, not changes of the turn.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { cli, gitProject } from "../helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(60_000), hookTimeout: testTimeout(60_000) });

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("result cache with the state folder in the workspace", () => {
  test("a change with a cache block and the default .turngate state ends verified; the cache's files there are not rows", async () => {
    const p = gitProject({
      "a.txt": "a\n",
      "turngate.config.json": `${JSON.stringify({ checks: [{ id: "unit", command: "true" }], cache: { read: true } })}\n`,
    });
    cleanups.push(p.cleanup);
    const agent = p.agent("edit.sh", "echo b > a.txt\n");
    const r = await cli(["run", "--json", "--", "sh", agent], p.root);
    const out = JSON.parse(r.stdout);
    expect(out.verdict).toBe("verified");
    expect(out.checks.map((c: { id: string; cached: string }) => [c.id, c.cached])).toEqual([
      ["unit", "none"],
    ]);
    expect(out.changes.map((c: { path: string }) => c.path)).toEqual(["a.txt"]);
    const events = readFileSync(join(p.root, ".turngate", "cache", "events.jsonl"), "utf8");
    expect(events.split("\n").filter((l) => l.includes('"event":"miss"'))).toHaveLength(1);
    expect(r.code).toBe(0);
  });
});
