import { mkdir } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import writeFileAtomicLib from "write-file-atomic";
import { TURNGATE_DIR } from "./paths.js";

/** Content of the `.gitignore` turngate writes into a `.turngate/` folder it creates. */
export const TURNGATE_GITIGNORE = "*\n";

/**
 * Create the folder `dir` and its missing parents, like `mkdir -p`. When this call is the
 * one that creates a folder named `.turngate` (the first time turngate writes a log, a
 * proof or a baseline into a workspace), a `.gitignore` holding `*` is written into it
 * atomically, so `git status` stays clean and `git add -A` never picks up turngate's logs,
 * proofs or baseline. An existing `.turngate/` is left as it is (the file is written once,
 * by its creator; a user may delete or edit it).
 *
 * Input: a folder path (absolute, or relative to the process cwd).
 * Output: resolves once the folder (and the `.gitignore`, when written) exists.
 * Errors: rejects with the underlying `fs` error (e.g. `EACCES`, `ENOTDIR`).
 */
export async function ensureDirectory(dir: string): Promise<void> {
  const target = resolve(dir);
  const firstCreated = await mkdir(target, { recursive: true });
  if (firstCreated === undefined) return;
  for (let current = target; ; current = dirname(current)) {
    if (basename(current) === TURNGATE_DIR) {
      await writeFileAtomicLib(join(current, ".gitignore"), TURNGATE_GITIGNORE, { fsync: true });
    }
    if (current === firstCreated || dirname(current) === current) break;
  }
}
