/**
 * The proof's `final_tree` names only the bytes the checks judged (docs/design.md §3 "Proof";
 * attack round 04, 05, 06, 08), with `turngate` run as a real process on real temporary git
 * repositories: a blob git stores converted (`ident`) gives no final tree, in this turn and
 * in the next one built on it, and `proof verify --commit` says the proof names no tree and
 * why; an honest turn's final tree is the tree of the clean commit of its bytes.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { cliBundleArgs } from "./cli-bundle.js";
import { gitProject } from "./helpers.js";

vi.setConfig({ testTimeout: testTimeout(180_000), hookTimeout: testTimeout(180_000) });

const bundle = cliBundleArgs();
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

/** A user with their own state folder (signing key, turn chain). */
function user(): NodeJS.ProcessEnv {
  const state = mkdtempSync(join(tmpdir(), "turngate-user-"));
  cleanups.push(() => rmSync(state, { recursive: true, force: true }));
  return { ...process.env, XDG_STATE_HOME: state };
}

/** `turngate …` as a real process in `cwd` with `env`. */
function turngate(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [...bundle, ...args], {
    cwd,
    env,
    encoding: "utf8",
    timeout: testTimeout(60_000),
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd,
    encoding: "utf8",
  }).trim();

/** The proof's predicate of the turn `run --json` printed. */
function predicate(stdout: string) {
  const json = JSON.parse(stdout);
  const envelope = JSON.parse(readFileSync(json.proof_path, "utf8"));
  return {
    json,
    workspace: JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")).workspace,
  };
}

function project() {
  const p = gitProject({
    "lib.js": "exports.add = (a, b) => a + b;\n",
    "test.js": 'if (require("./lib.js").add(2, 2) !== 4) process.exit(1);\n',
    "turngate.config.json": '{ "checks": ["node test.js"], "isolation": "in-place" }\n',
  });
  cleanups.push(p.cleanup);
  return p;
}

const IDENT_REASON =
  "final_tree: lib.js is stored filtered by .gitattributes (ident): the checked bytes differ from the blob";

describe("turngate run: final_tree is the judged bytes or null with why", () => {
  test("05 over two turns: a blob stored filtered by ident gives no final tree, and the next turn built on it none either; proof verify --commit says why", () => {
    const p = project();
    const env = user();
    const agent = p.agent(
      "ident.js",
      `const fs = require("node:fs");
fs.writeFileSync(".gitattributes", "*.js ident\\n");
fs.writeFileSync("lib.js", "exports.add = (a, b) => { /*$Id: */ return a + b; /* $ */ };\\n");`,
    );
    const first = turngate(["run", "--json", "--", "node", agent], p.root, env);
    expect(first.code).toBe(0);
    const one = predicate(first.stdout);
    expect(one.json.verdict).toBe("verified");
    expect(one.workspace.final_tree).toBeNull();
    expect(one.workspace.tree_reason).toBe(IDENT_REASON);
    git(p.root, "add", "-A");
    git(p.root, "commit", "-q", "--no-gpg-sign", "-m", "ident");

    const readme = p.agent(
      "readme.js",
      `require("node:fs").writeFileSync("README.md", "# calc\\n");`,
    );
    const second = turngate(["run", "--json", "--", "node", readme], p.root, env);
    expect(second.code).toBe(0);
    const two = predicate(second.stdout);
    expect(two.json.verdict).toBe("verified");
    expect(two.workspace.final_tree).toBeNull();
    expect(two.workspace.tree_reason).toBe(IDENT_REASON);
    git(p.root, "add", "-A");
    git(p.root, "commit", "-q", "--no-gpg-sign", "-m", "readme");
    const verify = turngate(
      ["proof", "verify", "--commit", "HEAD", two.json.proof_path],
      p.root,
      env,
    );
    expect(verify.code).toBe(2);
    expect(verify.stdout).toContain(
      `  commit: the proof names no final tree, so no commit can match it (${IDENT_REASON})\n`,
    );
  });

  test("control: an honest turn's final tree is the clean commit's tree, and proof verify --commit holds", () => {
    const p = project();
    const env = user();
    writeFileSync(join(p.root, ".gitattributes"), "*.js ident\n");
    git(p.root, "add", "-A");
    git(p.root, "commit", "-q", "--no-gpg-sign", "-m", "attributes");
    const agent = p.agent(
      "honest.js",
      `require("node:fs").writeFileSync("lib.js", "exports.add = (a, b) => a + b; // sum\\n");`,
    );
    const run = turngate(["run", "--json", "--", "node", agent], p.root, env);
    expect(run.code).toBe(0);
    const { json, workspace } = predicate(run.stdout);
    expect(json.verdict).toBe("verified");
    git(p.root, "add", "-A");
    git(p.root, "commit", "-q", "--no-gpg-sign", "-m", "turn");
    const headTree = git(p.root, "rev-parse", "HEAD^{tree}");
    expect(workspace).toMatchObject({ final_tree: headTree, tree_reason: null });
    const verify = turngate(["proof", "verify", "--commit", "HEAD", json.proof_path], p.root, env);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toContain(`commit: the final tree ${headTree} is the commit's tree\n`);
  });
});
