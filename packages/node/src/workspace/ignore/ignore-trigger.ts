import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import type { PathFilter } from "../listing/listing.js";
import { repoAbsolute, repoToWorkspace } from "../listing/repo-paths.js";
import { normalizeRelativePath } from "../paths.js";
import type { EntryState } from "../snapshot.js";
import { RAW_STAT_FIELDS, RawKind } from "../stat/raw-stat.js";
import { RACY_WINDOW_MS } from "../stat/stat-cache.js";
import type { StatService } from "../stat/stat-service.js";
import { checkIgnore } from "./check-ignore.js";
import { fingerprintConfigFiles } from "./config-files.js";
import { type ExcludesConfig, gitEntryIdentity, readIgnoreSource } from "./ignore-config.js";
import { type IgnoreDirsInput, isReadByGit } from "./ignore-dirs.js";
import type { IgnoreSource, RepoIgnoreState } from "./ignore-state.js";

/**
 * Directory entries a check reads below new directories before it gives up and reports
 * the rules as possibly changed (the caller then evaluates them exactly, at higher cost).
 */
export const NEW_DIR_SCAN_LIMIT = 4096;

/** Input of {@link ignoreRulesChanged}. */
export interface IgnoreCheckInput {
  state: RepoIgnoreState;
  /** `IgnoreState.taken_at_ms` of the baseline. */
  takenAtMs: number;
  /** The current observation's entries (workspace keys): their digests are reused. */
  entries: ReadonlyMap<string, EntryState>;
  /** Reads the current excludes configuration (`readExcludesConfig`); called only when a
   * recorded config file changed. */
  config: () => Promise<ExcludesConfig>;
  stats: StatService;
  filter: PathFilter;
}

/**
 * Decides whether the ignore rules of one repository may differ from the baseline's
 * (docs/design.md §3; the ignore-rule guard of the workspace observer). Cheap when nothing changed:
 * one `lstat` of `.git`, a read of each recorded config file (git is asked for
 * `core.excludesFile`/`core.ignoreCase` only when one changed), a read of each recorded
 * ignore source that is not already hashed in
 * `entries`, one batched `lstat` of the recorded directories, and a `readdir` of only those
 * whose identity changed or is racy (their mtime/ctime within `RACY_WINDOW_MS` of the
 * baseline): a directory that did not change cannot hold a new `.gitignore` or subdirectory.
 * New subdirectories are checked with one `git check-ignore` (ignored ones do not matter:
 * git never reads below them) and scanned for a `.gitignore` up to
 * {@link NEW_DIR_SCAN_LIMIT} entries.
 *
 * Output: undefined when the rules are the baseline's; otherwise a short reason (e.g.
 * `src/.gitignore changed`, `new src/gen/.gitignore`, `core.excludesFile changed`). Reads
 * that fail count as changes. Never throws.
 */
export async function ignoreRulesChanged(input: IgnoreCheckInput): Promise<string | undefined> {
  const { state } = input;
  if (gitEntryIdentity(state.toplevel) !== state.git_entry) return ".git changed";
  const files = state.config_files;
  const configChanged =
    files === null ||
    fingerprintConfigFiles(files.map((f) => f.path)).some((f, i) => f.digest !== files[i]?.digest);
  if (configChanged) {
    let config: ExcludesConfig;
    try {
      config = await input.config();
    } catch {
      return "git config failed";
    }
    if (config.excludesFile !== state.excludes_file) return "core.excludesFile changed";
    if (config.ignoreCase !== state.ignore_case) return "core.ignoreCase changed";
  }
  for (const source of state.sources) {
    if (!sameSource(source, currentSource(input, source))) return `${source.path} changed`;
  }
  return changedDirectories(input);
}

function currentSource(input: IgnoreCheckInput, source: IgnoreSource): IgnoreSource {
  const { state } = input;
  if (source.kind === "gitignore") {
    const fsPath = repoToWorkspace(state, source.path);
    const entry =
      fsPath === undefined ? undefined : input.entries.get(normalizeRelativePath(fsPath));
    if (entry !== undefined) {
      return {
        ...source,
        digest: entry.content_digest,
        symlink: entry.kind === "symlink",
        content: null,
      };
    }
    return readIgnoreSource("gitignore", repoAbsolute(state.toplevel, source.path), source.path);
  }
  return readIgnoreSource(source.kind, source.path, source.path);
}

function sameSource(a: IgnoreSource, b: IgnoreSource): boolean {
  return a.digest === b.digest && a.symlink === b.symlink;
}

async function changedDirectories(input: IgnoreCheckInput): Promise<string | undefined> {
  const { state } = input;
  const raw = await input.stats.statAll(
    state.dirs.map((d) => repoAbsolute(state.toplevel, d.path)),
  );
  const toRead: string[] = [];
  state.dirs.forEach((dir, i) => {
    const at = i * RAW_STAT_FIELDS;
    if (raw[at] !== RawKind.directory) return; // gone: nothing below it is read any more
    const mtime = raw[at + 2] as number;
    const ctime = raw[at + 3] as number;
    const same = mtime === dir.mtime_ms && ctime === dir.ctime_ms && raw[at + 4] === dir.ino;
    // The racy rule of the stat cache: a directory changed close to the baseline could
    // change again within the same timestamp tick, so its identity proves nothing.
    const racy = Math.max(dir.mtime_ms, dir.ctime_ms) >= input.takenAtMs - RACY_WINDOW_MS;
    if (!same || racy) toRead.push(dir.path);
  });
  if (toRead.length === 0) return undefined;

  const known = new Set(state.dirs.map((d) => d.path));
  for (const nested of state.nested) known.add(nested);
  const sources = new Set(state.sources.map((s) => s.path));
  const start = state.prefix.slice(0, -1);
  const place = readInput(input);
  const newDirs: string[] = [];
  for (const dir of toRead) {
    const dirents = await readRepoDir(state.toplevel, dir);
    if (dirents === "gone") continue;
    if (dirents === "unreadable") return `cannot read ${dir || "."}`;
    const inArea = start === "" || dir === start || dir.startsWith(`${start}/`);
    for (const dirent of dirents) {
      const child = dir === "" ? dirent.name : `${dir}/${dirent.name}`;
      if (dirent.name === ".gitignore" && (dirent.isFile() || dirent.isSymbolicLink())) {
        if (!sources.has(child)) return `new ${child}`;
      } else if (dirent.name === ".git") {
        if (dir !== "") return `new repository at ${dir}`;
      } else if (inArea && dirent.isDirectory() && !known.has(child)) {
        if (isReadByGit(place, child)) newDirs.push(child);
      }
    }
  }
  return newDirectories(input, newDirs);
}

/**
 * The entries of the repository-relative directory `dir` under `toplevel`: `"gone"` when
 * it no longer exists or is no longer a directory (ENOENT, ENOTDIR), `"unreadable"` on any
 * other `readdir` error. Never throws.
 */
async function readRepoDir(
  toplevel: string,
  dir: string,
): Promise<Dirent[] | "gone" | "unreadable"> {
  try {
    return await readdir(repoAbsolute(toplevel, dir), { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? "gone" : "unreadable";
  }
}

/** Checks directories created since the baseline for `.gitignore` files git would read. */
async function newDirectories(
  input: IgnoreCheckInput,
  dirs: string[],
): Promise<string | undefined> {
  if (dirs.length === 0) return undefined;
  const { state } = input;
  let excluded: Set<string>;
  try {
    excluded = await checkIgnore(state.toplevel, dirs);
  } catch {
    return "git check-ignore failed";
  }
  const place = readInput(input);
  let budget = NEW_DIR_SCAN_LIMIT;
  let level = dirs.filter((d) => !excluded.has(d));
  while (level.length > 0) {
    const next: string[] = [];
    for (const dir of level) {
      const dirents = await readRepoDir(state.toplevel, dir);
      if (dirents === "gone") continue;
      if (dirents === "unreadable") return `cannot read ${dir}`;
      budget -= dirents.length;
      if (budget < 0) return `new directory ${dirs[0]} too large to scan`;
      // A new nested repository is observed with its own rules, as a new repository.
      if (dirents.some((d) => d.name === ".git")) continue;
      for (const dirent of dirents) {
        const child = `${dir}/${dirent.name}`;
        if (dirent.name === ".gitignore" && (dirent.isFile() || dirent.isSymbolicLink())) {
          return `new ${child}`;
        }
        if (dirent.isDirectory() && isReadByGit(place, child)) next.push(child);
      }
    }
    level = next;
  }
  return undefined;
}

function readInput(input: IgnoreCheckInput): IgnoreDirsInput {
  const { state } = input;
  return {
    dir: state.dir,
    prefix: state.prefix,
    toplevel: state.toplevel,
    ignored: ignoredSet(state),
    filter: input.filter,
  };
}

const ignoredSets = new WeakMap<RepoIgnoreState, ReadonlySet<string>>();

function ignoredSet(state: RepoIgnoreState): ReadonlySet<string> {
  let set = ignoredSets.get(state);
  if (set === undefined) {
    set = new Set(state.ignored);
    ignoredSets.set(state, set);
  }
  return set;
}
