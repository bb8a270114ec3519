export {
  type BackgroundStarted,
  cancelBackground,
  type StillRunning,
  startBackground,
  waitBackground,
} from "./background.js";
export {
  type FinishCheckOptions,
  finishCheck,
  type RecordedCheck,
  type RunCheckOptions,
  recordCheckResult,
  runCheck,
  type StartedCheck,
  startCheck,
} from "./check.js";
export { type CheckCommandResult, toCommandResult } from "./command-result.js";
export { type ResolvedSpec, resolveSpec, shellQuote } from "./command-spec.js";
export { ProfileStore, type ProfileStoreOptions } from "./store.js";
export {
  PROFILE_STORE_DIRS,
  PROFILE_STORE_FILE,
  storeDirComponents,
  storeDirKey,
} from "./store-dir.js";
export { ProfileStoreError } from "./store-error.js";
export {
  checkVersionPatterns,
  DEFAULT_PROBE_TIMEOUT_MS,
  DEFAULT_VERSION_PATTERN,
  type ToolchainFact,
  type ToolchainFactsOptions,
  toolchainFacts,
} from "./toolchain.js";
export {
  startWarmState,
  teardownWarmState,
  type WarmStateFact,
  type WarmStateOptions,
  type WarmStateReceipt,
  warmStateFacts,
  warmStateId,
} from "./warm-state.js";
