/**
 * `turngate run` records each check's timing into the workspace's profile store;
 * `turngate profile show` and `turngate hud` read it (issue #14 items 6 and 7). Real
 * temporary git repositories, real agents and checks; the clock is fixed through
 * `CliContext.now` so ages and elapsed times are exact.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { durationLabel } from "@turngate/core";
import { afterEach, describe, expect, test } from "vitest";
import { type CliContext, main } from "../src/index.js";
import { Collector, gitProject } from "./helpers.js";

const T0 = Date.UTC(2026, 4, 1, 9, 0, 0);
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

async function run(args: string[], cwd: string, nowMs: number) {
  const stdout = new Collector();
  const stderr = new Collector();
  const ctx: CliContext = {
    stdout,
    stderr,
    cwd,
    env: process.env,
    agentOutput: new Collector(),
    now: () => nowMs,
  };
  const code = await main(args, ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

function project() {
  const p = gitProject({
    "value.txt": "42\n",
    "test.js": `if (require("node:fs").readFileSync("value.txt", "utf8") !== "42\\n") process.exit(1);`,
  });
  cleanups.push(p.cleanup);
  return p;
}
const noteAgent = (p: ReturnType<typeof project>, n: number) =>
  p.agent(`agent${n}.js`, `require("node:fs").writeFileSync("note${n}.txt", "${n}\\n");`);
const storeJson = (root: string) =>
  JSON.parse(readFileSync(join(root, ".turngate/verification-profiles.json"), "utf8"));

describe("turngate run records check timings; profile show and hud read them", () => {
  test("after three turns: 3 samples per check, profile show lists them, hud shows the ladder", async () => {
    const p = project();
    for (let n = 1; n <= 3; n++) {
      const r = await run(
        ["run", "--check", "node test.js", "--", "node", noteAgent(p, n)],
        p.root,
        T0 + n * 60_000,
      );
      expect(r.code).toBe(0);
    }
    const store = storeJson(p.root);
    expect(store.schemaVersion).toBe(1);
    expect(store.updatedAt).toBe("2026-05-01T09:03:00Z");
    const row = store.rows[0];
    expect(store.rows.length).toBe(1);
    expect(row.id).toBe("check:1");
    expect(row.check).toEqual({ rung: "R4", command: { mode: "shell", command: "node test.js" } });
    expect(row.timings.samples).toBe(3);
    expect(row.timings.recentWarmMs.length).toBe(3);
    expect(row.lastRun).toEqual({ at: "2026-05-01T09:03:00Z", exit: 0 });
    const p95 = row.timings.warmMs.p95 as number;
    expect(p95).toBe([...row.timings.recentWarmMs].sort((a: number, b: number) => a - b)[2]);

    const show = await run(["profile", "show"], p.root, T0);
    expect(show.stdout).toBe(
      `profiles: 1 row in .turngate/verification-profiles.json\n  check:1 R4 "node test.js": warm p50 ${durationLabel(row.timings.warmMs.p50)} p95 ${durationLabel(p95)} (3 samples), last exit 0 at 2026-05-01T09:03:00Z\n`,
    );
    const json = JSON.parse((await run(["profile", "show", "--json"], p.root, T0)).stdout);
    expect(json.schema).toBe("turngate.profile_show.v1");
    expect(json.profiles.rows[0].timings.samples).toBe(3);

    const hud = await run(["hud"], p.root, T0 + 3 * 60_000 + 75_000);
    expect(hud.stdout).toBe(
      [
        "[verification]",
        "elapsed: 1m15s",
        "last check: R4 -> passed @1m15s ago (current snapshot)",
        `next check: R4 node test.js - est ${durationLabel(p95)} (p95 warm)`,
        `full verify: R4 node test.js - est ${durationLabel(p95)} (p95 warm)`,
        "",
      ].join("\n"),
    );
    const model = JSON.parse((await run(["hud", "--json"], p.root, T0 + 3 * 60_000)).stdout);
    expect(model.schema).toBe("harn.verification.hud_model.v1");
    expect(model.last_check.freshness.status).toBe("bound_fresh");
  });

  test("a file the checks verified changed since: the HUD says STALE", async () => {
    const p = project();
    expect(
      (await run(["run", "--check", "node test.js", "--", "node", noteAgent(p, 1)], p.root, T0))
        .code,
    ).toBe(0);
    writeFileSync(join(p.root, "note1.txt"), "edited by hand\n");
    const hud = await run(["hud"], p.root, T0 + 11_000);
    expect(hud.stdout.split("\n")[2]).toBe(
      "last check: R4 -> passed @11s ago - STALE (1 file(s) changed since)",
    );
  });

  test("a failing check records its exit and signature; the verdict stays incomplete", async () => {
    const p = project();
    const agent = p.agent("bad.js", `require("node:fs").writeFileSync("value.txt", "41\\n");`);
    const r = await run(["run", "--check", "node test.js", "--", "node", agent], p.root, T0);
    expect(r.code).toBe(2);
    const row = storeJson(p.root).rows[0];
    expect(row.lastRun).toEqual({
      at: "2026-05-01T09:00:00Z",
      exit: 1,
      failureSignature: "check failed exit=1",
    });
    expect((await run(["hud"], p.root, T0)).stdout.split("\n")[2]).toBe(
      "last check: R4 -> failed @0s ago (current snapshot)",
    );
  });

  test("a corrupt store never changes the verdict: it is reported and left as it was", async () => {
    const p = project();
    p.write(".turngate/verification-profiles.json", "{ corrupt");
    const r = await run(
      ["run", "--check", "node test.js", "--", "node", noteAgent(p, 1)],
      p.root,
      T0,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("verified: effect digest");
    expect(r.stderr).toContain(
      `turngate: warning: check timings were not recorded: profile store ${join(p.root, ".turngate/verification-profiles.json")} is not a verification profile record set: not JSON`,
    );
    expect(readFileSync(join(p.root, ".turngate/verification-profiles.json"), "utf8")).toBe(
      "{ corrupt",
    );
  });

  test("nothing recorded yet: both commands say what to do", async () => {
    const p = project();
    expect((await run(["hud"], p.root, T0)).stdout).toBe(
      "[verification]\nnothing recorded yet — run a turn with checks (turngate run --check CMD -- AGENT)\n",
    );
    expect((await run(["profile", "show"], p.root, T0)).stdout).toBe(
      "profiles: none recorded yet in .turngate/verification-profiles.json — run a turn with checks (turngate run --check CMD -- AGENT) to record their timings\n",
    );
  });
  test("the store is turngate's own file: verify twice against one baseline gives the same digest", async () => {
    const p = project();
    expect((await run(["baseline"], p.root, T0)).code).toBe(0);
    p.write("note.txt", "1\n");
    const first = await run(["verify", "--json", "--check", "node test.js"], p.root, T0 + 1000);
    expect(first.code).toBe(0);
    expect(storeJson(p.root).rows[0].timings.samples).toBe(1);
    const second = await run(["verify", "--json", "--check", "node test.js"], p.root, T0 + 2000);
    expect(second.code).toBe(0);
    const a = JSON.parse(first.stdout);
    const b = JSON.parse(second.stdout);
    expect(b.effect_digest).toBe(a.effect_digest);
    expect(b.verdict).toBe("verified");
    expect(storeJson(p.root).rows[0].timings.samples).toBe(2);
  });
});
