/**
 * `ladderPlan`: the runnable checks for a query, cheapest trustworthy first
 * (harn-verification.md §1.9, §3.4).
 */
import { z } from "zod";
import {
  coalesce,
  display,
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
import {
  matchesIn,
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

/** Resource rank: cheap 0, moderate 1, heavy 2, remote_ok / remote-ok / remote 3, else 4. */
export function resourceRank(resourceClass: string): number {
  switch (resourceClass) {
    case "cheap":
      return 0;
    case "moderate":
      return 1;
    case "heavy":
      return 2;
    case "remote_ok":
    case "remote-ok":
    case "remote":
      return 3;
    default:
      return 4;
  }
}

function warmModeOf(row: ProfileRow): unknown {
  const mode = coalesce(row.warmMode, row.warm_mode, row.warmState, row.warm_state);
  if (isNil(mode)) return undefined;
  return isDict(mode) ? mode : { warm: truthy(mode) };
}

function warmFactFor(facts: unknown, rowId: string): unknown {
  if (isDict(facts)) return facts[rowId];
  if (Array.isArray(facts)) {
    return facts.find(
      (f) => trimmedText(coalesce(field(f, "row_id"), field(f, "id"), "")) === rowId,
    );
  }
  return undefined;
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
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
  const matches = matchesIn(readProfiles(o.profiles), q);
  const minRank = rungRank(o.min_rung) ?? 0;
  const maxRank = rungRank(o.max_rung) ?? 5;
  const allowed = stringList(coalesce(o.resource_classes, o.allowed_resource_classes)).map((c) =>
    c.toLowerCase(),
  );
  const explicitKind = rustTrim(isNil(o.timing_kind) ? "" : o.timing_kind).toLowerCase();
  const facts = coalesce(o.warm_state_facts, o.warm_states, []);
  const unknownP95 = toInt(o.unknown_p95_ms) ?? DEFAULT_UNKNOWN_P95_MS;
  const selected: LadderEntry[] = [];
  const skipped: LadderSkip[] = [];
  for (const match of matches) {
    checkRowForLadder(match.row, "options.profiles.rows", match.index);
    const row = match.row ?? {};
    const rawId = trimmedText(coalesce(row.id, row.name, ""));
    const rowId = rawId === "" ? `profile/${match.index}` : rawId;
    const check = isDict(row.check) ? row.check : {};
    const rank = rungRank(coalesce(check.rung, row.rung));
    const cls = rustTrim(
      display(
        coalesce(
          check.resourceClass,
          check.resource_class,
          row.resourceClass,
          row.resource_class,
          "moderate",
        ),
      ),
    ).toLowerCase();
    const resourceClass = cls === "" ? "moderate" : cls;
    const command = coalesce(check.command, check.spec, row.command, row.spec);
    // The first failing check decides the reason (§1.9 step 2).
    const reason: LadderSkipReason | undefined =
      rank === null
        ? "missing_or_invalid_rung"
        : rank < minRank
          ? "below_min_rung"
          : rank > maxRank
            ? "above_max_rung"
            : allowed.length > 0 && !allowed.includes(resourceClass)
              ? "resource_class_filtered"
              : o.allow_stale_prone === false &&
                  truthy(
                    coalesce(
                      check.staleProne,
                      check.stale_prone,
                      row.staleProne,
                      row.stale_prone,
                      false,
                    ),
                  )
                ? "stale_prone_filtered"
                : isNil(command) || (typeof command === "string" && rustTrim(command) === "")
                  ? "missing_command"
                  : undefined;
    if (reason !== undefined || rank === null) {
      skipped.push({
        row_id: rowId,
        reason: reason ?? "missing_or_invalid_rung",
        specificity: match.specificity,
        index: match.index,
      });
      continue;
    }
    const warmState = warmFactFor(facts, rowId);
    let timingKind: string;
    if (explicitKind !== "" && explicitKind !== "auto") timingKind = explicitKind;
    else if (!isNil(warmState)) timingKind = truthy(field(warmState, "warm")) ? "warm" : "cold";
    else {
      const mode = warmModeOf(row);
      const warm = field(mode, "warm");
      const ready = field(mode, "ready");
      if (!isNil(warm)) timingKind = truthy(warm) ? "warm" : "cold";
      else if (!isNil(ready)) timingKind = truthy(ready) ? "warm" : "cold";
      else timingKind = "warm";
    }
    const timings = row.timings ?? {};
    const raw =
      timingKind === "cold"
        ? field(timings.coldMs, "p95")
        : coalesce(field(timings.warmMs, "p95"), field(timings.coldMs, "p95"));
    const p95 = toInt(raw) ?? unknownP95;
    const specificity = match.specificity;
    const index = match.index;
    selected.push({
      row_id: rowId,
      row,
      rung: `R${rank}`,
      rung_rank: rank,
      command,
      runnable: true,
      granularity: coalesce(check.granularity, row.granularity) ?? null,
      trust: coalesce(check.trust, check.trust_level, row.trust, row.trust_level) ?? null,
      resource_class: resourceClass,
      p95_ms: p95,
      timing_kind: timingKind,
      warm_state: warmState ?? null,
      specificity,
      index,
      sort_key: [
        rank,
        resourceRank(resourceClass),
        p95,
        specificity === 0 ? 0 : -specificity,
        index,
      ],
      background: coalesce(check.background, row.background, false),
    });
  }
  selected.sort((a, b) => compareKeys(a.sort_key, b.sort_key));
  const limit = toInt(o.limit);
  const kept =
    limit !== null && limit >= 0 && limit < selected.length ? selected.slice(0, limit) : selected;
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
