/**
 * Directories that belong to the harness, not to the turn's effect (A3S §2.5.4, extended
 * with turngate's own `.turngate`). Paths inside them are never recorded on the ledger.
 */
export const HARNESS_DIRECTORIES: readonly string[] = Object.freeze([
  ".git",
  ".turngate",
  ".a3s",
  ".a3s-code",
]);
const DIRECTORY_PREFIXES = HARNESS_DIRECTORIES.map((dir) => `${dir}/`);
/** `.git` is a harness directory at any depth (a nested repository's internals). */
const GIT_INFIX = "/.git/";

/**
 * Whether `path` belongs to the harness (A3S §2.5.4 `is_harness_path`, with a change).
 * After converting `\` to `/` and stripping leading `./` (repeatedly), true when the path is
 * one of `HARNESS_DIRECTORIES` or starts with one of them plus `/` (the workspace root's
 * harness directories), or contains `/.git/` (a nested repository's internals).
 *
 * **Change from A3S:** A3S also drops `/.a3s/`, `/.a3s-code/` anywhere in a path; turngate
 * drops `.turngate`, `.a3s` and `.a3s-code` only at the root, because a nested directory of
 * that name is ordinary workspace content and would otherwise hide an agent's writes from the
 * effect digest. (`sub/.git` with no trailing slash is not a harness path, as in A3S.)
 */
export function isHarnessPath(path: string): boolean {
  let p = path.includes("\\") ? path.replaceAll("\\", "/") : path;
  // Every harness path starts with "." or holds "/." (all the directories start with a dot);
  // most paths have neither and are answered here.
  if (p.charCodeAt(0) !== 0x2e && !p.includes("/.")) return false;
  while (p.startsWith("./")) p = p.slice(2);
  if (p.includes(GIT_INFIX)) return true;
  for (let i = 0; i < HARNESS_DIRECTORIES.length; i++) {
    if (p === HARNESS_DIRECTORIES[i] || p.startsWith(DIRECTORY_PREFIXES[i] as string)) return true;
  }
  return false;
}
