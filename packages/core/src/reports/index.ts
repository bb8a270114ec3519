export { type CreateReportOptions, createReport } from "./create.js";
export { artifactUris, checkFromExecution } from "./execution.js";
export {
  EXIT_STATUS_MASKED_RISK,
  EXIT_STATUS_UNVERIFIABLE_RISK,
  exitStatusMasked,
  exitStatusMaskedBy,
  type MaskedExitStatus,
  normalizeShellCommand,
  type ShellOperator,
  type ShellSegment,
  shellCommandCoversPreset,
  shellEvidenceReport,
  splitShellCommand,
} from "./shell-evidence.js";
export {
  commandSubstitutions,
  isAssignmentWord,
  type ScriptOptions,
  type ShellWord,
  shellWords,
  type WrappedCommand,
  wrappedCommand,
} from "./shell-words.js";
export { deriveReportStatus } from "./status.js";
export { summarizeReports, supportsGoalAchievement } from "./summary.js";
export { formatVerificationSummary, SUMMARY_TEXT_SUBJECT_LIMIT } from "./summary-text.js";
export {
  checkWithTestResults,
  FAILING_TESTS_MAX,
  NO_STRUCTURED_RESULT_RISK,
  NO_TESTS_RAN_RISK,
  type TestResultsCheckInput,
  type TestResultsEvidence,
} from "./test-results-check.js";
export {
  checkWithVanishedTests,
  TESTS_DISAPPEARED_RISK,
  TESTS_SKIPPED_RISK,
  type TestHistory,
  type TestHistoryEntry,
  testHistoryOf,
  VANISHED_LIST_MAX,
  type VanishedTests,
  vanishedTests,
} from "./vanished-tests.js";
