import type { Dirent, Stats } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { mapBounded } from "../concurrency.js";
import type { PathFilter } from "../listing/listing.js";
import { parentOf, type RepoPlace, repoAbsolute, repoToWorkspace } from "../listing/repo-paths.js";
import { WALK_CONCURRENCY } from "../listing/walk.js";
import { isHarnessEntry, normalizeRelativePath } from "../paths.js";
import { readIgnoreSource } from "./ignore-config.js";
import type { DirIdentity, IgnoreSource } from "./ignore-state.js";

/** What {@link walkIgnoreDirs} found. */
export interface IgnoreDirs {
  dirs: DirIdentity[];
  gitignores: IgnoreSource[];
  nested: string[];
}

/** Input of {@link walkIgnoreDirs}. */
export interface IgnoreDirsInput extends RepoPlace {
  /** Absolute top of the repository's work tree. */
  toplevel: string;
  /** Repository paths git ignores (`git status --ignored=matching`; directories end in `/`). */
  ignored: ReadonlySet<string>;
  /** The observer's configured-ignores filter (workspace keys). */
  filter: PathFilter;
}

/**
 * Finds every directory git reads for the listed part of one repository, with its `lstat`
 * identity, and every `.gitignore` in them: the directories from the top of the work tree
 * down to the listed directory (only their `.gitignore` matters), then the listed
 * directory's whole tree, except `.git`, the workspace root's harness directories,
 * directories git ignores (a `/`-terminated entry of `ignored`: git never reads below them),
 * directories the configured ignores exclude (nothing below them is observed), and nested
 * repositories (listed in `nested`, read with their own rules). The directories above record
 * their `.gitignore` even when absent (digest null). A directory that cannot be read is
 * still recorded (a later change of it is then noticed). Never throws.
 */
export async function walkIgnoreDirs(input: IgnoreDirsInput): Promise<IgnoreDirs> {
  const found: IgnoreDirs = { dirs: [], gitignores: [], nested: [] };
  const start = input.prefix.slice(0, -1);
  for (const dir of ancestorsOf(start)) {
    const st = await lstatOrUndefined(repoAbsolute(input.toplevel, dir));
    if (st?.isDirectory() !== true) continue;
    found.dirs.push(identityOf(dir, st));
    addGitignore(input, found, dir);
  }
  let level = [start];
  while (level.length > 0) {
    const next: string[] = [];
    await mapBounded(level, WALK_CONCURRENCY, async (dir) => {
      const abs = repoAbsolute(input.toplevel, dir);
      const st = await lstatOrUndefined(abs); // before readdir: a later change shows in it
      if (st?.isDirectory() !== true) return;
      let dirents: Dirent[] = [];
      try {
        dirents = await readdir(abs, { withFileTypes: true });
      } catch {
        found.dirs.push(identityOf(dir, st));
        return;
      }
      if (dir !== start && dirents.some((d) => d.name === ".git")) {
        found.nested.push(dir);
        return;
      }
      found.dirs.push(identityOf(dir, st));
      for (const dirent of dirents) {
        if (dirent.name === ".gitignore" && (dirent.isFile() || dirent.isSymbolicLink())) {
          addGitignore(input, found, dir);
        } else if (dirent.isDirectory()) {
          const child = dir === "" ? dirent.name : `${dir}/${dirent.name}`;
          if (isReadByGit(input, child)) next.push(child);
        }
      }
    });
    level = next;
  }
  return found;
}

/**
 * True when git reads the repository directory `child` (inside the listed part) and its
 * content can be observed: not `.git`, not a root harness directory, not ignored by git, not
 * excluded by the configured ignores.
 */
export function isReadByGit(input: IgnoreDirsInput, child: string): boolean {
  const name = child.slice(child.lastIndexOf("/") + 1);
  if (name === ".git" || input.ignored.has(`${child}/`)) return false;
  const fsPath = repoToWorkspace(input, child);
  if (fsPath === undefined) return false;
  if (isHarnessEntry(parentOf(fsPath), name)) return false;
  return !input.filter(normalizeRelativePath(fsPath), true);
}

/** `""`, `a`, `a/b` for `a/b/c`: the directories strictly above a repository path. */
function ancestorsOf(path: string): string[] {
  if (path === "") return [];
  const out = [""];
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) out.push(path.slice(0, i));
  return out;
}

function addGitignore(input: IgnoreDirsInput, found: IgnoreDirs, dir: string): void {
  const path = dir === "" ? ".gitignore" : `${dir}/.gitignore`;
  // Recorded even when absent or unreadable (digest null): a later appearance is a change.
  found.gitignores.push(readIgnoreSource("gitignore", repoAbsolute(input.toplevel, path), path));
}

function identityOf(path: string, st: Stats): DirIdentity {
  return { path, mtime_ms: st.mtimeMs, ctime_ms: st.ctimeMs, ino: st.ino };
}

async function lstatOrUndefined(abs: string): Promise<Stats | undefined> {
  try {
    return await lstat(abs);
  } catch {
    return undefined;
  }
}
