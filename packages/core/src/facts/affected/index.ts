// Affected targets (harn-verification.md §1.3, docs/design.md §4): pure parsers and reducer.

/** The string-list rule (§2.10) for changed paths: trimmed, blanks and duplicates dropped. */
export { stringList as normalizeChangedPaths } from "../harn-values.js";
export { type AdapterRow, readAdapterRow } from "./adapter-row.js";
export {
  type AdapterFact,
  type AdapterRun,
  type AffectedFallback,
  type AffectedTargetsFact,
  isAffectedTargetsFact,
  type ReduceAffectedInput,
  reduceAffectedTargets,
} from "./affected-targets.js";
export { type CwdTargets, targetsForCwd } from "./check-cwd.js";
export {
  type ChangedFileClass,
  classifyChangedFile,
  DEFAULT_GLOBAL_FILE_PATTERNS,
  LOCKFILE_NAMES,
} from "./global-files.js";
export { type ImportGraphData, type ImportGraphView, importGraphFromData } from "./import-graph.js";
export * from "./parsers/index.js";
export { type LockfileImporterDiff, pnpmLockChangedImporters } from "./pnpm-lock-diff.js";
export type { ProjectNode } from "./project-graph.js";
export { AFFECTED_REASONS, type AffectedReason, type AffectedTarget } from "./target.js";
export { adapterTemplateContext, renderSpec, renderTemplate, shellQuote } from "./template.js";
