import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach } from "vitest";
import { tempDir } from "../runner/helpers.js";

/**
 * A real temporary git repository with `files` committed. `write` adds or changes a file
 * (creating folders), `cleanup` removes the repository.
 */
export async function gitRepo(files: Record<string, string>): Promise<{
  root: string;
  write: (path: string, text: string) => void;
  cleanup: () => Promise<void>;
}> {
  const dir = await tempDir("repo");
  const write = (path: string, text: string) => {
    const full = join(dir.path, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
      cwd: dir.path,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "--no-gpg-sign", "--allow-empty", "-m", "base");
  return { root: dir.path, write, cleanup: dir.cleanup };
}

/**
 * Registers an `afterEach` that removes every repository made during the test and returns
 * `repo(files)`: a {@link gitRepo} whose `root` is the real path (symlinks resolved, as the
 * session reports paths). Call once at a test file's top level.
 */
export function useGitRepos(): (files: Record<string, string>) => ReturnType<typeof gitRepo> {
  let cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups) await cleanup();
    cleanups = [];
  });
  return async (files) => {
    const r = await gitRepo(files);
    cleanups.push(r.cleanup);
    return { ...r, root: realpathSync(r.root) };
  };
}
