/**
 * Directory names that belong to agent harnesses or to git itself. They are never listed,
 * at any depth (A3S `is_harness_path`, reference §2.5.4, plus turngate's own `.turngate`).
 */
export const HARNESS_DIR_NAMES: ReadonlySet<string> = new Set([
  ".git",
  ".turngate",
  ".a3s",
  ".a3s-code",
]);

/**
 * Normalises a workspace-relative path to the key form used in snapshots:
 * `\` becomes `/`, leading `./` segments are removed, and the text is Unicode NFC.
 *
 * Input: a relative path as produced by git or a directory walk (no leading `/`).
 * Output: the normalised key, e.g. `"./src\\Cafe\u0301.ts"` → `"src/Café.ts"` (NFC).
 * Never throws.
 */
export function normalizeRelativePath(path: string): string {
  let out = path.includes("\\") ? path.replaceAll("\\", "/") : path;
  while (out.startsWith("./")) out = out.slice(2);
  // Pure ASCII is already NFC; skipping normalize() keeps the 20k-path loop cheap.
  return isAscii(out) ? out : out.normalize("NFC");
}

/**
 * True if any `/`-separated segment of `path` is a harness directory name
 * (`.git`, `.turngate`, `.a3s`, `.a3s-code`). Input: a normalised relative path.
 */
export function isHarnessPath(path: string): boolean {
  if (!path.includes(".")) return false;
  for (const segment of path.split("/")) {
    if (HARNESS_DIR_NAMES.has(segment)) return true;
  }
  return false;
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return false;
  }
  return true;
}
