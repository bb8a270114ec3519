/**
 * Directories that belong to the harness, not to the turn's effect (A3S §2.5.4, extended
 * with turngate's own `.turngate`). Paths inside them are never recorded on the ledger.
 */
export const HARNESS_DIRECTORIES: readonly string[] = [".git", ".turngate", ".a3s", ".a3s-code"];

/**
 * A3S §2.5.4 `is_harness_path`, extended with `.turngate`: after converting `\` to `/` and
 * stripping leading `./` (repeatedly), true when the path is one of `HARNESS_DIRECTORIES`,
 * starts with one of them plus `/`, or contains `/<dir>/`. (`sub/.git` with no trailing
 * slash is not a harness path, as in A3S.)
 */
export function isHarnessPath(path: string): boolean {
  let p = path.includes("\\") ? path.replaceAll("\\", "/") : path;
  while (p.startsWith("./")) p = p.slice(2);
  for (const dir of HARNESS_DIRECTORIES) {
    if (p === dir || p.startsWith(`${dir}/`) || p.includes(`/${dir}/`)) return true;
  }
  return false;
}
