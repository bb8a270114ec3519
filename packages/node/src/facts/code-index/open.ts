/** Opening the code index of a workspace: the persisted one brought up to date, or a new one. */
import { join, resolve } from "node:path";
import { TURNGATE_DIR } from "../../fs/paths.js";
import { WorkspaceObserver, type WorkspaceObserverOptions } from "../../workspace/observer.js";
import type { WorkspaceSnapshot } from "../../workspace/snapshot.js";
import {
  CODE_INDEX_FILE,
  CodeIndex,
  type CodeIndexOptions,
  type CodeIndexUpdate,
} from "./code-index.js";

/** Options of {@link openCodeIndex}. */
export interface OpenCodeIndexOptions {
  /** State folder holding `code-index.json`; default `<root>/.turngate`. */
  stateDir?: string;
  /** Observer options (ignores, outputs) for the snapshot; `useGit` as the observer decides. */
  observer?: WorkspaceObserverOptions;
  /** Write the index back after building or refreshing it; default true. */
  save?: boolean;
  /** Index options (how Go imports are read: `go list` or import lines). */
  index?: CodeIndexOptions;
  /**
   * A snapshot of `root` the caller already took with the same observer options (a turn's
   * judged snapshot): used instead of observing the workspace again (issue 33: one listing
   * per observation). Its `root` (the resolved workspace path) is the index's root.
   */
  snapshot?: WorkspaceSnapshot;
}

/**
 * Loads `<stateDir>/code-index.json` for `root` and refreshes it against a fresh workspace
 * snapshot, or `options.snapshot` when given (only files whose SHA-256 changed are read
 * again), or builds it cold when there
 * is none or it cannot be read (another root, another schema, corrupt). Saves it back
 * atomically unless `save` is false. Resolves to the index and what happened (`built`:
 * true for a cold build). Rejects with the observer's `WorkspaceObserverError` (bad root,
 * git failure) or an `fs` error writing the state folder.
 */
export async function openCodeIndex(
  root: string,
  options: OpenCodeIndexOptions = {},
): Promise<{ index: CodeIndex; built: boolean; update: CodeIndexUpdate | null; file: string }> {
  const abs = resolve(root);
  const file = join(options.stateDir ?? join(abs, TURNGATE_DIR), CODE_INDEX_FILE);
  if (options.snapshot !== undefined) {
    return openWith(options.snapshot.root, options.snapshot, file, options);
  }
  const observer = new WorkspaceObserver(abs, options.observer ?? {});
  try {
    return await openWith(observer.root, await observer.snapshot(), file, options);
  } finally {
    await observer.close();
  }
}

async function openWith(
  root: string,
  snapshot: WorkspaceSnapshot,
  file: string,
  options: OpenCodeIndexOptions,
): Promise<{ index: CodeIndex; built: boolean; update: CodeIndexUpdate | null; file: string }> {
  let index: CodeIndex;
  let built = false;
  let update: CodeIndexUpdate | null = null;
  try {
    index = await CodeIndex.load(root, file, options.index ?? {});
    update = await index.refresh(snapshot);
  } catch {
    index = await CodeIndex.build(root, snapshot, options.index ?? {});
    built = true;
  }
  if (options.save !== false) await index.save(file);
  return { index, built, update, file };
}
