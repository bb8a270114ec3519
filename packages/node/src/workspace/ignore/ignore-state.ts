import { WorkspaceObserverError } from "../errors.js";

/** Which kind of ignore source a {@link IgnoreSource} is. */
export type IgnoreSourceKind = "info_exclude" | "excludes_file" | "gitignore";

/**
 * One file git reads ignore rules from, as it was at baseline.
 * - `path`: absolute for `info_exclude` (`$GIT_DIR/info/exclude`) and `excludes_file`
 *   (`core.excludesFile` or the XDG default); repository-relative (from the top of the work
 *   tree, `/`-separated) for a `.gitignore`.
 * - `digest`: SHA-256 hex of the bytes (of the link text when `symlink`), or null when the
 *   file did not exist.
 * - `content`: the bytes, base64, so the baseline's rules can be evaluated later; null when
 *   absent or a symlink (git does not follow a symlinked `.gitignore`).
 */
export interface IgnoreSource {
  kind: IgnoreSourceKind;
  path: string;
  digest: string | null;
  content: string | null;
  symlink: boolean;
}

/** A file git may read configuration from, and the SHA-256 hex of its bytes (null: unreadable or absent). */
export interface ConfigFile {
  path: string;
  digest: string | null;
}

/** `lstat` identity of one directory git reads (times in ms since the epoch). */
export interface DirIdentity {
  /** Repository-relative path (`""` = the top of the work tree). */
  path: string;
  mtime_ms: number;
  ctime_ms: number;
  ino: number;
}

/**
 * The ignore rules of one git repository in the workspace, recorded with the baseline so a
 * later observation can tell whether they changed and evaluate the old rules exactly.
 * - `dir`: workspace-relative on-disk directory listed with this repository's git (`""` =
 *   the workspace root; a nested repository's directory otherwise).
 * - `toplevel`: absolute top of its work tree; `prefix`: `dir`'s path inside it (`""` or
 *   ending in `/`, from `git rev-parse --show-prefix`).
 * - `git_entry`: identity of `<toplevel>/.git` (`dir <ino>`, `file <sha256>`, `absent`,
 *   `other`): a different one means a different repository.
 * - `excludes_file`, `ignore_case`: `core.excludesFile` as git resolves it (absolute) or the
 *   XDG default, null when neither applies; the raw `core.ignoreCase`, null when unset.
 * - `config_files`: the files those two settings can come from, fingerprinted before they
 *   were read (`configFilesOf`); while all are unchanged git need not be asked again. null
 *   when they could not be determined (git is then asked on every observation).
 * - `sources`: `info/exclude`, the excludes file, and every `.gitignore` git reads for the
 *   workspace part of the repository (including ignored ones and those in the directories
 *   above `dir`).
 * - `ignored`: what `git status --ignored=matching` listed as ignored (repository-relative;
 *   a directory ends in `/` and means everything below it was ignored).
 * - `dirs`: every directory git reads in that part (not ignored ones, not nested
 *   repositories), with its identity: an unchanged directory cannot hold a new
 *   `.gitignore` or subdirectory.
 * - `nested`: repository-relative directories holding nested repositories (not walked).
 */
export interface RepoIgnoreState {
  dir: string;
  toplevel: string;
  prefix: string;
  git_entry: string;
  excludes_file: string | null;
  ignore_case: string | null;
  config_files: ConfigFile[] | null;
  sources: IgnoreSource[];
  ignored: string[];
  dirs: DirIdentity[];
  nested: string[];
}

/**
 * Ignore-rule state of a git-mode baseline (see {@link RepoIgnoreState}).
 * - `taken_at_ms`: wall-clock ms before any directory was stat'ed; a directory whose mtime or
 *   ctime is within `RACY_WINDOW_MS` of it is always re-read.
 * - `repos`: one per repository listed at baseline (the root one first).
 * - `unrecorded`: workspace-relative directories of nested repositories whose rules could not
 *   be recorded; observations against this baseline report them as unreadable.
 */
export interface IgnoreState {
  taken_at_ms: number;
  repos: RepoIgnoreState[];
  unrecorded: string[];
}

/**
 * Validates the JSON form of an {@link IgnoreState} (as written by `serializeSnapshot`) and
 * returns a copy. Throws {@link WorkspaceObserverError} `invalid_snapshot` whose `field` is
 * the JSON path below `field` (e.g. `ignore_state.repos[0].dirs[3].ino`).
 */
export function parseIgnoreState(value: unknown, field: string): IgnoreState {
  const obj = object(value, field);
  const repos = array(obj.repos, `${field}.repos`).map((raw, i) => {
    const at = `${field}.repos[${i}]`;
    const repo = object(raw, at);
    return {
      dir: string(repo.dir, `${at}.dir`),
      toplevel: string(repo.toplevel, `${at}.toplevel`),
      prefix: string(repo.prefix, `${at}.prefix`),
      git_entry: string(repo.git_entry, `${at}.git_entry`),
      excludes_file: nullableString(repo.excludes_file, `${at}.excludes_file`),
      ignore_case: nullableString(repo.ignore_case, `${at}.ignore_case`),
      config_files:
        repo.config_files === null
          ? null
          : array(repo.config_files, `${at}.config_files`).map((c, j) => {
              const cat = `${at}.config_files[${j}]`;
              const file = object(c, cat);
              return {
                path: string(file.path, `${cat}.path`),
                digest: nullableString(file.digest, `${cat}.digest`),
              };
            }),
      sources: array(repo.sources, `${at}.sources`).map((s, j) =>
        parseSource(s, `${at}.sources[${j}]`),
      ),
      ignored: strings(repo.ignored, `${at}.ignored`),
      dirs: array(repo.dirs, `${at}.dirs`).map((d, j) => {
        const dat = `${at}.dirs[${j}]`;
        const entry = object(d, dat);
        return {
          path: string(entry.path, `${dat}.path`),
          mtime_ms: number(entry.mtime_ms, `${dat}.mtime_ms`),
          ctime_ms: number(entry.ctime_ms, `${dat}.ctime_ms`),
          ino: number(entry.ino, `${dat}.ino`),
        };
      }),
      nested: strings(repo.nested, `${at}.nested`),
    };
  });
  return {
    taken_at_ms: number(obj.taken_at_ms, `${field}.taken_at_ms`),
    repos,
    unrecorded: strings(obj.unrecorded, `${field}.unrecorded`),
  };
}

const SOURCE_KINDS: ReadonlySet<string> = new Set(["info_exclude", "excludes_file", "gitignore"]);

function parseSource(value: unknown, at: string): IgnoreSource {
  const source = object(value, at);
  if (typeof source.kind !== "string" || !SOURCE_KINDS.has(source.kind)) {
    throw invalid(`${at}.kind`, 'must be "info_exclude", "excludes_file" or "gitignore"');
  }
  const digest = nullableString(source.digest, `${at}.digest`);
  if (digest !== null && !/^[0-9a-f]{64}$/.test(digest)) {
    throw invalid(`${at}.digest`, "must be 64 lowercase hex characters or null");
  }
  if (typeof source.symlink !== "boolean") throw invalid(`${at}.symlink`, "must be a boolean");
  const path = string(source.path, `${at}.path`);
  if (source.kind === "gitignore" && !isGitignorePath(path)) {
    throw invalid(
      `${at}.path`,
      "must be a relative path ending in .gitignore, without . .. or .git",
    );
  }
  return {
    kind: source.kind as IgnoreSourceKind,
    path,
    digest,
    content: nullableString(source.content, `${at}.content`),
    symlink: source.symlink,
  };
}

/**
 * True for a clean repository-relative `.gitignore` path: `/`-separated, not absolute, last
 * segment `.gitignore`, and no empty, `.`, `..` or `.git` segment (so it can never name a
 * file outside a directory it is joined to).
 */
export function isGitignorePath(path: string): boolean {
  const segments = path.split("/");
  if (segments[segments.length - 1] !== ".gitignore" || path.includes("\\")) return false;
  return segments.every((s) => s !== "" && s !== "." && s !== ".." && s !== ".git");
}

function invalid(field: string, message: string): WorkspaceObserverError {
  return new WorkspaceObserverError("invalid_snapshot", `snapshot.${field}: ${message}`, field);
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(field, "must be an object");
  }
  return value as Record<string, unknown>;
}

function array(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw invalid(field, "must be an array");
  return value;
}

function string(value: unknown, field: string): string {
  if (typeof value !== "string") throw invalid(field, "must be a string");
  return value;
}

function nullableString(value: unknown, field: string): string | null {
  if (value !== null && typeof value !== "string") throw invalid(field, "must be a string or null");
  return value;
}

function number(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw invalid(field, "must be a finite number");
  }
  return value;
}

function strings(value: unknown, field: string): string[] {
  return array(value, field).map((item, i) => string(item, `${field}[${i}]`));
}
