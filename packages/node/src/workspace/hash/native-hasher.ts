import type { NativeAddon } from "../../native/select.js";
import { WorkspaceObserverError } from "../errors.js";
import type { EntryKind } from "../snapshot.js";
import { RAW_STAT_FIELDS, RawKind } from "../stat/raw-stat.js";
import { allAbsolute } from "../stat/stat-service.js";
import { hashRegularFileSync } from "./hash.js";

/**
 * A file hashed by an accelerator, with the `fstat` of the file it opened (what the
 * TypeScript path records), so a write between the observer's `lstat` and the read is
 * recorded with the stat the digest belongs to.
 */
export interface HashedFileResult {
  digest: string;
  /** What was hashed: `file` (bytes) or `symlink` (link text: the path became a link). */
  kind: EntryKind;
  size: number;
  mtime_ms: number;
  ctime_ms: number;
  ino: number;
  mode: number;
}

/**
 * Optional accelerator (e.g. `@turngate/native`) for hashing many regular files at once.
 *
 * `hashFiles(absPaths)` resolves to one result per input, in order: the lowercase hex
 * SHA-256 of the file's bytes (a string, or a {@link HashedFileResult} carrying the stat it
 * belongs to), or an `Error` (with a Node-style `code` such as `ENOENT` or `EACCES` when
 * known) for a file it could not read. It must give exactly the digests the TypeScript path
 * gives; the observer still does its own `lstat` and racy checks.
 */
export interface NativeHasher {
  hashFiles(absPaths: readonly string[]): Promise<Array<string | Error | HashedFileResult>>;
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

function pathError(code: string, message: string, path: string): Error {
  return Object.assign(new Error(message), { code, path });
}

/** The TypeScript path for a batch the addon refused (same digests, same records). */
function hashInTypeScript(absPaths: readonly string[]): Array<Error | HashedFileResult> {
  const buffer = Buffer.allocUnsafe(256 * 1024);
  return absPaths.map((p) => {
    try {
      const { digest, stat } = hashRegularFileSync(p, buffer);
      return {
        digest,
        kind: "file",
        size: stat.size,
        mtime_ms: stat.mtimeMs,
        ctime_ms: stat.ctimeMs,
        ino: stat.ino,
        mode: stat.mode,
      } satisfies HashedFileResult;
    } catch (error) {
      return error as Error;
    }
  });
}

/**
 * The {@link NativeHasher} over `@turngate/native`'s `hashFiles` (parallel, streaming,
 * off the JS thread). Absolute paths are passed as paths below `/`. Should the addon refuse
 * the batch (a path it does not take), the batch is hashed by the TypeScript path instead,
 * so the results never depend on which path ran.
 */
export function nativeFileHasher(addon: NativeAddon): NativeHasher {
  return {
    async hashFiles(absPaths) {
      let result: Awaited<ReturnType<NativeAddon["hashFiles"]>>;
      try {
        if (!allAbsolute(absPaths)) return hashInTypeScript(absPaths);
        result = await addon.hashFiles(
          "/",
          absPaths.map((p) => p.slice(1)),
        );
      } catch {
        return hashInTypeScript(absPaths);
      }
      const out: Array<string | Error | HashedFileResult> = new Array(absPaths.length);
      for (const e of result.errors) out[e.index] = pathError(e.code, e.message, `/${e.path}`);
      const { digests, records } = result;
      for (let i = 0; i < absPaths.length; i++) {
        const digest = digests[i];
        if (digest === null || digest === undefined) continue;
        const at = i * RAW_STAT_FIELDS;
        out[i] = {
          digest,
          kind: records[at] === RawKind.symlink ? "symlink" : "file",
          size: records[at + 1] as number,
          mtime_ms: records[at + 2] as number,
          ctime_ms: records[at + 3] as number,
          ino: records[at + 4] as number,
          mode: records[at + 5] as number,
        };
      }
      return out;
    },
  };
}
