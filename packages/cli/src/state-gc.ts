import { readdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { TurngateValidationError } from "@turngate/core";
import { authenticateProofFile } from "@turngate/node";
import { listTurnViews, type StoredViewFile, treesOfView, viewsDir } from "./show/view-store.js";
import type { StatePaths } from "./state-dir.js";

/** Proofs `turngate gc` keeps by default: those of the last 20 turns. */
export const GC_DEFAULT_KEEP_TURNS = 20;
/** Default size limit of the proofs and logs `turngate gc` keeps: 100 MiB (104,857,600 bytes). */
export const GC_DEFAULT_MAX_BYTES = 100 * 1024 * 1024;

/** One file of the state folder `turngate gc` looks at. */
export interface StateFile {
  kind: "proof" | "log";
  path: string;
  bytes: number;
  /** Last modification time, ms since the epoch. */
  mtimeMs: number;
}

/** What `planGc` decided. */
export interface GcPlan {
  remove: StateFile[];
  keep: StateFile[];
}

/** Options of `planGc`. */
export interface GcOptions {
  /** Proofs of this many most recent turns are kept (default 20); also the newest uncited logs. */
  keepTurns: number;
  /** The kept proofs and logs together stay at or below this many bytes (default 100 MiB). */
  maxBytes: number;
}

const LOG_NAME = /^[0-9a-f]{64}\.log$/;
const PROOF_NAME = /\.json$/;
const CITED_LOG = /([0-9a-f]{64})\.log/g;

/**
 * The proofs (`<proofs>/*.json`) and logs (`<logs>/<sha256>.log`) of a state folder, with
 * their sizes and times. Other files — `baseline.json`, `baseline-history.json`,
 * `.gitignore`, temporary files of an atomic write — are never listed, so never removed.
 * A missing folder lists nothing. Errors: `fs` errors other than `ENOENT`.
 */
export async function listStateFiles(
  state: Pick<StatePaths, "logs" | "proofs">,
): Promise<StateFile[]> {
  const files: StateFile[] = [];
  for (const [kind, dir, pattern] of [
    ["proof", state.proofs, PROOF_NAME],
    ["log", state.logs, LOG_NAME],
  ] as const) {
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
    for (const name of names.filter((n) => pattern.test(n)).sort()) {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info?.isFile()) files.push({ kind, path, bytes: info.size, mtimeMs: info.mtimeMs });
    }
  }
  return files;
}

/**
 * Decide what `turngate gc` removes (issue #12 item 17). Pure: `cited(proof)` gives the log
 * file names (`<sha256>.log`) a proof cites as evidence.
 *
 * 1. Proofs: the `keepTurns` newest (by modification time, then path) are kept, older ones
 *    removed.
 * 2. Logs: a log a kept proof cites is kept; of the others (turns that ended incomplete, or
 *    whose proof was removed), the `keepTurns` newest are kept.
 * 3. Size: while the kept files exceed `maxBytes`, the oldest uncited log goes first; when
 *    none is left, the oldest proof but the newest (with the logs only it cited). The newest
 *    proof and its logs are always kept.
 * Output: `{remove, keep}`, each newest first.
 */
export function planGc(
  files: readonly StateFile[],
  cited: (proof: StateFile) => readonly string[],
  options: GcOptions,
): GcPlan {
  const newestFirst = (a: StateFile, b: StateFile) =>
    b.mtimeMs - a.mtimeMs || (a.path < b.path ? 1 : a.path > b.path ? -1 : 0);
  const proofs = files.filter((f) => f.kind === "proof").sort(newestFirst);
  const logs = files.filter((f) => f.kind === "log").sort(newestFirst);
  const keptProofs = proofs.slice(0, options.keepTurns);
  const remove: StateFile[] = proofs.slice(options.keepTurns);
  const citedBy = new Map<StateFile, Set<string>>(
    keptProofs.map((proof) => [proof, new Set(cited(proof))]),
  );
  const isCited = (log: StateFile) => {
    const name = log.path.slice(log.path.lastIndexOf("/") + 1);
    return [...citedBy.values()].some((names) => names.has(name));
  };
  let keptLogs: StateFile[] = [];
  let uncited = 0;
  for (const log of logs) {
    if (isCited(log)) keptLogs.push(log);
    else if (uncited < options.keepTurns) {
      keptLogs.push(log);
      uncited += 1;
    } else remove.push(log);
  }
  const total = () => [...keptProofs, ...keptLogs].reduce((sum, f) => sum + f.bytes, 0);
  while (total() > options.maxBytes) {
    const oldestUncited = [...keptLogs].reverse().find((log) => !isCited(log));
    if (oldestUncited) {
      keptLogs = keptLogs.filter((log) => log !== oldestUncited);
      remove.push(oldestUncited);
      continue;
    }
    if (keptProofs.length <= 1) break;
    const oldest = keptProofs.pop() as StateFile;
    citedBy.delete(oldest);
    remove.push(oldest);
  }
  return { remove: remove.sort(newestFirst), keep: [...keptProofs, ...keptLogs].sort(newestFirst) };
}

/**
 * The log names (`<sha256>.log`) a proof file cites; none when it cannot be read. A signed
 * proof (DSSE envelope, either format) is searched in its decoded payload; the signature is
 * not checked (gc only decides what to keep).
 */
export async function citedLogs(proof: StateFile): Promise<string[]> {
  const text = await readFile(proof.path, "utf8").catch(() => "");
  const inner = authenticateProofFile(text, undefined).proof;
  const searched = inner === undefined ? text : JSON.stringify(inner);
  return [...new Set([...searched.matchAll(CITED_LOG)].map((m) => `${m[1]}.log`))];
}

/** What {@link planViewGc} decided about the turn views of `turngate show`. */
export interface ViewGcPlan {
  /** The views kept: the `keepTurns` newest. */
  keptViews: StoredViewFile[];
  /** The older views, to remove. */
  removedViews: StoredViewFile[];
  /** Tree ids only the removed views name (not a kept view, nor `views/last.json`): their refs can go. */
  released: Set<string>;
}

/**
 * Decide which turn views `turngate gc` keeps (docs/cli.md "turngate gc"): the `keepTurns`
 * newest of `stateDir`'s `views/` (`listTurnViews`), and which of the trees the removed ones
 * name no kept view nor `views/last.json` names (their `refs/turngate/trees/` refs go with
 * them, `releaseTrees`). Reads the views; removes nothing. Errors: `listTurnViews`'.
 */
export async function planViewGc(stateDir: string, keepTurns: number): Promise<ViewGcPlan> {
  const views = await listTurnViews(stateDir);
  const keptViews = views.slice(0, keepTurns);
  const removedViews = views.slice(keepTurns);
  const stillNamed = new Set<string>();
  for (const file of [...keptViews.map((v) => v.path), join(viewsDir(stateDir), "last.json")]) {
    for (const tree of await treesOfView(file)) stillNamed.add(tree);
  }
  const released = new Set<string>();
  for (const view of removedViews) {
    for (const tree of await treesOfView(view.path)) {
      if (!stillNamed.has(tree)) released.add(tree);
    }
  }
  return { keptViews, removedViews, released };
}

/** Remove the files of a plan. Errors: `fs` errors other than `ENOENT` (already gone). */
export async function applyGc(plan: GcPlan): Promise<void> {
  for (const file of plan.remove) await rm(file.path, { force: true });
}

const SIZE = /^(\d+)\s*([KMG]i?B?|B)?$/i;
const UNITS: Record<string, number> = { "": 1, B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 };

/**
 * `--max-bytes` as bytes: a whole number, optionally with `K`, `M` or `G` (powers of 1,024;
 * `KiB`, `MB` … accepted), e.g. `500M` → 524,288,000. Errors: `TurngateValidationError`
 * (path `--max-bytes`) for anything else.
 */
export function parseByteSize(value: string): number {
  const match = SIZE.exec(value.trim());
  const unit = (match?.[2] ?? "").toUpperCase().charAt(0);
  const bytes = match
    ? Number(match[1]) * (UNITS[unit === "B" ? "B" : unit] ?? Number.NaN)
    : Number.NaN;
  if (!Number.isSafeInteger(bytes)) {
    throw new TurngateValidationError("--max-bytes value", [
      {
        path: "--max-bytes",
        message: `${JSON.stringify(value)} is not a size: give bytes, or a number with K, M or G (e.g. 500M)`,
      },
    ]);
  }
  return bytes;
}

/**
 * `--keep-turns` as a count: a whole number ≥ 1 (the newest proof is always kept).
 * Errors: `TurngateValidationError` (path `--keep-turns`).
 */
export function parseKeepTurns(value: string): number {
  const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new TurngateValidationError("--keep-turns value", [
      {
        path: "--keep-turns",
        message: `${JSON.stringify(value)} is not a whole number of at least 1`,
      },
    ]);
  }
  return n;
}
