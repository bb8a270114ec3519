// The result cache shared across machines (issue 20).
export * from "./cache/index.js";
export {
  deserializeEnvironmentBaseline,
  type EnvironmentBaseline,
  type EnvironmentBaselineOptions,
  fileFingerprint,
  fingerprintTree,
  hookFileFingerprint,
  serializeEnvironmentBaseline,
  takeEnvironmentBaseline,
} from "./environment/environment-baseline.js";
export {
  changedUserFiles,
  fingerprintUserFiles,
  pathFolderLabels,
  type UserFileFingerprints,
  type UserFileLocation,
  type UserFilesOptions,
  userFileLocations,
  userFilesHome,
} from "./environment/user-files.js";
export * from "./facts/index.js";
export { writeFileAtomic, writeJsonAtomic } from "./fs/atomic.js";
export { type CommittedLog, ContentAddressedLog } from "./fs/content-log.js";
export { ensureDirectory, TURNGATE_GITIGNORE } from "./fs/ensure-dir.js";
export { TURNGATE_DIR, turngatePaths } from "./fs/paths.js";
export { parseToml } from "./fs/toml.js";
// Clean-room checks (docs/design.md §3b).
export * from "./isolation/index.js";
export * from "./native/index.js";
export {
  type PresetOptions,
  packageManagerFor,
  packageScriptCommand,
  pythonInterpreter,
  verificationPresets,
} from "./presets/detect.js";
export { requiredPresetCommands } from "./presets/required.js";
export {
  JEST_RESULTS_ARGS,
  jsonReporterRunner,
  NODE_TEST_RESULTS_ARGS,
  VITEST_RESULTS_ARGS,
  withStructuredResults,
} from "./presets/results.js";
export * from "./processes/index.js";
export * from "./proofs/index.js";
export {
  CAPTURED_HEAD_BYTES,
  CAPTURED_TAIL_BYTES,
  type CaptureSummary,
  MAX_CAPTURED_OUTPUT_BYTES,
  OutputCapture,
  truncationNotice,
} from "./runner/capture.js";
export {
  type CheckEnvironmentPlan,
  type CheckShell,
  checkCargoTargetDir,
  findOnPath,
  isSecretName,
  type PrepareCheckEnvironmentOptions,
  type PreparedCheckEnvironment,
  planCheckEnvironment,
  prepareCheckEnvironment,
  resolveCheckPath,
  SECRET_NAME_PATTERNS,
  SOURCED_FILE_VARIABLES,
} from "./runner/check-env.js";
export {
  type ExitOnSignalOptions,
  exitOnTerminationSignals,
  signalExitCode,
  TERMINATION_SIGNALS,
} from "./runner/exit-on-signal.js";
export {
  EXIT_COMMAND_NOT_FOUND,
  EXIT_NOT_EXECUTABLE,
  FAILURE_CLASSES,
  type FailureClass,
  type FailureClassInput,
  failureClass,
} from "./runner/failure-class.js";
export {
  killTrackedProcessGroups,
  PROCESS_GROUP_SETTLE_MS,
  processGroupAlive,
  signalProcessGroup,
  stopProcessGroup,
  trackedProcessGroups,
  trackProcessGroup,
} from "./runner/process-group.js";
export { runShellCommand, type ShellRunOptions, type ShellRunResult } from "./runner/shell.js";
export {
  releaseSupervisor,
  SUPERVISED_WRAPPER,
  SUPERVISOR_SHELL,
  supervisedSpawn,
} from "./runner/supervisor.js";
export {
  type PreparedTestResults,
  prepareTestResults,
  RESULTS_ENV,
  RESULTS_MAX_BYTES,
  RESULTS_PLACEHOLDER,
  readTestResults,
} from "./runner/test-results.js";
export {
  clampTimeoutMs,
  DEFAULT_COMMAND_TIMEOUT_MS,
  MIN_COMMAND_TIMEOUT_MS,
} from "./runner/timeout.js";
export {
  resolveCheckCwd,
  runVerificationCommand,
  type VerificationRun,
  type VerificationRunOptions,
} from "./runner/verify-command.js";
export {
  EXISTENCE_ONLY_RISK,
  type ExistenceCheck,
  type ExistenceEvidence,
  existenceEvidence,
} from "./session/evidence/existence.js";
export {
  GOAL_LOOP_DIRS,
  type GoalCriteria,
  type GoalLoop,
  type GoalReadProblem,
  readGoalCriteria,
} from "./session/evidence/goal-criteria.js";
export {
  COMMAND_TIMED_OUT,
  type RefusedReport,
  type RefusedReportReason,
  type ToolEvidence,
  toolEvidence,
} from "./session/evidence/tool-evidence.js";
export { presetCandidates, type TurnSources } from "./session/evidence/turn-evidence.js";
export { TurngateGateError, type TurnResult, turnResult } from "./session/evidence/turn-result.js";
export {
  failedVerifierReport,
  type SessionVerifier,
  VERIFIER_TIMEOUT_MS,
  type VerifierInput,
  type VerifierRun,
} from "./session/evidence/verifier.js";
export { type IsolationSetup, isolationUnavailableMessage } from "./session/isolation.js";
export { buildTurnProof, type TurnProofInput } from "./session/proof.js";
export {
  type ProofRowCheck,
  type ProofVerification,
  proofWorkspaceRoot,
  verifyTurnProof,
} from "./session/proof-verify.js";
export {
  type DecideOptions,
  SETUP_CHECK_ID,
  Session,
  setupFailedMessage,
} from "./session/session.js";
export type {
  CachedCommandResult,
  CheckRewrite,
  CommandResultCache,
  CommandRun,
  IsolationRequest,
  ReportBinding,
  SessionCheckEnvironment,
  SessionIsolation,
  SessionOptions,
  SetupProgressEvent,
  VerifyCommandsOptions,
  VerifyCommandsResult,
  VerifyProgressEvent,
  WorkspaceChildSettlement,
} from "./session/types.js";
export {
  defaultTestHistoryDir,
  TEST_HISTORY_SCHEMA,
  TestHistoryStore,
  TurnTestHistory,
} from "./test-history/index.js";
export {
  KEPT_TREES_REF_PREFIX,
  keepTrees,
  releaseTrees,
  type TurnDiffs,
  turnDiffs,
} from "./view/turn-diffs.js";
export * from "./workspace/index.js";
