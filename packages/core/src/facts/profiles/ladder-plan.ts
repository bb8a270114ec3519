/**
 * `ladderPlan`: the runnable checks for a query, cheapest trustworthy first
 * (harn-verification.md §1.9, §3.4).
 */
import * as z from "zod";
import {
  coalesce,
  field,
  isDict,
  isNil,
  rustTrim,
  stringList,
  toInt,
  trimmedText,
  truthy,
} from "../harn-values.js";
import { rungRank } from "../rung.js";
import type { CompiledRow } from "./compiled-profiles.js";
import { type LadderRowFacts, ladderRowFacts } from "./ladder-row.js";
import {
  matchRows,
  type ProfileMatch,
  parseProfileQuery,
  readProfiles,
} from "./profile-matches.js";
import { checkRowForLadder } from "./read-checks.js";
import type { ProfileRow } from "./schemas.js";
import { validated } from "./validate.js";

export const LADDER_PLAN_SCHEMA = "harn.verification.ladder_plan.v1";
/** p95 assumed for a row without timings, in ms. */
export const DEFAULT_UNKNOWN_P95_MS = 999999;

/** Skip reasons, in the order the checks run (the first failing check decides). */
export type LadderSkipReason =
  | "missing_or_invalid_rung"
  | "below_min_rung"
  | "above_max_rung"
  | "resource_class_filtered"
  | "stale_prone_filtered"
  | "missing_command";

const RungOption = z.union([z.string(), z.number()]).nullish();
const ClassList = z.union([z.string(), z.array(z.string())]).nullish();
const WarmFacts = z
  .union([z.array(z.record(z.string(), z.unknown())), z.record(z.string(), z.unknown())])
  .nullish();

/** Options of `ladderPlan` (§1.9 plus turngate's `profiles`). */
export const LadderPlanOptionsSchema = z.looseObject({
  profiles: z.unknown().optional(),
  dir: z.string().nullish(),
  min_rung: RungOption,
  max_rung: RungOption,
  resource_classes: ClassList,
  allowed_resource_classes: ClassList,
  timing_kind: z.string().nullish(),
  warm_state_facts: WarmFacts,
  warm_states: WarmFacts,
  unknown_p95_ms: z.number().int().min(0).nullish(),
  allow_stale_prone: z.boolean().nullish(),
  limit: z.number().int().nullish(),
});

export type LadderPlanOptions = z.input<typeof LadderPlanOptionsSchema>;

/** One selected (runnable) row. */
export interface LadderEntry {
  row_id: string;
  row: ProfileRow;
  rung: string;
  rung_rank: number;
  command: unknown;
  runnable: true;
  granularity: unknown;
  trust: unknown;
  resource_class: string;
  /** Expected duration (ms): p95 of the timing kind, else `unknown_p95_ms`. */
  p95_ms: number;
  timing_kind: string;
  warm_state: unknown;
  specificity: number;
  index: number;
  /** `[rung_rank, resource_rank, p95_ms, -specificity, index]`, compared ascending. */
  sort_key: [number, number, number, number, number];
  background: unknown;
}

/** One skipped row. */
export interface LadderSkip {
  row_id: string;
  reason: LadderSkipReason;
  specificity: number;
  index: number;
}

/** `harn.verification.ladder_plan.v1`. */
export interface LadderPlan {
  schema: "harn.verification.ladder_plan.v1";
  query: unknown;
  matches: ProfileMatch[];
  selected: LadderEntry[];
  skipped: LadderSkip[];
  fallback: boolean;
  reason: "no_profile_rows" | "no_matching_runnable_rows" | "profile_rows_selected";
}

export { resourceRank } from "./ladder-row.js";

/**
 * The warm-state fact of each row id: a dict keyed by row id (own keys only), or a list
 * matched on `row_id ?? id` (trimmed; the first fact of an id wins).
 */
function warmFactLookup(facts: unknown): (rowId: string) => unknown {
  if (isDict(facts)) return (rowId) => (Object.hasOwn(facts, rowId) ? facts[rowId] : undefined);
  if (Array.isArray(facts) && facts.length > 0) {
    const byId = new Map<string, unknown>();
    for (const f of facts) {
      const id = trimmedText(coalesce(field(f, "row_id"), field(f, "id"), ""));
      if (!byId.has(id)) byId.set(id, f);
    }
    return (rowId) => byId.get(rowId);
  }
  return () => undefined;
}

const byP95 = (a: LadderEntry, b: LadderEntry) => a.p95_ms - b.p95_ms;

/**
 * `entries` (in match order: most specific first, then by index) sorted by the full key
 * `[rung, resource rank, p95, -specificity, index]`: a stable bucket pass on rung (0–5) ×
 * resource rank (0–4), then a stable sort of each bucket by p95, so the match order decides
 * the rest of the key.
 */
function sortByCost(entries: LadderEntry[]): LadderEntry[] {
  if (entries.length < 2) return entries;
  const buckets: LadderEntry[][] = Array.from({ length: 30 }, () => []);
  for (const e of entries) (buckets[e.sort_key[0] * 5 + e.sort_key[1]] as LadderEntry[]).push(e);
  const out: LadderEntry[] = [];
  for (const bucket of buckets) {
    if (bucket.length > 1) bucket.sort(byP95);
    for (const e of bucket) out.push(e);
  }
  return out;
}

/**
 * Plans the check ladder for `query` over the rows of `options.profiles` (§1.9):
 * 1. `profileMatches(query)` (most specific first);
 * 2. per match, the first failing check skips the row: no valid rung (`check.rung ??
 *    row.rung`, `R0`–`R5` / `"0"`–`"5"` / `0`–`5`) → `missing_or_invalid_rung`; rank below
 *    `min_rung` (default R0; invalid → default) → `below_min_rung`; above `max_rung`
 *    (default R5) → `above_max_rung`; resource class (default `moderate`, lowercased) not
 *    in a non-empty `resource_classes` / `allowed_resource_classes` → `resource_class_filtered`;
 *    `allow_stale_prone: false` and a stale-prone row → `stale_prone_filtered`; no command
 *    (`check.command ?? check.spec ?? row.command ?? row.spec`, nil or blank string) →
 *    `missing_command`;
 * 3. timing kind: `timing_kind` verbatim unless blank or `auto`; then the row's warm-state
 *    fact (`warm_state_facts` / `warm_states`, a list matched on `row_id ?? id` or a dict
 *    keyed by row id) → warm/cold; else the row's warm mode `.warm` then `.ready`; else warm;
 * 4. p95 (ms): cold → `timings.coldMs.p95`; other kinds → `warmMs.p95 ?? coldMs.p95`;
 *    none → `unknown_p95_ms` (default 999999);
 * 5. selected sorted by `[rung, resource rank, p95, -specificity, index]`; `limit` ≥ 0
 *    keeps the first `limit`; skipped keep match order;
 * 6. reason `no_profile_rows` | `no_matching_runnable_rows` | `profile_rows_selected`;
 *    `fallback` = nothing selected.
 * Throws `TurngateValidationError` (path `query.*`, `options.*`, `options.profiles.*`).
 */
export function ladderPlan(query: unknown, options: unknown = {}): LadderPlan {
  const o = validated(LadderPlanOptionsSchema, options ?? {}, "ladder plan options", "options");
  const q = parseProfileQuery(query);
  const { matches, compiled } = matchRows(readProfiles(o.profiles), q);
  const minRank = rungRank(o.min_rung) ?? 0;
  const maxRank = rungRank(o.max_rung) ?? 5;
  const allowed = stringList(coalesce(o.resource_classes, o.allowed_resource_classes)).map((c) =>
    c.toLowerCase(),
  );
  const explicitKind = rustTrim(isNil(o.timing_kind) ? "" : o.timing_kind).toLowerCase();
  const kindGiven = explicitKind !== "" && explicitKind !== "auto";
  const warmFact = warmFactLookup(coalesce(o.warm_state_facts, o.warm_states, []));
  const unknownP95 = toInt(o.unknown_p95_ms) ?? DEFAULT_UNKNOWN_P95_MS;
  const denyStaleProne = o.allow_stale_prone === false;
  const selected: LadderEntry[] = [];
  const skipped: LadderSkip[] = [];
  for (let i = 0; i < matches.length; i++) {
    const match = matches[i] as ProfileMatch;
    const { specificity, index } = match;
    let f: LadderRowFacts;
    if (compiled !== null) f = (compiled[i] as CompiledRow).ladder;
    else {
      checkRowForLadder(match.row, "options.profiles.rows", index);
      f = ladderRowFacts(match.row, index);
    }
    const rank = f.rank;
    // The first failing check decides the reason (§1.9 step 2).
    const reason: LadderSkipReason | undefined =
      rank === null
        ? "missing_or_invalid_rung"
        : rank < minRank
          ? "below_min_rung"
          : rank > maxRank
            ? "above_max_rung"
            : allowed.length > 0 && !allowed.includes(f.resourceClass)
              ? "resource_class_filtered"
              : denyStaleProne && f.staleProne
                ? "stale_prone_filtered"
                : f.commandMissing
                  ? "missing_command"
                  : undefined;
    if (reason !== undefined || rank === null) {
      skipped.push({
        row_id: f.rowId,
        reason: reason ?? "missing_or_invalid_rung",
        specificity,
        index,
      });
      continue;
    }
    const warmState = warmFact(f.rowId);
    const timingKind = kindGiven
      ? explicitKind
      : !isNil(warmState)
        ? truthy(field(warmState, "warm"))
          ? "warm"
          : "cold"
        : f.modeKind;
    const p95 = (timingKind === "cold" ? f.coldP95 : f.warmP95) ?? unknownP95;
    selected.push({
      row_id: f.rowId,
      row: match.row,
      rung: `R${rank}`,
      rung_rank: rank,
      command: f.command,
      runnable: true,
      granularity: f.granularity,
      trust: f.trust,
      resource_class: f.resourceClass,
      p95_ms: p95,
      timing_kind: timingKind,
      warm_state: warmState ?? null,
      specificity,
      index,
      sort_key: [rank, f.resourceRank, p95, specificity === 0 ? 0 : -specificity, index],
      background: f.background,
    });
  }
  const ranked = sortByCost(selected);
  const limit = toInt(o.limit);
  const kept =
    limit !== null && limit >= 0 && limit < ranked.length ? ranked.slice(0, limit) : ranked;
  return {
    schema: LADDER_PLAN_SCHEMA,
    query,
    matches,
    selected: kept,
    skipped,
    fallback: kept.length === 0,
    reason:
      matches.length === 0
        ? "no_profile_rows"
        : kept.length === 0
          ? "no_matching_runnable_rows"
          : "profile_rows_selected",
  };
}
