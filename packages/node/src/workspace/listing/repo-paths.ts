import { joinRelative } from "./listing.js";

/** Where a repository's listed part sits: workspace directory and its path in the repo. */
export interface RepoPlace {
  /** Workspace-relative on-disk directory listed with the repository (`""` = root). */
  dir: string;
  /** `dir`'s path inside the repository: `""` or ending in `/`. */
  prefix: string;
}

/**
 * Maps a workspace-relative on-disk path inside `place.dir` to its path from the top of the
 * repository's work tree (`place.dir` itself maps to the prefix without its `/`).
 */
export function workspaceToRepo(place: RepoPlace, fsPath: string): string {
  const rel =
    place.dir === "" ? fsPath : fsPath === place.dir ? "" : fsPath.slice(place.dir.length + 1);
  if (rel === "") return place.prefix.slice(0, -1);
  return place.prefix + rel;
}

/**
 * Maps a repository path back to the workspace-relative on-disk path, or undefined when it
 * lies outside the listed part (in a directory above the workspace root).
 */
export function repoToWorkspace(place: RepoPlace, repoPath: string): string | undefined {
  let rel: string;
  if (place.prefix === "") rel = repoPath;
  else if (repoPath === place.prefix.slice(0, -1)) rel = "";
  else if (repoPath.startsWith(place.prefix)) rel = repoPath.slice(place.prefix.length);
  else return undefined;
  return rel === "" ? place.dir : joinRelative(place.dir, rel);
}

/** True when the workspace path `fsPath` is `dir` or below it (`""` contains everything). */
export function isWithin(dir: string, fsPath: string): boolean {
  return dir === "" || fsPath === dir || fsPath.startsWith(`${dir}/`);
}

/** Joins a repository-relative path onto the absolute top of the work tree. */
export function repoAbsolute(toplevel: string, repoPath: string): string {
  if (repoPath === "") return toplevel;
  return toplevel.endsWith("/") ? toplevel + repoPath : `${toplevel}/${repoPath}`;
}

/** The parent of a `/`-separated relative path (`""` for a top-level name). */
export function parentOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? "" : path.slice(0, slash);
}
