/**
 * Issue 33 deliverable 1: the in-process git listing (`@turngate/native`'s `gitListing`,
 * wrapped by `nativeGitLists`) against git itself, the oracle. A property test (fast-check)
 * builds random real repositories — ignore rules with negations, anchored and directory
 * patterns, a nested `.gitignore`, `info/exclude`, the global excludes file (XDG default,
 * `~/.gitconfig` and repository `core.excludesFile`), a symlinked `.gitignore` (not
 * followed) and `info/exclude` (followed), untracked and ignored nested
 * repositories, submodule gitlinks (checked out and missing), symlinks (to a file, to a
 * folder, dangling), odd names (spaces, NFC and NFD, newline, tab, backslash, glob
 * characters, bytes that are not UTF-8), empty folders, FIFOs, modified and
 * staged-then-deleted tracked files, intent-to-add, skip-worktree and assume-unchanged
 * entries, unmerged stages, sparse index (`git sparse-checkout --sparse-index` with
 * `index.sparse`), split index, index versions 2, 3 and 4, an untracked cache, SHA-1 and
 * SHA-256 repositories — and lists each with git and with the addon, at the root, below it
 * (`src`) and in a nested repository. git runs exactly as the observer runs it
 * (`GIT_LIST_ARGS`, `GIT_IGNORED_ARGS`, `gitSafetyArgs()`, `GIT_SAFETY_ENV`), plus `git
 * ls-files -s -v` for the entries' modes, ids and flags. Any difference fails: the raw
 * names byte for byte in git's order, the `Listing` `listGitPaths` builds, the ignored names,
 * and each tracked entry's mode, object id, skip-worktree, assume-unchanged and unmerged
 * bits. A fallback fails too, except where the addon's matrix
 * (`packages/native/src/git_listing.rs`) leaves these repositories to git: an index both
 * split and sparse (`split-sparse-index`), and a folder below the top that holds no tracked
 * file (`root-not-tracked`, checked against git's listing); a fallback carries its reason,
 * and a repository git refuses (it exits non-zero) is never listed. A tree git itself
 * crashes on (SIGSEGV or `BUG:`, as git 2.39 does on some sparse indexes) has no oracle: it
 * is counted, not compared, and must stay under 1% of the trees. The other fallbacks of the
 * matrix are tested one by one in `native-git-list.test.ts`.
 *
 * Runs: 1,000 trees when `CI` is set (60 in the TypeScript-path pass, which runs the same
 * addon), 60 elsewhere, `TURNGATE_GIT_LIST_RUNS` overrides; `TURNGATE_GIT_LIST_SEED` and
 * `TURNGATE_GIT_LIST_PATH` replay a failure.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  appendFileSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import type { NativeAddon, NativeGitListing } from "../../src/native/select.js";
import { GIT_SAFETY_ENV, type GitResult, gitSafetyArgs } from "../../src/workspace/listing/git.js";
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
/**
 * Trees per run: 1,000 in CI; 60 elsewhere (`TURNGATE_GIT_LIST_RUNS` overrides). The second
 * pass of `./scripts/dev test` (`TURNGATE_NATIVE=0`, the observer's TypeScript path) runs
 * this file again with the same addon, so there it checks 60 trees, not 1,000 again.
 */
const RUNS =
  process.env.TURNGATE_GIT_LIST_RUNS !== undefined
    ? Number(process.env.TURNGATE_GIT_LIST_RUNS)
    : process.env.CI && process.env.TURNGATE_NATIVE !== "0"
      ? 1000
      : 60;

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
};

/** Quotes one argument for `sh` (single quotes; `'` written as `'\''`). */
const shellQuote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/**
 * One long-lived `/bin/sh` that runs every git command of the property. A spawn from the
 * test process costs far more than git itself (the fork copies the whole worker: ~13 ms of
 * CPU at 300 MB of memory), a fork of the small shell almost nothing. Scripts run one at a
 * time, each in a subshell in its folder with stdin closed; stdout and stderr go to files.
 */
class Shell {
  readonly #child: ChildProcess;
  readonly #dir: string;
  #stdout = "";
  #pending: { marker: string; done: (code: number) => void } | undefined;
  #seq = 0;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(dir: string, env: NodeJS.ProcessEnv) {
    this.#dir = dir;
    this.#child = spawn("/bin/sh", ["-s"], { env, stdio: ["pipe", "pipe", "inherit"] });
    this.#child.stdout?.on("data", (chunk: Buffer) => {
      this.#stdout += chunk.toString("utf8");
      const pending = this.#pending;
      if (pending === undefined) return;
      const at = this.#stdout.indexOf(`${pending.marker} `);
      const end = at < 0 ? -1 : this.#stdout.indexOf("\n", at);
      if (end < 0) return;
      const code = Number(this.#stdout.slice(at + pending.marker.length + 1, end));
      this.#stdout = this.#stdout.slice(end + 1);
      this.#pending = undefined;
      pending.done(code);
    });
  }

  /** Runs `script` in `cwd`: its exit code, stdout (bytes) and stderr (text). */
  run(cwd: string, script: string): Promise<GitResult & { code: number }> {
    const next = this.#queue.then(async () => {
      const marker = `@@done-${++this.#seq}`;
      const out = join(this.#dir, "shell.out");
      const err = join(this.#dir, "shell.err");
      const code = await new Promise<number>((done) => {
        this.#pending = { marker, done };
        this.#child.stdin?.write(
          `( cd ${shellQuote(cwd)} && {\n${script}\n} ) </dev/null >${shellQuote(out)} 2>${shellQuote(err)}; echo "${marker} $?"\n`,
        );
      });
      return { code, stdout: readFileSync(out), stderr: readFileSync(err, "utf8").trim() };
    });
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Ends the shell; resolves once it has exited. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#child.on("exit", () => resolve());
      this.#child.stdin?.end();
    });
  }
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
  /** Whether the intent-to-add, assume-unchanged and skip-worktree states apply (else: tracked). */
  flags: boolean;
  /** `src/.gitignore` and `info/exclude` as symlinks to the files holding the patterns. */
  ignoreSymlinks: boolean;
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
    maxLength: 20,
    selector: (f) => `${f.dir}/${f.name}`,
  }),
  rootIgnore: subset(ROOT_PATTERNS, 8),
  srcIgnore: subset(SRC_PATTERNS, 4),
  infoExclude: subset(INFO_PATTERNS, 3),
  globalExclude: subset(GLOBAL_PATTERNS, 3),
  globalVia: fc.constantFrom(
    "none" as const,
    "xdg" as const,
    "home-config" as const,
    "repo-config" as const,
  ),
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
  fifo: fc.nat(3).map((n) => n === 0),
  nonUtf8: fc.boolean(),
  index: fc.record({
    version: fc.constantFrom(undefined, 2 as const, 3 as const, 4 as const),
    split: fc.boolean(),
    untrackedCache: fc.boolean(),
  }),
  sparse: fc.nat(9).map((n) => n < 2),
  subdir: fc.nat(2).map((n) => n === 0),
  flags: fc.nat(9).map((n) => n < 3),
  ignoreSymlinks: fc.nat(4).map((n) => n === 0),
});

const EMPTY_BLOB = {
  sha1: "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
  sha256: "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813",
} as const;
const OTHER_OID = { sha1: "1".repeat(40), sha256: "1".repeat(64) } as const;

let scratch = "";
let home = "";
let shell: Shell;
/** The previous tree's removal, run at the start of the next tree's script. */
let pendingRemoval = "";

/**
 * An empty `.git` of each object format, made once by `git init --template=` and kept in
 * memory: `HEAD`, `config` and the loose empty blob (every tracked entry names it; a sparse
 * tree's commit needs it), as [path below `objects/`, bytes].
 */
const templates: Record<
  "sha1" | "sha256",
  { head: Buffer; config: Buffer; blob: [string, Buffer] | undefined }
> = {
  sha1: { head: Buffer.alloc(0), config: Buffer.alloc(0), blob: undefined },
  sha256: { head: Buffer.alloc(0), config: Buffer.alloc(0), blob: undefined },
};

/**
 * A repository's `.git` at `root/.git`: `HEAD`, `config`, `objects/` and `refs/` (what git
 * and gitoxide need to take a folder for a repository), plus the empty blob with `blob`.
 * Folders are few on purpose: a `mkdir` costs ~0.7 ms on the test machines' file system.
 */
function initFromTemplate(root: string, format: "sha1" | "sha256", blob = false): void {
  const template = templates[format];
  mkdirSync(join(root, ".git", "objects"), { recursive: true });
  mkdirSync(join(root, ".git", "refs"));
  writeFileSync(join(root, ".git", "HEAD"), template.head);
  writeFileSync(join(root, ".git", "config"), template.config);
  if (blob && template.blob !== undefined) {
    const [path, bytes] = template.blob;
    mkdirSync(join(root, ".git", "objects", dirname(path)));
    writeFileSync(join(root, ".git", "objects", path), bytes);
  }
}

const rel = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`);

/** What a tree turned out to hold (the property also checks the generator's reach). */
interface Built {
  sparse: boolean;
  split: boolean;
}

/**
 * Builds the repository `spec` describes in `root`: the files from Node, then every git
 * command from one script in the shell. Tracked files are empty on disk and name the empty
 * blob in the index (one `update-index -z --index-info` for all entries), a modified one
 * holds other bytes, a deleted one is only in the index.
 */
async function build(root: string, spec: TreeSpec): Promise<Built> {
  initFromTemplate(root, spec.format, spec.sparse);
  const gitDir = join(root, ".git");
  const config: string[] = [];
  // Global configuration and excludes: rewritten for every tree (HOME and XDG are ours).
  const globalFile = join(home, "global-ignore");
  const globalText = `${spec.globalExclude.join("\n")}\n`;
  writeFileSync(join(home, ".gitconfig"), "");
  writeFileSync(join(home, "xdg", "git", "ignore"), "");
  if (spec.globalVia === "xdg") {
    writeFileSync(join(home, "xdg", "git", "ignore"), globalText);
  } else if (spec.globalVia === "home-config") {
    writeFileSync(globalFile, globalText);
    writeFileSync(join(home, ".gitconfig"), `[core]\n\texcludesFile = ${globalFile}\n`);
  } else if (spec.globalVia === "repo-config") {
    writeFileSync(globalFile, globalText);
    config.push("[core]", `\texcludesFile = ${globalFile}`);
  }
  if (spec.rootIgnore.length > 0) {
    writeFileSync(join(root, ".gitignore"), `${spec.rootIgnore.join("\n")}\n`);
  }
  const folders = new Set([""]);
  if (spec.srcIgnore.length > 0) {
    mkdirSync(join(root, "src"));
    folders.add("src");
    const text = `${spec.srcIgnore.join("\n")}\n`;
    // A symlinked `.gitignore` in the tree is not followed (git 2.32+); `info/exclude` is.
    if (spec.ignoreSymlinks) {
      writeFileSync(join(root, "src", "ignore-target"), text);
      symlinkSync("ignore-target", join(root, "src", ".gitignore"));
    } else writeFileSync(join(root, "src", ".gitignore"), text);
  }
  if (spec.infoExclude.length > 0) {
    mkdirSync(join(gitDir, "info"), { recursive: true });
    const text = `${spec.infoExclude.join("\n")}\n`;
    if (spec.ignoreSymlinks) {
      writeFileSync(`${root}.exclude`, text);
      symlinkSync(`${root}.exclude`, join(gitDir, "info", "exclude"));
    } else writeFileSync(join(gitDir, "info", "exclude"), text);
  }
  const entries: Buffer[] = [];
  const entry = (mode: string, oid: string, stage: number, path: Buffer | string) =>
    entries.push(Buffer.from(`${mode} ${oid} ${stage}\t`), Buffer.from(path), Buffer.from([0]));
  const blob = EMPTY_BLOB[spec.format];
  const flagged: Record<"ita" | "assume" | "skip", string[]> = { ita: [], assume: [], skip: [] };
  for (const file of spec.files) {
    const path = rel(file.dir, file.name);
    const abs = join(root, path);
    const flag = file.state === "ita" || file.state === "assume" || file.state === "skip";
    const tracked = file.state !== "untracked" && !(file.state === "ita" && spec.flags);
    try {
      if (!folders.has(file.dir)) {
        mkdirSync(dirname(abs), { recursive: true });
        folders.add(file.dir);
      }
      if (file.state === "deleted") {
        if (lstatSync(abs, { throwIfNoEntry: false }) !== undefined) continue; // name taken
      } else if (file.kind === "file") {
        const bytes = !tracked ? `${path}\n` : file.state === "modified" ? "changed\n" : "";
        writeFileSync(abs, bytes, { flag: "wx" });
      } else if (file.kind === "symlink-file") symlinkSync("a.ts", abs);
      else if (file.kind === "symlink-dir") symlinkSync(file.dir === "" ? "src" : "..", abs);
      else symlinkSync("missing-target", abs);
    } catch {
      continue; // the name is taken (by a folder, or by an earlier entry)
    }
    if (tracked) entry(file.kind === "file" ? "100644" : "120000", blob, 0, path);
    if (flag && spec.flags) flagged[file.state as keyof typeof flagged].push(shellQuote(path));
  }
  if (spec.rootIgnore.length > 0 && spec.files.length % 2 === 0) {
    entry("100644", blob, 0, ".gitignore");
  }
  if (spec.nonUtf8) {
    const name = Buffer.from([0x62, 0x61, 0x64, 0x2d, 0xff, 0xfe, 0x2e, 0x74, 0x78, 0x74]);
    writeFileSync(Buffer.concat([Buffer.from(`${root}/`), name]), "");
    if (spec.files.length % 3 === 0) entry("100644", blob, 0, name);
  }
  // A submodule's gitlink (checked out or not), unmerged stages.
  const withGitlink = spec.submodule !== "none";
  if (withGitlink) {
    entry("160000", OTHER_OID[spec.format], 0, "sub");
    if (spec.submodule === "checked-out") {
      initFromTemplate(join(root, "sub"), spec.format);
      writeFileSync(join(root, "sub", "inside.txt"), "x");
    }
  }
  if (spec.conflict) {
    for (const stage of [1, 2, 3]) entry("100644", blob, stage, "conflicted.txt");
    writeFileSync(join(root, "conflicted.txt"), "<<<<<<<\n");
  }
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
  const script: string[] = pendingRemoval === "" ? [] : [pendingRemoval];
  pendingRemoval = "";
  const indexOptions = [
    ...(spec.index.untrackedCache ? ["--force-untracked-cache"] : []),
    ...(spec.index.split ? ["--split-index"] : []),
    ...(spec.index.version !== undefined ? ["--index-version", String(spec.index.version)] : []),
  ];
  const sparse = spec.sparse && entries.length > 0 && !withGitlink && !spec.conflict;
  if (entries.length > 0) {
    const list = `${root}.index`;
    writeFileSync(list, Buffer.concat(entries));
    // A sparse tree gets the index options after the checkout (which rewrites the index).
    const options = sparse ? "" : indexOptions.join(" ");
    script.push(
      `git update-index ${options} -z --index-info < ${shellQuote(list)} || { echo 'update-index --index-info failed' >&2; exit 1; }`,
    );
  }
  // A sparse index needs a commit to cut the cone from; git refuses the checkout when an
  // untracked file is in the way (the tree then stays a full checkout). An untracked file
  // is made in a folder outside the cone after the checkout.
  if (sparse) {
    config.push("[index]", "\tsparse = true");
    script.push(
      "if git commit -q --no-verify -m x && git sparse-checkout set --cone --sparse-index src 2>/dev/null; then echo sparse; mkdir -p docs && printf x > docs/after-sparse.txt; fi",
    );
  }
  if (config.length > 0) appendFileSync(join(gitDir, "config"), `${config.join("\n")}\n`);
  // git 2.39 crashes on intent-to-add paths in a sparse index (`add -N` or a later
  // `ls-files` ends with SIGSEGV): sparse trees go without them (the files stay untracked).
  if (flagged.ita.length > 0 && !sparse) {
    script.push(`git add -N -f --sparse -- ${flagged.ita.join(" ")} 2>/dev/null`);
  }
  const flagArgs = [
    ...(sparse ? indexOptions : []),
    ...(flagged.assume.length > 0 ? ["--assume-unchanged", ...flagged.assume] : []),
    ...(flagged.skip.length > 0 ? ["--skip-worktree", ...flagged.skip] : []),
  ];
  // A flagged path the sparse checkout took out of the index's files: the index stays.
  if (flagArgs.length > 0) script.push(`git update-index ${flagArgs.join(" ")} 2>/dev/null`);
  if (spec.fifo) script.push("mkfifo fifo fifo.log");
  let sparseBuilt = false;
  if (script.length > 0) {
    script.push("exit 0");
    const result = await shell.run(root, script.join("\n"));
    expect({ code: result.code, stderr: result.stderr }).toMatchObject({ code: 0 });
    sparseBuilt = result.stdout.toString("utf8").includes("sparse");
  }
  if (spec.emptyDirs) {
    mkdirSync(join(root, "empty-untracked", "deeper"), { recursive: true });
    mkdirSync(join(root, "empty-ignored"), { recursive: true });
    mkdirSync(join(root, "build", "empty"), { recursive: true });
  }
  const split = readdirSync(gitDir).some((name) => name.startsWith("sharedindex."));
  return { sparse: sparseBuilt, split };
}

// ---------------------------------------------------------------------------------------
// The comparison.

/** `-z` output split into names as byte strings (latin1: a non-UTF-8 name compares byte for byte). */
function rawNames(stdout: Buffer): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < stdout.length; i++) {
    if (stdout[i] === 0) {
      out.push(stdout.subarray(start, i).toString("latin1"));
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

/**
 * `git ls-files -z -s -v` as one row per path, stages collapsed as the addon collapses them
 * (stage 0, else "ours", else the first): `path mode id flags` with the flags the tags and
 * stages show (skip-worktree `S`, assume-unchanged a lowercase tag, unmerged a stage > 0).
 */
function gitEntries(stdout: Buffer, sparse: boolean): string[] {
  const byPath = new Map<string, { tag: string; mode: string; id: string; stages: string[] }[]>();
  for (const record of rawNames(stdout)) {
    const tab = record.indexOf("\t");
    const [tag, mode, id, stage] = record.slice(0, tab).split(" ") as [
      string,
      string,
      string,
      string,
    ];
    const path = record.slice(tab + 1);
    const rows = byPath.get(path) ?? [];
    rows.push({ tag, mode, id, stages: [stage] });
    byPath.set(path, rows);
  }
  const out: string[] = [];
  for (const [path, rows] of byPath) {
    const stages = rows.map((r) => r.stages[0]);
    const chosen =
      rows.find((r) => r.stages[0] === "0" || r.stages[0] === "2") ?? (rows[0] as (typeof rows)[0]);
    const flags =
      (chosen.tag === "S" || chosen.tag === "s" ? 1 : 0) |
      (stages.some((s) => s !== "0") ? 4 : 0) |
      (chosen.tag !== chosen.tag.toUpperCase() ? 8 : 0);
    out.push(`${path} ${chosen.mode} ${chosen.id} ${maskFlags(flags, sparse)}`);
  }
  return out;
}

/**
 * The flags compared: with `index.sparse` in a cone-mode sparse checkout git collapses the
 * entries outside the cone into sparse directories in memory and expands them again, which
 * drops their assume-unchanged bit; the addon reports the bits the index file holds, so that
 * bit of a skip-worktree entry is not compared there.
 */
function maskFlags(flags: number, sparse: boolean): number {
  return sparse && (flags & 1) !== 0 ? flags & ~8 : flags;
}

/** The addon's tracked entries as {@link gitEntries} rows (intent-to-add left out: no tag shows it). */
function nativeEntries(native: NativeGitListing, sparse: boolean): string[] {
  const names = rawNames(native.tracked.names);
  const idBytes = native.objectFormat === "sha256" ? 32 : 20;
  return names.map((path, i) => {
    const mode = (native.tracked.modes[i] as number).toString(8).padStart(6, "0");
    const id = native.tracked.ids.subarray(i * idBytes, (i + 1) * idBytes).toString("hex");
    return `${path} ${mode} ${id} ${maskFlags((native.tracked.flags[i] as number) & ~2, sparse)}`;
  });
}

/**
 * The observer's two git calls in `cwd`, exactly as `runGit` makes them (the safety `-c`
 * options and environment; `GIT_LIST_ARGS`, `GIT_IGNORED_ARGS`), and `git ls-files -z -s
 * -v`, run from the shell (the three at once, as `runGitPair` runs the first two).
 */
async function gitLists(cwd: string): Promise<[GitResult, GitResult, Buffer]> {
  const env = Object.entries(GIT_SAFETY_ENV).map(([k, v]) => `${k}=${shellQuote(v)}`);
  const command = (args: readonly string[]) =>
    ["git", ...gitSafetyArgs(), ...args].map(shellQuote).join(" ");
  const file = (name: string) => shellQuote(join(scratch, name));
  const source = await shell.run(
    cwd,
    [
      `export ${env.join(" ")}`,
      `{ ${command(GIT_IGNORED_ARGS)} >${file("ignored.out")} 2>${file("ignored.err")}; echo $? >${file("ignored.code")}; } &`,
      `${command(["ls-files", "-z", "-s", "-v"])} >${file("stages.out")} 2>/dev/null &`,
      command(GIT_LIST_ARGS),
      "code=$?; wait; exit $code",
    ].join("\n"),
  );
  const ignored: GitResult = {
    code: Number(readFileSync(join(scratch, "ignored.code"), "utf8")),
    stdout: readFileSync(join(scratch, "ignored.out")),
    stderr: readFileSync(join(scratch, "ignored.err"), "utf8").trim(),
  };
  return [source, ignored, readFileSync(join(scratch, "stages.out"))];
}

interface Compared {
  fallback?: string;
  /** git itself crashed (a signal, or `BUG:`) listing the tree: there is no oracle. */
  gitCrashed?: boolean;
  /** git's tracked names there (byte strings; empty when git failed). */
  tracked: string[];
}

/**
 * Lists `root/dir` with git and with the addon and expects the same. A fallback is
 * accepted only when its code is in `allowed`, and carries a reason; a repository git
 * cannot list (git exits non-zero) must be left to git.
 */
async function compare(
  root: string,
  dir: string,
  allowed: ReadonlySet<string>,
  sparse = false,
): Promise<Compared> {
  const cwd = dir === "" ? root : join(root, dir);
  const [source, ignored, stages] = await gitLists(cwd);
  const noFilter = () => false;
  const native = await nativeGitLists(addon, root, dir, noFilter);
  const crashed = (run: GitResult) =>
    run.code === null || run.code > 128 || run.stderr.includes("BUG:");
  if (crashed(source) || crashed(ignored)) return { gitCrashed: true, tracked: [] };
  const expected = gitSourceNames(source.code === 0 ? source.stdout : Buffer.alloc(0));
  if (isNativeGitFallback(native)) {
    expect({ dir, fallback: native.fallback, allowed: allowed.has(native.fallback) }).toEqual({
      dir,
      fallback: native.fallback,
      allowed: true,
    });
    expect(native.reason).not.toBe("");
    return { fallback: native.fallback, tracked: expected.tracked };
  }
  // git's only expected complaint: a symlinked `.gitignore` it does not follow.
  const stderr = source.stderr
    .split("\n")
    .filter(
      (line) =>
        line !== "" &&
        !/^warning: unable to access '.*': Too many levels of symbolic links$/.test(line),
    );
  expect({ dir, code: source.code, stderr }).toEqual({ dir, code: 0, stderr: [] });
  expect({ dir, code: ignored.code }).toEqual({ dir, code: 0 });
  const names = (part: { names: Buffer }) => rawNames(part.names);
  expect({ dir, untracked: names(native.native.untracked) }).toEqual({
    dir,
    untracked: expected.untracked,
  });
  expect({ dir, tracked: names(native.native.tracked) }).toEqual({
    dir,
    tracked: expected.tracked,
  });
  expect({ dir, ignored: names(native.native.ignored) }).toEqual({
    dir,
    ignored: rawNames(ignored.stdout),
  });
  expect(native.native.tracked.count).toBe(expected.tracked.length);
  expect(native.native.untracked.count).toBe(expected.untracked.length);
  expect(native.native.ignored.count).toBe(rawNames(ignored.stdout).length);
  expect({ dir, entries: nativeEntries(native.native, sparse) }).toEqual({
    dir,
    entries: gitEntries(stages, sparse),
  });
  // What the observer gets: exactly what listGitPaths and listIgnoredPaths take from git.
  const fromGit = await listGitPaths(root, dir, noFilter, Promise.resolve(source));
  expect({ dir, listing: native.listing }).toEqual({ dir, listing: fromGit });
  expect(native.ignored).toEqual(
    [...splitNulTerminated(ignored.stdout)].filter((item) => item.name !== ""),
  );
  return { tracked: expected.tracked };
}

const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };

beforeAll(() => {
  scratch = makeTempDir("tg-gitlist-");
  for (const format of ["sha1", "sha256"] as const) {
    const template = join(scratch, `template-${format}`);
    execFileSync("git", ["init", "-q", "--template=", `--object-format=${format}`, template], {
      env: GIT_ENV,
    });
    const id = execFileSync("git", ["hash-object", "-w", "--stdin"], {
      cwd: template,
      env: GIT_ENV,
      input: "",
    })
      .toString("utf8")
      .trim();
    const blob = `${id.slice(0, 2)}/${id.slice(2)}`;
    templates[format] = {
      head: readFileSync(join(template, ".git", "HEAD")),
      config: readFileSync(join(template, ".git", "config")),
      blob: [blob, readFileSync(join(template, ".git", "objects", blob))],
    };
  }
  home = join(scratch, "home");
  mkdirSync(join(home, "xdg", "git"), { recursive: true });
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = join(home, "xdg");
  shell = new Shell(scratch, { ...GIT_ENV, HOME: home, XDG_CONFIG_HOME: join(home, "xdg") });
});

afterAll(async () => {
  await shell?.close();
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  removeDir(scratch);
});

describe("issue 33: the in-process git listing equals git ls-files", () => {
  test("property: names, Listing, ignored names and index entries equal git's on random repositories", async () => {
    expect(addon.available).toBe(true);
    const seen = {
      sparse: 0,
      split: 0,
      sha256: 0,
      subdir: 0,
      nested: 0,
      fallbacks: 0,
      gitCrashed: 0,
    };
    let n = 0;
    await fc.assert(
      fc.asyncProperty(treeArb, async (spec) => {
        const root = join(scratch, `t${n++}`);
        try {
          const built = await build(root, spec);
          if (built.sparse) seen.sparse++;
          if (built.split) seen.split++;
          if (spec.format === "sha256") seen.sha256++;
          // An index both split and sparse is the one repository state here left to git.
          const allowed = new Set(built.sparse && built.split ? ["split-sparse-index"] : []);
          const top = await compare(root, "", allowed, built.sparse);
          if (top.fallback !== undefined) seen.fallbacks++;
          if (top.gitCrashed === true) {
            seen.gitCrashed++;
            return;
          }
          const src = lstatSync(join(root, "src"), { throwIfNoEntry: false });
          if (spec.subdir && src?.isDirectory()) {
            const below = await compare(
              root,
              "src",
              new Set([...allowed, "root-not-tracked"]),
              built.sparse,
            );
            if (below.fallback === "root-not-tracked") {
              // Only a folder below the top that holds no tracked file is left to git.
              expect(top.tracked.filter((name) => name.startsWith("src/"))).toEqual([]);
            } else if (below.fallback === undefined) seen.subdir++;
          }
          if (spec.nested === "untracked") {
            expect((await compare(root, "nested", new Set())).fallback).toBeUndefined();
            seen.nested++;
          }
        } finally {
          // Removed by the next tree's script (one shell round trip less per tree).
          pendingRemoval = `rm -rf ${["", ".index", ".exclude"].map((end) => shellQuote(`${root}${end}`)).join(" ")}`;
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
    // A tree git itself cannot list (it crashed: no oracle) stays rare, or the property
    // would stop testing anything: at most 1% (CI's 1,000 trees), and at most 3 in a short
    // run (60 trees: 3 crashes failed a local run at a 1-tree limit).
    expect(seen.gitCrashed).toBeLessThanOrEqual(Math.max(3, Math.ceil(RUNS / 100)));
    // The generator reached the cases it exists for. Checked on the long run only: in 60
    // trees no sparse checkout came up in about one run of eight (a false failure).
    if (RUNS >= 500 && process.env.TURNGATE_GIT_LIST_PATH === undefined) {
      expect(seen.sparse).toBeGreaterThan(0);
      expect(seen.split).toBeGreaterThan(0);
      expect(seen.sha256).toBeGreaterThan(0);
      expect(seen.subdir).toBeGreaterThan(0);
      expect(seen.nested).toBeGreaterThan(0);
    }
  });
});
