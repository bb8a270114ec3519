import { WorkspaceObserverError } from "../errors.js";
import { type RunGitOptions, runGit } from "../listing/git.js";
import { splitNulTerminated } from "../listing/git-list.js";

/**
 * Asks git which of `paths` its ignore rules exclude:
 * `git [...configArgs] check-ignore --no-index --stdin -z` in `cwd`. Paths are relative to
 * `cwd` (passed as `./path`, so no name is read as pathspec magic), without a trailing `/`;
 * a directory must exist as one in the work tree, so that git applies directory-only
 * patterns (`build/`) to it. (With a trailing `/` git would also
 * apply the directory's own `.gitignore` to the directory itself.) A path below an
 * excluded directory counts as ignored, and a negated pattern (`!x`) that matches last
 * means not ignored — the same test `git ls-files --others --exclude-standard` applies to
 * untracked files. `--no-index`: tracked files are judged by the patterns alone.
 *
 * Output: the subset of `paths` that is ignored (empty input: no git call).
 * Throws {@link WorkspaceObserverError} `git_failed` when git cannot run or fails.
 */
export async function checkIgnore(
  cwd: string,
  paths: readonly string[],
  configArgs: readonly string[] = [],
  env?: NodeJS.ProcessEnv,
): Promise<Set<string>> {
  const ignored = new Set<string>();
  if (paths.length === 0) return ignored;
  // Each path goes in as `./path` (and comes back so): git reads a leading `:(…)` as
  // pathspec magic, so a folder named `:(top)dist` would be judged as `dist` (found by the
  // review helper; `GIT_LITERAL_PATHSPECS` is refused by check-ignore).
  const input = paths.map((p) => `./${p}\0`).join("");
  const options: RunGitOptions = { input: Buffer.from(input) };
  if (env !== undefined) options.env = env;
  let result: Awaited<ReturnType<typeof runGit>>;
  try {
    result = await runGit(
      [...configArgs, "check-ignore", "--no-index", "--stdin", "-z"],
      cwd,
      options,
    );
  } catch (error) {
    throw new WorkspaceObserverError("git_failed", `could not run git in ${cwd}: ${String(error)}`);
  }
  if (result.code !== 0 && result.code !== 1) {
    throw new WorkspaceObserverError(
      "git_failed",
      `git check-ignore failed in ${cwd} (exit ${result.code}): ${result.stderr}`,
    );
  }
  for (const { name } of splitNulTerminated(result.stdout)) {
    if (name !== "") ignored.add(name.startsWith("./") ? name.slice(2) : name);
  }
  return ignored;
}
