/**
 * Store directories of the profile store (harn-verification.md §1.5, §6.2; Harn's
 * hierarchical metadata store): a store directory is a path relative to the store root,
 * `"."` for the root itself, and resolves by walking from `"."` through each of its path
 * components.
 */
import { join } from "node:path";
import { TurngateValidationError } from "@turngate/core";

/** File name of a store directory's record set. */
export const PROFILE_STORE_FILE = "verification-profiles.json";
/** Folder (under the store root) holding the record sets of the directories below the root. */
export const PROFILE_STORE_DIRS = "verification-profiles.d";

/**
 * Harn's `dir` argument as path components: nil or blank → `[]` (the root, `"."`); else the
 * display text split on `/`, empty and `.` components dropped (`"./src//app/"` →
 * `["src", "app"]`). Throws `TurngateValidationError` (path `field`) for a non-string, an
 * absolute path, a `..` component, a backslash or a NUL: a store directory never leaves
 * the store root.
 */
export function storeDirComponents(dir: unknown, field = "dir"): string[] {
  if (dir === undefined || dir === null) return [];
  if (typeof dir !== "string") {
    throw new TurngateValidationError("profile store directory", [
      {
        path: field,
        message: `must be a string (a directory relative to the store root), got ${typeof dir}`,
      },
    ]);
  }
  if (dir.trim() === "") return [];
  const bad = (why: string) =>
    new TurngateValidationError("profile store directory", [
      { path: field, message: `${JSON.stringify(dir)}: ${why}` },
    ]);
  if (dir.startsWith("/"))
    throw bad('must be relative to the store root (e.g. "packages/core"), not absolute');
  if (dir.includes("\\")) throw bad("must use / between components, not \\");
  if (dir.includes("\0")) throw bad("must not contain NUL");
  const parts = dir.split("/").filter((c) => c !== "" && c !== ".");
  if (parts.includes(".."))
    throw bad("must not contain .. (a store directory stays under the store root)");
  return parts;
}

/** `"."` or the components joined with `/` (the directory's key, as Harn names it). */
export function storeDirKey(components: readonly string[]): string {
  return components.length === 0 ? "." : components.join("/");
}

/** The record-set file of a store directory under `root`. */
export function storeDirFile(root: string, components: readonly string[]): string {
  return components.length === 0
    ? join(root, PROFILE_STORE_FILE)
    : join(root, PROFILE_STORE_DIRS, ...components, PROFILE_STORE_FILE);
}

/** The store directories from the root to `components`, shallowest first (`.`, `a`, `a/b`). */
export function storeDirChain(components: readonly string[]): string[][] {
  return Array.from({ length: components.length + 1 }, (_, i) => components.slice(0, i));
}
