import { appendFileSync, linkSync, lstatSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { readExcludesConfig } from "../../src/workspace/ignore/ignore-config.js";
import type { IgnoreState, RepoIgnoreState } from "../../src/workspace/ignore/ignore-state.js";
import {
  ignoreRulesChanged,
  NEW_DIR_SCAN_LIMIT,
} from "../../src/workspace/ignore/ignore-trigger.js";
import { WorkspaceObserver } from "../../src/workspace/index.js";
import { StatService } from "../../src/workspace/stat/stat-service.js";
import { git, initRepo, makeTempDir, removeDir, write } from "./helpers.js";

let dir: string;
let root: string;
let saved: string | undefined;
const stats = new StatService();

beforeEach(() => {
  dir = makeTempDir();
  root = join(dir, "repo");
  mkdirSync(root);
  saved = process.env.GIT_CONFIG_GLOBAL;
  process.env.GIT_CONFIG_GLOBAL = join(dir, "gitconfig");
  writeFileSync(join(dir, "gitconfig"), "");
  initRepo(root, {
    "a.txt": "hello\n",
    ".gitignore": "*.log\nnode_modules/\n",
    "docs/readme.md": "kept\n",
  });
});

afterEach(() => {
  if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
  else process.env.GIT_CONFIG_GLOBAL = saved;
  removeDir(dir);
});

async function record(): Promise<IgnoreState> {
  const base = await new WorkspaceObserver(root).baseline();
  return base.ignore_state as IgnoreState;
}

async function check(state: IgnoreState, repo = state.repos[0]): Promise<string | undefined> {
  const entries = (await new WorkspaceObserver(root).snapshot()).entries;
  return ignoreRulesChanged({
    state: repo as RepoIgnoreState,
    takenAtMs: state.taken_at_ms,
    entries,
    config: () => readExcludesConfig(root),
    stats,
    filter: () => false,
  });
}

describe("ignoreRulesChanged: has a repository's ignore rules changed since the baseline?", () => {
  test("ordinary edits are no change: new and modified files, a new visible directory", async () => {
    const state = await record();
    write(root, "a.txt", "hello world\n");
    write(root, "src/new.ts", "x\n");
    write(root, "lib/deep/x.ts", "x\n");
    expect(await check(state)).toBeUndefined();
  });

  test("a new directory git ignores is no change even when it holds .gitignore files", async () => {
    const state = await record();
    write(root, "node_modules/pkg/.gitignore", "*\n");
    write(root, "node_modules/pkg/index.js", "x\n");
    expect(await check(state)).toBeUndefined();
  });

  test("each kind of change is named", async () => {
    const state = await record();
    write(root, "lib/deep/.gitignore", "*\n");
    expect(await check(state)).toBe("new lib/deep/.gitignore");

    const second = await record();
    appendFileSync(join(root, ".gitignore"), "*.tmp\n");
    expect(await check(second)).toBe(".gitignore changed");

    const third = await record();
    appendFileSync(join(root, ".git/info/exclude"), "x\n");
    expect(await check(third)).toBe(`${join(root, ".git/info/exclude")} changed`);

    const fourth = await record();
    git(root, "config", "core.excludesFile", join(dir, "other"));
    expect(await check(fourth)).toBe("core.excludesFile changed");
  });

  test("a new directory too large to scan counts as a change", async () => {
    const state = await record();
    writeFileSync(join(dir, "seed"), "x\n");
    mkdirSync(join(root, "big"));
    for (let i = 0; i <= NEW_DIR_SCAN_LIMIT; i++)
      linkSync(join(dir, "seed"), join(root, `big/f${i}`));
    expect(NEW_DIR_SCAN_LIMIT).toBe(4096);
    expect(await check(state)).toBe("new directory big too large to scan");
  });

  test("a directory is read again only when its lstat identity changed or is racy", async () => {
    const state = await record();
    write(root, "docs/.gitignore", "*\n");
    const docs = lstatSync(join(root, "docs"));
    const notRacy = { ...state, taken_at_ms: Date.now() + 60_000 };
    // With the recorded identity, docs/ changed and is read: the new .gitignore is found.
    expect(await check(notRacy)).toBe("new docs/.gitignore");
    // Claiming the current identity as the recorded one proves docs/ is then not read.
    const repo = state.repos[0] as RepoIgnoreState;
    const sameDocs = {
      ...repo,
      dirs: repo.dirs.map((d) =>
        d.path === "docs"
          ? { path: "docs", mtime_ms: docs.mtimeMs, ctime_ms: docs.ctimeMs, ino: docs.ino }
          : d,
      ),
    };
    expect(await check(notRacy, sameDocs)).toBeUndefined();
    // Racy (the real taken_at_ms, just after the writes): read again whatever the identity.
    expect(await check(state, sameDocs)).toBe("new docs/.gitignore");
  });
});
