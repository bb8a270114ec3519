/**
 * Where `turngate run` and `turngate verify` keep the view of each turn, for `turngate show`
 * (issue 21): `<state>/views/last.json` (the last turn) and, per turn that changed
 * something, `<state>/views/<effect digest>.<turn key>.json` (issue 34 item 8: keyed by
 * turn, so a later turn with the same bytes never overwrites an earlier one's view; the key
 * is the decision time in ms and 6 random hex). A view is a display, not evidence: `turngate
 * proof verify` checks a proof; an agent that edits a stored view changes what `show` prints,
 * never the gate.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { TurngateValidationError, type TurnView } from "@turngate/core";
import { TurnViewSchema } from "@turngate/core/schemas";
import { writeJsonAtomic } from "@turngate/node";

/** `<state dir>/views`. */
export function viewsDir(stateDir: string): string {
  return join(stateDir, "views");
}

/** A per-turn view file: `<64 hex>.<ms>-<hex>.json`, or the older `<64 hex>.json`. */
const VIEW_FILE = /^([0-9a-f]{64})(?:\.([0-9]+)-[0-9a-f]+)?\.json$/;

/**
 * Write `view` as `views/last.json` and, when its digest is not empty, as the turn's own
 * `views/<digest>.<ms>-<hex>.json` (ms: the view's `finished_at`, else now). Atomic writes,
 * folders created. Output: the turn's file name (or null). Errors: the `fs` error.
 */
export async function storeView(stateDir: string, view: TurnView): Promise<string | null> {
  const dir = viewsDir(stateDir);
  let name: string | null = null;
  if (view.effect_digest !== "") {
    const at = view.finished_at !== null ? Date.parse(view.finished_at) : Number.NaN;
    const ms = Number.isNaN(at) ? Date.now() : at;
    name = `${view.effect_digest}.${ms}-${randomBytes(3).toString("hex")}.json`;
    await writeJsonAtomic(join(dir, name), view);
  }
  await writeJsonAtomic(join(dir, "last.json"), view);
  return name;
}

/** A per-turn view file of `views/` (not `last.json`), for `turngate gc`. */
export interface StoredViewFile {
  path: string;
  bytes: number;
  /** When the turn was decided (the name's key, ms), else the file's modification time. */
  atMs: number;
}

/**
 * Every per-turn view file of `stateDir`'s `views/` with its size and time, newest first
 * (`last.json` is never listed: `show` with no argument reads it). A missing folder lists
 * nothing. Errors: `fs` errors other than `ENOENT`.
 */
export async function listTurnViews(stateDir: string): Promise<StoredViewFile[]> {
  const dir = viewsDir(stateDir);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const files: StoredViewFile[] = [];
  for (const name of names) {
    const m = VIEW_FILE.exec(name);
    if (m === null) continue;
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    files.push({ path, bytes: info.size, atMs: m[2] !== undefined ? Number(m[2]) : info.mtimeMs });
  }
  return files.sort((a, b) => b.atMs - a.atMs || (a.path < b.path ? 1 : -1));
}

/**
 * The git tree ids a stored view's diffs name (`diffs.baseline_tree`, `diffs.final_tree`),
 * read leniently (a view is a display: a file that is not one names none). Never throws.
 */
export async function treesOfView(path: string): Promise<string[]> {
  try {
    const value = JSON.parse(await readFile(path, "utf8")) as {
      diffs?: { baseline_tree?: unknown; final_tree?: unknown } | null;
    };
    return [value.diffs?.baseline_tree, value.diffs?.final_tree].filter(
      (tree): tree is string => typeof tree === "string",
    );
  } catch {
    return [];
  }
}

/**
 * The stored views of turns with effect digest `digest`, newest first (by the key's ms; an
 * older `<digest>.json` last). Output: file names in `views/`.
 */
export function viewFilesOf(stateDir: string, digest: string): string[] {
  let names: string[];
  try {
    names = readdirSync(viewsDir(stateDir));
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, m: VIEW_FILE.exec(name) }))
    .filter((x) => x.m?.[1] === digest)
    .sort((a, b) => Number(b.m?.[2] ?? -1) - Number(a.m?.[2] ?? -1))
    .map((x) => x.name);
}

/**
 * Parse a stored or given view file's JSON. A view stored before `outputs` existed reads as
 * having none (`outputs: null`). Errors: `TurngateValidationError` naming the file and the
 * first bad field.
 */
export function parseViewJson(value: unknown, file: string): TurnView {
  const older =
    typeof value === "object" && value !== null && !Array.isArray(value) && !("outputs" in value);
  const parsed = TurnViewSchema.safeParse(older ? { ...value, outputs: null } : value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new TurngateValidationError(`turn view ${file}`, [
    { path: issue?.path.join(".") ?? "", message: issue?.message ?? "not a turngate.turn_view.v1" },
  ]);
}

/**
 * The stored view `views/<name>.json` (`last`, or a per-turn file's name without `.json`),
 * or undefined when there is none. Errors: a bad file.
 */
export function readStoredView(stateDir: string, name: string): TurnView | undefined {
  const file = join(viewsDir(stateDir), `${name}.json`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  return parseViewJson(JSON.parse(text), file);
}

/**
 * The full digests of the files in `dir` — views (`<64 hex>[.<key>].json`) or proofs
 * (`<64 hex>.json`) — that start with `prefix`, each once, sorted. Used to resolve
 * `turngate show <digest prefix>`.
 */
export function digestsWithPrefix(dir: string, prefix: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const digests = new Set<string>();
  for (const name of names) {
    const digest = VIEW_FILE.exec(name)?.[1];
    if (digest?.startsWith(prefix)) digests.add(digest);
  }
  return [...digests].sort();
}
