import { copyFileSync, type Dirent, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import ignore from "ignore";

/**
 * Reports the user wants out of the clean room (docs/design.md §3b, "Outputs"): what a
 * check writes stays in the room, except the files the configuration's `"outputs"`
 * (gitignore syntax: `coverage/`, `junit.xml`) names, which are copied after each check to
 * a results folder outside the workspace. Regular files only (a symlink or special file a
 * check made is not followed out of the room); the room's `.git` is never searched.
 */

/** Files copied out of the room by one {@link copyRoomOutputs}. */
export interface CopiedOutputs {
  /** The results folder (absolute). */
  dir: string;
  /** Relative `/` paths copied, sorted. */
  paths: string[];
}

/**
 * Copy every regular file of `room` that `patterns` (gitignore syntax, relative to the
 * room's top) match into `dir`, at the same relative path (folders made as needed; an
 * earlier copy of the same path is replaced). Output: what was copied (none: `paths` is
 * empty and `dir` is not made). Errors: `fs` errors writing `dir`.
 */
export function copyRoomOutputs(
  room: string,
  patterns: readonly string[],
  dir: string,
): CopiedOutputs {
  const paths: string[] = [];
  if (patterns.length === 0) return { dir, paths };
  const matcher = ignore().add([...patterns]);
  const visit = (rel: string): void => {
    let children: Dirent[];
    try {
      children = readdirSync(rel === "" ? room : join(room, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const child of children) {
      const path = rel === "" ? child.name : `${rel}/${child.name}`;
      if (path === ".git") continue;
      if (child.isDirectory()) {
        if (matcher.ignores(`${path}/`)) collect(path);
        else visit(path);
      } else if (child.isFile() && matcher.ignores(path)) {
        paths.push(path);
      }
    }
  };
  // Everything below a matched folder is an output.
  const collect = (rel: string): void => {
    let children: Dirent[];
    try {
      children = readdirSync(join(room, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const child of children) {
      const path = `${rel}/${child.name}`;
      if (child.isDirectory()) collect(path);
      else if (child.isFile()) paths.push(path);
    }
  };
  visit("");
  paths.sort();
  for (const path of paths) {
    const target = join(dir, path);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(room, path), target);
  }
  return { dir, paths };
}
