/**
 * The pure Facts II methods (harn-verification.md §1.4, §1.5, §1.9, §1.10, §3.2–3.6):
 * profile matches, ladder plan, HUD model and text, the observation of a command result and
 * recording it into a given record set. Each handler only calls `@turngate/core`; core's
 * typed errors already name wire paths (`options.min_rung`, `result.exit_code`, `row_id`).
 */
import {
  type CompiledProfiles,
  hudModel,
  hudText,
  ladderPlan,
  observationFromCommandResult,
  profileMatches,
  recordCheckResult,
} from "@turngate/core";
import * as z from "zod";
import { BridgeError } from "../errors.js";
import { defineMethod } from "../method.js";
import { toBridgeError } from "../rpc/dispatch.js";
import {
  CheckObservationSchema,
  CommandResultParamSchema,
  HudModelSchema,
  HudOptionsParamSchema,
  LadderPlanOptionsParamSchema,
  LadderPlanSchema,
  ObservationOptionsParamSchema,
  ProfileMatchesOptionsSchema,
  ProfileMatchSchema,
  ProfileQueryParamSchema,
  RecordedCheckSchema,
} from "../wire/facts-profiles.js";
import { jsonObject } from "../wire/json-object.js";
import { withFieldPath } from "./field-path.js";

type Out<S extends z.ZodType> = z.output<S>;

const STATE = z
  .unknown()
  .describe(
    "the HUD state {started_ms?, now_ms?, last_edit_ms?, path?, language?, task?, query?, last_check?: {rung, verdict|status, at_ms|ended_ms, bound_snapshot}, current_hashes?}; not an object → missing_state",
  );

/**
 * Reads the record set seen from store directory `dir` (Harn's `dir`, relative to the store
 * root; nil or blank = the root) of the profile store rooted at `storeDir`, validated and
 * indexed; `null` when there is none. The stdio bridge passes `@turngate/node`'s
 * `ProfileStore.compiled`; in-process endpoints (Pyodide, `@turngate/bridge/pure`) have none.
 * Throws a typed error with path `dir` for a bad `dir`, `profile_store_invalid` for a
 * corrupt store file.
 */
export type ProfileStoreReader = (
  storeDir: string,
  dir: unknown,
) => Promise<CompiledProfiles | null>;

/** The methods that read the store when given `store_dir` (served by the stdio bridge). */
export const STORE_READING_METHODS: ReadonlySet<string> = new Set([
  "facts.profile_matches",
  "facts.ladder_plan",
  "facts.hud_model",
  "facts.hud_text",
]);

/**
 * `run(options)` over the profiles a store-reading call plans with: `options` as given
 * without `store_dir`; else, once the store is read (`storeProfiles`, same errors),
 * `options` with the store's record set as `profiles`. Returns `run`'s result, or a promise
 * of it when the store is read.
 */
function withStoreProfiles<O extends { profiles?: unknown }, R>(
  read: ProfileStoreReader | undefined,
  storeDir: string | undefined,
  options: O,
  dir: unknown,
  dirPath: string,
  run: (options: O) => R,
): R | Promise<R> {
  const store = storeProfiles(read, storeDir, options.profiles, dir, dirPath);
  return store === null ? run(options) : store.then((profiles) => run({ ...options, profiles }));
}

const STORE_DIR = z
  .string()
  .min(1)
  .optional()
  .describe(
    "root of the profile store facts.run_check records into (its store_dir; absolute, or relative to the bridge's cwd): the record set seen from the store directory options.dir (for the HUD: options.dir, else state.dir) is read there, as @turngate/node's ProfileStore reads it, and used as options.profiles (which must then be absent); no store file → no rows. Served by the stdio bridge only; an in-process endpoint (Pyodide, @turngate/bridge/pure) refuses it (invalid_params, path store_dir)",
  );

/**
 * The profiles a store-reading call plans over: `null` (use `options.profiles`) without
 * `store_dir`; else a promise of the store's record set seen from `dir`. Checks run before
 * any I/O and throw synchronously: `options.profiles` given too (path `options.profiles`),
 * no reader here (path `store_dir`). A bad `dir` rejects with `invalid_params` at `dirPath`.
 */
function storeProfiles(
  read: ProfileStoreReader | undefined,
  storeDir: string | undefined,
  inline: unknown,
  dir: unknown,
  dirPath: string,
): Promise<CompiledProfiles | null> | null {
  if (storeDir === undefined) return null;
  if (inline !== undefined && inline !== null) {
    throw new BridgeError(
      "invalid_params",
      "options.profiles: pass either store_dir (read the profile store) or options.profiles (a record set inline), not both",
      "options.profiles",
    );
  }
  if (read === undefined) {
    throw new BridgeError(
      "invalid_params",
      "store_dir: this endpoint runs in-process and reads no files; call the stdio bridge (turngate bridge --stdio), or read the store yourself and pass its record set as options.profiles",
      "store_dir",
    );
  }
  return read(storeDir, dir).catch((error: unknown) => {
    const wire = toBridgeError(error);
    if (wire.path === "dir") throw new BridgeError(wire.code, wire.message, dirPath);
    throw wire;
  });
}

const dirOfState = (state: unknown): unknown =>
  typeof state === "object" && state !== null && !Array.isArray(state)
    ? (state as Record<string, unknown>).dir
    : undefined;

/**
 * `facts.profile_matches`, `facts.ladder_plan`, `facts.hud_model` and `facts.hud_text`; with
 * `read`, a call that names `store_dir` plans over the store's record set (asynchronously),
 * as `ProfileStore.matches` / `ladderPlan` / `hudModel` do in `@turngate/node`.
 */
export function storeReadingProfileMethods(read?: ProfileStoreReader) {
  return {
    "facts.profile_matches": defineMethod({
      description:
        "The profile rows that apply to a query (harn-verification.md §1.5, §3.5): [{row, specificity, index}] sorted by specificity (bits repo 1, dir 2, language 4, task 8) descending, then index. A row's scope.dir is a glob (* and ? cross /, [..] classes, {a,b}) matched against query.path; language compares ignoring ASCII case. Errors: invalid_params naming the field (query.path, options.profiles.rows.N.scope.dir).",
      params: z.strictObject({
        query: ProfileQueryParamSchema.default({}),
        options: ProfileMatchesOptionsSchema.default({}),
        store_dir: STORE_DIR,
      }),
      result: z.strictObject({ matches: z.array(ProfileMatchSchema) }),
      handler: (p) => {
        const run = (options: Parameters<typeof profileMatches>[1]) => ({
          matches: profileMatches(p.query, options) as Out<typeof ProfileMatchSchema>[],
        });
        return withStoreProfiles(read, p.store_dir, p.options, p.options.dir, "options.dir", run);
      },
    }),

    "facts.ladder_plan": defineMethod({
      description:
        'Plans the check ladder (harn-verification.md §1.9, §3.4): schema harn.verification.ladder_plan.v1; the matching rows filtered by rung bounds (min_rung / max_rung as "R2", "2" or 2), resource_classes, allow_stale_prone: false and a present command, then sorted by [rung, resource rank (cheap < moderate < heavy < remote < other), p95 ms of the timing kind (unknown → unknown_p95_ms, default 999999), -specificity, index]; limit keeps the first n. Skip reasons: missing_or_invalid_rung, below_min_rung, above_max_rung, resource_class_filtered, stale_prone_filtered, missing_command. Errors: invalid_params naming the field.',
      params: z.strictObject({
        query: ProfileQueryParamSchema.default({}),
        options: LadderPlanOptionsParamSchema.default({}),
        store_dir: STORE_DIR,
      }),
      result: LadderPlanSchema,
      handler: (p) => {
        const run = (options: unknown) =>
          ladderPlan(p.query, options) as Out<typeof LadderPlanSchema>;
        return withStoreProfiles(read, p.store_dir, p.options, p.options.dir, "options.dir", run);
      },
    }),

    "facts.hud_model": defineMethod({
      description:
        'The verification HUD as data (harn-verification.md §1.10): schema harn.verification.hud_model.v1 with elapsed, since last edit, the last check\'s age and freshness (its bound snapshot against current_hashes: bound_fresh, bound_stale, unknown_current_hashes or unbound), the next runnable ladder row and the full-verify row (R4..R5) with their p95 labels, and both plans. Durations in ms plus labels ("1m1s"). Pass now_ms for a deterministic answer. Errors: invalid_params naming the field (state.last_check, options.plan_options.min_rung).',
      params: z.strictObject({
        state: STATE,
        options: HudOptionsParamSchema.default({}),
        store_dir: STORE_DIR,
      }),
      result: HudModelSchema,
      handler: (p) => {
        const run = (options: unknown) => hudModel(p.state, options) as Out<typeof HudModelSchema>;
        const [dir, dirPath] = hudDir(p.options.dir, p.state, "state");
        return withStoreProfiles(read, p.store_dir, p.options, dir, dirPath, run);
      },
    }),

    "facts.hud_text": defineMethod({
      description:
        'The HUD as terminal text (harn-verification.md §4.1): "[verification]", "elapsed: 2m0s - since last edit: 1m0s", "last check: R2 -> failed @11s ago - STALE (1 file(s) changed since)" | " (current snapshot)" | " (freshness unknown)", "next check: R0 <command> - est 0s (p95 warm)", "full verify: …", joined by newlines, no trailing newline; "" when nothing is known. model_or_state is a facts.hud_model result or a HUD state (then options apply).',
      params: z.strictObject({
        model_or_state: z
          .unknown()
          .describe("a harn.verification.hud_model.v1 model, or a HUD state"),
        options: HudOptionsParamSchema.default({}),
        store_dir: STORE_DIR,
      }),
      result: z.strictObject({ text: z.string() }),
      // core names the first argument `state` (or `model`); on the wire it is model_or_state.
      handler: (p) => {
        const run = (options: unknown) => ({
          text: withWirePrefix(/^(state|model)(?=\.|$)/, "model_or_state", () =>
            hudText(p.model_or_state, options),
          ),
        });
        const [dir, dirPath] = hudDir(p.options.dir, p.model_or_state, "model_or_state");
        return withStoreProfiles(read, p.store_dir, p.options, dir, dirPath, run);
      },
    }),
  };
}

/** The store directory of a HUD call: `options.dir`, else the state's `dir` (§1.10), with its wire path. */
function hudDir(optionsDir: unknown, state: unknown, stateParam: string): [unknown, string] {
  if (optionsDir !== undefined && optionsDir !== null) return [optionsDir, "options.dir"];
  return [dirOfState(state), `${stateParam}.dir`];
}

/**
 * The pure profile methods: the store-reading four without a reader (`store_dir` is refused
 * naming the field), the observation of a command result and the pure recorder.
 */
export const factsProfileMethods = {
  ...storeReadingProfileMethods(),

  "facts.observation_from_command_result": defineMethod({
    description:
      'The profile observation of a command result (harn-verification.md §1.4, §2.2–2.4): {warm, durationMs?, exit?, snapshot?, failureSignature?, at?}. exit: options.exit, else exit_code, else 124 when timed out, else 0/1 from ok/success. failureSignature: none when the result is ok; else the trimmed combined (or stdout / stderr) text truncated to 4000 characters, or "check <status> exit=<exit>". Errors: invalid_params naming the field (result.exit_code, options.warm).',
    params: z.strictObject({
      result: CommandResultParamSchema,
      options: ObservationOptionsParamSchema.default({}),
    }),
    result: CheckObservationSchema,
    handler: (p) =>
      observationFromCommandResult(p.result, p.options) as Out<typeof CheckObservationSchema>,
  }),

  "facts.record_check_result": defineMethod({
    description:
      "Records a command result into a given profile record set, as a pure reducer (harn-verification.md §1.4, §3.2, §3.3): the observation is applied to the first row whose id is row_id (duration into the warm or cold window of 64, nearest-rank p50/p95/p99 recomputed, samples + 1; an outcome replaces lastRun). Returns {result, observation, row, snapshot: null, profiles}: the updated row (null for an unknown row id, not an error) and the new record set (updatedAt stamped from options.now_ms). Errors: invalid_params naming the field (row_id when blank, options.profiles.rows.N...).",
    params: z.strictObject({
      row_id: z.union([z.string(), z.number()]).describe("the row's id"),
      result: CommandResultParamSchema,
      options: ObservationOptionsParamSchema.extend({
        profiles: jsonObject().nullish().describe("the record set to record into; null = no store"),
      }).default({}),
    }),
    result: RecordedCheckSchema,
    handler: (p) =>
      withFieldPath("", () => recordCheckResult(p.row_id, p.result, p.options)) as Out<
        typeof RecordedCheckSchema
      >,
  }),
};

/**
 * Runs `fn`, re-raising a typed core error whose field path starts with `from` (a core
 * argument name) under the wire param `to`; other paths and codes pass through unchanged,
 * untyped errors stay `internal_error`. @throws BridgeError when `fn` throws a typed error.
 */
function withWirePrefix<T>(from: RegExp, to: string, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    const wire = toBridgeError(error);
    if (wire.code === "internal_error" || wire.path === undefined) throw wire;
    throw new BridgeError(wire.code, wire.message, wire.path.replace(from, to));
  }
}
