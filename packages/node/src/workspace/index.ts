export {
  type ChangeKind,
  diffSnapshots,
  type WorkspaceChange,
  type WorkspaceDelta,
} from "./diff.js";
export { sha256Hex } from "./digest.js";
export { WorkspaceObserverError, type WorkspaceObserverErrorCode } from "./errors.js";
export type { NativeHasher } from "./native-hasher.js";
export { WorkspaceObserver, type WorkspaceObserverOptions } from "./observer.js";
export { HARNESS_DIR_NAMES, isHarnessPath, normalizeRelativePath } from "./paths.js";
export {
  deserializeSnapshot,
  type EntryKind,
  type EntryState,
  type SerializedEntry,
  type SerializedSnapshot,
  serializeSnapshot,
  WORKSPACE_SNAPSHOT_SCHEMA,
  type WorkspaceSnapshot,
} from "./snapshot.js";
export { isRacy, RACY_WINDOW_MS, type StatIdentity } from "./stat-cache.js";
