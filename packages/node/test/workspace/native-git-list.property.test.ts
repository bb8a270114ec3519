/**
 * Issue 33 deliverable 1: the in-process git listing (`@turngate/native`'s `gitListing`,
 * wrapped by `nativeGitLists`) against git itself, the oracle. A property test (fast-check)
 * builds random real repositories — ignore rules with negations and directory patterns,
 * nested `.gitignore`, `info/exclude`, the global excludes file (XDG default, `~/.gitconfig`
 * and repository `core.excludesFile`), untracked and ignored nested repositories, submodules
 * (checked out and missing), symlinks (to a file, to a folder, dangling), odd names (spaces,
 * NFC and NFD, newline, tab, a backslash, bytes that are not UTF-8), empty folders, FIFOs,
 * deleted and staged-then-deleted tracked files, intent-to-add, skip-worktree and
 * assume-unchanged entries, unmerged stages, sparse index (`git sparse-checkout` with
 * `index.sparse`), split index, index versions 2, 3 and 4 with an untracked cache, SHA-1 and
 * SHA-256 repositories — and lists each with `git ls-files` (the observer's own calls:
 * `GIT_LIST_ARGS` and `GIT_IGNORED_ARGS` through `runGitPair`, with turngate's safety
 * settings) and with the addon, at the root, below it (a tracked folder) and in a nested
 * repository. Any difference fails: the raw names (byte for byte, in git's order), the
 * `Listing` `listGitPaths` builds, and the ignored names. A fallback fails too: these
 * repositories hold nothing the addon's matrix leaves to git, except listing a folder below
 * the top that holds no tracked file (`root-not-tracked`), which must then be exactly that
 * case. The matrix's fallbacks are tested one by one after the property.
 *
 * Runs: 1,000 trees in CI (`CI` set), `TURNGATE_GIT_LIST_RUNS` (default 60) elsewhere.
 */
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import type { NativeAddon } from "../../src/native/select.js";
import { runGit, runGitPair } from "../../src/workspace/listing/git.js";
import {
  GIT_LIST_ARGS,
  listGitPaths,
  splitNulTerminated,
} from "../../src/workspace/listing/git-list.js";
import {
  isNativeGitFallback,
  nativeGitLists,
} from "../../src/workspace/listing/native-git-list.js";
import { GIT_IGNORED_ARGS } from "../../src/workspace/scope/outside-listing.js";
import { makeTempDir, removeDir } from "./helpers.js";

vi.setConfig({ testTimeout: testTimeout(600_000), hookTimeout: testTimeout(120_000) });

const addon = createRequire(import.meta.url)("@turngate/native") as NativeAddon;
const RUNS = process.env.CI ? 1000 : Number(process.env.TURNGATE_GIT_LIST_RUNS ?? 60);

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
};

/** Runs git in `cwd` (input on stdin when given); returns stdout, throws on failure. */
function git(cwd: string, args: string[], input?: Buffer | string): Buffer {
  return execFileSync("git", args, {
    cwd,
    env: GIT_ENV,
    input,
    stdio: ["pipe", "pipe", "pipe"],
  });
}

// ---------------------------------------------------------------------------------------
// The random repository.

const DIRS = [
  "",
  "src",
  "src/deep",
  "build",
  "build/out",
  "docs",
  "with space",
  "\u00fcn\u00ef",
  "node_modules/pkg",
  "logs",
  "nested-ignored",
] as const;

const NAMES = [
  "a.ts",
  "b.log",
  "keep.log",
  "x.tmp",
  "with space.txt",
  "\u00fcn\u00ef.md", // NFC
  "u\u0308n.md", // NFD
  "new\nline",
  "tab\tx",
  ".hidden",
  "c",
  "#hash",
  "trailing ",
  "back\\slash",
  "[ab].ts",
] as const;

/** Root `.gitignore` patterns: negations, anchored and directory patterns, globs, escapes. */
const ROOT_PATTERNS = [
  "*.log",
  "!keep.log",
  "build/",
  "!build/out/keep.log",
  "/docs",
  "*.tmp",
  "node_modules",
  "src/**/x.tmp",
  "!src/deep/x.tmp",
  "with space/",
  "*.md",
  "!\u00fcn\u00ef.md",
  "logs/*",
  "!logs/keep.log",
  "[ab].ts",
  "\\#hash",
  "trailing\\ ",
  "nested-ignored/",
  "linkdir/",
  "/c",
  "**/deep",
  "src/",
  "empty-ignored/",
  "*\n*/\n!*/\n!*.ts",
] as const;

const SRC_PATTERNS = ["*.ts", "!a.ts", "deep", "/x.tmp", "*.log", "!b.log", "c"] as const;
const INFO_PATTERNS = ["c", "*.md", "tab*", "/with space/with space.txt", "!.hidden"] as const;
const GLOBAL_PATTERNS = ["*.tmp", "\u00fcn\u00ef*", ".hidden", "back*"] as const;

type FileState = "untracked" | "tracked" | "modified" | "deleted" | "ita" | "assume" | "skip";
type FileKind = "file" | "symlink-file" | "symlink-dir" | "dangling";

interface FileSpec {
  dir: string;
  name: string;
  kind: FileKind;
  state: FileState;
}

interface TreeSpec {
  format: "sha1" | "sha256";
  files: FileSpec[];
  rootIgnore: string[];
  srcIgnore: string[];
  infoExclude: string[];
  globalExclude: string[];
  globalVia: "none" | "xdg" | "home-config" | "repo-config";
  nested: "none" | "untracked" | "ignored" | "inside-untracked" | "inside-ignored";
  submodule: "none" | "checked-out" | "missing";
  conflict: boolean;
  emptyDirs: boolean;
  fifo: boolean;
  nonUtf8: boolean;
  index: { version: 2 | 3 | 4 | undefined; split: boolean; untrackedCache: boolean };
  sparse: boolean;
  subdir: boolean;
}

const fileArb: fc.Arbitrary<FileSpec> = fc.record({
  dir: fc.constantFrom(...DIRS),
  name: fc.constantFrom(...NAMES),
  kind: fc.constantFrom<FileKind>(
    "file",
    "file",
    "file",
    "file",
    "file",
    "symlink-file",
    "symlink-dir",
    "dangling",
  ),
  state: fc.constantFrom<FileState>(
    "untracked",
    "untracked",
    "tracked",
    "tracked",
    "tracked",
    "modified",
    "deleted",
    "ita",
    "assume",
    "skip",
  ),
});

const subset = <T>(items: readonly T[], maxLength: number) =>
  fc.subarray([...items], { maxLength });

const treeArb: fc.Arbitrary<TreeSpec> = fc.record({
  format: fc.constantFrom("sha1" as const, "sha1" as const, "sha256" as const),
  files: fc.uniqueArray(fileArb, {
    minLength: 1,
    maxLength: 24,
    selector: (f) => `${f.dir}/${f.name}`,
  }),
  rootIgnore: subset(ROOT_PATTERNS, 8),
  srcIgnore: subset(SRC_PATTERNS, 4),
  infoExclude: subset(INFO_PATTERNS, 3),
  globalExclude: subset(GLOBAL_PATTERNS, 3),
  globalVia: fc.constantFrom("none" as const, "xdg" as const, "home-config" as const, "repo-config" as const),
  nested: fc.constantFrom(
    "none" as const,
    "untracked" as const,
    "ignored" as const,
    "inside-untracked" as const,
    "inside-ignored" as const,
  ),
  submodule: fc.constantFrom("none" as const, "checked-out" as const, "missing" as const),
  conflict: fc.boolean(),
  emptyDirs: fc.boolean(),
  fifo: fc.boolean(),
  nonUtf8: fc.boolean(),
  index: fc.record({
    version: fc.constantFrom(undefined, 2 as const, 3 as const, 4 as const),
    split: fc.boolean(),
    untrackedCache: fc.boolean(),
  }),
  sparse: fc.nat(9).map((n) => n < 2),
  subdir: fc.boolean(),
});

/** Empty `.git` directories made once per object format (`git init --template=`), copied per tree. */
const templates: Record<"sha1" | "sha256", string> = { sha1: "", sha256: "" };
let scratch = "";
let home = "";
const savedEnv = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };

/** A repository's `.git` from the template of `format`, at `root/.git`. */
function initFromTemplate(root: string, format: "sha1" | "sha256"): void {
  mkdirSync(root, { recursive: true });
  cpSync(templates[format], join(root, ".git"), { recursive: true });
}

const EMPTY_BLOB = {
  sha1: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
  sha256: "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",
} as const;
const OTHER_OID = { sha1: "1".repeat(40), sha256: "1".repeat(64) } as const;

const rel = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`);

/** What a tree turned out to hold (the property also checks the generator's coverage). */
interface Built {
  sparse: boolean;
  split: boolean;
}

/** Builds the repository `spec` describes in `root` with as few git processes as possible. */
function build(root: string, spec: TreeSpec): Built {
  initFromTemplate(root, spec.format);
  const gitDir = join(root, ".git");
  const config: string[] = [];
  // Global configuration and excludes: rewritten for every tree (HOME and XDG are ours).
  const globalFile = join(home, "global-ignore");
  rmSync(join(home, ".gitconfig"), { force: true });
  rmSync(join(home, "xdg"), { recursive: true, force: true });
  const globalText = `${spec.globalExclude.join("\n")}\n`;
  if (spec.globalVia === "xdg") {
    mkdirSync(join(home, "xdg", "git"), { recursive: true });
    writeFileSync(join(home, "xdg", "git", "ignore"), globalText);
  } else if (spec.globalVia === "home-config") {
    writeFileSync(globalFile, globalText);
    writeFileSync(join(home, ".gitconfig"), `[core]\n\texcludesFile = ${globalFile}\n`);
  } else if (spec.globalVia === "repo-config") {
    writeFileSync(globalFile, globalText);
    config.push("[core]", `\texcludesFile = ${globalFile}`);
  }
  if (spec.rootIgnore.length > 0) writeFileSync(join(root, ".gitignore"), `${spec.rootIgnore.join("\n")}\n`);
  if (spec.srcIgnore.length > 0) {
    mkdirSync(join(root, "src"), { recursive: true });
    writeFileSync(join(root, "src", ".gitignore"), `${spec.srcIgnore.join("\n")}\n`);
  }
  if (spec.infoExclude.length > 0) {
    mkdirSync(join(gitDir, "info"), { recursive: true });
    writeFileSync(join(gitDir, "info", "exclude"), `${spec.infoExclude.join("\n")}\n`);
  }
  // The files, then one `update-index --add` for everything the spec tracks.
  const track: Buffer[] = [];
  const made: FileSpec[] = [];
  for (const file of spec.files) {
    const path = rel(file.dir, file.name);
    const abs = join(root, path);
    try {
      mkdirSync(dirname(abs), { recursive: true });
      if (file.kind === "file") writeFileSync(abs, `${path}\n`);
      else if (file.kind === "symlink-file") symlinkSync("a.ts", abs);
      else if (file.kind === "symlink-dir") symlinkSync(file.dir === "" ? "src" : "..", abs);
      else symlinkSync("missing-target", abs);
    } catch {
      continue; // the name is taken
    }
    made.push(file);
    if (file.state !== "untracked" && file.state !== "ita") track.push(Buffer.from(path));
  }
  if (spec.rootIgnore.length > 0 && spec.files.length % 2 === 0) track.push(Buffer.from(".gitignore"));
  if (spec.nonUtf8) {
    const name = Buffer.concat([Buffer.from("bad-"), Buffer.from([0xff, 0xfe]), Buffer.from(".txt")]);
    writeFileSync(Buffer.concat([Buffer.from(`${root}/`), name]), "x");
    if (spec.files.length % 3 === 0) track.push(name);
  }
  const nulList = (paths: Buffer[]) => Buffer.concat(paths.flatMap((p) => [p, Buffer.from([0])]));
  if (track.length > 0) git(root, ["update-index", "--add", "-z", "--stdin"], nulList(track));
  // Index-only entries: a submodule's gitlink, unmerged stages.
  const info: string[] = [];
  if (spec.submodule !== "none") {
    info.push(`160000 ${OTHER_OID[spec.format]} 0\tsub`);
    if (spec.submodule === "checked-out") {
      initFromTemplate(join(root, "sub"), spec.format);
      writeFileSync(join(root, "sub", "inside.txt"), "x");
    }
  }
  if (spec.conflict) {
    for (const stage of [1, 2, 3]) info.push(`100644 ${EMPTY_BLOB[spec.format]} ${stage}\tconflicted.txt`);
    writeFileSync(join(root, "conflicted.txt"), "<<<<<<<\n");
  }
  if (info.length > 0) git(root, ["update-index", "--index-info"], `${info.join("\n")}\n`);
  // Nested repositories.
  const nestedAt = {
    none: undefined,
    untracked: "nested",
    ignored: "nested-ignored",
    "inside-untracked": "fresh/nested",
    "inside-ignored": "build/inner",
  }[spec.nested];
  if (nestedAt !== undefined) {
    initFromTemplate(join(root, nestedAt), spec.format);
    writeFileSync(join(root, nestedAt, "file.txt"), "x");
    writeFileSync(join(root, nestedAt, "skip.log"), "x");
    writeFileSync(join(root, nestedAt, ".gitignore"), "*.log\n");
  }
  // A sparse index needs a commit to cut the cone from.
  let sparse = false;
  if (spec.sparse && track.length > 0 && spec.submodule === "none" && !spec.conflict) {
    appendFileSync(join(gitDir, "config"), "[index]\n\tsparse = true\n");
    git(root, ["commit", "-q", "--no-verify", "-m", "x"]);
    try {
      git(root, ["sparse-checkout", "set", "--cone", "--sparse-index", "src"]);
      sparse = true;
      // An untracked file in a folder outside the cone, made after the checkout.
      mkdirSync(join(root, "docs"), { recursive: true });
      writeFileSync(join(root, "docs", "after-sparse.txt"), "x");
    } catch {
      // git refused (an untracked file in the way): the tree stays a full checkout
    }
  }
  // Working-tree changes and per-entry flags after the index is written.
  const flagged: Record<"ita" | "assume" | "skip", string[]> = { ita: [], assume: [], skip: [] };
  for (const file of made) {
    const path = rel(file.dir, file.name);
    if (file.state === "modified") {
      try {
        unlinkSync(join(root, path));
        writeFileSync(join(root, path), "changed\n");
      } catch {
        // removed by the sparse checkout
      }
    } else if (file.state === "deleted") rmSync(join(root, path), { force: true });
    else if (file.state === "ita" || file.state === "assume" || file.state === "skip") {
      flagged[file.state].push(path);
    }
  }
  if (flagged.ita.length > 0) {
    try {
      git(root, ["add", "-N", "-f", "--sparse", "--", ...flagged.ita]);
    } catch {
      // git 2.39 can crash on an intent-to-add path in a sparse index: the tree goes without
    }
  }
  const flagArgs = [
    ...(flagged.assume.length > 0 ? ["--assume-unchanged", ...flagged.assume] : []),
    ...(flagged.skip.length > 0 ? ["--skip-worktree", ...flagged.skip] : []),
  ];
  if (spec.index.version !== undefined) flagArgs.unshift("--index-version", String(spec.index.version));
  if (spec.index.split) flagArgs.unshift("--split-index");
  if (spec.index.untrackedCache) flagArgs.unshift("--force-untracked-cache");
  if (flagArgs.length > 0 && (track.length > 0 || flagArgs[0]?.startsWith("--index"))) {
    try {
      git(root, ["update-index", ...flagArgs]);
    } catch {
      // a flagged path the sparse checkout removed from the index's files: keep the index
    }
  }
  if (config.length > 0) appendFileSync(join(gitDir, "config"), `${config.join("\n")}\n`);
  if (spec.emptyDirs) {
    mkdirSync(join(root, "empty-untracked", "deeper"), { recursive: true });
    mkdirSync(join(root, "empty-ignored"), { recursive: true });
    mkdirSync(join(root, "build", "empty"), { recursive: true });
  }
  if (spec.fifo) execFileSync("mkfifo", [join(root, "fifo"), join(root, "fifo.log")]);
  const split = readdirSync(gitDir).some((name) => name.startsWith("sharedindex."));
  return { sparse, split };
}

// ---------------------------------------------------------------------------------------
// The comparison.

/** A name as bytes in a string (latin1), so a non-UTF-8 name compares byte for byte. */
const bytes = (name: Buffer) => name.toString("latin1");

/** `-z` output split into byte strings (the trailing empty name dropped). */
function rawNames(stdout: Buffer): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < stdout.length; i++) {
    if (stdout[i] === 0) {
      out.push(bytes(stdout.subarray(start, i)));
      start = i + 1;
    }
  }
  return out;
}

/** git's tagged listing as `untracked` and `tracked` byte strings (stages collapsed). */
function gitSourceNames(stdout: Buffer): { untracked: string[]; tracked: string[] } {
  const untracked: string[] = [];
  const tracked: string[] = [];
  let previous: string | undefined;
  for (const tagged of rawNames(stdout)) {
    const name = tagged.slice(2);
    if (name === previous) continue;
    previous = name;
    (tagged.startsWith("? ") ? untracked : tracked).push(name);
  }
  return { untracked, tracked };
}

interface Compared {
  fallback?: string;
}

/**
 * Lists `root/dir` with git (the observer's two calls) and with the addon, and expects the
 * same names. A fallback is accepted only when its code is in `allowed`, and then carries a
 * reason; a repository git cannot list (it exits non-zero) must be left to git. Returns the
 * fallback code when there was one.
 */
async function compare(root: string, dir: string, allowed: ReadonlySet<string>): Promise<Compared> {
  const cwd = dir === "" ? root : join(root, dir);
  const [sourceRun, ignoredRun] = runGitPair([...GIT_LIST_ARGS], [...GIT_IGNORED_ARGS], cwd);
  const [source, ignored] = await Promise.all([sourceRun, ignoredRun]);
  const noFilter = () => false;
  const native = await nativeGitLists(addon, root, dir, noFilter);
  if (isNativeGitFallback(native)) {
    expect({ dir, fallback: native.fallback, allowed: allowed.has(native.fallback) }).toEqual({
      dir,
      fallback: native.fallback,
      allowed: true,
    });
    expect(native.reason).not.toBe("");
    return { fallback: native.fallback };
  }
  expect({ dir, code: source.code, stderr: source.stderr }).toEqual({ dir, code: 0, stderr: "" });
  expect({ dir, code: ignored.code }).toEqual({ dir, code: 0 });
  const expected = gitSourceNames(source.stdout);
  expect({ dir, untracked: rawNames(native.native.untracked.names) }).toEqual({
    dir,
    untracked: expected.untracked,
  });
  expect({ dir, tracked: rawNames(native.native.tracked.names) }).toEqual({
    dir,
    tracked: expected.tracked,
  });
  expect({ dir, ignored: rawNames(native.native.ignored.names) }).toEqual({
    dir,
    ignored: rawNames(ignored.stdout),
  });
  expect(native.native.tracked.count).toBe(expected.tracked.length);
  expect(native.native.untracked.count).toBe(expected.untracked.length);
  // The Listing the observer gets: exactly listGitPaths' for the same git output.
  const fromGit = await listGitPaths(root, dir, noFilter, Promise.resolve(source));
  expect({ dir, listing: native.listing }).toEqual({ dir, listing: fromGit });
  expect(native.ignored).toEqual(
    [...splitNulTerminated(ignored.stdout)].filter((item) => item.name !== ""),
  );
  return {};
}

describe("issue 33: the in-process git listing equals git ls-files", () => {
  const dirs: string[] = [];
  beforeAll(() => {
    scratch = makeTempDir("tg-gitlist-");
    dirs.push(scratch);
    for (const format of ["sha1", "sha256"] as const) {
      templates[format] = join(scratch, `template-${format}`);
      git(scratch, ["init", "-q", "--template=", `--object-format=${format}`, templates[format]]);
      templates[format] = join(templates[format], ".git");
    }
    home = join(scratch, "home");
    mkdirSync(home);
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = join(home, "xdg");
  });
  afterAll(() => {
    for (const [key, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    for (const d of dirs) removeDir(d);
  });

  test("property: raw names, Listing and ignored names equal git's on random repositories; no fallback", async () => {
    expect(addon.available).toBe(true);
    const seen = { sparse: 0, split: 0, sha256: 0, subdirListed: 0, nestedListed: 0, fallbacks: 0 };
    let n = 0;
    await fc.assert(
      fc.asyncProperty(treeArb, async (spec) => {
        const root = join(scratch, `t${n++}`);
        try {
          const built = build(root, spec);
          if (built.sparse) seen.sparse++;
          if (built.split) seen.split++;
          if (spec.format === "sha256") seen.sha256++;
          // An index both split and sparse is the one repository state here left to git.
          const allowed = new Set(built.sparse && built.split ? ["split-sparse-index"] : []);
          const top = await compare(root, "", allowed);
          if (top.fallback !== undefined) seen.fallbacks++;
          if (spec.subdir && lstatSync(join(root, "src"), { throwIfNoEntry: false })?.isDirectory()) {
            const result = await compare(root, "src", new Set([...allowed, "root-not-tracked"]));
            if (result.fallback === "root-not-tracked") {
              // Only a folder below the top that holds no tracked file is left to git.
              expect(result.fallback).toBe("root-not-tracked");
              const tracked = (await runGit(["ls-files", "-z", "--", "src"], root)).stdout;
              expect(rawNames(tracked)).toEqual([]);
            } else if (result.fallback === undefined) seen.subdirListed++;
          }
          if (spec.nested === "untracked") {
            expect(await compare(root, "nested", new Set())).toEqual({});
            seen.nestedListed++;
          }
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      {
        numRuns: RUNS,
        ...(process.env.TURNGATE_GIT_LIST_SEED
          ? { seed: Number(process.env.TURNGATE_GIT_LIST_SEED) }
          : {}),
        ...(process.env.TURNGATE_GIT_LIST_PATH ? { path: process.env.TURNGATE_GIT_LIST_PATH } : {}),
      },
    );
    // The generator reached the cases it exists for.
    if (RUNS >= 50) {
      expect(seen.sparse).toBeGreaterThan(0);
      expect(seen.split).toBeGreaterThan(0);
      expect(seen.sha256).toBeGreaterThan(0);
      expect(seen.subdirListed).toBeGreaterThan(0);
      expect(seen.nestedListed).toBeGreaterThan(0);
    }
  });
});
