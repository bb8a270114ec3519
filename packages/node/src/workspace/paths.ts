import { sep } from "node:path";

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
 * Normalises a workspace-relative path to the key form used in snapshots: leading `./`
 * segments are removed, the text is Unicode NFC, and — only where `\` is the platform
 * separator (Windows) — `\` becomes `/`. On POSIX a backslash is an ordinary file-name
 * character and is kept.
 *
 * Input: a relative path as produced by git or a directory walk (no leading `/`), and the
 * platform separator (default: `node:path` `sep`). Output: the key, e.g.
 * `"./src/Cafe\u0301.ts"` → `"src/Café.ts"` (NFC). Never throws.
 */
export function normalizeRelativePath(path: string, separator: "/" | "\\" = sep): string {
  let out = separator === "\\" && path.includes("\\") ? path.replaceAll("\\", "/") : path;
  while (out.startsWith("./")) out = out.slice(2);
  // Pure ASCII is already NFC; skipping normalize() keeps the 20k-path loop cheap.
  return isAscii(out) ? out : out.normalize("NFC");
}

/** True if every UTF-16 code unit of `text` is below 0x80. */
export function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

const NON_ASCII = /[\u0080-\uffff]/;

/**
 * True if any `/`-separated segment of `path` is a harness directory name
 * (`.git`, `.turngate`, `.a3s`, `.a3s-code`). Input: a normalised relative path.
 */
export function isHarnessPath(path: string): boolean {
  // Every harness name starts with "." so a path can only match at its start or after "/".
  if (path.charCodeAt(0) !== 0x2e && !path.includes("/.")) return false;
  return HARNESS_SEGMENT.test(path);
}

const HARNESS_SEGMENT = /(?:^|\/)\.(?:git|turngate|a3s|a3s-code)(?:\/|$)/;
