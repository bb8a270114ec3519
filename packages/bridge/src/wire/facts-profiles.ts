/**
 * Wire shapes of the Facts II methods (harn-verification.md §1.4, §1.5, §1.9, §1.10, §2.6–2.8):
 * profile matches, ladder plan, HUD model and text, check observations. Harn's field names
 * are kept (camelCase `durationMs`, `failureSignature`, `warmMs`, …). The params reuse
 * `@turngate/core`'s schemas, so a bad field is refused by the bridge with the same path
 * core would name (`options.profiles.rows.0.scope.dir`).
 */
import {
  CommandResultSchema,
  HudOptionsSchema,
  HudStateSchema,
  LadderPlanOptionsSchema,
  ObservationOptionsSchema,
} from "@turngate/core";
import {
  CheckObservationSchema,
  ProfileQuerySchema,
  VerificationFileHashSnapshotSchema,
} from "@turngate/core/schemas";
import * as z from "zod";
import { jsonObject } from "./json-object.js";

export { CheckObservationSchema };

const Int = z.number().int();

/**
 * A record set or row on the wire is a JSON object; its fields are validated by core (the
 * error path names them, e.g. `options.profiles.rows.0.scope.dir`) and described by
 * packages/core/schema/profile-record-set.json and profile-row.json.
 */
const Profiles = jsonObject()
  .nullish()
  .describe(
    "the profile record set {schemaVersion: 1, updatedAt?, rows: [row]} to read (shape: packages/core/schema/profile-record-set.json); null or absent = no store",
  );
const Row = jsonObject().describe(
  "a profile row {id, name?, label?, scope?, check?: {rung, command|spec, resourceClass, staleProne, …}, timings?, lastRun?, warmMode?, …} (packages/core/schema/profile-row.json)",
);

const StoreDirOption = z
  .string()
  .nullish()
  .describe(
    "store directory relative to store_dir (Harn's dir, e.g. \"packages/core\"; blank = the store root): with store_dir, the record set seen from it (the root's and each deeper directory's merged, deeper winning) is read; without store_dir it changes nothing. Absolute, .. or \\ → invalid_params naming options.dir",
  );

/** A profile query; null = every selector absent. */
export const ProfileQueryParamSchema = ProfileQuerySchema.nullish().describe(
  "{repo?, path?, language?, task?}; a row's scope.dir is a glob matched against path",
);

export const ProfileMatchesOptionsSchema = z
  .looseObject({
    profiles: Profiles,
    dir: StoreDirOption,
  })
  .describe("profile matches options");

export const LadderPlanOptionsParamSchema = LadderPlanOptionsSchema.extend({
  profiles: Profiles,
  dir: StoreDirOption,
}).describe("ladder plan options (harn-verification.md §1.9)");

export const HudOptionsParamSchema = HudOptionsSchema.extend({
  profiles: Profiles,
  dir: HudOptionsSchema.shape.dir.describe(
    "store directory relative to store_dir (else state.dir), as for facts.ladder_plan; also the model's dir",
  ),
  resource_classes: LadderPlanOptionsSchema.shape.resource_classes,
  allow_stale_prone: LadderPlanOptionsSchema.shape.allow_stale_prone,
  timing_kind: LadderPlanOptionsSchema.shape.timing_kind,
  warm_state_facts: LadderPlanOptionsSchema.shape.warm_state_facts,
}).describe("HUD options (harn-verification.md §1.10)");

export const ObservationOptionsParamSchema = ObservationOptionsSchema.describe(
  "observation options (harn-verification.md §1.4): warm | cold, duration_ms, exit, snapshot, failure_signature, failure_signature_from (combined | stdout | stderr | none), max_failure_signature_chars, at",
);

export const CommandResultParamSchema = CommandResultSchema.describe(
  "a command result {ok?, success?, status?, exit_code?, timed_out?, stdout?, stderr?, combined?, duration_ms?}",
);

/** `{row, specificity, index}`. */
export const ProfileMatchSchema = z.strictObject({
  row: Row,
  specificity: Int.min(0).max(15),
  index: Int.min(0),
});

export const LadderEntrySchema = z.strictObject({
  row_id: z.string(),
  row: Row,
  rung: z.string(),
  rung_rank: Int.min(0).max(5),
  command: z.unknown(),
  runnable: z.literal(true),
  granularity: z.unknown(),
  trust: z.unknown(),
  resource_class: z.string(),
  p95_ms: Int,
  timing_kind: z.string(),
  warm_state: z.unknown(),
  specificity: Int,
  index: Int,
  sort_key: z.array(Int).length(5),
  background: z.unknown(),
});

export const LadderSkipSchema = z.strictObject({
  row_id: z.string(),
  reason: z.enum([
    "missing_or_invalid_rung",
    "below_min_rung",
    "above_max_rung",
    "resource_class_filtered",
    "stale_prone_filtered",
    "missing_command",
  ]),
  specificity: Int,
  index: Int,
});

/** `harn.verification.ladder_plan.v1`. */
export const LadderPlanSchema = z.strictObject({
  schema: z.literal("harn.verification.ladder_plan.v1"),
  query: z.unknown(),
  matches: z.array(ProfileMatchSchema),
  selected: z.array(LadderEntrySchema),
  skipped: z.array(LadderSkipSchema),
  fallback: z.boolean(),
  reason: z.enum(["no_profile_rows", "no_matching_runnable_rows", "profile_rows_selected"]),
});

const HudEntrySchema = z.strictObject({
  row_id: z.string(),
  rung: z.string(),
  command: z.string(),
  label: z.string(),
  p95_ms: Int,
  p95: z.string(),
  timing_kind: z.string(),
  resource_class: z.string(),
  granularity: z.unknown(),
  trust: z.unknown(),
  row: z.unknown(),
});

const FreshnessSchema = z.strictObject({
  schema: z.literal("harn.verification.snapshot_staleness.v1"),
  status: z.enum(["unbound", "bound_fresh", "bound_stale", "unknown_current_hashes"]),
  stale: z.boolean(),
  fresh: z.boolean(),
  staleFiles: z.array(z.string()),
  stale_files: z.array(z.string()),
  changed_files: z.array(z.string()),
  advisory: z.boolean(),
  reason: z.string(),
});

/** `harn.verification.hud_model.v1`: either the missing-state shape or the full model. */
export const HudModelSchema = z.union([
  z.strictObject({
    schema: z.literal("harn.verification.hud_model.v1"),
    visible: z.boolean().describe("always false here"),
    reason: z.literal("missing_state"),
    lines: z.array(z.unknown()).max(0),
  }),
  z.strictObject({
    schema: z.literal("harn.verification.hud_model.v1"),
    visible: z.boolean(),
    reason: z.enum(["verification_facts_available", "no_verification_facts"]),
    dir: z.string(),
    query: z.record(z.string(), z.unknown()),
    elapsed_ms: Int,
    elapsed: z.string(),
    since_last_edit_ms: Int.nullable(),
    since_last_edit: z.string().nullable(),
    last_check: z
      .strictObject({
        rung: z.string(),
        verdict: z.string(),
        at_ms: Int,
        age_ms: Int,
        age: z.string(),
        freshness: FreshnessSchema,
      })
      .nullable(),
    next_check: HudEntrySchema.nullable(),
    full_check: HudEntrySchema.nullable(),
    plans: z.strictObject({ next: LadderPlanSchema, full: LadderPlanSchema }),
  }),
]);

export { HudStateSchema };

/** `{result, observation, row, snapshot, profiles}` of `facts.record_check_result`. */
export const RecordedCheckSchema = z.strictObject({
  result: z.unknown(),
  observation: CheckObservationSchema,
  row: Row.nullable(),
  snapshot: z.unknown().describe("always null: the pure reducer captures no snapshot"),
  profiles: jsonObject()
    .nullable()
    .describe("the record set after recording; null when none was given"),
});

const Probe = z.strictObject({
  status: z.string(),
  exit: Int.nullable(),
  durationMs: Int.nullable(),
  stdout: z.string(),
  stderr: z.string(),
  error: z.string().optional(),
});

/** `VerificationToolchainFact`. */
export const ToolchainFactSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  available: z.boolean(),
  version: z.string().nullable(),
  raw_version: z.string(),
  cache_identity: jsonObject(),
  probe: Probe,
});

/** `VerificationWarmStateFact`. */
export const WarmStateFactSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  configured: z.boolean(),
  available: z.boolean(),
  ready: z.boolean(),
  warm: z.boolean(),
  timing_kind: z.enum(["warm", "cold"]),
  mode: z.string(),
  expected_warm_delta_ms: Int.nullable(),
  warm_ms: Int.nullable(),
  cold_ms: Int.nullable(),
  cache_identity: jsonObject(),
  probe: Probe,
});

/** The command result of a check run by the bridge. */
export const CheckCommandResultSchema = z.strictObject({
  ok: z.boolean(),
  success: z.boolean(),
  status: z.enum(["completed", "failed", "timed_out", "cancelled"]),
  exit_code: Int.nullable(),
  timed_out: z.boolean(),
  stdout: z.string(),
  stderr: z.string(),
  combined: z.string(),
  duration_ms: Int,
  output_path: z.string().optional(),
  spawn_error: z.string().optional(),
});

/** `facts.run_check`: `{result, observation, row, snapshot}`. */
export const RunCheckResultSchema = z.strictObject({
  result: CheckCommandResultSchema,
  observation: CheckObservationSchema,
  row: Row.nullable(),
  snapshot: VerificationFileHashSnapshotSchema.nullable(),
});

/** A background command the bridge started (handles live in the bridge process). */
export const BackgroundStartedSchema = z.strictObject({
  handle_id: z.string(),
  pid: Int,
  command: z.string(),
  started_at_ms: Int,
  background: z.literal(true),
});

/** `facts.start_check`: the receipt to pass to `facts.finish_check`. */
export const StartedCheckSchema = z.strictObject({
  row_id: z.string(),
  started: BackgroundStartedSchema,
  observation_options: jsonObject(),
  snapshot: VerificationFileHashSnapshotSchema.nullable(),
});

/** `facts.finish_check`. */
export const FinishedCheckSchema = z.strictObject({
  result: jsonObject().describe(
    'the command result ({ok, status, exit_code, duration_ms, …}), or {status: "running", handle_id, timed_out: false} when the wait ran out',
  ),
  observation: CheckObservationSchema.nullable(),
  row: Row.nullable(),
  snapshot: VerificationFileHashSnapshotSchema.nullable(),
});

/** `facts.start_warm_state`. */
export const WarmStateReceiptSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  status: z.enum(["ready", "starting", "not_configured"]),
  reused: z.boolean(),
  handle_id: z.string().nullable(),
  started: BackgroundStartedSchema.nullable(),
  initial_fact: WarmStateFactSchema,
  fact: WarmStateFactSchema,
  row: z.unknown(),
});

/** `facts.teardown_warm_state`. */
export const WarmStateTeardownSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  status: z.literal("torn_down"),
  handle_id: z.string().nullable(),
  cancelled: z.boolean(),
  cancel: z
    .strictObject({
      cancelled: z.boolean(),
      handle_id: z.string(),
      result: jsonObject().nullable(),
    })
    .nullable(),
  teardown: CheckCommandResultSchema.nullable(),
  fact: WarmStateFactSchema.nullable(),
  row: z.unknown(),
});
