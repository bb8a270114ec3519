export * from "./affected/index.js";
export * from "./code-index/index.js";
export {
  type FileHashAlgorithm,
  type FileHashIndex,
  type FileHashSnapshotOptions,
  fileHashSnapshot,
} from "./file-hash-snapshot.js";
export * from "./profiles/index.js";
