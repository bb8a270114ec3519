/**
 * Parameters of the fleet simulation (issue #20 item 5): their defaults, validation, and the
 * assumptions the simulation states next to its figures. Times are minutes unless a name says
 * otherwise (`*_s` = seconds).
 */

/** Who may upload results to the remote cache (issue #20 item 3: uploads only where the host enables them). */
export type Writers = "ci" | "all";
/** What a check's key covers: the whole source scope (the key as issue #20 defines it) or its package only. */
export type KeyScope = "repo" | "package";
/** Which checks a turn runs: every configured check, or only those whose package the turn changed. */
export type ChecksRun = "all" | "affected";
/** Where an agent's task starts: main's head, or the newest main revision CI has finished verifying. */
export type BaseChoice = "head" | "green";

/** Every knob of one simulation run. */
export interface FleetParams {
  /** Seed of the pseudo-random streams (Mersenne Twister from pure-rand); same seed + same history → same figures. */
  seed: number;
  agents: number;
  /** Agent machines; agent `a` runs on machine `a mod machines`. */
  machines: number;
  /** CI runners (trusted writers), separate from the agent machines, verifying main after merges. */
  ci_runners: number;
  writers: Writers;
  key_scope: KeyScope;
  checks: ChecksRun;
  base: BaseChoice;
  /** Simulated day: no task starts after this many minutes (running ones finish). */
  horizon_min: number;
  /** Agent `a` starts at `a · stagger_min / agents`. */
  stagger_min: number;
  /** An agent's edit time before each turn's checks: log-normal with this median and sigma. */
  think_median_min: number;
  think_sigma: number;
  /** Turns per task: uniform in 1..max_turns (at most one turn per changed file). */
  max_turns: number;
  /** Probability that a turn changes nothing in the source scope (a question, a read, a re-check). */
  idle_turn_rate: number;
  /** Pause between an agent's tasks. */
  task_gap_min: number;
  /** Each check's duration, drawn once per check: log-normal, clamped to [0.05, 60] minutes. */
  check_median_min: number;
  check_sigma: number;
  /** Cost of one remote lookup (a hit costs this instead of the check's duration; a miss adds it). */
  lookup_s: number;
  /** Delay from a check's end to its artifact being readable by others: uniform in [min, max]. */
  upload_min_s: number;
  upload_max_s: number;
  /** Remote cache capacity in artifacts; least recently used is evicted first. */
  remote_capacity: number;
  /** Per-machine local result cache capacity in results (LRU); 0 disables it. */
  local_capacity: number;
  /** Fraction of agent machines whose toolchain differs from CI's (rounded to whole machines). */
  drift: number;
  /** Number of distinct drifted toolchains; a drifted machine gets one of them at random. */
  drift_variants: number;
}

/** The defaults the figures of docs/scale-out.md are measured with. */
export const DEFAULT_PARAMS: Readonly<FleetParams> = Object.freeze({
  seed: 20,
  agents: 1000,
  machines: 100,
  ci_runners: 10,
  writers: "ci",
  key_scope: "repo",
  checks: "all",
  base: "head",
  horizon_min: 480,
  stagger_min: 240,
  think_median_min: 4,
  think_sigma: 0.5,
  max_turns: 4,
  idle_turn_rate: 0.1,
  task_gap_min: 1,
  check_median_min: 1,
  check_sigma: 0.8,
  lookup_s: 0.1,
  upload_min_s: 1,
  upload_max_s: 10,
  remote_capacity: 50_000,
  local_capacity: 2_000,
  drift: 0.05,
  drift_variants: 2,
});

/** Bad parameter value; `field` names the parameter (the CLI flag is `--` + field with `-`). */
export class FleetParamError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
    this.name = "FleetParamError";
  }
}

const ENUMS: Record<string, readonly string[]> = {
  writers: ["ci", "all"],
  key_scope: ["repo", "package"],
  checks: ["all", "affected"],
  base: ["head", "green"],
};
const INTEGERS = new Set([
  "seed",
  "agents",
  "machines",
  "ci_runners",
  "max_turns",
  "remote_capacity",
  "local_capacity",
  "drift_variants",
]);
const AT_LEAST_ONE = new Set(["agents", "machines", "ci_runners", "max_turns", "drift_variants"]);
const FRACTIONS = new Set(["idle_turn_rate", "drift"]);

/**
 * Defaults overlaid with `overrides`, validated: integers where counts are meant, fractions in
 * [0, 1], durations ≥ 0, `upload_min_s ≤ upload_max_s`, enums by name.
 * Throws FleetParamError naming the field.
 */
export function resolveParams(
  overrides: Partial<Record<keyof FleetParams, unknown>> = {},
): FleetParams {
  const out: Record<string, unknown> = { ...DEFAULT_PARAMS };
  for (const [field, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (!(field in DEFAULT_PARAMS)) throw new FleetParamError(field, "unknown parameter");
    const allowed = ENUMS[field];
    if (allowed !== undefined) {
      if (typeof value !== "string" || !allowed.includes(value))
        throw new FleetParamError(
          field,
          `expected one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`,
        );
      out[field] = value;
      continue;
    }
    const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
    if (typeof n !== "number" || !Number.isFinite(n))
      throw new FleetParamError(field, `expected a number, got ${JSON.stringify(value)}`);
    if (INTEGERS.has(field) && !Number.isInteger(n))
      throw new FleetParamError(field, `expected an integer, got ${n}`);
    if (n < 0) throw new FleetParamError(field, `expected ≥ 0, got ${n}`);
    if (AT_LEAST_ONE.has(field) && n < 1)
      throw new FleetParamError(field, `expected ≥ 1, got ${n}`);
    if (FRACTIONS.has(field) && n > 1)
      throw new FleetParamError(field, `expected a fraction in [0, 1], got ${n}`);
    out[field] = n;
  }
  const p = out as unknown as FleetParams;
  if (p.upload_min_s > p.upload_max_s)
    throw new FleetParamError(
      "upload_min_s",
      `${p.upload_min_s} is above upload_max_s ${p.upload_max_s}`,
    );
  return p;
}

/** The model's assumptions in plain sentences, with the parameter values of this run filled in. */
export function assumptions(p: FleetParams): string[] {
  const scope =
    p.key_scope === "repo"
      ? "each check's key covers the whole source scope (every file of the tree), the check's identity and the toolchain — the key issue #20 defines"
      : "each check's key covers its package's files plus the root manifests and lockfiles, the check's identity and the toolchain (a per-package key, for comparison; not what turngate builds)";
  return [
    "History: each task replays one commit's file list (git log --no-merges --name-only, oldest first, cycling); a listed file takes that task's own new content (so two tasks never write the same bytes), a deletion counts as new content; at the start every file of the history exists once at one shared version.",
    `Packages: a path's group is its first folder, or its first two under packages/, apps/, libs/, bindings/, crates/, services/, plugins/, modules/; root-level manifests and lockfiles (package.json, *lock*, go.mod, go.sum, Cargo.toml, pyproject.toml, requirements*.txt, tsconfig*.json, turbo.json) are inputs of every check; other root files belong to no check's package. One check per group.`,
    `Key: ${scope}. Two lookups hit when their trees give equal key inputs; file contents are tracked per file and version, hashed into a 64-bit multiset hash per group (collision odds negligible at these counts).`,
    `Agents: ${p.agents} agents on ${p.machines} machines (agent a on machine a mod ${p.machines}); agent a starts at a·${p.stagger_min}/${p.agents} min; no task starts after ${p.horizon_min} min. Machine contention is not modelled (agents on one machine run their checks concurrently).`,
    `Tasks: a task starts from main's ${p.base === "head" ? "head" : "newest CI-verified revision"} and takes 1..${p.max_turns} turns (uniform, at most one per changed file); turn i applies the first ceil(i·n/turns) files of the change set; with probability ${p.idle_turn_rate} a turn changes nothing; each turn's edit time is log-normal (median ${p.think_median_min} min, sigma ${p.think_sigma}); ${p.task_gap_min} min between tasks.`,
    `Checks: ${p.checks === "all" ? "every turn runs every check" : "a turn runs only the checks of groups it changed (all of them when it changed a root manifest), CI runs every check"}, one after another, each looked up first (local cache, then remote); each check's duration is drawn once, log-normal (median ${p.check_median_min} min, sigma ${p.check_sigma}, clamped to 0.05–60 min); results are deterministic (a pass or a failure is reused alike).`,
    `Merge: a task's last turn merges into main at once (rebased onto the current head, no conflicts); CI runners (${p.ci_runners}, trusted, toolchain of record, no local cache) each take the newest unverified main revision when free, skipping older ones, and run every check.`,
    `Remote cache: ${p.writers === "ci" ? "only CI runners upload (the issue's trust model)" : "every machine uploads (no trust boundary, for comparison)"}; an upload is readable ${p.upload_min_s}–${p.upload_max_s} s (uniform) after its check ends; a lookup costs ${p.lookup_s} s; capacity ${p.remote_capacity} artifacts, least recently used evicted; no expiry within the day.`,
    `Local cache: each agent machine keeps the last ${p.local_capacity} results it ran or fetched (LRU), read before the remote.`,
    `Toolchain drift: ${Math.round(p.drift * p.machines)} of ${p.machines} agent machines (${p.drift}) run one of ${p.drift_variants} other toolchains, so their keys differ from CI's.`,
    "Staleness: for a miss whose key a trusted writer had already finished checking but whose upload was not yet readable, the age of that result at the lookup; the worst case is the largest such age.",
  ];
}
