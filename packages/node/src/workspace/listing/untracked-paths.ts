import { runGit } from "./git.js";

/**
 * Which of `paths` git does not track in the work tree at `root` (QA finding P2: a check
 * that rewrites an untracked report file gets the "outputs" hint, not "a check must not
 * write source files"). `paths`: root-relative, `/`-separated keys; returns the subset that
 * `git ls-files -z` (literal pathspecs) does not list. Empty set when `paths` is empty, and
 * when git fails or cannot start (the caller then keeps the tracked-file wording). Never throws.
 */
export async function untrackedAmong(
  root: string,
  paths: readonly string[],
): Promise<ReadonlySet<string>> {
  if (paths.length === 0) return new Set();
  try {
    const result = await runGit(["--literal-pathspecs", "ls-files", "-z", "--", ...paths], root);
    if (result.code !== 0) return new Set();
    const tracked = new Set(result.stdout.toString("utf8").split("\0").filter(Boolean));
    return new Set(paths.filter((p) => !tracked.has(p)));
  } catch {
    return new Set();
  }
}
