/**
 * `hudModel`: where verification stands, as data (harn-verification.md §1.10).
 */
import * as z from "zod";
import {
  clampSafeInteger,
  coalesce,
  display,
  field,
  isDict,
  isNil,
  rustTrim,
  toInt,
  trimmedText,
  unwrapSnapshot,
} from "../harn-values.js";
import { type SnapshotStaleness, snapshotStaleness } from "../snapshot-staleness.js";
import { commandLabel } from "./command-label.js";
import { durationLabel } from "./duration-label.js";
import {
  type LadderEntry,
  type LadderPlan,
  LadderPlanOptionsSchema,
  ladderPlan,
} from "./ladder-plan.js";
import { SafeIntLike } from "./safe-int.js";
import { validated } from "./validate.js";

export const HUD_MODEL_SCHEMA = "harn.verification.hud_model.v1";

// Times in ms: integers within ±(2^53−1) (issue 36; a string is read by Harn's to_int).
const Ms = SafeIntLike.nullish();
const Text = z.union([z.string(), z.number()]).nullish();
const Dict = z.record(z.string(), z.unknown());

/** The HUD state (every key optional). */
export const HudStateSchema = z.looseObject({
  now_ms: Ms,
  started_ms: Ms,
  last_edit_ms: Ms,
  lastEditMs: Ms,
  dir: Text,
  path: Text,
  file: Text,
  language: Text,
  task: Text,
  task_kind: Text,
  query: Dict.nullish(),
  last_check: Dict.nullish(),
  lastCheck: Dict.nullish(),
  current_hashes: Dict.nullish(),
  current_snapshot: Dict.nullish(),
  currentSnapshot: Dict.nullish(),
});

/** The times `hudModel` reads from a last check (`state.last_check` / `lastCheck`). */
const HudLastCheckTimesSchema = z.looseObject({
  at_ms: Ms,
  atMs: Ms,
  ended_ms: Ms,
  started_ms: Ms,
});

/** Options of `hudModel` (§1.10 plus turngate's `profiles`). */
export const HudOptionsSchema = z.looseObject({
  profiles: z.unknown().optional(),
  now_ms: Ms,
  dir: Text,
  query: Dict.nullish(),
  plan_options: Dict.nullish(),
  full_plan_options: Dict.nullish(),
  next_limit: SafeIntLike.nullish(),
  full_min_rung: z.union([z.string(), z.number()]).nullish(),
  full_max_rung: z.union([z.string(), z.number()]).nullish(),
  current_hashes: Dict.nullish(),
  current_snapshot: Dict.nullish(),
});

/** A last check's freshness: a staleness result, or `unknown_current_hashes` / `unbound`. */
export type HudFreshness =
  | SnapshotStaleness
  | {
      schema: "harn.verification.snapshot_staleness.v1";
      status: "unknown_current_hashes" | "unbound";
      stale: false;
      fresh: false;
      staleFiles: string[];
      stale_files: string[];
      changed_files: string[];
      advisory: true;
      reason: string;
    };

/** The last check as the HUD shows it. */
export interface HudLastCheck {
  rung: string;
  verdict: string;
  at_ms: number;
  age_ms: number;
  age: string;
  freshness: HudFreshness;
}

/** A ladder entry as the HUD shows it. */
export interface HudEntry {
  row_id: string;
  rung: string;
  command: string;
  label: string;
  p95_ms: number;
  p95: string;
  timing_kind: string;
  resource_class: string;
  granularity: unknown;
  trust: unknown;
  row: unknown;
}

/** `harn.verification.hud_model.v1`. */
export type HudModel =
  | { schema: "harn.verification.hud_model.v1"; visible: false; reason: "missing_state"; lines: [] }
  | {
      schema: "harn.verification.hud_model.v1";
      visible: boolean;
      reason: "verification_facts_available" | "no_verification_facts";
      dir: string;
      query: Record<string, unknown>;
      elapsed_ms: number;
      elapsed: string;
      since_last_edit_ms: number | null;
      since_last_edit: string | null;
      last_check: HudLastCheck | null;
      next_check: HudEntry | null;
      full_check: HudEntry | null;
      plans: { next: LadderPlan; full: LadderPlan };
    };

function hudEntry(e: LadderEntry | undefined): HudEntry | null {
  if (e === undefined) return null;
  return {
    row_id: e.row_id,
    rung: e.rung,
    command: commandLabel(e.command),
    label: trimmedText(coalesce(field(e.row, "label"), field(e.row, "name"), e.row_id, "")),
    p95_ms: e.p95_ms,
    p95: durationLabel(e.p95_ms),
    timing_kind: e.timing_kind ?? "warm",
    resource_class: e.resource_class,
    granularity: e.granularity,
    trust: e.trust,
    row: e.row,
  };
}

function trimmedNonBlank(value: unknown): string | undefined {
  if (isNil(value)) return undefined;
  const t = rustTrim(display(value));
  return t === "" ? undefined : t;
}

/**
 * The HUD model of `state` (§1.10). `now_ms` = `options.now_ms ?? state.now_ms ?? Date.now()`;
 * elapsed = now − `state.started_ms` (default now); since last edit = now −
 * `state.last_edit_ms` / `lastEditMs` (null when absent). The query is built from
 * `state.path ?? file`, `language`, `task ?? task_kind`, then `state.query`, then
 * `options.query`. Two ladder plans over `options.profiles`: next (`plan_options` +
 * `resource_classes` / `allow_stale_prone` / `timing_kind` / `warm_state_facts` copied from
 * options, `limit` = `next_limit` default 1) and full verify (`full_min_rung` R4 ..
 * `full_max_rung` R5, limit 1, then `full_plan_options`). The last check
 * (`state.last_check` / `lastCheck`) gets its age (ms, label) and freshness: its
 * `bound_snapshot ?? boundSnapshot ?? snapshot` against the current hashes by
 * `snapshotStaleness`; with no current hashes `unknown_current_hashes`; with no binding
 * `unbound`. Not a dict → `{visible: false, reason: "missing_state", lines: []}`.
 * Every time (`now_ms`, `started_ms`, `last_edit_ms`, the last check's `at_ms`, …) and
 * `next_limit` must read as an integer within ±(2^53−1); elapsed, since-edit and age are
 * clamped to that range. Throws `TurngateValidationError` (path `state.*`, `options.*`).
 */
export function hudModel(state: unknown, options: unknown = {}): HudModel {
  if (!isDict(state)) {
    return { schema: HUD_MODEL_SCHEMA, visible: false, reason: "missing_state", lines: [] };
  }
  const s = validated(HudStateSchema, state, "hud state", "state");
  const o = validated(HudOptionsSchema, options ?? {}, "hud options", "options");
  const nowMs = toInt(coalesce(o.now_ms, s.now_ms, Date.now())) ?? 0;
  const startedMs = toInt(coalesce(s.started_ms, nowMs)) ?? nowMs;
  const lastEditMs = toInt(coalesce(s.last_edit_ms, s.lastEditMs));
  const dir = trimmedText(coalesce(o.dir, s.dir, "."));
  const query: Record<string, unknown> = {};
  const path = trimmedNonBlank(coalesce(s.path, s.file));
  if (path !== undefined) query.path = path;
  const language = trimmedNonBlank(s.language);
  if (language !== undefined) query.language = language;
  const task = trimmedNonBlank(coalesce(s.task, s.task_kind));
  if (task !== undefined) query.task = task;
  if (isDict(s.query)) Object.assign(query, s.query);
  if (isDict(o.query)) Object.assign(query, o.query);

  if (!isNil(o.plan_options)) {
    validated(LadderPlanOptionsSchema, o.plan_options, "hud options", "options.plan_options");
  }
  if (!isNil(o.full_plan_options)) {
    validated(
      LadderPlanOptionsSchema,
      o.full_plan_options,
      "hud options",
      "options.full_plan_options",
    );
  }
  const planOptions: Record<string, unknown> = { ...(o.plan_options ?? {}) };
  if (!("dir" in planOptions)) planOptions.dir = dir;
  if (!("profiles" in planOptions) && o.profiles !== undefined) planOptions.profiles = o.profiles;
  for (const key of ["resource_classes", "allow_stale_prone", "timing_kind", "warm_state_facts"]) {
    if (key in o && !(key in planOptions)) planOptions[key] = o[key];
  }
  const nextPlan = ladderPlan(query, {
    ...planOptions,
    limit: toInt(coalesce(o.next_limit, 1)) ?? 1,
  });
  const fullPlan = ladderPlan(query, {
    ...planOptions,
    min_rung: coalesce(o.full_min_rung, "R4"),
    max_rung: coalesce(o.full_max_rung, "R5"),
    limit: 1,
    ...(o.full_plan_options ?? {}),
  });
  const current = unwrapSnapshot(
    coalesce(
      o.current_hashes,
      o.current_snapshot,
      s.current_hashes,
      s.current_snapshot,
      s.currentSnapshot,
    ),
  );
  const last = coalesce(s.last_check, s.lastCheck);
  let lastCheck: HudLastCheck | null = null;
  if (isDict(last)) {
    const lastKey = isNil(s.last_check) ? "lastCheck" : "last_check";
    validated(HudLastCheckTimesSchema, last, "hud state", `state.${lastKey}`);
    const atMs =
      toInt(coalesce(last.at_ms, last.atMs, last.ended_ms, last.started_ms, nowMs)) ?? nowMs;
    // Two times within ±(2^53−1) may lie 2^54 apart: the age is clamped to the schema's range.
    const ageMs = clampSafeInteger(nowMs - atMs);
    const bound = coalesce(last.bound_snapshot, last.boundSnapshot, last.snapshot);
    let freshness: HudFreshness;
    if (isDict(bound) && isDict(current)) freshness = snapshotStaleness(bound, current);
    else {
      freshness = {
        schema: "harn.verification.snapshot_staleness.v1",
        status: isDict(bound) ? "unknown_current_hashes" : "unbound",
        stale: false,
        fresh: false,
        staleFiles: [],
        stale_files: [],
        changed_files: [],
        advisory: true,
        reason: isDict(bound)
          ? "current file hashes unavailable; freshness unknown"
          : "last check has no snapshot binding",
      };
    }
    lastCheck = {
      rung: display(coalesce(last.rung, "R?")),
      verdict: display(coalesce(last.verdict, last.status, "?")),
      at_ms: atMs,
      age_ms: ageMs,
      age: durationLabel(ageMs),
      freshness,
    };
  }
  const nextCheck = hudEntry(nextPlan.selected[0]);
  const fullCheck = hudEntry(fullPlan.selected[0]);
  const visible = lastCheck !== null || nextCheck !== null || fullCheck !== null;
  const elapsedMs = clampSafeInteger(nowMs - startedMs);
  const sinceMs = lastEditMs === null ? null : clampSafeInteger(nowMs - lastEditMs);
  return {
    schema: HUD_MODEL_SCHEMA,
    visible,
    reason: visible ? "verification_facts_available" : "no_verification_facts",
    dir,
    query,
    elapsed_ms: elapsedMs,
    elapsed: durationLabel(elapsedMs),
    since_last_edit_ms: sinceMs,
    since_last_edit: sinceMs === null ? null : durationLabel(sinceMs),
    last_check: lastCheck,
    next_check: nextCheck,
    full_check: fullCheck,
    plans: { next: nextPlan, full: fullPlan },
  };
}
