/**
 * zod shapes of the verification profile store (harn-verification.md §1.5, §2.6, §2.7):
 * the record set, its rows and a check observation. Harn's wire names are kept, with both
 * spellings where Harn reads both (`resourceClass` / `resource_class`, …). Objects are
 * loose: every field the store does not own round-trips untouched.
 *
 * Turngate is stricter than Harn on types (a row field of the wrong JSON type is refused
 * with a typed error naming it, instead of being silently ignored); values of the right
 * type keep Harn's meaning (an unknown rung word is a `missing_or_invalid_rung` skip).
 */
import * as z from "zod";

const Int = z.number().int();
const NonNegInt = Int.min(0);

/** A rung: `"R0"`–`"R5"`, `"0"`–`"5"` or `0`–`5` (case-insensitive, trimmed). */
export const ProfileRungSchema = z.union([z.string(), Int]);

/** A check command: an argv list, a command spec object, or a label string. */
export const ProfileCommandSchema = z.union([
  z.string(),
  z.array(z.unknown()),
  z.record(z.string(), z.unknown()),
]);

/** `{p50, p95, p99}` in ms (other keys kept). */
export const ProfileTimingStatsSchema = z.looseObject({
  p50: NonNegInt.optional(),
  p95: NonNegInt.optional(),
  p99: NonNegInt.optional(),
});

/** A row's `timings`: stats and windows per kind, one shared sample counter. */
export const ProfileTimingsSchema = z.looseObject({
  warmMs: ProfileTimingStatsSchema.optional(),
  coldMs: ProfileTimingStatsSchema.optional(),
  recentWarmMs: z.array(NonNegInt).optional(),
  recentColdMs: z.array(NonNegInt).optional(),
  samples: NonNegInt.optional(),
});

/** The selector `{repo?, path glob as dir?, language?, task?}`. */
export const ProfileScopeSchema = z.looseObject({
  repo: z.string().nullish(),
  dir: z.string().nullish(),
  language: z.string().nullish(),
  task: z.string().nullish(),
});

/** The outcome of the last outcome-bearing observation (§3.2). */
export const ProfileLastRunSchema = z.looseObject({
  at: z.string().optional(),
  exit: Int.optional(),
  failureSignature: z.string().optional(),
  snapshot: z.record(z.string(), z.unknown()).optional(),
});

/** A declared warm mode (§2.8 `WarmMode`), or a bare flag (`true` = warm). */
export const ProfileWarmModeSchema = z.union([
  z.boolean(),
  z.looseObject({
    warm: z.boolean().nullish(),
    ready: z.boolean().nullish(),
    mode: z.string().nullish(),
    kind: z.string().nullish(),
    type: z.string().nullish(),
  }),
]);

const checkFields = {
  rung: ProfileRungSchema.nullish(),
  command: ProfileCommandSchema.nullish(),
  spec: ProfileCommandSchema.nullish(),
  resourceClass: z.string().nullish(),
  resource_class: z.string().nullish(),
  staleProne: z.boolean().nullish(),
  stale_prone: z.boolean().nullish(),
  granularity: z.string().nullish(),
  trust: z.unknown().optional(),
  trust_level: z.unknown().optional(),
  background: z.boolean().nullish(),
};

/** A row's `check` object (every field may also sit on the row itself). */
export const ProfileCheckSchema = z.looseObject(checkFields);

/** One profile row (§2.6). The store owns `id`, `scope`, `timings`, `lastRun`. */
export const ProfileRowSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string().nullish(),
  label: z.string().nullish(),
  scope: ProfileScopeSchema.nullish(),
  check: ProfileCheckSchema.nullish(),
  ...checkFields,
  timings: ProfileTimingsSchema.nullish(),
  lastRun: ProfileLastRunSchema.nullish(),
  warmMode: ProfileWarmModeSchema.nullish(),
  warm_mode: ProfileWarmModeSchema.nullish(),
  warmState: ProfileWarmModeSchema.nullish(),
  warm_state: ProfileWarmModeSchema.nullish(),
});

/** The record set `{schemaVersion: 1, updatedAt, rows}` (other keys kept). */
export const ProfileRecordSetSchema = z.looseObject({
  schemaVersion: z.literal(1).optional(),
  updatedAt: z.string().optional(),
  rows: z.array(ProfileRowSchema).optional(),
});

/** `VerificationCheckObservation` (§2.7). */
export const CheckObservationSchema = z.looseObject({
  durationMs: NonNegInt.optional(),
  warm: z.boolean().optional(),
  at: z.string().optional(),
  exit: Int.optional(),
  failureSignature: z.string().optional(),
  snapshot: z.record(z.string(), z.unknown()).optional(),
});

/** A profile query `{repo?, path?, language?, task?}`; numbers are read as their decimal text. */
export const ProfileQuerySchema = z.looseObject({
  repo: z.union([z.string(), z.number()]).nullish(),
  path: z.union([z.string(), z.number()]).nullish(),
  language: z.union([z.string(), z.number()]).nullish(),
  task: z.union([z.string(), z.number()]).nullish(),
});

export type ProfileRow = z.output<typeof ProfileRowSchema>;
export type ProfileRecordSet = z.output<typeof ProfileRecordSetSchema>;
export type CheckObservation = z.output<typeof CheckObservationSchema>;
export type ProfileQuery = z.output<typeof ProfileQuerySchema>;
