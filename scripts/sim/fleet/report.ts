/**
 * Text and JSON output of the fleet simulation (issue #20 item 5).
 */
import type { FleetParams } from "./params.js";
import { type FleetResults, MISS_CAUSES } from "./simulate.js";

/** Schema name of `--json` output. */
export const FLEET_SIM_SCHEMA = "turngate.fleet_sim.v1";

/**
 * One run as printed by `--json`: the repository's name (not its path), the revision whose
 * ancestry was replayed, params, assumptions, results, runtime (wall-clock ms of the simulation).
 */
export interface FleetRun {
  schema: typeof FLEET_SIM_SCHEMA;
  repo: string;
  rev: string;
  params: FleetParams;
  assumptions: string[];
  results: FleetResults;
  runtime_ms: number;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const num = (x: number) => x.toLocaleString("en-US", { maximumFractionDigits: 1 });

/** Human-readable report of one run: figures first, then the assumptions. */
export function formatRun(run: FleetRun): string {
  const r = run.results;
  const p = run.params;
  const lines = [
    `fleet simulation of ${run.repo} at ${run.rev}: ${r.history.commits} commits, ${r.history.files} files, ${r.history.checks} checks (suite ${num(r.history.suite_minutes)} min), seed ${p.seed}`,
    `  key scope ${p.key_scope}, writers ${p.writers}, checks ${p.checks}, base ${p.base}`,
    `  workload: ${num(r.workload.tasks_merged)} tasks merged of ${num(r.workload.tasks_started)} started, ${num(r.workload.agent_turns)} agent turns (${num(r.workload.idle_turns)} idle), ${num(r.workload.ci_runs)} CI runs, ${num(r.workload.main_revisions)} main revisions, ${num(r.workload.simulated_minutes)} simulated min`,
    `  hit rate: ${pct(r.hit_rate.total)} of ${num(r.lookups.total)} lookups (agents ${pct(r.hit_rate.agent)}: local ${num(r.hits.agent_local)}, remote ${num(r.hits.agent_remote)}; CI ${pct(r.hit_rate.ci)}: remote ${num(r.hits.ci_remote)})`,
    `  checks saved: ${num(r.checks_saved)} (${num(r.check_minutes_saved)} check-minutes; ${num(r.checks_run)} checks run, ${num(r.check_minutes_run)} check-minutes; lookups cost ${num(r.lookup_minutes)} min)`,
    `  misses: ${MISS_CAUSES.map((c) => `${c} ${num(r.misses_by_cause[c])}`).join(", ")}; evictions ${num(r.evictions)}`,
    `  worst-case staleness: ${r.staleness.worst_s === null ? "none (no miss had a finished result still uploading)" : `${r.staleness.worst_s} s (${num(r.staleness.count)} misses had a finished result still uploading; p95 ${r.staleness.p95_s} s)`}`,
    `  CI lag (merge → covering CI run finished): max ${r.ci_lag.max_min ?? "n/a"} min, p50 ${r.ci_lag.p50_min ?? "n/a"} min; ${r.ci_lag.unverified_revisions} revisions never covered`,
    `  ran in ${(run.runtime_ms / 1000).toFixed(2)} s`,
    "assumptions:",
    ...run.assumptions.map((a) => `  - ${a}`),
  ];
  return `${lines.join("\n")}\n`;
}

/** Markdown table of several runs (the scale-out table of docs/scale-out.md). */
export function formatTable(runs: readonly FleetRun[]): string {
  const head =
    "| key scope | writers | hit rate (all / agents' remote) | checks saved | check-minutes saved | checks run | worst-case staleness | runtime |\n|---|---|---|---|---|---|---|---|";
  const rows = runs.map((run) => {
    const r = run.results;
    return `| ${run.params.key_scope} | ${run.params.writers} | ${pct(r.hit_rate.total)} / ${pct(r.hit_rate.agent_remote)} | ${num(r.checks_saved)} | ${num(r.check_minutes_saved)} | ${num(r.checks_run)} | ${r.staleness.worst_s === null ? "none" : `${r.staleness.worst_s} s`} | ${(run.runtime_ms / 1000).toFixed(2)} s |`;
  });
  return `${[head, ...rows].join("\n")}\n`;
}
