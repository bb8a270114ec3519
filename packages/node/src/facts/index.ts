export {
  type FileHashAlgorithm,
  type FileHashSnapshotOptions,
  fileHashSnapshot,
} from "./file-hash-snapshot.js";
