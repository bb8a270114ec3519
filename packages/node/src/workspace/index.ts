/**
 * Workspace observation for @turngate/node (issue 3 item 1; docs/design.md §3; reference §2.3, §2.5).
 *
 * `WorkspaceObserver` takes a baseline of a directory and later the delta against it: in a
 * git work tree the tracked files plus untracked files git does not ignore, elsewhere a
 * walk of everything but `.git` (any depth) and the root's `.turngate`, `.a3s`, `.a3s-code`;
 * configured gitignore-style ignores in both modes; no entry cap. Each entry carries the SHA-256 of its bytes (of the
 * link text for a symlink); a stat cache with git's racy rule limits hashing to files whose
 * stat changed. `delta().changes` feed `MutationLedger.observeUnseenPaths` directly
 * (`{ path, contentDigest: change.content_digest }`).
 *
 * In git mode a baseline records the ignore rules (`ignore_state`); later observations find
 * files hidden by rules changed since (they are reported with their digests) and report a
 * file that became ignored by its bytes rather than as deleted.
 */
export {
  type ChangeKind,
  diffSnapshots,
  ledgerPaths,
  type WorkspaceChange,
  type WorkspaceDelta,
} from "./diff/diff.js";
export {
  CHECK_OUTPUTS_CAP,
  type CheckChanges,
  type CheckOutput,
  type CheckOutputs,
  capCheckOutputs,
  checkChanges,
  checkChangesHint,
  outputsPatternFor,
  type SourceChange,
  type SourceChangeKind,
} from "./diff/during-check.js";
export {
  lockfileTool,
  REWRITE_LOCKFILES,
  rewritePathMatcher,
  rewritePathProblem,
} from "./diff/rewrite-paths.js";
export { WorkspaceObserverError, type WorkspaceObserverErrorCode } from "./errors.js";
export { sha256Hex } from "./hash/digest.js";
export type { HashedFileResult, NativeHasher } from "./hash/native-hasher.js";
export { NO_IGNORE_STATE_PATH, NO_IGNORE_STATE_REASON } from "./ignore/ignore-guard.js";
export type {
  ConfigFile,
  DirIdentity,
  IgnoreSource,
  IgnoreSourceKind,
  IgnoreState,
  RepoIgnoreState,
} from "./ignore/ignore-state.js";
export {
  GIT_SAFETY_CONFIG,
  GIT_SAFETY_ENV,
  type GitResult,
  gitSafetyArgs,
  rememberGitWorkTree,
  runGit,
} from "./listing/git.js";
export {
  type GitName,
  isNativeGitFallback,
  type NativeGitListFallback,
  type NativeGitLists,
  nativeGitLists,
} from "./listing/native-git-list.js";
export { WorkspaceObserver, type WorkspaceObserverOptions } from "./observer.js";
export {
  HARNESS_DIR_NAMES,
  isHarnessEntry,
  isHarnessPath,
  normalizeRelativePath,
} from "./paths.js";
export * from "./scope/index.js";
export {
  deserializeSnapshot,
  type EntryKind,
  type EntryState,
  type OutsideEntry,
  type OutsideScope,
  type PathScope,
  type SerializedEntry,
  type SerializedOutsideEntry,
  type SerializedSnapshot,
  serializeSnapshot,
  WORKSPACE_SNAPSHOT_SCHEMA,
  type WorkspaceSnapshot,
} from "./snapshot.js";
export {
  decodeSnapshotEntries,
  encodeSnapshotEntries,
  SNAPSHOT_ENTRIES_MAGIC,
  SNAPSHOT_ENTRIES_VERSION,
} from "./snapshot-entries.js";
export {
  type EntriesFileRef,
  loadSnapshot,
  pruneSnapshots,
  type StoredSnapshot,
  snapshotStoreDir,
  storeSnapshot,
} from "./snapshot-store.js";
export { isRacy, RACY_WINDOW_MS, type StatIdentity } from "./stat/stat-cache.js";
