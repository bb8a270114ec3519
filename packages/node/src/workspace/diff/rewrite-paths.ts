/**
 * The `"rewrite_paths"` setting (issue 10, "What the checks changed"): lockfiles a passing
 * check may rewrite, after which the checks run once more on the new bytes.
 */

/**
 * File names `"rewrite_paths"` accepts, each with the tool that writes it (named in the
 * hint of a check that rewrote it). Only lockfiles: a check that rewrites source code must
 * never be re-run into a binding.
 */
export const REWRITE_LOCKFILES: Readonly<Record<string, string>> = Object.freeze({
  "Cargo.lock": "cargo",
  "package-lock.json": "npm",
  "npm-shrinkwrap.json": "npm",
  "pnpm-lock.yaml": "pnpm",
  "yarn.lock": "yarn",
  "bun.lock": "bun",
  "go.sum": "go",
  "go.work.sum": "go",
  "poetry.lock": "poetry",
  "uv.lock": "uv",
  "Pipfile.lock": "pipenv",
  "pdm.lock": "pdm",
  "Gemfile.lock": "bundle",
  "composer.lock": "composer",
  "mix.lock": "mix",
  "Package.resolved": "swift",
  "flake.lock": "nix",
});

/** The tool that writes lockfile `path` (by its file name), or undefined when it is none. */
export function lockfileTool(path: string): string | undefined {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return Object.hasOwn(REWRITE_LOCKFILES, name) ? REWRITE_LOCKFILES[name] : undefined;
}

/**
 * Why `entry` is not a valid `"rewrite_paths"` element, or undefined when it is valid.
 * Valid: a lockfile name from {@link REWRITE_LOCKFILES} (`"Cargo.lock"`, matching that
 * name in any folder) or a relative `/`-separated path ending in one
 * (`"crates/cli/Cargo.lock"`, matching exactly that path); no glob characters, no `.` or
 * `..` segments, no leading or trailing `/`. Pure; never throws.
 */
export function rewritePathProblem(entry: unknown): string | undefined {
  if (typeof entry !== "string") return "must be a string";
  if (entry === "") return "must not be empty";
  if (/[*?[\]!\\]/.test(entry)) return "must be a lockfile name or path, without glob characters";
  if (entry.startsWith("/") || entry.endsWith("/")) {
    return "must be a relative file path (no leading or trailing /)";
  }
  const segments = entry.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) {
    return "must not contain empty, . or .. segments";
  }
  if (lockfileTool(entry) === undefined) {
    return `must name a lockfile (${Object.keys(REWRITE_LOCKFILES).join(", ")})`;
  }
  return undefined;
}

/**
 * A matcher for validated `"rewrite_paths"` entries: a bare lockfile name matches that
 * name in any folder, a path matches itself. Input: entries already accepted by
 * {@link rewritePathProblem}. Output: `(path) => boolean` over workspace-relative paths.
 */
export function rewritePathMatcher(entries: readonly string[]): (path: string) => boolean {
  const names = new Set(entries.filter((e) => !e.includes("/")));
  const paths = new Set(entries.filter((e) => e.includes("/")));
  if (names.size === 0 && paths.size === 0) return () => false;
  return (path) => paths.has(path) || names.has(path.slice(path.lastIndexOf("/") + 1));
}
