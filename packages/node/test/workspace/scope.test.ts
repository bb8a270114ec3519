import { execFileSync } from "node:child_process";
import { utimesSync } from "node:fs";
import { join } from "node:path";
import { MutationLedger } from "@turngate/core";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { ledgerPaths, RACY_WINDOW_MS, WorkspaceObserver } from "../../src/workspace/index.js";
import {
  DEFAULT_OUTPUT_LOCATIONS,
  GIT_OWN_DIRECTORIES,
  GIT_OWN_FILES,
  isGitObjectFile,
  isGitOwnEntry,
  isTurngateOwnFile,
  OutputLocations,
  SPECIAL_FILE_REASON,
  TURNGATE_OWN_FILES,
  turngateLogDigest,
} from "../../src/workspace/scope/index.js";
import { compareCodeUnits } from "../../src/workspace/snapshot.js";
import { git, initRepo, makeTempDir, removeDir, SHA, write } from "./helpers.js";

// Issue 10, part "scope": what the observer sees outside the source scope.

let dir: string;
let root: string;

beforeEach(() => {
  dir = makeTempDir("tg-scope-");
  root = join(dir, "ws");
  execFileSync("mkdir", [root]);
});
afterEach(() => removeDir(dir));

const rows = (delta: Awaited<ReturnType<WorkspaceObserver["delta"]>>): string[] =>
  delta.changes.map((c) => `${c.scope} ${c.change} ${c.path}`);

describe("ignored files are outside the source scope and their changes are rows", () => {
  test("an ignored shim node_modules/.bin/node written by the agent is an ignored row with its digest", {
    timeout: testTimeout(15_000),
  }, async () => {
    initRepo(root, { ".gitignore": "node_modules/\n", "a.txt": "a\n" });
    write(root, "node_modules/left-pad/index.js", "module.exports = 1;\n");
    // ctime cannot be set back: wait until index.js is older than the racy window.
    await new Promise((r) => setTimeout(r, RACY_WINDOW_MS + 100));
    write(root, "node_modules/left-pad/new.js", "x\n");
    const observer = new WorkspaceObserver(root);
    const base = await observer.baseline();
    // Existing ignored files are recorded stat-only at baseline (never read), unless their
    // stat is racy (changed within RACY_WINDOW_MS of the baseline): then they are hashed.
    expect(base.outside.get("node_modules/left-pad/index.js")).toMatchObject({
      scope: "ignored",
      hashed: false,
      content_digest: "",
    });
    expect(base.outside.get("node_modules/left-pad/new.js")).toMatchObject({
      hashed: true,
      content_digest: SHA["x\n"],
    });
    expect(base.entries.has("node_modules/left-pad/index.js")).toBe(false);
    write(root, "node_modules/.bin/node", "x\n");
    const delta = await observer.delta();
    expect(delta.changes).toEqual([
      {
        path: "node_modules/.bin/node",
        change: "added",
        content_digest: SHA["x\n"],
        scope: "ignored",
      },
    ]);
  });

  test("an ignored file rewritten in place (same size) is a modified row with the new bytes' digest", async () => {
    initRepo(root, { ".gitignore": "node_modules/\n" });
    write(root, "node_modules/dep/index.js", "aaaa");
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(root, "node_modules/dep/index.js"), old, old);
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    write(root, "node_modules/dep/index.js", "bbbb");
    expect((await observer.delta()).changes).toEqual([
      {
        path: "node_modules/dep/index.js",
        change: "modified",
        content_digest: SHA.bbbb,
        scope: "ignored",
      },
    ]);
  });

  test("a gitignored .npmrc created by the agent is an ignored row", async () => {
    initRepo(root, { ".gitignore": ".npmrc\n" });
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    write(root, ".npmrc", "x\n");
    expect(rows(await observer.delta())).toEqual(["ignored added .npmrc"]);
  });

  test("pytest.pyc matched by *.py[cod] is an output row (a default output location), ignored with default_outputs false", async () => {
    initRepo(root, { ".gitignore": "*.py[cod]\n" });
    const withDefaults = new WorkspaceObserver(root);
    const without = new WorkspaceObserver(root, { defaultOutputs: false });
    await withDefaults.baseline();
    await without.baseline();
    write(root, "pytest.pyc", "x\n");
    expect(rows(await withDefaults.delta())).toEqual(["output added pytest.pyc"]);
    expect(rows(await without.delta())).toEqual(["ignored added pytest.pyc"]);
  });

  test("a stale __pycache__/*.pyc rewritten by the agent is a row even with no .gitignore", async () => {
    initRepo(root, { "m.py": "x = 1\n" });
    write(root, "__pycache__/m.cpython-311.pyc", "aaaa");
    const observer = new WorkspaceObserver(root);
    const base = await observer.baseline();
    expect(base.entries.has("__pycache__/m.cpython-311.pyc")).toBe(false);
    expect(base.outside.get("__pycache__/m.cpython-311.pyc")?.scope).toBe("output");
    write(root, "__pycache__/m.cpython-311.pyc", "bbbb");
    expect((await observer.delta()).changes).toEqual([
      {
        path: "__pycache__/m.cpython-311.pyc",
        change: "modified",
        content_digest: SHA.bbbb,
        scope: "output",
      },
    ]);
  });

  test("deleting an ignored file is a deleted row", async () => {
    initRepo(root, { ".gitignore": "*.log\n" });
    write(root, "old.log", "x\n");
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    execFileSync("rm", [join(root, "old.log")]);
    expect((await observer.delta()).changes).toEqual([
      { path: "old.log", change: "deleted", content_digest: "deleted", scope: "ignored" },
    ]);
  });
});

describe("output locations", () => {
  test("the documented default list", () => {
    expect(DEFAULT_OUTPUT_LOCATIONS).toEqual([
      "__pycache__/",
      "*.py[co]",
      ".pytest_cache/",
      ".mypy_cache/",
      ".ruff_cache/",
      ".hypothesis/",
      ".tox/",
      ".nox/",
      "*.egg-info/",
      ".coverage",
      ".coverage.*",
      "htmlcov/",
      "coverage/",
      "test-results/",
      ".nyc_output/",
      "node_modules/.cache/",
      "target/ (beside a Cargo.toml)",
      "junit*.xml",
      "report.xml",
      "coverage.xml",
      "coverage.txt",
      "cover.out",
      "coverage.out",
      "lcov.info",
    ]);
  });

  test.each([
    ["pkg/__pycache__/m.cpython-311.pyc", true],
    ["m.pyc", true],
    ["m.pyo", true],
    ["m.pyd", false],
    [".pytest_cache/v/cache/nodeids", true],
    ["sub/.mypy_cache/x.json", true],
    [".ruff_cache/0.1/x", true],
    [".hypothesis/examples/x", true],
    [".tox/py311/bin/python", true],
    [".nox/x", true],
    ["src/pkg.egg-info/PKG-INFO", true],
    [".coverage", true],
    [".coverage.host.123", true],
    ["htmlcov/index.html", true],
    ["coverage/lcov-report/index.html", true],
    ["web/.nyc_output/x.json", true],
    ["node_modules/.cache/babel/x", true],
    ["packages/a/node_modules/.cache/x", true],
    [".cache/x", false],
    ["reports/junit-unit.xml", true],
    ["junit.xml", true],
    ["cover.out", true],
    ["coverage.out", true],
    ["lcov.info", true],
    ["report.xml", true],
    ["tests/coverage.xml", true],
    ["coverage.txt", true],
    ["test-results/junit/results.xml", true],
    ["web/test-results/.last-run.json", true],
    [".coverage.xml", true],
    ["report.xml.bak", false],
    ["src/report.ts", false],
    ["src/coverage.ts", false],
    ["target/debug/app", false], // no Cargo.toml beside it
    ["src/main.rs", false],
  ])("the defaults classify %s as output: %s", (key, expected) => {
    const outputs = new OutputLocations({ root });
    expect(outputs.coversFile(key)).toBe(expected);
  });

  test("target/ is an output location only beside a Cargo.toml", () => {
    write(root, "crate/Cargo.toml", "[package]\n");
    const outputs = new OutputLocations({ root });
    expect(outputs.coversFile("crate/target/debug/app")).toBe(true);
    expect(outputs.coversFile("target/debug/app")).toBe(false);
    expect(outputs.coversFile("other/target/x")).toBe(false);
  });

  test("configured outputs patterns (gitignore syntax) add locations; default_outputs false removes the defaults", () => {
    const outputs = new OutputLocations({
      root,
      patterns: ["reports/", "*.snap.new", "/dist/"],
      defaults: false,
    });
    expect(outputs.coversFile("reports/x.html")).toBe(true);
    expect(outputs.coversFile("a/b.snap.new")).toBe(true);
    expect(outputs.coversFile("dist/x.js")).toBe(true);
    expect(outputs.coversFile("src/dist/x.js")).toBe(false);
    expect(outputs.coversFile("__pycache__/m.pyc")).toBe(false);
    expect(new OutputLocations({ root, defaults: false }).empty).toBe(true);
  });

  test("bad outputs options are typed errors naming the field", () => {
    expect(() => new WorkspaceObserver(root, { outputs: "dist/" as never })).toThrow(
      expect.objectContaining({ code: "invalid_option", field: "outputs" }),
    );
    expect(() => new WorkspaceObserver(root, { defaultOutputs: "no" as never })).toThrow(
      expect.objectContaining({ code: "invalid_option", field: "default_outputs" }),
    );
  });

  test("an output location never covers a tracked file; untracked files there are outside the source scope", async () => {
    initRepo(root, { "coverage/keep.json": "{}\n", "src/a.ts": "a\n" });
    const observer = new WorkspaceObserver(root);
    const base = await observer.baseline();
    expect(base.entries.has("coverage/keep.json")).toBe(true);
    write(root, "coverage/keep.json", "x\n");
    write(root, "coverage/lcov.info", "x\n");
    write(root, "reports/junit.xml", "x\n");
    expect(rows(await observer.delta())).toEqual([
      "source modified coverage/keep.json",
      "output added coverage/lcov.info",
      "output added reports/junit.xml",
    ]);
  });

  test("last turn's outputs are outside scope in the next baseline, so rewriting them is an output row, not a source one", async () => {
    initRepo(root, { "Cargo.toml": "[package]\n", "src/main.rs": "fn main() {}\n" });
    write(root, "target/debug/app", "aaaa");
    const observer = new WorkspaceObserver(root);
    const base = await observer.baseline();
    expect([...base.entries.keys()].sort()).toEqual(["Cargo.toml", "src/main.rs"]);
    write(root, "target/debug/app", "bbbb");
    expect(rows(await observer.delta())).toEqual(["output modified target/debug/app"]);
  });

  test("a stored baseline with stat-only outside entries restores them into the outside stat cache", async () => {
    initRepo(root, { ".gitignore": "node_modules/\n" });
    write(root, "node_modules/x.js", "x\n");
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(root, "node_modules/x.js"), old, old);
    const base = await new WorkspaceObserver(root).baseline();
    const observer = new WorkspaceObserver(root);
    observer.restoreBaseline(base);
    expect((await observer.delta()).changes).toEqual([]);
    write(root, "node_modules/x.js", "y\n");
    expect(rows(await observer.delta())).toEqual(["ignored modified node_modules/x.js"]);
  });
});

describe(".git/ and .turngate/ harness rows", () => {
  test("git's own layout is written down", () => {
    expect(GIT_OWN_DIRECTORIES).toEqual([
      "objects",
      "refs",
      "logs",
      "modules",
      "worktrees",
      "lfs",
      "rr-cache",
      "reftable",
      "sequencer",
      "rebase-merge",
      "rebase-apply",
      "fsmonitor--daemon",
      "annex",
    ]);
    expect(GIT_OWN_FILES).toContain("index");
    expect(GIT_OWN_FILES).toContain("HEAD");
    expect(GIT_OWN_FILES).toContain("packed-refs");
    expect(GIT_OWN_FILES).toContain("COMMIT_EDITMSG");
    expect(GIT_OWN_FILES).toContain("description");
    expect(GIT_OWN_FILES).toContain("shallow");
  });

  test.each([
    ["index", false, true],
    ["HEAD", false, true],
    ["ORIG_HEAD", false, true],
    ["FETCH_HEAD", false, true],
    ["CHERRY_PICK_HEAD", false, true],
    ["BISECT_LOG", false, true],
    ["index.lock", false, true],
    ["sharedindex.0123abcd", false, true],
    ["objects", true, true],
    ["refs", true, true],
    ["lfs", true, true],
    ["config", false, false],
    ["config.worktree", false, false],
    ["hooks", true, false],
    ["info", true, false],
    ["x", true, false],
    ["impl.js", false, false],
    ["HEAD.js", false, false],
  ])(".git/%s (dir: %s) is git's own: %s", (name, isDir, own) => {
    expect(isGitOwnEntry(name, isDir)).toBe(own);
  });

  test.each([
    ["ab/0123456789abcdef0123456789abcdef012345", true],
    ["pack/pack-0123456789abcdef0123456789abcdef01234567.pack", true],
    ["pack/pack-0123456789abcdef0123456789abcdef01234567.idx", true],
    ["pack/multi-pack-index", true],
    ["info/packs", true],
    ["info/alternates", true],
    ["info/commit-graphs/commit-graph-chain", true],
    ["impl.js", false],
    ["pack/impl.js", false],
    ["ab/impl.js", false],
    ["info/impl.js", false],
  ])(".git/objects/%s is a name git uses: %s", (rel, own) => {
    expect(isGitObjectFile(rel)).toBe(own);
  });

  test("turngate's own .turngate/ files are written down", () => {
    expect(TURNGATE_OWN_FILES).toEqual([
      ".gitignore",
      "baseline.json",
      "baseline-history.json",
      "code-index.json",
      "verification-profiles.json",
      "turn-chain.json",
      "logs/<sha256 of its bytes>.log",
      "proofs/<sha256>.json",
      "views/<sha256>.json",
      "views/<sha256>.<ms>-<6 hex>.json",
      "views/last.json",
      "cache/events.jsonl",
      "cache/artifacts/<sha256>.json",
      "cargo-target/**",
    ]);
    const sha = SHA["x\n"];
    expect(isTurngateOwnFile("turn-chain.json")).toBe(true);
    expect(isTurngateOwnFile("turn-chain.json.js")).toBe(false);
    expect(isTurngateOwnFile("cache/events.jsonl")).toBe(true);
    // One view per turn (issue 34 item 8): exact names only.
    expect(isTurngateOwnFile(`views/${sha}.1764936000000-0a1b2c.json`)).toBe(true);
    expect(isTurngateOwnFile(`views/${sha}.json`)).toBe(true);
    expect(isTurngateOwnFile(`views/${sha}.1764936000000-0a1b2c.json.js`)).toBe(false);
    expect(isTurngateOwnFile(`views/${sha}.1764936000000-0a1b2c.js`)).toBe(false);
    expect(isTurngateOwnFile(`views/${sha}.x-0a1b2c.json`)).toBe(false);
    expect(isTurngateOwnFile("cache/events.jsonl.js")).toBe(false);
    expect(isTurngateOwnFile(`cache/artifacts/${sha}.json`)).toBe(true);
    expect(isTurngateOwnFile(`cache/artifacts/${sha}.json.js`)).toBe(false);
    expect(isTurngateOwnFile("cache/artifacts/impl.js")).toBe(false);
    expect(isTurngateOwnFile(`cache/artifacts/x/${sha}.json`)).toBe(false);
    expect(isTurngateOwnFile("cache/impl.js")).toBe(false);
    expect(isTurngateOwnFile(".gitignore")).toBe(true);
    expect(isTurngateOwnFile("baseline.json")).toBe(true);
    expect(isTurngateOwnFile("baseline.json.1a2b3c")).toBe(false);
    expect(isTurngateOwnFile("baseline-history.json")).toBe(true);
    expect(isTurngateOwnFile("baseline-history.json.1a2b3c")).toBe(false);
    expect(isTurngateOwnFile("baseline-history.js")).toBe(false);
    expect(isTurngateOwnFile("code-index.json")).toBe(true);
    expect(isTurngateOwnFile("code-index.json.js")).toBe(false);
    expect(isTurngateOwnFile("verification-profiles.json")).toBe(true);
    expect(isTurngateOwnFile("verification-profiles.json.lock")).toBe(false);
    expect(isTurngateOwnFile("verification-profiles.d/a/verification-profiles.json")).toBe(false);
    expect(isTurngateOwnFile(`logs/${sha}.log`)).toBe(false);
    expect(turngateLogDigest(`logs/${sha}.log`)).toBe(sha);
    expect(turngateLogDigest(`logs/${sha}.log.js`)).toBe(undefined);
    expect(turngateLogDigest("logs/.tmp-123-abcdef.log")).toBe(undefined);
    expect(turngateLogDigest(`proofs/${sha}.json`)).toBe(undefined);
    // The stored snapshots' entries files live outside the workspace: one planted in the
    // state folder is the agent's (a row), whatever its name.
    expect(turngateLogDigest(`snapshots/chain/${sha}.bin`)).toBe(undefined);
    expect(isTurngateOwnFile("logs/.tmp-123-abcdef.log")).toBe(false);
    expect(isTurngateOwnFile(`proofs/${sha}.json`)).toBe(true);
    expect(isTurngateOwnFile(`proofs/${sha}evil.js`)).toBe(false);
    expect(isTurngateOwnFile(`views/${sha}.json`)).toBe(true);
    expect(isTurngateOwnFile("views/last.json")).toBe(true);
    expect(isTurngateOwnFile("views/last.json.js")).toBe(false);
    expect(isTurngateOwnFile("views/impl.js")).toBe(false);
    expect(isTurngateOwnFile(`views/x/${sha}.json`)).toBe(false);
    expect(isTurngateOwnFile(`proofs/${sha}.json.js`)).toBe(false);
    expect(isTurngateOwnFile("cargo-target/debug/deps/x.d")).toBe(true);
    expect(isTurngateOwnFile("cargo-target.js")).toBe(false);
    expect(isTurngateOwnFile("impl.js")).toBe(false);
    expect(isTurngateOwnFile("logs/impl.js")).toBe(false);
    expect(isTurngateOwnFile(`proofs/${sha}/impl.js`)).toBe(false);
    expect(isTurngateOwnFile("baseline.json.js")).toBe(false);
  });

  test("JS planted at .turngate/logs/<64 hex>.log (bytes not hashing to the name), proofs/<64 hex>evil.js, baseline.json.abc or a left-over temporary is a harness row", async () => {
    initRepo(root, { "a.txt": "a\n" });
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    const js = "module.exports = () => true;\n";
    const jsSha = "9cb2ab56e51dde27af3ea8216d6113c1023163cd3805940dff135c10cb3f2a5f"; // sha256sum
    write(root, `.turngate/logs/${SHA["x\n"]}.log`, js);
    write(root, `.turngate/proofs/${SHA["x\n"]}evil.js`, js);
    write(root, ".turngate/baseline.json.abc", js);
    write(root, ".turngate/logs/.tmp-123-abcdef.log", js);
    write(root, `.turngate/logs/${jsSha}.log`, js); // content-addressed: turngate's own
    expect(rows(await observer.delta())).toEqual([
      "harness added .turngate/baseline.json.abc",
      "harness added .turngate/logs/.tmp-123-abcdef.log",
      `harness added .turngate/logs/${SHA["x\n"]}.log`,
      `harness added .turngate/proofs/${SHA["x\n"]}evil.js`,
    ]);
    // an own log rewritten in place with other bytes becomes a row; restored, it is not
    write(root, `.turngate/logs/${jsSha}.log`, "x\n");
    expect(rows(await observer.delta())).toContain(`harness added .turngate/logs/${jsSha}.log`);
  });

  test("code a check can require from .git/x/impl.js, a new hook and a .git/config edit are harness rows; a commit's own bookkeeping is not", async () => {
    initRepo(root, { "a.txt": "a\n" });
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    write(root, ".git/x/impl.js", "x\n");
    write(root, ".git/objects/impl.js", "x\n");
    write(root, ".git/objects/pack/impl.js", "x\n");
    write(root, ".git/hooks/pre-commit", "x\n");
    git(root, "config", "core.fsmonitor", "/tmp/planted");
    write(root, ".git/info/attributes", "x\n");
    write(root, "a.txt", "x\n");
    git(root, "commit", "-q", "-am", "agent commit"); // index, HEAD, refs, logs, objects, COMMIT_EDITMSG
    expect(rows(await observer.delta())).toEqual([
      "harness modified .git/config",
      "harness added .git/hooks/pre-commit",
      "harness added .git/info/attributes",
      "harness added .git/objects/impl.js",
      "harness added .git/objects/pack/impl.js",
      "harness added .git/x/impl.js",
      "source modified a.txt",
    ]);
  });

  test("a nested repository's .git/, a junk .git folder or file and an ignored folder's .git are observed by the root .git/'s rules (git lists nothing in them)", {
    timeout: testTimeout(20_000),
  }, async () => {
    initRepo(root, {
      ".gitignore": "node_modules/\n",
      "a.txt": "a\n",
      "src/x/y.js": "y\n",
      "pkg/index.js": "p\n",
    });
    execFileSync("mkdir", ["-p", join(root, "vendor/lib")]);
    initRepo(join(root, "vendor/lib"), { "b.txt": "b\n" });
    write(root, "src/x/.git/keep", "k\n"); // a junk .git folder: src/x is listed with the root
    write(root, "pkg/.git", "not a gitdir\n"); // a junk .git file
    write(root, "node_modules/dep/.git/config", "[core]\n");
    write(root, "node_modules/dep/index.js", "d\n");
    const observer = new WorkspaceObserver(root);
    const base = await observer.baseline();
    expect(base.outside.get("src/x/.git/keep")).toMatchObject({
      scope: "harness",
      content_digest: "19732980d68fbd00358a0a4d98246c960400b87e4fa2a2e155db98be2b42ed6c", // sha256sum of "k\n"
    });
    expect(base.outside.get("pkg/.git")?.scope).toBe("harness");
    expect(base.outside.get("vendor/lib/.git/config")?.scope).toBe("harness");
    expect(base.outside.get("node_modules/dep/.git/config")?.scope).toBe("ignored");
    // git's own layout of the nested repository is not recorded
    expect(
      [...base.outside.keys()].filter((k) =>
        /^vendor\/lib\/\.git\/(?:objects|refs|logs|index|HEAD)/.test(k),
      ),
    ).toEqual([]);

    const js = "module.exports = () => true;\n";
    write(root, "src/x/.git/impl.js", js);
    write(root, "src/x/.git/keep", "k2\n");
    write(root, "pkg/.git", "gitdir: /elsewhere\n");
    git(join(root, "vendor/lib"), "config", "core.hooksPath", "/tmp/planted-hooks");
    write(root, "vendor/lib/.git/x/impl.js", js);
    write(root, "vendor/lib/b.txt", "b2\n");
    git(join(root, "vendor/lib"), "commit", "-q", "-am", "agent commit"); // its own bookkeeping
    write(root, "node_modules/dep/.git/impl.js", js);
    write(root, "lib2/.git/impl.js", js); // a new folder with a junk .git
    write(root, "lib2/z.js", "z\n");
    write(root, "src/.git", js); // a junk .git file in a folder that already existed
    const delta = await observer.delta();
    expect(rows(delta)).toEqual([
      "harness added lib2/.git/impl.js",
      "source added lib2/z.js",
      "ignored added node_modules/dep/.git/impl.js",
      "harness modified pkg/.git",
      "harness added src/.git",
      "harness added src/x/.git/impl.js",
      "harness modified src/x/.git/keep",
      "harness modified vendor/lib/.git/config",
      "harness added vendor/lib/.git/x/impl.js",
      "source modified vendor/lib/b.txt",
    ]);
    expect(delta.complete).toBe(true);
    // The ledger keeps every one of them (an ignored .git file included).
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths(ledgerPaths(delta.changes));
    expect(ledger.paths).toEqual(delta.changes.map((c) => c.path).sort(compareCodeUnits));
  });

  test("JS hidden in .git/refs/ or ORIG_HEAD (bytes that are not a ref) is a harness row; refs git writes (commit, branch, tag, symbolic HEAD) are not", async () => {
    initRepo(root, { "a.txt": "a\n" });
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    const js = "module.exports = () => true;\n";
    write(root, ".git/refs/heads/impl.js", js);
    write(root, ".git/refs/tags/x", "ref: require('./impl.js')\n");
    write(root, ".git/ORIG_HEAD", js);
    write(root, "a.txt", "x\n");
    git(root, "commit", "-q", "-am", "agent commit");
    git(root, "branch", "side");
    git(root, "tag", "v1");
    git(root, "symbolic-ref", "HEAD", "refs/heads/side");
    expect(rows(await observer.delta())).toEqual([
      "harness added .git/ORIG_HEAD",
      "harness added .git/refs/heads/impl.js",
      "harness added .git/refs/tags/x",
      "source modified a.txt",
    ]);
  });

  test("a file the agent creates in the root's .turngate/ is a harness row; turngate's own proofs and logs are not", async () => {
    initRepo(root, { "a.txt": "a\n" });
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    write(root, ".turngate/impl.js", "x\n");
    write(root, `.turngate/proofs/${SHA["x\n"]}.json`, "{}\n");
    write(root, `.turngate/logs/${SHA["x\n"]}.log`, "x\n");
    write(root, ".turngate/.gitignore", "*\n");
    expect((await observer.delta()).changes).toEqual([
      { path: ".turngate/impl.js", change: "added", content_digest: SHA["x\n"], scope: "harness" },
    ]);
  });
});

describe("special files in the source scope", () => {
  test("a FIFO in an untracked folder (git ls-files skips it) makes the observation incomplete, naming it", async () => {
    initRepo(root, { "a.txt": "a\n" });
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    write(root, "tmp/keep.txt", "x\n");
    execFileSync("mkfifo", [join(root, "tmp/pipe")]);
    execFileSync("mkdir", ["-p", join(root, "only/fifo/here")]);
    execFileSync("mkfifo", [join(root, "only/fifo/here/p")]);
    const delta = await observer.delta();
    expect(delta.complete).toBe(false);
    expect(delta.unreadable).toEqual(["only/fifo/here/p", "tmp/pipe"]);
    expect(delta.unreadable_reasons?.["tmp/pipe"]).toBe(SPECIAL_FILE_REASON);
    expect(rows(delta)).toEqual(["source added tmp/keep.txt"]);
  });

  test("a FIFO present at baseline keeps every delta incomplete (never reported as deleted)", async () => {
    initRepo(root, { "src/a.txt": "a\n" });
    execFileSync("mkfifo", [join(root, "src/pipe")]);
    const observer = new WorkspaceObserver(root);
    const base = await observer.baseline();
    expect(base.unreadable).toEqual(["src/pipe"]);
    await new Promise((r) => setTimeout(r, 10));
    const delta = await observer.delta();
    expect(delta.unreadable).toEqual(["src/pipe"]);
    expect(delta.changes).toEqual([]);
  });

  test("a baseline finds FIFOs in the root's and a nested repository's many folders, sorted, on both paths", {
    timeout: testTimeout(20_000),
  }, async () => {
    // 80 folders (more than one parallel read of WALK_CONCURRENCY), FIFOs at both ends, in a
    // new folder below a tracked one, and in a nested repository scanned after the listing.
    const files: Record<string, string> = {};
    for (let i = 0; i < 80; i++) files[`d${i}/f.txt`] = `${i}\n`;
    initRepo(root, files);
    execFileSync("mkdir", ["-p", join(root, "vendor/lib")]);
    initRepo(join(root, "vendor/lib"), { "lib.txt": "nested\n" });
    for (const p of ["d0/p", "d79/p", "d41/new/deeper/p", "vendor/lib/q"]) {
      execFileSync("mkdir", ["-p", join(root, p, "..")]);
      execFileSync("mkfifo", [join(root, p)]);
    }
    const want = ["d0/p", "d41/new/deeper/p", "d79/p", "vendor/lib/q"];
    for (const native of [false, true]) {
      const base = await new WorkspaceObserver(root, { native }).baseline();
      expect(base.unreadable).toEqual(want);
      for (const key of want) expect(base.unreadable_reasons?.[key]).toBe(SPECIAL_FILE_REASON);
    }
  });

  test("a folder with a .git that is no repository (junk file, empty folder) is scanned like any folder, at baseline and after", {
    timeout: testTimeout(20_000),
  }, async () => {
    // git lists such a folder's files with the parent repository's, so its FIFOs must not
    // be skipped as a nested repository's (found by the review helper).
    initRepo(root, { "src/a.txt": "a\n" });
    const junk = (at: string, folder: boolean): void => {
      execFileSync("mkdir", ["-p", join(root, at)]);
      if (folder) execFileSync("mkdir", [join(root, at, ".git")]);
      else write(root, `${at}/.git`, "not a gitdir\n");
      execFileSync("mkfifo", [join(root, at, "p")]);
    };
    junk("src/before-file", false);
    junk("src/before-dir/deeper", true);
    for (const native of [false, true]) {
      const observer = new WorkspaceObserver(root, { native });
      const base = await observer.baseline();
      // The TypeScript round's new folders are already there at the native round's baseline.
      const before = ["src/before-dir/deeper/p", "src/before-file/p"];
      if (native) before.push("src/new-dir-false/x/p", "src/new-false/p");
      expect(base.unreadable).toEqual(before.sort());
      junk(`src/new-${native}`, false);
      junk(`src/new-dir-${native}/x`, true);
      write(root, `src/new-${native}/code.js`, "x\n");
      const delta = await observer.delta();
      expect(delta.unreadable).toEqual(
        [...before, `src/new-dir-${native}/x/p`, `src/new-${native}/p`].sort(),
      );
      // The junk .git file is a harness row (its bytes can be required); the empty folder has none.
      expect(rows(delta)).toEqual([
        `harness added src/new-${native}/.git`,
        `source added src/new-${native}/code.js`,
      ]);
    }
  });

  test("a FIFO in an ignored folder is outside the source scope and not reported", async () => {
    initRepo(root, { ".gitignore": "run/\n" });
    const observer = new WorkspaceObserver(root);
    await observer.baseline();
    execFileSync("mkdir", [join(root, "run")]);
    execFileSync("mkfifo", [join(root, "run/sock")]);
    expect(await observer.delta()).toEqual({ changes: [], complete: true, unreadable: [] });
  });
});
