/**
 * `facts.file_hash_snapshot` (server only: it reads the file system through
 * `@turngate/node`): the content hashes a diagnostic binds to (harn-verification.md §1.1,
 * §2.1, §3.1).
 */
import { FILE_HASH_SNAPSHOT_MAX_PATHS } from "@turngate/core";
import { fileHashSnapshot } from "@turngate/node";
import * as z from "zod";
import { BridgeError } from "../errors.js";
import { defineMethod } from "../method.js";
import { toBridgeError } from "../rpc/dispatch.js";
import { VerificationFileHashSnapshotSchema } from "../wire/facts.js";

export const nodeFactsMethods = {
  "facts.file_hash_snapshot": defineMethod({
    description: `Hashes the current bytes of workspace paths (harn-verification.md §1.1, §2.1): {seq: 0, captured_at_ms, algorithm, snapshot: {path: hash}, missing, files} with one files entry per input path in input order (size in bytes, mtime_ms in ms; no code index, so known is false and seq / last_edit_seq are 0). fnv1a64 (default) is Harn's unsigned decimal FNV-1a 64 of the raw bytes; sha256 is lowercase hex. Keys are root-relative with "/"; paths outside the root (lexically or through a symlink), missing, unreadable and non-regular files are listed in missing and never read. 1 to ${FILE_HASH_SNAPSHOT_MAX_PATHS} paths per call. Errors: invalid_params with path root (not a readable directory), paths or paths.N.`,
    params: z.strictObject({
      root: z
        .string()
        .min(1)
        .describe(
          "workspace root: an existing directory, absolute or relative to the bridge's cwd",
        ),
      paths: z
        .array(z.string().min(1))
        .min(1)
        .max(FILE_HASH_SNAPSHOT_MAX_PATHS)
        .describe("paths relative to root, or absolute"),
      algorithm: z.enum(["fnv1a64", "sha256"]).default("fnv1a64"),
    }),
    result: VerificationFileHashSnapshotSchema,
    handler: async (p) => {
      try {
        return await fileHashSnapshot(p.root, p.paths, { algorithm: p.algorithm });
      } catch (error) {
        const wire = toBridgeError(error);
        // @turngate/node names the option "options.algorithm"; on the wire it is "algorithm".
        if (wire.path === "options.algorithm") {
          throw new BridgeError(wire.code, wire.message, "algorithm");
        }
        throw wire;
      }
    },
  }),
};
