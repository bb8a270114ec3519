// Verification facts II (harn-verification.md §1.4–1.10, §2.2–2.8, §3.2–3.6): profile
// store reducers, check timing, ladder plan, HUD. Pure.
export { applyObservation, isoSeconds } from "./apply-observation.js";
export { commandLabel } from "./command-label.js";
export {
  type CommandResultLike,
  CommandResultSchema,
  checkExit,
  DEFAULT_FAILURE_SIGNATURE_CHARS,
  failureSignature,
  type ObservationOptions,
  ObservationOptionsSchema,
  observationFromCommandResult,
  parseCommandResult,
  parseObservationOptions,
  resultOk,
  TIMEOUT_EXIT_CODE,
} from "./command-result.js";
export {
  type CompiledProfiles,
  type CompileProfilesOptions,
  compileProfiles,
} from "./compiled-profiles.js";
export { durationLabel } from "./duration-label.js";
export {
  HUD_MODEL_SCHEMA,
  type HudEntry,
  type HudFreshness,
  type HudLastCheck,
  type HudModel,
  HudOptionsSchema,
  HudStateSchema,
  hudModel,
} from "./hud-model.js";
export { hudText } from "./hud-text.js";
export {
  DEFAULT_UNKNOWN_P95_MS,
  LADDER_PLAN_SCHEMA,
  type LadderEntry,
  type LadderPlan,
  type LadderPlanOptions,
  LadderPlanOptionsSchema,
  type LadderSkip,
  type LadderSkipReason,
  ladderPlan,
  resourceRank,
} from "./ladder-plan.js";
export {
  type ProfileMatch,
  type ProfileMatchesOptions,
  profileMatches,
  rowSpecificity,
} from "./profile-matches.js";
export { type RecordCheckResultOutput, recordCheckResult } from "./record-check-result.js";
export {
  type NormalizedRecordSet,
  normalizeRecordSet,
  PROFILE_SCHEMA_VERSION,
  parseProfileRecordSet,
  type RecordRunResult,
  recordRun,
} from "./record-set.js";
export { ProfileRowRecorder } from "./row-recorder.js";
export type { CheckObservation, ProfileQuery, ProfileRecordSet, ProfileRow } from "./schemas.js";
export { compileGlob, matchName } from "./scope-glob.js";
export {
  nearestRank,
  pushToWindow,
  TIMING_WINDOW_CAP,
  type TimingPercentiles,
  windowPercentiles,
} from "./timing-window.js";
