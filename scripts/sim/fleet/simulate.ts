/**
 * The fleet simulation of issue #20 item 5: agents on machines replaying a history's change sets
 * against a shared main, a remote result cache written by trusted writers, per-machine local
 * caches, CI runners verifying main. A discrete-event simulation in minutes; deterministic for a
 * (history, params) pair. The model's assumptions are listed by assumptions() in params.ts.
 */
import { Heap } from "heap-js";
import { LRUCache } from "lru-cache";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { uniformInt } from "pure-rand/distribution/uniformInt";
import { mersenne } from "pure-rand/generator/mersenne";
import type { RandomGenerator } from "pure-rand/types/RandomGenerator";
import type { History } from "./history.js";
import type { FleetParams } from "./params.js";
import { type Accumulators, buildLayout, MainLine, treePart } from "./tree.js";

/** Why a lookup missed, first matching cause in this order. */
export const MISS_CAUSES = [
  "upload_in_flight",
  "running_elsewhere",
  "evicted",
  "toolchain_drift",
  "untrusted_only",
  "new",
] as const;
export type MissCause = (typeof MISS_CAUSES)[number];

/** Figures of one run. Minutes and seconds are rounded to 3 decimals. */
export interface FleetResults {
  history: {
    commits: number;
    files: number;
    groups: number;
    checks: number;
    suite_minutes: number;
  };
  workload: {
    tasks_started: number;
    tasks_merged: number;
    agent_turns: number;
    idle_turns: number;
    ci_runs: number;
    main_revisions: number;
    simulated_minutes: number;
  };
  lookups: { agent: number; ci: number; total: number };
  hits: { agent_local: number; agent_remote: number; ci_remote: number; total: number };
  hit_rate: { agent: number; agent_remote: number; ci: number; total: number };
  /** Checks not run because a cached result was used (= hits). */
  checks_saved: number;
  checks_run: number;
  /** Sum of the durations of the checks not run (gross: lookup costs are in lookup_minutes). */
  check_minutes_saved: number;
  check_minutes_run: number;
  lookup_minutes: number;
  misses_by_cause: Record<MissCause, number>;
  /** Remote artifacts evicted by capacity. */
  evictions: number;
  staleness: { worst_s: number | null; count: number; p95_s: number | null };
  /** Minutes from a merge until a CI run covering it finished; unverified = revisions no CI run covered. */
  ci_lag: { max_min: number | null; p50_min: number | null; unverified_revisions: number };
}

interface Actor {
  kind: "agent" | "ci";
  machine: number;
  toolchain: number;
  trusted: boolean;
  local: LRUCache<string, true> | null;
}

interface Event {
  t: number;
  seq: number;
  run: () => void;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const ratio = (a: number, b: number) => (b === 0 ? 0 : r3(a / b));

function nearestRank(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[
    Math.min(sorted.length - 1, Math.max(0, Math.ceil((sorted.length * p) / 100) - 1))
  ] as number;
}

/** Standard normal draw (Box–Muller over two uniform draws). */
function normal(rng: RandomGenerator): number {
  const u = 1 - uniformFloat64(rng);
  const v = uniformFloat64(rng);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

function logNormal(rng: RandomGenerator, median: number, sigma: number): number {
  if (sigma === 0) return median;
  return median * Math.exp(sigma * normal(rng));
}

/**
 * Runs the simulation. Input: a history with at least one commit and resolved params
 * (resolveParams). Output: FleetResults. Pure apart from CPU time (no I/O, no clock).
 * Throws RangeError when the history has no commit.
 */
export function simulateFleet(history: History, p: FleetParams): FleetResults {
  const commits = history.commits;
  if (commits.length === 0) throw new RangeError("history: no commit to replay");
  const layout = buildLayout(commits);
  const main = new MainLine(layout);
  const fileIds = commits.map((c) => c.files.map((f) => layout.fileIndex.get(f) as number));
  // One check per group; a history with only root files gets one check over the root.
  const checkCount = Math.max(1, layout.groups.length);
  const setupRng = mersenne(p.seed);
  const rng = mersenne(p.seed ^ 0x5f3759df);
  const durations = Array.from({ length: checkCount }, () =>
    Math.min(60, Math.max(0.05, logNormal(setupRng, p.check_median_min, p.check_sigma))),
  );

  // Toolchains: CI and most machines 0; `drift` of the agent machines one of 1..drift_variants.
  const toolchains = new Array<number>(p.machines).fill(0);
  const order = Array.from({ length: p.machines }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = uniformInt(setupRng, 0, i);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const drifted = Math.round(p.drift * p.machines);
  for (let i = 0; i < drifted; i++)
    toolchains[order[i] as number] = uniformInt(setupRng, 1, p.drift_variants);
  const locals = Array.from({ length: p.machines }, () =>
    p.local_capacity > 0 ? new LRUCache<string, true>({ max: p.local_capacity }) : null,
  );

  // Remote cache: only readable artifacts live here; uploads in flight are in `pending`.
  const evicted = new Set<string>();
  let evictions = 0;
  const remote = new LRUCache<string, number>({
    max: p.remote_capacity > 0 ? p.remote_capacity : 1,
    dispose: (_v, key, reason) => {
      if (reason === "evict") {
        evicted.add(key);
        evictions++;
      }
    },
  });
  const remoteOn = p.remote_capacity > 0;
  const pending = new Map<string, number[]>();
  const runningTrusted = new Map<string, number>();
  const computedUntrusted = new Set<string>();

  const heap = new Heap<Event>((a, b) => a.t - b.t || a.seq - b.seq);
  let seq = 0;
  const at = (t: number, run: () => void): void => {
    heap.push({ t, seq: seq++, run });
  };
  let now = 0;

  const lookupMin = p.lookup_s / 60;
  const stats = {
    lookups: { agent: 0, ci: 0 },
    hits: { agent_local: 0, agent_remote: 0, ci_remote: 0 },
    minutesSaved: 0,
    minutesRun: 0,
    checksRun: 0,
    lookupMinutes: 0,
    causes: Object.fromEntries(MISS_CAUSES.map((c) => [c, 0])) as Record<MissCause, number>,
    staleness: [] as number[],
    tasksStarted: 0,
    tasksMerged: 0,
    agentTurns: 0,
    idleTurns: 0,
    ciRuns: 0,
  };

  // The whole-tree part is the same for every check of a tree: computed once per tree.
  const wholeTree = new WeakMap<Accumulators, string>();
  const keyOf = (acc: Accumulators, check: number, toolchain: number) => {
    let part: string | undefined;
    if (p.key_scope === "repo") {
      part = wholeTree.get(acc);
      if (part === undefined) {
        part = treePart(acc, check, layout, "repo");
        wholeTree.set(acc, part);
      }
    } else part = treePart(acc, check, layout, "package");
    return `${part}|${check}|${toolchain}`;
  };

  function missCause(
    actor: Actor,
    key: string,
    acc: Accumulators,
    check: number,
    t: number,
  ): MissCause {
    const inflight = pending.get(key);
    if (inflight !== undefined && inflight.length > 0) {
      stats.staleness.push((t - Math.min(...inflight)) * 60);
      return "upload_in_flight";
    }
    if ((runningTrusted.get(key) ?? 0) > 0) return "running_elsewhere";
    if (evicted.has(key)) return "evicted";
    if (actor.toolchain !== 0 && remote.has(keyOf(acc, check, 0))) return "toolchain_drift";
    if (computedUntrusted.has(key)) return "untrusted_only";
    return "new";
  }

  /** Looks up and (on a miss) runs `checks` one after another on `acc`, then calls done(t). */
  function runChecks(
    actor: Actor,
    acc: Accumulators,
    checks: readonly number[],
    t0: number,
    done: (t: number) => void,
  ) {
    const step = (j: number, t: number): void => {
      if (j === checks.length) {
        done(t);
        return;
      }
      const check = checks[j] as number;
      const key = keyOf(acc, check, actor.toolchain);
      const dur = durations[check] as number;
      stats.lookups[actor.kind]++;
      if (actor.local?.get(key) === true) {
        stats.hits.agent_local++;
        stats.minutesSaved += dur;
        step(j + 1, t);
        return;
      }
      if (remoteOn) stats.lookupMinutes += lookupMin;
      const tl = remoteOn ? t + lookupMin : t;
      if (remoteOn && remote.get(key) !== undefined) {
        if (actor.kind === "agent") stats.hits.agent_remote++;
        else stats.hits.ci_remote++;
        stats.minutesSaved += dur;
        actor.local?.set(key, true);
        at(tl, () => step(j + 1, tl));
        return;
      }
      stats.causes[missCause(actor, key, acc, check, t)]++;
      if (actor.trusted) runningTrusted.set(key, (runningTrusted.get(key) ?? 0) + 1);
      const end = tl + dur;
      at(end, () => {
        stats.checksRun++;
        stats.minutesRun += dur;
        actor.local?.set(key, true);
        if (actor.trusted) {
          runningTrusted.set(key, (runningTrusted.get(key) ?? 1) - 1);
          if (remoteOn) {
            const list = pending.get(key) ?? [];
            list.push(end);
            pending.set(key, list);
            const visible =
              end + (p.upload_min_s + uniformFloat64(rng) * (p.upload_max_s - p.upload_min_s)) / 60;
            at(visible, () => {
              const l = pending.get(key) as number[];
              l.splice(l.indexOf(end), 1);
              if (l.length === 0) pending.delete(key);
              remote.set(key, end);
              evicted.delete(key);
            });
          }
        } else computedUntrusted.add(key);
        step(j + 1, end);
      });
    };
    step(0, t0);
  }

  const allChecks = Array.from({ length: checkCount }, (_, i) => i);

  // CI: runners take the newest unverified main revision when free.
  let lastClaimed = 0;
  let greenRev = 0;
  let coveredUpTo = 0;
  const lags: number[] = [];
  const idleRunners: Actor[] = Array.from({ length: p.ci_runners }, () => ({
    kind: "ci" as const,
    machine: -1,
    toolchain: 0,
    trusted: true,
    local: null,
  }));
  function claim(runner: Actor, t: number) {
    const rev = main.head;
    lastClaimed = rev;
    stats.ciRuns++;
    runChecks(runner, main.accumulators(rev), allChecks, t, (end) => {
      if (rev > greenRev) greenRev = rev;
      for (let r = coveredUpTo + 1; r <= rev; r++) lags.push(end - (main.mergedAt[r] as number));
      if (rev > coveredUpTo) coveredUpTo = rev;
      if (main.head > lastClaimed) claim(runner, end);
      else idleRunners.push(runner);
    });
  }
  function onMerge(t: number) {
    const runner = idleRunners.pop();
    if (runner !== undefined) claim(runner, t);
  }

  // Agents.
  let nextCommit = 0;
  function startTask(actor: Actor, t: number) {
    if (t > p.horizon_min) return;
    const taskId = stats.tasksStarted++;
    const version = taskId + 1;
    const files = fileIds[nextCommit % commits.length] as number[];
    nextCommit++;
    const base = p.base === "head" ? main.head : greenRev;
    const turns = Math.min(files.length, uniformInt(rng, 1, p.max_turns));
    const overlay = new Map<number, number>();
    let chunk = 0;
    const turn = (start: number) => {
      const end = start + logNormal(rng, p.think_median_min, p.think_sigma);
      at(end, () => {
        stats.agentTurns++;
        const idle = uniformFloat64(rng) < p.idle_turn_rate;
        let changed: number[] = [];
        if (idle) stats.idleTurns++;
        else {
          const from = Math.ceil((chunk * files.length) / turns);
          chunk++;
          const to = Math.ceil((chunk * files.length) / turns);
          changed = files.slice(from, to);
          for (const f of changed) overlay.set(f, version);
        }
        const acc = main.treeOf(base, overlay);
        const checks = p.checks === "all" ? allChecks : affected(changed);
        const last = !idle && chunk === turns;
        runChecks(actor, acc, checks, end, (done) => {
          if (!last) {
            turn(done);
            return;
          }
          stats.tasksMerged++;
          main.merge(overlay, done);
          onMerge(done);
          startTask(actor, done + p.task_gap_min);
        });
      });
    };
    turn(t);
  }

  /** Checks of the groups `changed` touches; every check when a root file changed. */
  function affected(changed: readonly number[]): number[] {
    const set = new Set<number>();
    for (const f of changed) {
      const s = layout.slotOf[f] as number;
      if (s >= layout.groups.length) return allChecks;
      set.add(s);
    }
    return [...set].sort((a, b) => a - b);
  }

  for (let a = 0; a < p.agents; a++) {
    const machine = a % p.machines;
    const actor: Actor = {
      kind: "agent",
      machine,
      toolchain: toolchains[machine] as number,
      trusted: p.writers === "all",
      local: locals[machine] ?? null,
    };
    const start = (a * p.stagger_min) / p.agents;
    at(start, () => startTask(actor, start));
  }

  while (heap.length > 0) {
    const ev = heap.pop() as Event;
    now = ev.t;
    ev.run();
  }

  const lookups = stats.lookups.agent + stats.lookups.ci;
  const agentHits = stats.hits.agent_local + stats.hits.agent_remote;
  const hits = agentHits + stats.hits.ci_remote;
  const staleness = [...stats.staleness].sort((a, b) => a - b);
  const lagSorted = [...lags].sort((a, b) => a - b);
  return {
    history: {
      commits: commits.length,
      files: layout.files.length,
      groups: layout.groups.length,
      checks: checkCount,
      suite_minutes: r3(durations.reduce((s, d) => s + d, 0)),
    },
    workload: {
      tasks_started: stats.tasksStarted,
      tasks_merged: stats.tasksMerged,
      agent_turns: stats.agentTurns,
      idle_turns: stats.idleTurns,
      ci_runs: stats.ciRuns,
      main_revisions: main.head,
      simulated_minutes: r3(now),
    },
    lookups: { agent: stats.lookups.agent, ci: stats.lookups.ci, total: lookups },
    hits: { ...stats.hits, total: hits },
    hit_rate: {
      agent: ratio(agentHits, stats.lookups.agent),
      agent_remote: ratio(stats.hits.agent_remote, stats.lookups.agent),
      ci: ratio(stats.hits.ci_remote, stats.lookups.ci),
      total: ratio(hits, lookups),
    },
    checks_saved: hits,
    checks_run: stats.checksRun,
    check_minutes_saved: r3(stats.minutesSaved),
    check_minutes_run: r3(stats.minutesRun),
    lookup_minutes: r3(stats.lookupMinutes),
    misses_by_cause: stats.causes,
    evictions,
    staleness: {
      worst_s: staleness.length === 0 ? null : r3(staleness[staleness.length - 1] as number),
      count: staleness.length,
      p95_s: ((x) => (x === null ? null : r3(x)))(nearestRank(staleness, 95)),
    },
    ci_lag: {
      max_min: lagSorted.length === 0 ? null : r3(lagSorted[lagSorted.length - 1] as number),
      p50_min: ((x) => (x === null ? null : r3(x)))(nearestRank(lagSorted, 50)),
      unverified_revisions: main.head - coveredUpTo,
    },
  };
}
