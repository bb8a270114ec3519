/**
 * Issue 10, part "scope": attacks a cheating agent makes outside the source scope, each
 * replayed through the real CLI (`turngate run`, in-process `main`, real agent and check
 * processes) on a real temporary git repository, with exact digests and texts.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { effectDigest } from "@turngate/core";
import { DEFAULT_OUTPUT_LOCATIONS, SPECIAL_FILE_REASON } from "@turngate/node";
import { afterEach, describe, expect, test } from "vitest";
import { cli, gitProject } from "./helpers.js";
import { inPlaceChecks } from "./in-place.js";

// The in-place model (docs/design.md §3a); see inPlaceChecks.
inPlaceChecks();

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const row = (path: string, content: string) => ({
  tool: "workspace",
  path,
  content_digest: sha256(content),
});

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});
function project(files: Record<string, string>) {
  const p = gitProject(files);
  cleanups.push(p.cleanup);
  return p;
}

/** An agent script (outside the repository) that writes `files` (path → text) in its cwd. */
function writer(p: ReturnType<typeof project>, files: Record<string, string>): string {
  return p.agent(
    "agent.js",
    `const fs = require("node:fs"); const path = require("node:path");
for (const [f, t] of Object.entries(${JSON.stringify(files)})) {
  fs.mkdirSync(path.dirname(f), { recursive: true }); fs.writeFileSync(f, t);
}`,
  );
}

describe("the agent's writes outside the source scope are rows of the effect digest", () => {
  test("an ignored shim node_modules/.bin/node written by the agent is a row in the digest, not a narrative turn", async () => {
    const p = project({ ".gitignore": "node_modules/\n", "a.txt": "a\n" });
    const shim = "#!/bin/sh\nexit 0\n";
    const agent = writer(p, { "node_modules/.bin/node": shim });
    const result = await cli(["run", "--json", "--check", "true", "--", "node", agent], p.root);
    const json = JSON.parse(result.stdout);
    expect(json.verdict).toBe("verified");
    expect(json.effect_digest).toBe(effectDigest([row("node_modules/.bin/node", shim)]));
    expect(json.changes).toEqual([
      {
        path: "node_modules/.bin/node",
        change: "added",
        content_digest: sha256(shim),
        scope: "ignored",
      },
    ]);
    expect(json.outside_scope).toEqual({
      ignored: ["node_modules/.bin/node"],
      output: [],
      harness: [],
    });
  });

  test("a gitignored .npmrc and a stale __pycache__/*.pyc are rows; the text output shows them apart", async () => {
    const p = project({ ".gitignore": ".npmrc\n", "m.py": "x = 1\n" });
    p.write("__pycache__/m.cpython-311.pyc", "old bytecode");
    const agent = writer(p, {
      ".npmrc": "registry=http://evil.invalid/\n",
      "__pycache__/m.cpython-311.pyc": "planted bytecode",
    });
    const text = await cli(["run", "--check", "true", "--", "node", agent], p.root);
    const digest = effectDigest([
      row(".npmrc", "registry=http://evil.invalid/\n"),
      row("__pycache__/m.cpython-311.pyc", "planted bytecode"),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout.split("\n").slice(0, 5)).toEqual([
      "changed: 0 source paths (2 outside the source scope)",
      "ignored: 1 path (outside the source scope, still in the effect digest)",
      "  .npmrc  1 (added 1)",
      "outputs: 1 path (outside the source scope, still in the effect digest)",
      "  __pycache__/  1 (modified 1)",
    ]);
    expect(text.stdout).toContain(`verified: effect digest ${digest}`);
  });

  test("code a check requires from .git/x/impl.js is in the digest", async () => {
    const p = project({ "a.txt": "a\n" });
    const impl = "process.exit(0);\n";
    const agent = writer(p, { ".git/x/impl.js": impl, "a.txt": "b\n" });
    const result = await cli(
      ["run", "--json", "--check", "node -e \"require('./.git/x/impl.js')\"", "--", "node", agent],
      p.root,
    );
    const json = JSON.parse(result.stdout);
    expect(json.verdict).toBe("verified");
    expect(json.effect_digest).toBe(
      effectDigest([row(".git/x/impl.js", impl), row("a.txt", "b\n")]),
    );
    expect(json.outside_scope.harness).toEqual([".git/x/impl.js"]);
  });

  test("code a check requires from a junk pkg/.git file or lib/.git/impl.js is in the digest, and rewriting it alone is a new turn to verify", async () => {
    const p = project({ "a.txt": "a\n", "pkg/index.js": "module.exports = 1;\n" });
    const impl = "process.exit(0);\n";
    const check = "node -e \"require('./pkg/.git'); require('./lib/.git/impl.js')\"";
    const first = writer(p, { "pkg/.git": impl, "lib/.git/impl.js": impl, "a.txt": "b\n" });
    const one = JSON.parse(
      (await cli(["run", "--json", "--check", check, "--", "node", first], p.root)).stdout,
    );
    expect(one.verdict).toBe("verified");
    expect(one.effect_digest).toBe(
      effectDigest([row("a.txt", "b\n"), row("lib/.git/impl.js", impl), row("pkg/.git", impl)]),
    );
    expect(one.outside_scope.harness).toEqual(["lib/.git/impl.js", "pkg/.git"]);
    // The next turn changes only the junk .git file: a change to verify, not "no changes".
    const other = "process.exit(1);\n";
    const second = p.agent(
      "again.js",
      `require("node:fs").writeFileSync("pkg/.git", ${JSON.stringify(other)});`,
    );
    const two = JSON.parse(
      (await cli(["run", "--json", "--check", check, "--", "node", second], p.root)).stdout,
    );
    expect(two.changes).toEqual([
      { path: "pkg/.git", change: "modified", content_digest: sha256(other), scope: "harness" },
    ]);
    expect(two.verdict).toBe("incomplete"); // the check fails on the new bytes
  });

  test("a .git/hooks/pre-commit added and a core.fsmonitor planted in .git/config are rows, and the fsmonitor never runs", async () => {
    const p = project({ "a.txt": "a\n" });
    const marker = join(p.agents, "fsmonitor-ran");
    const monitor = join(p.agents, "monitor.sh");
    writeFileSync(monitor, `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    const agent = p.agent(
      "agent.js",
      `const fs = require("node:fs"); const { execFileSync } = require("node:child_process");
fs.writeFileSync(".git/hooks/pre-commit", "#!/bin/sh\\nexit 0\\n", { mode: 0o755 });
execFileSync("git", ["config", "core.fsmonitor", ${JSON.stringify(monitor)}]);
fs.writeFileSync("a.txt", "b\\n");`,
    );
    const result = await cli(["run", "--json", "--check", "true", "--", "node", agent], p.root);
    const json = JSON.parse(result.stdout);
    expect(json.outside_scope.harness).toEqual([".git/config", ".git/hooks/pre-commit"]);
    expect(
      json.changes.map((c: { path: string; scope: string }) => `${c.scope} ${c.path}`),
    ).toEqual(["harness .git/config", "harness .git/hooks/pre-commit", "source a.txt"]);
    expect(existsSync(marker)).toBe(false);
  });

  test("a file the agent creates in the root's .turngate/ is a row", async () => {
    const p = project({ "a.txt": "a\n" });
    const agent = writer(p, { ".turngate/impl.js": "x\n" });
    const result = await cli(["run", "--json", "--check", "true", "--", "node", agent], p.root);
    const json = JSON.parse(result.stdout);
    expect(json.verdict).toBe("verified");
    expect(json.effect_digest).toBe(effectDigest([row(".turngate/impl.js", "x\n")]));
  });

  test("JS a check requires from .turngate/logs/<64 hex>.log (bytes not hashing to the name) is in the digest; the check's own content-addressed log is not", async () => {
    const p = project({ "a.txt": "a\n" });
    const impl = "process.exit(0);\n";
    const name = `.turngate/logs/${sha256("x\n")}.log`;
    const agent = writer(p, { [name]: impl, "a.txt": "b\n" });
    const result = await cli(
      ["run", "--json", "--check", `node -e "require('./${name}')"`, "--", "node", agent],
      p.root,
    );
    const json = JSON.parse(result.stdout);
    expect(json.verdict).toBe("verified");
    expect(json.effect_digest).toBe(effectDigest([row(name, impl), row("a.txt", "b\n")]));
    expect(json.outside_scope.harness).toEqual([name]);
  });

  test("JS a check requires from .git/refs/heads/impl.js (not a ref) is in the digest", async () => {
    const p = project({ "a.txt": "a\n" });
    const impl = "process.exit(0);\n";
    const agent = writer(p, { ".git/refs/heads/impl.js": impl, "a.txt": "b\n" });
    const result = await cli(
      [
        "run",
        "--json",
        "--check",
        "node -e \"require('./.git/refs/heads/impl.js')\"",
        "--",
        "node",
        agent,
      ],
      p.root,
    );
    const json = JSON.parse(result.stdout);
    expect(json.verdict).toBe("verified");
    expect(json.effect_digest).toBe(
      effectDigest([row(".git/refs/heads/impl.js", impl), row("a.txt", "b\n")]),
    );
    expect(json.outside_scope.harness).toEqual([".git/refs/heads/impl.js"]);
  });

  test("a FIFO in an untracked folder makes the turn incomplete, naming the path", async () => {
    const p = project({ "a.txt": "a\n" });
    const agent = p.agent(
      "agent.js",
      `const fs = require("node:fs"); const { execFileSync } = require("node:child_process");
fs.mkdirSync("tmp"); execFileSync("mkfifo", ["tmp/pipe"]); fs.writeFileSync("a.txt", "b\\n");`,
    );
    const result = await cli(["run", "--check", "true", "--", "node", agent], p.root);
    expect(result.code).toBe(2);
    expect(result.stdout.split("\n").slice(0, 3)).toEqual([
      "changed: 1 path",
      "  modified a.txt",
      `  unreadable tmp/pipe (${SPECIAL_FILE_REASON})`,
    ]);
  });
});

describe("run from a subdirectory", () => {
  test("echo broken >> ../go.mod from a subfolder is seen: the repository root is observed, and stderr says so", async () => {
    const p = project({ "go.mod": "module x\n", "sub/main.go": "package main\n" });
    const sub = join(p.root, "sub");
    const agent = p.agent("agent.sh", "echo broken >> ../go.mod\n");
    const result = await cli(["run", "--json", "--check", "true", "--", "sh", agent], sub);
    const json = JSON.parse(result.stdout);
    expect(result.stderr.split("\n")[0]).toBe(
      `turngate: observing the repository root ${p.root} (${sub} is inside its git work tree; every change in the repository counts)`,
    );
    expect(json.root).toBe(p.root);
    expect(json.verdict).toBe("verified");
    expect(json.changes).toEqual([
      {
        path: "go.mod",
        change: "modified",
        content_digest: sha256("module x\nbroken\n"),
        scope: "source",
      },
    ]);
  });
});

describe("text output of many ignored paths", () => {
  test("3,000 ignored paths in 20 top folders are a capped, grouped list, never one long line", async () => {
    const p = project({ ".gitignore": "gen*/\n", "a.txt": "a\n" });
    const agent = p.agent(
      "agent.js",
      `const fs = require("node:fs");
for (let d = 0; d < 20; d++) { fs.mkdirSync("gen" + d + "/deep", { recursive: true });
  for (let i = 0; i < (d === 0 ? 1100 : 100); i++) fs.writeFileSync("gen" + d + "/deep/f" + i + ".js", "x"); }`,
    );
    mkdirSync(join(p.root, "unused"), { recursive: true });
    const result = await cli(["run", "--check", "true", "--", "node", agent], p.root);
    const lines = result.stdout.split("\n");
    const at = lines.indexOf(
      "ignored: 3000 paths (outside the source scope, still in the effect digest)",
    );
    expect(at).toBe(1);
    expect(lines[at + 1]).toBe("  gen0/   1100 (added 1100)");
    expect(lines[at + 13]).toBe("  … 8 more folders (800 paths)");
    // The ignored block (its heading, 12 folders, the rest counted) has no long line.
    const block = lines.slice(at, at + 14);
    expect(Math.max(...block.map((line) => line.length))).toBeLessThan(120);
  });
});

describe("output locations in --help", () => {
  test("turngate run --help lists every default output location and the two config keys", async () => {
    const p = project({});
    const help = await cli(["run", "--help"], p.root);
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, " ");
    for (const location of DEFAULT_OUTPUT_LOCATIONS) expect(text).toContain(location);
    expect(text).toContain(
      '"outputs" adds gitignore-syntax patterns, "default_outputs": false turns this list off.',
    );
  });
});

describe("baseline and verify keep the outside scope", () => {
  test("an ignored file changed between turngate baseline and turngate verify is a row (the stored baseline keeps the stat-only ignored entries)", async () => {
    const p = project({ ".gitignore": "node_modules/\n", "a.txt": "a\n" });
    p.write("node_modules/dep/index.js", "module.exports = 1;\n");
    const id = /^baseline id: ([0-9a-f]{64})$/m.exec((await cli(["baseline"], p.root)).stdout)?.[1];
    p.write("node_modules/dep/index.js", "module.exports = 2;\n");
    const verify = await cli(
      ["verify", "--json", "--baseline-id", id ?? "", "--check", "true"],
      p.root,
    );
    const json = JSON.parse(verify.stdout);
    expect(json.changes).toEqual([
      {
        path: "node_modules/dep/index.js",
        change: "modified",
        content_digest: sha256("module.exports = 2;\n"),
        scope: "ignored",
      },
    ]);
    expect(json.verdict).toBe("verified");
  });
});

describe("config outputs and default_outputs", () => {
  test('"outputs" patterns make untracked files there output rows; "default_outputs": false keeps __pycache__ in the source scope', async () => {
    const p = project({
      "turngate.config.json": JSON.stringify({ outputs: ["reports/"], default_outputs: false }),
      "a.txt": "a\n",
    });
    const agent = writer(p, { "reports/x.html": "x\n", "__pycache__/m.pyc": "y\n" });
    const result = await cli(["run", "--json", "--check", "true", "--", "node", agent], p.root);
    const json = JSON.parse(result.stdout);
    expect(
      json.changes.map((c: { path: string; scope: string }) => `${c.scope} ${c.path}`),
    ).toEqual(["source __pycache__/m.pyc", "output reports/x.html"]);
  });

  test('a bad "outputs" value is a usage error naming the field', async () => {
    const p = project({ "turngate.config.json": JSON.stringify({ outputs: "reports/" }) });
    const result = await cli(["run", "--check", "true", "--", "true"], p.root);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "turngate.config.json at outputs: Invalid input: expected array, received string",
    );
  });
});
