/**
 * Issue 33 deliverable 1: the in-process git listing's index fields and its fallbacks, one
 * by one (the differential property over random repositories is
 * `native-git-list.property.test.ts`). Each tracked entry carries git's mode, object id,
 * flags and index stat fields (`git ls-files -s --debug` is the oracle); every row of the
 * fallback matrix in `packages/native/src/git_listing.rs` that can be produced here is: the
 * addon leaves the repository to git with that code and a reason, and a repository git
 * itself cannot list is never listed.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import type { NativeAddon, NativeGitListing } from "../../src/native/select.js";
import { runGit, runGitPair } from "../../src/workspace/listing/git.js";
import { GIT_LIST_ARGS } from "../../src/workspace/listing/git-list.js";
import {
  isNativeGitFallback,
  nativeGitLists,
} from "../../src/workspace/listing/native-git-list.js";
import { OutputLocations } from "../../src/workspace/scope/output-locations.js";
import {
  GIT_IGNORED_ARGS,
  listIgnoredFromNames,
  listIgnoredPaths,
} from "../../src/workspace/scope/outside-listing.js";
import { git, initRepo, makeTempDir, removeDir, write } from "./helpers.js";
import { permissionTrickUnavailable, withPermissionsEnforced } from "./unprivileged.js";

const addon = createRequire(import.meta.url)("@turngate/native") as NativeAddon & {
  GIT_LISTING_FLAGS: { skipWorktree: 1; intentToAdd: 2; unmerged: 4; assumeValid: 8 };
};
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) {
    execFileSync("chmod", ["-R", "u+rwX", d]);
    removeDir(d);
  }
});

function repo(files: Record<string, string> = { "a.txt": "a\n" }): string {
  const root = makeTempDir("tg-gitlist-");
  dirs.push(root);
  initRepo(root, files);
  return root;
}

async function listing(root: string, dir = ""): Promise<NativeGitListing> {
  const result = await addon.gitListing(root, { dir });
  if ("fallback" in result)
    throw new Error(`unexpected fallback ${result.fallback}: ${result.reason}`);
  return result;
}

async function fallbackOf(root: string, dir = ""): Promise<{ fallback: string; reason: string }> {
  const result = await addon.gitListing(root, { dir });
  if (!("fallback" in result)) throw new Error("expected a fallback, got a listing");
  expect(result.reason).not.toBe("");
  return result;
}

const names = (buffer: Buffer) => buffer.toString("latin1").split("\0").slice(0, -1);

describe("issue 33: the in-process listing's tracked entries", () => {
  test("mode, object id, flags and the index's stat fields are git's (ls-files -s --debug)", async () => {
    const root = repo({ "a.txt": "a\n", "run.sh": "#!/bin/sh\n", "src/b.txt": "b\n" });
    chmodSync(join(root, "run.sh"), 0o755);
    git(root, "add", "run.sh");
    execFileSync("ln", ["-s", "a.txt", join(root, "link")]);
    write(root, "ita.txt", "new\n");
    git(root, "add", "link");
    git(root, "add", "-N", "ita.txt");
    git(root, "update-index", "--assume-unchanged", "a.txt");
    git(root, "update-index", "--skip-worktree", "src/b.txt");
    execFileSync("git", ["update-index", "--index-info"], {
      cwd: root,
      input: [1, 2, 3]
        .map((stage) => `100644 ${"2".repeat(39)}${stage} ${stage}\tconflict.txt\n`)
        .join(""),
    });
    execFileSync("git", ["update-index", "--add", "--cacheinfo", `160000,${"3".repeat(40)},sub`], {
      cwd: root,
    });
    const native = await listing(root);
    const paths = names(native.tracked.names);
    expect(paths).toEqual([
      "a.txt",
      "conflict.txt",
      "ita.txt",
      "link",
      "run.sh",
      "src/b.txt",
      "sub",
    ]);
    expect(native.objectFormat).toBe("sha1");
    expect(native.tracked.count).toBe(7);
    // git's view of each entry: `ls-files -s` (mode, id, stage) and `--debug` (stat fields).
    const debug = execFileSync("git", ["ls-files", "-s", "--debug"], {
      cwd: root,
      encoding: "utf8",
    });
    const records = debug.split(/\n(?=\d{6} )/);
    const fromGit = new Map<string, { mode: number; id: string; stat: number[] }>();
    for (const record of records) {
      const m =
        /^(\d{6}) ([0-9a-f]{40}) (\d)\t(.*)\n {2}ctime: (\d+):(\d+)\n {2}mtime: (\d+):(\d+)\n {2}dev: (\d+)\tino: (\d+)\n {2}uid: (\d+)\tgid: (\d+)\n {2}size: (\d+)/.exec(
          record,
        );
      if (m === null) throw new Error(`unparsed: ${record}`);
      const [, mode, id, stage, path, ...stat] = m as unknown as string[];
      if (fromGit.has(path as string) && stage !== "2") continue; // "ours" wins, else the first
      fromGit.set(path as string, {
        mode: Number.parseInt(mode as string, 8),
        id: id as string,
        stat: stat.map(Number),
      });
    }
    paths.forEach((path, i) => {
      const expected = fromGit.get(path);
      expect({
        path,
        mode: native.tracked.modes[i],
        id: native.tracked.ids.subarray(i * 20, i * 20 + 20).toString("hex"),
        stat: [...native.tracked.stats.subarray(i * 9, i * 9 + 9)],
      }).toEqual({ path, ...expected });
    });
    const flag = (path: string) => native.tracked.flags[paths.indexOf(path)];
    const F = addon.GIT_LISTING_FLAGS;
    expect({
      a: flag("a.txt"),
      conflict: flag("conflict.txt"),
      ita: flag("ita.txt"),
      b: flag("src/b.txt"),
      run: flag("run.sh"),
    }).toEqual({
      a: F.assumeValid,
      conflict: F.unmerged,
      ita: F.intentToAdd,
      b: F.skipWorktree,
      run: 0,
    });
    expect(native.tracked.modes[paths.indexOf("run.sh")]).toBe(0o100755);
    expect(native.tracked.modes[paths.indexOf("link")]).toBe(0o120000);
    expect(native.tracked.modes[paths.indexOf("sub")]).toBe(0o160000);
  });

  test("a SHA-256 repository: 32-byte ids, as git ls-files -s names them", async () => {
    const root = makeTempDir("tg-gitlist-");
    dirs.push(root);
    git(root, "init", "-q", "--object-format=sha256", ".");
    write(root, "a.txt", "a\n");
    git(root, "add", "a.txt");
    const native = await listing(root);
    expect(native.objectFormat).toBe("sha256");
    const expected = git(root, "ls-files", "-s").split(" ")[1];
    expect(native.tracked.ids.toString("hex")).toBe(expected);
  });

  test("no index file yet: nothing tracked, the untracked files listed", async () => {
    const root = makeTempDir("tg-gitlist-");
    dirs.push(root);
    git(root, "init", "-q", ".");
    write(root, "new.txt", "x");
    const native = await listing(root);
    expect([native.indexVersion, native.tracked.count, names(native.untracked.names)]).toEqual([
      0,
      0,
      ["new.txt"],
    ]);
  });
});

/** The raw names git prints in `root/dir` (the observer's two calls), beside the addon's. */
async function bothListings(root: string, dir = "") {
  const cwd = dir === "" ? root : join(root, dir);
  const [source, ignored] = await Promise.all(
    runGitPair([...GIT_LIST_ARGS], [...GIT_IGNORED_ARGS], cwd),
  );
  const native = await listing(root, dir);
  const tagged = names(source.stdout);
  return {
    git: {
      untracked: tagged.filter((n) => n.startsWith("? ")).map((n) => n.slice(2)),
      tracked: tagged.filter((n) => !n.startsWith("? ")).map((n) => n.slice(2)),
      ignored: names(ignored.stdout),
    },
    native: {
      untracked: names(native.untracked.names),
      tracked: names(native.tracked.names),
      ignored: names(native.ignored.names),
    },
  };
}

describe("issue 33: the in-process listing where the repository is laid out differently", () => {
  test("a linked worktree: its own index, the common info/exclude, as git lists it", async () => {
    const root = repo({ "a.txt": "a\n", "b.log": "b\n" });
    write(root, ".git/info/exclude", "*.tmp\n");
    const worktree = join(makeTempDir("tg-gitlist-wt-"), "wt");
    dirs.push(dirname(worktree));
    git(root, "worktree", "add", "-q", worktree);
    write(worktree, "new.txt", "n");
    write(worktree, "x.tmp", "t");
    const both = await bothListings(worktree);
    expect(both.native).toEqual(both.git);
    expect(both.native.ignored).toEqual(["x.tmp"]);
  });

  test("a nested repository whose .git is a gitdir file (an absorbed submodule) is named dir/", async () => {
    const root = repo({ "a.txt": "a\n" });
    const store = join(root, ".git", "modules", "lib");
    mkdirSync(store, { recursive: true });
    git(store, "init", "-q", "--bare", ".");
    mkdirSync(join(root, "lib"));
    writeFileSync(join(root, "lib", ".git"), `gitdir: ${store}\n`);
    git(store, "config", "core.bare", "false");
    git(store, "config", "core.worktree", join(root, "lib"));
    write(root, "lib/inside.txt", "x");
    mkdirSync(join(root, "junk"));
    writeFileSync(join(root, "junk", ".git"), "not a gitdir file\n");
    write(root, "junk/file.txt", "j");
    const both = await bothListings(root);
    expect(both.native).toEqual(both.git);
    expect(both.native.untracked).toEqual(["junk/file.txt", "lib/"]);
  });
});

describe("issue 33: nativeGitLists gives the observer's shapes", () => {
  test("its ignored names give listIgnoredPaths' outside listing (ignored folders read, nested .git found)", async () => {
    const root = repo({ "a.txt": "a\n", ".gitignore": "*.log\nbuild/\nnode_modules\n" });
    write(root, "x.log", "l");
    write(root, "build/out/app.o", "o");
    write(root, "node_modules/pkg/index.js", "j");
    write(root, "untracked/only.log", "l");
    mkdirSync(join(root, "build", "inner"));
    initRepo(join(root, "build", "inner"), { "f.txt": "f\n" });
    const outputs = new OutputLocations({ root });
    const lists = await nativeGitLists(addon, root, "", () => false);
    if (isNativeGitFallback(lists)) throw new Error(lists.reason);
    const fromNative = await listIgnoredFromNames(root, "", lists.ignored, () => false, outputs);
    const fromGit = await listIgnoredPaths(root, "", () => false, outputs);
    const plain = (l: typeof fromGit) => ({
      ...l,
      candidates: l.candidates.map((c) => `${c.item.key} ${c.scope}`).sort(),
    });
    expect(plain(fromNative)).toEqual(plain(fromGit));
    expect(plain(fromNative).candidates.map((c) => c.split(" ")[0])).toEqual([
      "build/inner/f.txt",
      "build/out/app.o",
      "node_modules/pkg/index.js",
      "untracked/only.log",
      "x.log",
    ]);
    expect(fromNative.gitFolders).toEqual([{ fsPath: "build/inner", scope: "ignored" }]);
  });
});

describe("issue 33: the in-process listing leaves a repository to git where gitoxide falls short", () => {
  test("environment: a GIT_* variable that moves the repository, index or configuration", async () => {
    const root = repo();
    for (const name of ["GIT_DIR", "GIT_INDEX_FILE", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"]) {
      process.env[name] = name === "GIT_CONFIG_COUNT" ? "0" : join(root, ".git");
      try {
        const result = await fallbackOf(root);
        expect(result.fallback).toBe("environment");
        expect(result.reason).toContain(name);
      } finally {
        delete process.env[name];
      }
    }
    expect((await listing(root)).tracked.count).toBe(1);
  });

  test("ignore-case and precompose-unicode: core.ignoreCase / core.precomposeUnicode true", async () => {
    const root = repo();
    git(root, "config", "core.ignoreCase", "true");
    expect((await fallbackOf(root)).fallback).toBe("ignore-case");
    git(root, "config", "core.ignoreCase", "false");
    git(root, "config", "core.precomposeUnicode", "true");
    expect((await fallbackOf(root)).fallback).toBe("precompose-unicode");
  });

  test("excludes-file: core.excludesFile set to an empty value (git reads no global excludes file; gitoxide would read the default one and hide a file git lists)", async () => {
    const root = repo();
    // The user's default global excludes file hides *.local.txt; the empty core.excludesFile
    // turns it off for git (an attack round found the listing hid such a file from the digest).
    const xdg = join(root, "..", `${root.split("/").pop()}-xdg`);
    mkdirSync(join(xdg, "git"), { recursive: true });
    writeFileSync(join(xdg, "git", "ignore"), "*.local.txt\n");
    const env = { ...process.env, XDG_CONFIG_HOME: xdg };
    const saved = process.env.XDG_CONFIG_HOME;
    process.env.XDG_CONFIG_HOME = xdg;
    try {
      write(root, "settings.local.txt", "BAD\n");
      git(root, "config", "core.excludesFile", "");
      const fell = await fallbackOf(root);
      expect(fell.fallback).toBe("excludes-file");
      expect(fell.reason).toBe(
        "core.excludesFile is set to an empty value: git then reads no global excludes file, gitoxide reads the default one; left to git",
      );
      // git itself lists the file as untracked: it is source.
      const listed = await runGit([...GIT_LIST_ARGS], root, { env });
      expect(listed.stdout.toString("utf8").split("\0")).toContain("? settings.local.txt");
      // Without the empty value both read the default file and hide it alike.
      git(root, "config", "--unset", "core.excludesFile");
      const lists = await nativeGitLists(addon, root, "", () => false);
      expect(isNativeGitFallback(lists)).toBe(false);
      if (!isNativeGitFallback(lists)) {
        expect(lists.listing.paths.map((p) => p.key)).not.toContain("settings.local.txt");
      }
    } finally {
      if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
      else process.env.XDG_CONFIG_HOME = saved;
      rmSync(xdg, { recursive: true, force: true });
    }
  });

  test("index: an unknown mandatory extension and an unknown index version (git fails on both)", async () => {
    const root = repo();
    const indexPath = join(root, ".git", "index");
    const original = readFileSync(indexPath);
    // Insert a lowercase (mandatory) extension "zzzz" before the trailing checksum.
    const body = Buffer.concat([
      original.subarray(0, original.length - 20),
      Buffer.from("zzzz"),
      Buffer.from([0, 0, 0, 0]),
    ]);
    const withExtension = Buffer.concat([body, createHash("sha1").update(body).digest()]);
    writeFileSync(indexPath, withExtension);
    const unknown = await fallbackOf(root);
    expect(unknown.fallback).toBe("index");
    expect((await runGit([...GIT_LIST_ARGS], root)).code).not.toBe(0);
    const v9 = Buffer.from(original);
    v9.writeUInt32BE(9, 4);
    writeFileSync(indexPath, v9);
    expect((await fallbackOf(root)).fallback).toBe("index");
    expect((await runGit([...GIT_LIST_ARGS], root)).code).not.toBe(0);
  });

  test("not-a-work-tree: no repository, a bare repository, the .git folder itself", async () => {
    const plain = makeTempDir("tg-gitlist-");
    dirs.push(plain);
    expect((await fallbackOf(plain)).fallback).toBe("not-a-work-tree");
    const bare = makeTempDir("tg-gitlist-");
    dirs.push(bare);
    git(bare, "init", "-q", "--bare", ".");
    expect((await fallbackOf(bare)).fallback).toBe("not-a-work-tree");
    const root = repo();
    expect((await fallbackOf(root, ".git")).fallback).toBe("not-a-work-tree");
  });

  test("root-not-tracked: a folder below the top that holds no tracked file", async () => {
    const root = repo({ "src/a.txt": "a\n" });
    write(root, "fresh/new.txt", "x");
    expect((await fallbackOf(root, "fresh")).fallback).toBe("root-not-tracked");
    const below = await listing(root, "src");
    expect([below.prefix, names(below.tracked.names)]).toEqual(["src", ["a.txt"]]);
  });

  test("sparse-index: a sparse directory whose tree object is missing", async () => {
    const root = repo({ "src/a.txt": "a\n", "docs/b.txt": "b\n" });
    git(root, "config", "index.sparse", "true");
    git(root, "sparse-checkout", "set", "--cone", "--sparse-index", "src");
    const expanded = await listing(root);
    expect(names(expanded.tracked.names)).toEqual(["docs/b.txt", "src/a.txt"]);
    expect(expanded.indexFeatures & 1).toBe(1);
    const docsTree = git(root, "rev-parse", "HEAD:docs").trim();
    rmSync(join(root, ".git", "objects", docsTree.slice(0, 2), docsTree.slice(2)));
    expect((await fallbackOf(root)).fallback).toBe("sparse-index");
  });

  test.skipIf(permissionTrickUnavailable() !== undefined)(
    "unreadable-directory: a folder the walk cannot read",
    async () => {
      const root = repo();
      const home = makeTempDir("tg-gitlist-home-");
      dirs.push(home);
      chmodSync(home, 0o755); // the global excludes file is looked for there
      write(root, "locked/x.txt", "x");
      chmodSync(join(root, "locked"), 0o000);
      const result = await withPermissionsEnforced(root, home, () => addon.gitListing(root));
      chmodSync(join(root, "locked"), 0o755);
      expect(result).toMatchObject({ fallback: "unreadable-directory" });
    },
  );

  test.skipIf(process.getuid?.() !== 0)(
    "untrusted: a repository owned by another user (git refuses it without safe.directory)",
    async () => {
      const root = repo();
      execFileSync("chown", ["-R", "65534:65534", root]);
      expect((await fallbackOf(root)).fallback).toBe("untrusted");
      expect((await runGit([...GIT_LIST_ARGS], root)).code).not.toBe(0);
    },
  );

  test("bad arguments are typed errors; nativeGitLists turns any failure into a fallback", async () => {
    await expect(addon.gitListing("relative")).rejects.toMatchObject({
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "root",
    });
    const root = repo();
    await expect(addon.gitListing(root, { dir: "../x" })).rejects.toMatchObject({
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "dir",
    });
    const failing = {
      ...addon,
      gitListing: () => Promise.reject(new Error("boom")),
    } as NativeAddon;
    const result = await nativeGitLists(failing, root, "", () => false);
    expect(isNativeGitFallback(result) && result).toMatchObject({ fallback: "addon" });
    expect(isNativeGitFallback(result) ? result.reason : "").toContain("boom");
  });

  test("a subfolder listed from the top of a nested repository keeps its keys relative to the workspace", async () => {
    const root = repo({ "a.txt": "a\n" });
    mkdirSync(join(root, "inner"));
    initRepo(join(root, "inner"), { "x.txt": "x\n" });
    write(root, "inner/new.txt", "n");
    const result = await nativeGitLists(addon, root, "inner", () => false);
    if (isNativeGitFallback(result)) throw new Error(result.reason);
    expect(result.listing.paths.map((p) => p.key)).toEqual(["inner/new.txt", "inner/x.txt"]);
    expect(result.listing.untracked).toEqual(["inner/new.txt"]);
  });
});
