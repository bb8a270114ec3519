/**
 * Fleet simulation (issue #20 item 5): exact figures on small fixed histories, traced by hand in
 * the comments (constant durations: sigma 0, one turn per task, no idle turns), and the CLI on a
 * real temporary git repository.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { parseNameOnlyLog, readHistory } from "../sim/fleet/history.js";
import { DEFAULT_PARAMS, FleetParamError, resolveParams } from "../sim/fleet/params.js";
import { simulateFleet } from "../sim/fleet/simulate.js";
import { groupOfPath } from "../sim/fleet/tree.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const tmp = mkdtempSync(join(tmpdir(), "turngate-fleet-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// Two packages, two commits: c1 edits package a, c2 edits package b.
const TWO = {
  commits: [
    { id: "c1", files: ["a/x.ts"] },
    { id: "c2", files: ["b/y.ts"] },
  ],
};
// One agent, one machine, one CI runner; every check 1 min, edit 2 min, lookups free,
// uploads readable 6 s (0.1 min) after the check ends. Agent: task c1 edits 0→2, checks a 2→3,
// b 3→4, merges rev 1 at 4; task c2 (base rev 1) edits 5→7, checks 7→9 at most, merges rev 2;
// no third task (starts after the 8.5 min horizon). CI verifies rev 1 from 4 and rev 2 after.
const SMALL = {
  agents: 1,
  machines: 1,
  ci_runners: 1,
  stagger_min: 0,
  think_median_min: 2,
  think_sigma: 0,
  max_turns: 1,
  idle_turn_rate: 0,
  task_gap_min: 1,
  check_median_min: 1,
  check_sigma: 0,
  lookup_s: 0,
  upload_min_s: 6,
  upload_max_s: 6,
  horizon_min: 8.5,
  drift: 0,
} as const;

const NO_MISS = {
  upload_in_flight: 0,
  running_elsewhere: 0,
  evicted: 0,
  untrusted_only: 0,
  toolchain_drift: 0,
  new: 0,
};

describe("fleet simulation: hand-traced histories", () => {
  test("package keys, CI-only writers, no local cache: the second task and CI's second run hit CI's upload of package a", () => {
    const r = simulateFleet(
      TWO,
      resolveParams({ ...SMALL, key_scope: "package", writers: "ci", local_capacity: 0 }),
    );
    // Agent: c1 a new, c1 b new; c2 a = rev 1's a, uploaded by CI at 5.1 → remote hit at 7; c2 b new.
    // CI rev 1 (from 4): a and b are the agent's keys, which it may not upload → untrusted_only, runs 4→6.
    // Task c2's checks run 7→8 (a hit), merge rev 2 at 8. CI rev 2 (from 8): a hit (its own
    // upload), b is the agent's c2 key → untrusted_only, runs 8→9, readable 9.1 (the last event).
    expect(r.lookups).toEqual({ agent: 4, ci: 4, total: 8 });
    expect(r.hits).toEqual({ agent_local: 0, agent_remote: 1, ci_remote: 1, total: 2 });
    expect(r.hit_rate).toEqual({ agent: 0.25, agent_remote: 0.25, ci: 0.25, total: 0.25 });
    expect(r.misses_by_cause).toEqual({ ...NO_MISS, new: 3, untrusted_only: 3 });
    expect([r.checks_saved, r.checks_run, r.check_minutes_saved, r.check_minutes_run]).toEqual([
      2, 6, 2, 6,
    ]);
    expect(r.workload).toEqual({
      tasks_started: 2,
      tasks_merged: 2,
      agent_turns: 2,
      idle_turns: 0,
      ci_runs: 2,
      main_revisions: 2,
      simulated_minutes: 9.1,
    });
    expect(r.history).toEqual({ commits: 2, files: 2, groups: 2, checks: 2, suite_minutes: 2 });
    // rev 1 merged at 4, covered at 6; rev 2 merged at 8, covered at 9.
    expect(r.ci_lag).toEqual({ max_min: 2, p50_min: 1, unverified_revisions: 0 });
    expect(r.staleness).toEqual({ worst_s: null, count: 0, p95_s: null });
  });

  test("package keys with the machine's local cache: the second task's package a is a local hit instead", () => {
    const r = simulateFleet(TWO, resolveParams({ ...SMALL, key_scope: "package", writers: "ci" }));
    expect(r.hits).toEqual({ agent_local: 1, agent_remote: 0, ci_remote: 1, total: 2 });
    expect(r.misses_by_cause).toEqual({ ...NO_MISS, new: 3, untrusted_only: 3 });
  });

  test("whole-tree keys, CI-only writers: nothing hits; CI's rev 1 is the agent's first tree but was never uploaded", () => {
    const r = simulateFleet(TWO, resolveParams({ ...SMALL, key_scope: "repo", writers: "ci" }));
    expect(r.hits.total).toBe(0);
    expect(r.misses_by_cause).toEqual({ ...NO_MISS, new: 4, untrusted_only: 4 });
    expect([r.checks_run, r.check_minutes_run]).toEqual([8, 8]);
  });

  test("whole-tree keys, every machine writes: CI hits the agent's check a, and finds check b still uploading (staleness 0 s)", () => {
    const r = simulateFleet(TWO, resolveParams({ ...SMALL, key_scope: "repo", writers: "all" }));
    // Agent a ends 3 (readable 3.1), b ends 4 (readable 4.1); CI starts at the merge at 4:
    // a hit, b in flight since 4 → 0 s. Task c2's checks 7→9, CI from 9: a hit, b in flight 0 s.
    expect(r.hits).toEqual({ agent_local: 0, agent_remote: 0, ci_remote: 2, total: 2 });
    expect(r.misses_by_cause).toEqual({ ...NO_MISS, new: 4, upload_in_flight: 2 });
    expect(r.staleness).toEqual({ worst_s: 0, count: 2, p95_s: 0 });
    expect(r.ci_lag).toEqual({ max_min: 1, p50_min: 1, unverified_revisions: 0 });
  });

  test("toolchain drift on every agent machine: the agent misses CI's artifact of package a (toolchain_drift)", () => {
    const r = simulateFleet(
      TWO,
      resolveParams({ ...SMALL, key_scope: "package", writers: "ci", local_capacity: 0, drift: 1 }),
    );
    // The agent's keys carry another toolchain, so CI's rev-1 keys are new, not untrusted_only.
    expect(r.hits).toEqual({ agent_local: 0, agent_remote: 0, ci_remote: 1, total: 1 });
    expect(r.misses_by_cause).toEqual({ ...NO_MISS, new: 6, toolchain_drift: 1 });
  });

  test("two agents on one base: the later one finds the earlier one's result of package b still uploading, 12 s old", () => {
    const history = {
      commits: [
        { id: "c1", files: ["a/x.ts"] },
        { id: "c2", files: ["a/z.ts"] },
        { id: "c3", files: ["b/y.ts"] },
      ],
    };
    const r = simulateFleet(
      history,
      resolveParams({
        ...SMALL,
        agents: 2,
        machines: 2,
        stagger_min: 2.4,
        upload_min_s: 30,
        upload_max_s: 30,
        horizon_min: 4.5,
        key_scope: "package",
        writers: "all",
      }),
    );
    // Agent 0 (from 0): a 2→3 (readable 3.5), b 3→4 (readable 4.5), merges rev 1 at 4.
    // Agent 1 (from 1.2, base rev 0): a (its own edit) 3.2→4.2; b at 4.2 = agent 0's b, finished
    // at 4, readable at 4.5 → in flight, 0.2 min = 12 s; runs 4.2→5.2, merges rev 2.
    // CI rev 1 at 4: a hit, b in flight (0 s), runs 4→5; CI rev 2 at 5.2: a new, b hit.
    expect(r.lookups).toEqual({ agent: 4, ci: 4, total: 8 });
    expect(r.hits).toEqual({ agent_local: 0, agent_remote: 0, ci_remote: 2, total: 2 });
    expect(r.misses_by_cause).toEqual({ ...NO_MISS, new: 4, upload_in_flight: 2 });
    expect(r.staleness).toEqual({ worst_s: 12, count: 2, p95_s: 12 });
    expect(r.workload.main_revisions).toBe(2);
    // The last event: CI's upload of rev 2's package a, readable at 6.2 + 0.5.
    expect(r.workload.simulated_minutes).toBe(6.7);
  });

  test("a remote cache of one artifact evicts: CI's second run finds package a evicted", () => {
    const r = simulateFleet(
      TWO,
      resolveParams({
        ...SMALL,
        key_scope: "package",
        writers: "ci",
        local_capacity: 0,
        remote_capacity: 1,
      }),
    );
    // CI's b upload (readable 6.1) evicts its a upload: task c2's a at 7 and CI rev 2's a miss;
    // CI's rev-2 uploads of a (9.1) and b (10.1) evict again.
    expect(r.hits.total).toBe(0);
    expect(r.evictions).toBe(3);
    expect(r.misses_by_cause).toEqual({ ...NO_MISS, new: 3, untrusted_only: 3, evicted: 2 });
  });
});

describe("fleet simulation: parameters and history", () => {
  test("groups: first folder, two under packages/ and bindings/, root manifests shared, other root files none", () => {
    expect(
      [
        "packages/core/src/a.ts",
        "bindings/go/x.go",
        "scripts/sim/fleet.ts",
        "package.json",
        "pnpm-lock.yaml",
        "README.md",
      ].map(groupOfPath),
    ).toEqual(["packages/core", "bindings/go", "scripts", -1, -1, -2]);
  });

  test("bad parameters are typed errors naming the field", () => {
    const bad = (o: Record<string, unknown>) => {
      try {
        resolveParams(o);
      } catch (e) {
        return e instanceof FleetParamError ? `${e.field}: ${e.message}` : `other: ${e}`;
      }
      return "accepted";
    };
    expect(bad({ writers: "agents" })).toBe(
      'writers: writers: expected one of ci, all, got "agents"',
    );
    expect(bad({ agents: 0 })).toBe("agents: agents: expected ≥ 1, got 0");
    expect(bad({ drift: 1.5 })).toBe("drift: drift: expected a fraction in [0, 1], got 1.5");
    expect(bad({ machines: "2.5" })).toBe("machines: machines: expected an integer, got 2.5");
    expect(bad({ upload_min_s: 20 })).toBe(
      "upload_min_s: upload_min_s: 20 is above upload_max_s 10",
    );
    expect(bad({ nope: 1 })).toBe("nope: nope: unknown parameter");
    expect(resolveParams({ seed: "7" }).seed).toBe(7);
    expect(resolveParams()).toEqual(DEFAULT_PARAMS);
  });

  test("parseNameOnlyLog drops empty commits and repeated paths", () => {
    expect(parseNameOnlyLog("\u0001aaa\n\na\nb\na\n\u0001bbb\n\n\u0001ccc\n\nc\n")).toEqual({
      commits: [
        { id: "aaa", files: ["a", "b"] },
        { id: "ccc", files: ["c"] },
      ],
    });
  });
});

function git(cwd: string, ...args: string[]) {
  execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args],
    {
      cwd,
      stdio: "ignore",
    },
  );
}

describe("fleet simulation CLI on a real repository", () => {
  const repo = join(tmp, "repo");
  git(tmp, "init", "-q", "-b", "main", repo);
  const commit = (files: Record<string, string>, msg: string) => {
    for (const [f, text] of Object.entries(files)) {
      execFileSync("mkdir", ["-p", dirname(join(repo, f))]);
      writeFileSync(join(repo, f), text);
    }
    git(repo, "add", "-A");
    git(repo, "commit", "-q", "-m", msg);
  };
  commit({ "package.json": "{}", "packages/a/x.ts": "1", "packages/b/y.ts": "1" }, "init");
  commit({ "packages/a/x.ts": "2" }, "a");
  git(repo, "mv", "packages/b/y.ts", "packages/b/z.ts");
  git(repo, "commit", "-q", "-m", "rename");
  git(repo, "commit", "-q", "--allow-empty", "-m", "empty");
  commit({ "packages/b/z.ts": "3", "docs/readme.md": "d" }, "b");

  test("readHistory: oldest first, a rename as both paths, the empty commit dropped", () => {
    expect(readHistory(repo).commits.map((c) => c.files)).toEqual([
      ["package.json", "packages/a/x.ts", "packages/b/y.ts"],
      ["packages/a/x.ts"],
      ["packages/b/y.ts", "packages/b/z.ts"],
      ["docs/readme.md", "packages/b/z.ts"],
    ]);
    // HEAD~1 is the empty commit: its ancestry has the first three.
    expect(readHistory(repo, "HEAD~1").commits.length).toBe(3);
    expect(() => readHistory(repo, "--all")).toThrow("rev: not a revision: --all");
  });

  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "scripts/sim/fleet.ts"), ...args], {
      cwd: ROOT,
      encoding: "utf8",
    });
  const small = [
    "--agents",
    "40",
    "--machines",
    "8",
    "--ci-runners",
    "2",
    "--horizon-min",
    "120",
    "--stagger-min",
    "30",
  ];

  test("--json with a --seed is deterministic; another seed gives other figures", () => {
    const a = cli(repo, "--json", "--seed", "7", ...small);
    const b = cli(repo, "--json", "--seed", "7", ...small);
    const c = cli(repo, "--json", "--seed", "8", ...small);
    expect([a.status, b.status, c.status, a.stderr]).toEqual([0, 0, 0, ""]);
    const [ja, jb, jc] = [a, b, c].map((x) => JSON.parse(x.stdout));
    expect(ja.schema).toBe("turngate.fleet_sim.v1");
    expect([ja.repo, ja.rev]).toEqual(["repo", "HEAD"]);
    expect(ja.results.history).toMatchObject({ commits: 4, files: 5, groups: 3, checks: 3 });
    expect(ja.params).toMatchObject({
      seed: 7,
      agents: 40,
      machines: 8,
      writers: "ci",
      key_scope: "repo",
    });
    expect(ja.results).toEqual(jb.results);
    expect(jc.results).not.toEqual(ja.results);
    expect(ja.assumptions.length).toBe(11);
    // Every lookup either hit or ran its check (the run drains every event).
    expect(ja.results.lookups.total).toBe(ja.results.checks_saved + ja.results.checks_run);
  });

  test("text output names the figures; --matrix prints four rows; a bad flag or a non-repository exits 2", () => {
    const t = cli(repo, ...small);
    expect(t.status).toBe(0);
    expect(t.stdout).toMatch(/^fleet simulation of repo at HEAD: 4 commits, 5 files, 3 checks/);
    expect(t.stdout).toMatch(/\n {2}hit rate: [\d.]+% of [\d,]+ lookups/);
    expect(t.stdout).toMatch(/\n {2}worst-case staleness: /);
    expect(t.stdout).toMatch(/\nassumptions:\n {2}- History: /);
    const m = cli(repo, "--matrix", ...small);
    expect(m.status).toBe(0);
    expect(
      m.stdout
        .trim()
        .split("\n")
        .slice(2)
        .map((l) => l.split(" | ").slice(0, 2)),
    ).toEqual([
      ["| repo", "ci"],
      ["| repo", "all"],
      ["| package", "ci"],
      ["| package", "all"],
    ]);
    const bad = cli(repo, "--writers", "agents");
    expect([bad.status, bad.stderr]).toEqual([
      2,
      'fleet: --writers: expected one of ci, all, got "agents"\n',
    ]);
    const none = cli(tmp, ...small);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/^fleet: repo: git log failed in /);
  });
});
