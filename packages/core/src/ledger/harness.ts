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
const DIRECTORY_INFIXES = HARNESS_DIRECTORIES.map((dir) => `/${dir}/`);

/**
 * A3S §2.5.4 `is_harness_path`, extended with `.turngate`: after converting `\` to `/` and
 * stripping leading `./` (repeatedly), true when the path is one of `HARNESS_DIRECTORIES`,
 * starts with one of them plus `/`, or contains `/<dir>/`. (`sub/.git` with no trailing
 * slash is not a harness path, as in A3S.)
 */
export function isHarnessPath(path: string): boolean {
  let p = path.includes("\\") ? path.replaceAll("\\", "/") : path;
  // Every harness path starts with "." or holds "/." (all the directories start with a dot);
  // most paths have neither and are answered here.
  if (p.charCodeAt(0) !== 0x2e && !p.includes("/.")) return false;
  while (p.startsWith("./")) p = p.slice(2);
  for (let i = 0; i < HARNESS_DIRECTORIES.length; i++) {
    if (
      p === HARNESS_DIRECTORIES[i] ||
      p.startsWith(DIRECTORY_PREFIXES[i] as string) ||
      p.includes(DIRECTORY_INFIXES[i] as string)
    ) {
      return true;
    }
  }
  return false;
}
