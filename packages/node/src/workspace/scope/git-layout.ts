/**
 * What inside a repository's `.git/` directory is git's own bookkeeping (issue 10 "`.git/`
 * rows"). Everything else there is recorded on the ledger as a harness row: `config`,
 * `config.worktree`, `hooks/*`, `info/*` (exclude, attributes, sparse-checkout, …) change
 * what git and the checks do, and a file git never writes (`.git/x/impl.js`) is code a check
 * can `require`. Git's own entries change with every commit, fetch or rebase the agent may
 * legitimately run, and hold no code.
 */

/**
 * Directories directly in `.git/` that belong to git's layout: nothing below them is
 * recorded, except in `objects/`, where a file whose name git does not use is recorded
 * ({@link isGitObjectFile}).
 */
export const GIT_OWN_DIRECTORIES: readonly string[] = Object.freeze([
  "objects",
  "refs",
  "logs",
  "modules",
  "worktrees",
  "lfs",
  "rr-cache",
  "reftable",
  "sequencer",
  "rebase-merge",
  "rebase-apply",
  "fsmonitor--daemon",
  // git-annex's object store (content-addressed, often gigabytes; annex's own layout).
  "annex",
]);

/** Files directly in `.git/` that belong to git's layout, besides {@link GIT_OWN_FILE_PATTERN}. */
export const GIT_OWN_FILES: readonly string[] = Object.freeze([
  "index",
  "HEAD",
  "packed-refs",
  "COMMIT_EDITMSG",
  "MERGE_MSG",
  "MERGE_MODE",
  "MERGE_RR",
  "SQUASH_MSG",
  "TAG_EDITMSG",
  "NOTES_EDITMSG",
  "EDIT_DESCRIPTION",
  "description",
  "shallow",
  "gitk.cache",
  "gc.pid",
  "gc.log",
  "fsmonitor--daemon.ipc",
  "commondir",
  "gitdir",
]);

/**
 * Other file names directly in `.git/` that are git's: `*_HEAD` (ORIG_HEAD, FETCH_HEAD,
 * MERGE_HEAD, CHERRY_PICK_HEAD, REVERT_HEAD, BISECT_HEAD, REBASE_HEAD, AUTO_MERGE is listed
 * above), `BISECT_*` state, `sharedindex.<sha>` (split index), `*.lock` (a lock git holds
 * while it writes).
 */
export const GIT_OWN_FILE_PATTERN =
  /^(?:[A-Z_]+_HEAD|AUTO_MERGE|BISECT_[A-Z_]+|sharedindex\.[0-9a-f]+|.+\.lock)$/;

const OWN_DIRS = new Set(GIT_OWN_DIRECTORIES);
const OWN_FILES = new Set(GIT_OWN_FILES);

/**
 * True when the entry `name` directly inside `.git/` belongs to git's own layout and is not
 * recorded; `isDir` tells whether it is a directory. `config`, `hooks`, `info` and every
 * unknown name are recorded (false). Pure.
 */
export function isGitOwnEntry(name: string, isDir: boolean): boolean {
  if (isDir) return OWN_DIRS.has(name);
  return OWN_FILES.has(name) || GIT_OWN_FILE_PATTERN.test(name);
}

/**
 * Names git gives the files below `.git/objects/` (a path relative to `objects/`): loose
 * objects `xx/<38 or 62 hex>`, packs and their companions `pack/pack-<hex>.{pack,idx,rev,
 * keep,promisor,mtimes,bitmap}`, `pack/multi-pack-index*`, temporaries (`tmp_*`,
 * `pack/tmp_*`, `pack/.tmp-*`, `incoming-*`), and `info/` (packs, alternates,
 * http-alternates, commit-graph, commit-graphs/*). Any other file there is foreign and
 * recorded — `objects/` is not a place to hide code a check could `require`.
 */
export const GIT_OBJECT_FILE =
  /^(?:[0-9a-f]{2}\/(?:[0-9a-f]{38}|[0-9a-f]{62}|tmp_obj_\w+)|pack\/(?:pack-[0-9a-f]{40,64}\.(?:pack|idx|rev|keep|promisor|mtimes|bitmap)|multi-pack-index(?:-[0-9a-f]+\.(?:bitmap|rev))?|tmp_\w+|\.tmp-[\w.-]+)|tmp_\w+|incoming-\w+(?:\/.*)?|info\/(?:packs|alternates|http-alternates|commit-graph|commit-graphs\/[\w.-]+))$/;

/** True when `rel` (a file path relative to `.git/objects/`) is a name git uses there. */
export function isGitObjectFile(rel: string): boolean {
  return GIT_OBJECT_FILE.test(rel);
}

/**
 * What git writes in a ref file: one object id (40 or 64 lowercase hex digits) and a
 * newline, a symbolic ref `ref: refs/…` and a newline, or (MERGE_HEAD) several id lines.
 * Neither is a JavaScript program that runs code: an id line is a syntax error, and
 * `ref: refs/heads/x` is a label plus a division of undefined names (a ReferenceError).
 */
export const GIT_REF_CONTENT =
  /^(?:(?:(?:[0-9a-f]{40}|[0-9a-f]{64})\n)+|ref: refs\/[A-Za-z0-9._/-]+\n)$/;

/**
 * True when `rel` (a path relative to `.git/`) is a ref file whose bytes must match
 * {@link GIT_REF_CONTENT} to be git's own: every file below `refs/`, `HEAD`, and the
 * `*_HEAD` files except `FETCH_HEAD` (whose lines carry branch names and URLs). A file there
 * whose bytes do not match is recorded as a harness row (security report: code hidden in
 * `.git/refs/` that a check can `require`). Pure.
 */
export function isGitRefFile(rel: string): boolean {
  if (rel.startsWith("refs/")) return true;
  return rel !== "FETCH_HEAD" && /^(?:HEAD|[A-Z_]+_HEAD)$/.test(rel);
}

/** True when `bytes` are what git writes in a ref file ({@link GIT_REF_CONTENT}). */
export function isGitRefContent(bytes: Buffer): boolean {
  return bytes.length <= 4096 && GIT_REF_CONTENT.test(bytes.toString("latin1"));
}
