import { sep } from "node:path";
import { HARNESS_DIRECTORIES } from "@turngate/core";

/**
 * Directory names that belong to agent harnesses or to git itself (A3S `is_harness_path`,
 * reference §2.5.4, plus turngate's own `.turngate`). `.git` is a harness directory at any
 * depth (the internals of nested repositories); `.turngate`, `.a3s` and `.a3s-code` only
 * directly below the workspace root — deeper directories with those names are ordinary
 * project content and are observed (our change: A3S drops them at any depth, which let a
 * turn hide new files in `src/.a3s/`).
 */
export const HARNESS_DIR_NAMES: ReadonlySet<string> = new Set(HARNESS_DIRECTORIES);

/**
 * True when the directory entry `name` inside the workspace-relative directory `parent`
 * (`""` = the workspace root) is a harness directory: `.git` anywhere, the other
 * {@link HARNESS_DIR_NAMES} only when `parent` is the root.
 */
export function isHarnessEntry(parent: string, name: string): boolean {
  return name === ".git" || (parent === "" && HARNESS_DIR_NAMES.has(name));
}

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
 * True if `path` (a normalised workspace-relative key) lies in a harness directory: its
 * first segment is one of {@link HARNESS_DIR_NAMES}, or any segment is `.git`. So
 * `.turngate/logs/x` and `pkg/.git/HEAD` are harness paths, `src/.a3s/impl.js` is not.
 */
export function isHarnessPath(path: string): boolean {
  // Every harness name starts with "." so a path can only match at its start or after "/".
  if (path.charCodeAt(0) !== 0x2e && !path.includes("/.")) return false;
  return ROOT_HARNESS.test(path) || GIT_SEGMENT.test(path);
}

// Built from HARNESS_DIR_NAMES (core's list) so the two cannot drift apart.
const ROOT_HARNESS = new RegExp(
  `^(?:${[...HARNESS_DIR_NAMES].map((name) => name.replaceAll(".", "\\.")).join("|")})(?:/|$)`,
);
const GIT_SEGMENT = /(?:^|\/)\.git(?:\/|$)/;
