import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { WorkspaceObserverError } from "../errors.js";
import { runGit } from "../listing/git.js";
import { checkIgnore } from "./check-ignore.js";
import { isGitignorePath, type RepoIgnoreState } from "./ignore-state.js";

/**
 * The ignore rules one repository had at baseline, answerable by git itself.
 *
 * `listedAsIgnored` answers from the baseline's own ignored listing (no process). `ignored`
 * builds, once, a throwaway repository in the temp directory holding the recorded
 * `.gitignore` files at their paths, the recorded `info/exclude` and excludes file and
 * `core.ignoreCase`, and asks `git check-ignore` there — so patterns, negation, directory
 * rules and precedence are git's, not a re-implementation. Call `dispose()` when done.
 */
export class BaselineRules {
  readonly state: RepoIgnoreState;
  readonly #ignored: ReadonlySet<string>;
  #shadow: Promise<string> | undefined;
  #temp: string | undefined;

  constructor(state: RepoIgnoreState) {
    this.state = state;
    this.#ignored = new Set(state.ignored);
  }

  /**
   * True when the baseline's ignored listing covers the repository path: the path itself
   * (a directory as `path/`) or a directory above it was listed as ignored. Such a path was
   * hidden by the old rules whatever it holds.
   */
  listedAsIgnored(repoPath: string, isDir: boolean): boolean {
    if (this.#ignored.has(isDir ? `${repoPath}/` : repoPath)) return true;
    for (let i = repoPath.indexOf("/"); i >= 0; i = repoPath.indexOf("/", i + 1)) {
      if (this.#ignored.has(repoPath.slice(0, i + 1))) return true;
    }
    return false;
  }

  /**
   * Which of `paths` (repository-relative; directories end in `/`) the baseline's rules
   * ignore; the answer uses the same spelling. A directory is asked as an empty directory
   * made in the throwaway work tree (so directory-only patterns apply to it, and its own
   * `.gitignore` does not). Throws {@link WorkspaceObserverError} `git_failed` when the
   * throwaway repository cannot be made or git fails.
   */
  async ignored(paths: readonly string[]): Promise<Set<string>> {
    if (paths.length === 0) return new Set();
    this.#shadow ??= this.#build();
    const worktree = await this.#shadow;
    const temp = this.#temp as string;
    const asked = paths.map((path) => {
      if (!path.endsWith("/")) return path;
      const dir = path.slice(0, -1);
      try {
        mkdirSync(join(worktree, dir), { recursive: true });
      } catch (error) {
        throw new WorkspaceObserverError("git_failed", `cannot model directory ${dir}: ${error}`);
      }
      return dir;
    });
    const ignored = await checkIgnore(
      worktree,
      asked,
      [
        "-c",
        `core.excludesFile=${join(temp, "excludes")}`,
        "-c",
        `core.ignoreCase=${this.state.ignore_case ?? "false"}`,
      ],
      isolatedEnv(temp),
    );
    return new Set(paths.filter((_, i) => ignored.has(asked[i] as string)));
  }

  /** Removes the throwaway repository, if one was made. Never throws. */
  dispose(): void {
    if (this.#temp !== undefined) rmSync(this.#temp, { recursive: true, force: true });
    this.#temp = undefined;
    this.#shadow = undefined;
  }

  async #build(): Promise<string> {
    const temp = mkdtempSync(join(tmpdir(), "turngate-rules-"));
    this.#temp = temp;
    const worktree = join(temp, "wt");
    writeFileSync(join(temp, "config"), "");
    const init = await runGit(["init", "-q", "--template=", worktree], temp, {
      env: isolatedEnv(temp),
    });
    if (init.code !== 0) {
      throw new WorkspaceObserverError(
        "git_failed",
        `could not make a repository to evaluate the baseline's ignore rules: ${init.stderr}`,
      );
    }
    let excludes = Buffer.alloc(0);
    for (const source of this.state.sources) {
      if (source.content === null) continue;
      const bytes = Buffer.from(source.content, "base64");
      if (source.kind === "excludes_file") excludes = bytes;
      else if (source.kind === "gitignore" && !isGitignorePath(source.path)) {
        throw new WorkspaceObserverError("git_failed", `bad .gitignore path ${source.path}`);
      } else {
        const path =
          source.kind === "info_exclude"
            ? join(worktree, ".git", "info", "exclude")
            : join(worktree, source.path);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, bytes);
      }
    }
    writeFileSync(join(temp, "excludes"), excludes);
    return worktree;
  }
}

/**
 * This process's environment without the variables that point git at another repository
 * or add configuration, and with user and system configuration switched off.
 */
function isolatedEnv(temp: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("GIT_")) env[key] = value;
  }
  env.GIT_CONFIG_NOSYSTEM = "1";
  env.GIT_CONFIG_GLOBAL = join(temp, "config");
  env.HOME = temp;
  env.XDG_CONFIG_HOME = temp;
  return env;
}
