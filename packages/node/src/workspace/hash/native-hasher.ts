import { WorkspaceObserverError } from "../errors.js";

/**
 * Optional accelerator (e.g. `@turngate/native`) for hashing many regular files at once.
 *
 * `hashFiles(absPaths)` resolves to one result per input, in order: the lowercase hex
 * SHA-256 of the file's bytes, or an `Error` (with a Node-style `code` such as `ENOENT` or
 * `EACCES` when known) for a file it could not read. It must give exactly the digests the
 * TypeScript path gives; the observer still does its own `lstat` and racy checks.
 */
export interface NativeHasher {
  hashFiles(absPaths: readonly string[]): Promise<Array<string | Error>>;
}

/**
 * Validates the `nativeHasher` option. Input: anything. Output: the hasher, or undefined
 * when the option is absent. Throws {@link WorkspaceObserverError} `invalid_option` with
 * field `nativeHasher` if it is present but has no `hashFiles` function.
 */
export function toNativeHasher(value: unknown): NativeHasher | undefined {
  if (value === undefined || value === null) return undefined;
  if (
    typeof value !== "object" ||
    typeof (value as { hashFiles?: unknown }).hashFiles !== "function"
  ) {
    throw new WorkspaceObserverError(
      "invalid_option",
      "options.nativeHasher must be an object with a hashFiles(absPaths) function",
      "nativeHasher",
    );
  }
  return value as NativeHasher;
}
