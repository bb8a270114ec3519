export * from "./affected/index.js";
export {
  type FileHashAlgorithm,
  type FileHashSnapshotOptions,
  fileHashSnapshot,
} from "./file-hash-snapshot.js";
export * from "./profiles/index.js";
