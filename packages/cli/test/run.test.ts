import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { snapshotStoreDir } from "@turngate/node";
import { afterEach, describe, expect, test } from "vitest";
import {
  cli,
  cliFresh,
  gitProject,
  localKeyId,
  readProofPayload,
  UNSANDBOXED_LINE,
} from "./helpers.js";

/** The git tree of `root`'s files now, written by git itself through a throwaway index. */
function gitTreeNow(root: string): string {
  const dir = mkdtempSync(join(tmpdir(), "turngate-idx-"));
  try {
    const env = { ...process.env, GIT_INDEX_FILE: join(dir, "index") };
    execFileSync("git", ["add", "-A"], { cwd: root, env });
    return execFileSync("git", ["write-tree"], { cwd: root, env }).toString().trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The tree id of an empty tree (git's well-known constant). */
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const workspaceDigest = (path: string, content: string) =>
  sha256(`workspace|${path}|${sha256(content)}`);

const WRITE_42 = `require("node:fs").writeFileSync("value.txt", "42\\n"); console.log("agent: wrote value.txt");`;
const NOTHING = `console.log("agent: read only");`;

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

const NODE_PROJECT = {
  "package.json": JSON.stringify({ name: "p", private: true, scripts: { test: "node test.js" } }),
  "test.js": `const v = require("node:fs").readFileSync("value.txt", "utf8"); if (v !== "42\\n") { console.log("value is " + JSON.stringify(v)); process.exit(1); } console.log("value ok");`,
  "value.txt": "41\n",
};

describe("turngate run", () => {
  test('turngate run --check "npm test" -- node some-agent.js: verified on a real repo, proof written and re-verified', async () => {
    const p = project(NODE_PROJECT);
    const agent = p.agent("some-agent.js", WRITE_42);
    const result = await cli(["run", "--check", "npm test", "--", "node", agent], p.root);
    const digest = workspaceDigest("value.txt", "42\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        "changed: 1 path",
        "  modified value.txt",
        "affected: 1 target: file:value.txt (unmapped)",
        "checks: 1 passed",
        `verified: effect digest ${digest}`,
        `proof: .turngate/proofs/${digest}.json`,
        UNSANDBOXED_LINE,
        "",
      ].join("\n"),
    );
    expect(result.stderr).toContain("turngate: agent exited with code 0\n");
    expect(result.stderr).toContain("turngate: check check:1 started: npm test\n");
    expect(result.stderr).toMatch(/turngate: check check:1 passed in \d+\.\ds\n/);
    const proof = readProofPayload(join(p.root, ".turngate/proofs", `${digest}.json`));
    expect(proof.schema).toBe("turn_proof.v1");
    expect(proof.terminal).toEqual({ kind: "verified", effect_digest: digest });
    expect(proof.records).toEqual([
      { tool: "workspace", path: "value.txt", content_digest: sha256("42\n") },
    ]);
    expect(proof.reports[0]?.subject).toBe("turngate:checks");

    const holds = await cli(["proof", "verify", `.turngate/proofs/${digest}.json`], p.root);
    expect(holds).toMatchObject({
      code: 0,
      stdout: `proof holds: effect digest ${digest}; 1 of 1 rows re-hashed from disk\nsignature: dsse, signed by key ${localKeyId()}\nevidence logs: 1 of 1 re-hashed\n`,
    });
    p.write("value.txt", "43\n");
    const broken = await cli(["proof", "verify", `.turngate/proofs/${digest}.json`], p.root);
    expect(broken.code).toBe(2);
    expect(broken.stdout).toBe(
      `proof does not hold against ${p.root}:\n  value.txt: recorded ${sha256("42\n")}, on disk ${sha256("43\n")}\n  source tree: the workspace's source tree ${gitTreeNow(p.root)} is not the proof's final tree ${proof.workspace?.final_tree}: it changed since, or this is another workspace\nsignature: dsse, signed by key ${localKeyId()}\nevidence logs: 1 of 1 re-hashed\n`,
    );
  });

  test("a failing check: exit 2, --json outcome with the gate reason and the bound failed check", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const result = await cli(
      ["run", "--json", "--check", "echo checking; exit 1", "--", "node", agent],
      p.root,
    );
    const digest = workspaceDigest("value.txt", "42\n");
    expect(result.code).toBe(2);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({
      schema: "turngate.turn_result.v1",
      verdict: "incomplete",
      exit_code: 2,
      root: p.root,
      effect_digest: digest,
      agent: { command: ["node", agent], exit_code: 0, signal: null },
      changes: [
        { path: "value.txt", change: "modified", content_digest: sha256("42\n"), scope: "source" },
      ],
      observation_complete: true,
      unreadable: [],
      checks_source: "flags",
      binding: { bound: true, effect_digest: digest },
      summary_text:
        "Verification failed: 1 failed check across subjects: turngate:checks. 1 report, 1 required check. Residual risks: 1.",
      outcome: {
        kind: "incomplete",
        reason: "unverified_mutation",
        message: `completion gate: workspace mutation ${digest} has no bound Passed verification and no host waiver. Assistant text does not count. Bind a verification_report.effect_digest to this digest with required checks Passed, or obtain a host waiver for this digest.`,
      },
      proof_path: null,
      proof_error: null,
      config_path: null,
    });
    expect(json.checks).toEqual([
      {
        id: "check:1",
        command: "echo checking; exit 1",
        cwd: null,
        status: "failed",
        exit_code: 1,
        timed_out: false,
        duration_ms: json.checks[0].duration_ms,
        timeout_ms: 120000,
        failure_class: "assertion",
        log_path: join(p.root, ".turngate/logs", `${sha256("checking\n")}.log`),
        residual_risk: "verification command exited with code 1, expected 0: echo checking; exit 1",
        hint: null,
        // What `run` prints under the check and what the hooks quote (issue 34).
        failure_digest: [
          `last 1 line (full log: .turngate/logs/${sha256("checking\n")}.log):`,
          "| checking",
        ],
      },
    ]);
    expect(existsSync(join(p.root, ".turngate/proofs"))).toBe(false);
  });

  test("the text report shows the gate message, its reason and the failing check's tail", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    // In place: the same text on every machine (a clean room adds one line after the
    // failing check's tail, `clean-room/modes.test.ts`).
    const result = await cli(
      [
        "run",
        "--isolation",
        "in-place",
        "--check",
        "echo one; echo two; exit 3",
        "--",
        "node",
        agent,
      ],
      p.root,
    );
    const digest = workspaceDigest("value.txt", "42\n");
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(
      [
        "changed: 1 path",
        "  modified value.txt",
        "affected: 1 target: file:value.txt (unmapped)",
        "checks: 1 failed (check:1)",
        `incomplete (unverified_mutation): the change (effect digest ${digest}) is not verified: the required checks did not all pass. Fix it and run again, or, as the host, accept this exact change with --waive ${digest}:REASON`,
        "failed (assertion): check:1: exit code 3, expected 0: echo one; echo two; exit 3",
        `  last 2 lines (full log: .turngate/logs/${sha256("one\ntwo\n")}.log):`,
        "  | one",
        "  | two",
        UNSANDBOXED_LINE,
        "",
      ].join("\n"),
    );
  });

  test("an agent that changes nothing ends as narrative without running checks", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", NOTHING);
    // In place: the stderr is exact, and a machine without bubblewrap adds a fallback line.
    const result = await cli(
      ["run", "--json", "--isolation", "in-place", "--check", "exit 1", "--", "node", agent],
      p.root,
    );
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({
      verdict: "narrative",
      effect_digest: "",
      changes: [],
      checks: [],
      checks_source: null,
      binding: null,
      outcome: { kind: "allow", terminal: { kind: "narrative" } },
      proof_path: null,
      proof_error: null,
    });
    expect(result.stderr).toBe("turngate: agent exited with code 0\n");
  });

  test("a check that writes into the workspace leaves the report unbound: workspace_changed_during_check", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const result = await cli(
      // The in-place model (docs/design.md §3a); in the clean room the write stays in the copy.
      [
        "run",
        "--json",
        "--isolation",
        "in-place",
        "--check",
        "echo x > out.txt",
        "--",
        "node",
        agent,
      ],
      p.root,
    );
    expect(result.code).toBe(2);
    const json = JSON.parse(result.stdout);
    expect(json.binding).toEqual({
      bound: false,
      reason: "workspace_changed_during_check",
      changed_paths: ["out.txt"],
      unreadable: [],
      created: ["out.txt"],
      hint: 'the checks created out.txt: add "out.txt" to "outputs" in turngate.config.json, or to .gitignore',
    });
    expect(json.reports[0].status).toBe("passed");
    expect(json.reports[0].effect_digest).toBeUndefined();
    expect(json.outcome.reason).toBe("unverified_mutation");
  });

  test("--waive DIGEST:REASON ends a turn with a failing check as waived", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const digest = workspaceDigest("value.txt", "42\n");
    const result = await cli(
      [
        "run",
        "--json",
        "--check",
        "exit 1",
        "--waive",
        `${digest}:known flaky check`,
        "--",
        "node",
        agent,
      ],
      p.root,
    );
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.verdict).toBe("waived");
    const proof = readProofPayload(json.proof_path);
    expect(proof.waivers_used).toEqual([{ effect_digest: digest, reason: "known flaky check" }]);
  });

  test("without --check: the configured checks run, and configured ignores are not observed", async () => {
    const p = project({
      "value.txt": "41\n",
      "turngate.config.json": JSON.stringify({
        checks: [{ id: "cfg:test", command: "test -f value.txt", kind: "test" }],
        timeout_ms: 5000,
        ignores: ["build/"],
      }),
    });
    const agent = p.agent(
      "agent.js",
      `const fs = require("node:fs"); fs.mkdirSync("build"); fs.writeFileSync("build/out.js", "x"); fs.writeFileSync("value.txt", "42\\n");`,
    );
    const result = await cli(["run", "--json", "--", "node", agent], p.root);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.verdict).toBe("verified");
    expect(json.checks_source).toBe("config");
    expect(json.config_path).toBe(join(p.root, "turngate.config.json"));
    expect(json.changes.map((c: { path: string }) => c.path)).toEqual(["value.txt"]);
    expect(json.checks.map((c: { id: string }) => c.id)).toEqual(["cfg:test"]);
  });

  test("without --check or config: the required preset checks run (node: npm test)", async () => {
    const p = project(NODE_PROJECT);
    const agent = p.agent("agent.js", WRITE_42);
    const result = await cli(["run", "--json", "--", "node", agent], p.root);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.checks_source).toBe("presets");
    expect(json.checks.map((c: { id: string; command: string }) => [c.id, c.command])).toEqual([
      ["node:test", "npm test"],
    ]);
    expect(json.verdict).toBe("verified");
  });

  test("no checks anywhere: incomplete, and the text says how to add one", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const result = await cli(["run", "--", "node", agent], p.root);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(
      "checks: none configured (pass --check CMD, add checks to turngate.config.json, or use a project with a preset)\n",
    );
  });

  test("usage and input errors exit 1 with a message", async () => {
    const p = project({ "value.txt": "41\n" });
    const missing = await cli(["run"], p.root);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("error: missing required argument 'agent'");
    const badWaiver = await cli(["run", "--waive", "abc", "--", "true"], p.root);
    expect(badWaiver).toMatchObject({ code: 1 });
    expect(badWaiver.stderr).toContain(
      "--waive[0]: expected DIGEST:REASON with both parts non-blank",
    );
    const unknown = await cli(["frobnicate"], p.root);
    expect(unknown.code).toBe(1);
    const noAgent = await cli(["run", "--", "definitely-not-a-command-xyz"], p.root);
    expect(noAgent.code).toBe(1);
    expect(noAgent.stderr).toContain(
      "turngate: error: agent command could not start: definitely-not-a-command-xyz: definitely-not-a-command-xyz not found on PATH; check the command after -- [agent_spawn_failed]",
    );
    p.write("turngate.config.json", JSON.stringify({ checks: [{ command: "" }] }));
    const badConfig = await cli(["run", "--", "true"], p.root);
    expect(badConfig.code).toBe(1);
    expect(badConfig.stderr).toContain("at checks.0.command: must not be blank");
  });

  test("--help works for every command", async () => {
    const p = project({});
    for (const [args, usage] of [
      [["--help"], "Usage: turngate [options] [command]"],
      [["run", "--help"], "Usage: turngate run [options] <agent...>"],
      [["baseline", "--help"], "Usage: turngate baseline [options]"],
      [["verify", "--help"], "Usage: turngate verify [options]"],
      [["proof", "verify", "--help"], "Usage: turngate proof verify [options] <file>"],
      [["demo", "--help"], "Usage: turngate demo [options]"],
    ] as const) {
      const result = await cli([...args], p.root);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(usage);
    }
  });
});

describe("turngate run: findings of a first-time user", () => {
  test("the first run leaves .turngate/ with a .gitignore holding *, so git status stays clean", async () => {
    const p = project(NODE_PROJECT);
    const agent = p.agent("agent.js", WRITE_42);
    const result = await cli(["run", "--check", "npm test", "--", "node", agent], p.root);
    expect(result.code).toBe(0);
    expect(readFileSync(join(p.root, ".turngate/.gitignore"), "utf8")).toBe("*\n");
    const status = execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
      cwd: p.root,
      encoding: "utf8",
    });
    expect(status).toBe(" M value.txt\n");
  });

  test("a masked check says what masks its exit status and how to fix it", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const explanation =
      "exit status masked (`;` discards the exit status of `sleep 0.1`): join commands with && or use set -e";
    const text = await cli(["run", "--check", "sleep 0.1; true", "--", "node", agent], p.root);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(`\nneeds_review: check:1: ${explanation}\n`);
    p.write("value.txt", "41\n");
    const json = await cliFresh(
      ["run", "--json", "--check", "true | cat", "--check", "sleep 0.1; true", "--", "node", agent],
      p.root,
    );
    const checks = JSON.parse(json.stdout).checks;
    expect(
      checks.map((c: { status: string; residual_risk: string; hint: string }) => [
        c.status,
        c.residual_risk,
        c.hint,
      ]),
    ).toEqual([
      [
        "needs_review",
        "exit status masked",
        "exit status masked (a pipe keeps only the last command's exit status, not that of `true`): run set -o pipefail first (set -o pipefail && …)",
      ],
      ["needs_review", "exit status masked", explanation],
    ]);
  });

  test("--waive with a digest that is not 64 lowercase hex characters is a usage error", async () => {
    const p = project({ "value.txt": "41\n" });
    for (const digest of ["abc", "A".repeat(64), `${"a".repeat(64)} `]) {
      const result = await cli(["run", "--waive", `${digest}:flaky`, "--", "true"], p.root);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `turngate: error: invalid --waive value at --waive[0]: digest ${JSON.stringify(digest)} is not an effect digest (64 lowercase hex characters, as printed by turngate) [invalid_input]\n`,
      );
    }
    expect(existsSync(join(p.root, ".turngate"))).toBe(false);
  });

  test("an incomplete turn names the --waive digests that did not match its effect digest", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const digest = workspaceDigest("value.txt", "42\n");
    const stale = workspaceDigest("value.txt", "41\n");
    const other = "0".repeat(64);
    const args = ["--check", "exit 1", "--waive", `${stale}:old`, "--waive", `${other}:x`];
    const text = await cli(["run", ...args, "--", "node", agent], p.root);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(
      `\nwaivers not applied: ${stale}, ${other} do not match the effect digest ${digest}\n`,
    );
    p.write("value.txt", "41\n");
    const json = await cliFresh(
      ["run", "--json", ...args.slice(0, 4), "--", "node", agent],
      p.root,
    );
    expect(JSON.parse(json.stdout)).toMatchObject({
      verdict: "incomplete",
      effect_digest: digest,
      unmatched_waivers: [stale],
    });
    p.write("value.txt", "41\n");
    const matched = await cliFresh(
      ["run", "--json", "--check", "exit 1", "--waive", `${digest}:ok`, "--", "node", agent],
      p.root,
    );
    expect(JSON.parse(matched.stdout)).toMatchObject({ verdict: "waived", unmatched_waivers: [] });
  });
});

describe("turngate proof verify", () => {
  test("from another cwd, a proof under <root>/.turngate/proofs/ is checked against <root>", async () => {
    const p = project(NODE_PROJECT);
    const elsewhere = project({});
    const agent = p.agent("agent.js", WRITE_42);
    expect((await cli(["run", "--check", "npm test", "--", "node", agent], p.root)).code).toBe(0);
    const digest = workspaceDigest("value.txt", "42\n");
    const proof = join(p.root, ".turngate/proofs", `${digest}.json`);
    expect(await cli(["proof", "verify", proof], elsewhere.root)).toMatchObject({
      code: 0,
      stdout: `proof holds: effect digest ${digest}; 1 of 1 rows re-hashed from disk\nsignature: dsse, signed by key ${localKeyId()}\nevidence logs: 1 of 1 re-hashed\n`,
    });
    // --root wins over the proof's location.
    const forced = await cli(["proof", "verify", "--root", ".", proof], elsewhere.root);
    expect(forced.code).toBe(2);
    expect(forced.stdout).toBe(
      `proof does not hold against ${elsewhere.root}:\n  value.txt: recorded ${sha256("42\n")}, on disk deleted\n  source tree: the workspace's source tree ${EMPTY_TREE} is not the proof's final tree ${readProofPayload(proof).workspace?.final_tree}: it changed since, or this is another workspace\nsignature: dsse, signed by key ${localKeyId()}\nevidence logs: 1 of 1 re-hashed\nnote: workspace root: the proof was made in ${p.root}, it is checked in ${elsewhere.root}\nthe proof's one file does not exist under ${elsewhere.root}: if this is not the workspace the proof was written for, pass --root DIR\n`,
    );
    // A proof file elsewhere is checked against the cwd.
    mkdirSync(join(elsewhere.root, "copies"));
    const copy = join(elsewhere.root, "copies", "proof.json");
    renameSync(proof, copy);
    const json = await cli(["proof", "verify", "--json", copy], p.root);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, root: p.root });
  });
});

describe("turngate baseline and verify", () => {
  test("baseline stores the snapshot; verify gates the changes since; no baseline is an error", async () => {
    const p = project({ "value.txt": "41\n", "other.txt": "x\n" });
    const none = await cli(["verify"], p.root);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      "turngate: error: no baseline at .turngate/baseline.json: run `turngate baseline` when the turn starts [baseline_missing]\n",
    );
    const baseline = await cli(["baseline"], p.root);
    const storedBytes = readFileSync(join(p.root, ".turngate/baseline.json"));
    const id = createHash("sha256").update(storedBytes).digest("hex");
    expect(baseline).toMatchObject({
      code: 0,
      stdout: `baseline: 2 files recorded in .turngate/baseline.json\nbaseline id: ${id}\n`,
    });
    const stored = JSON.parse(storedBytes.toString("utf8"));
    expect(stored.schema).toBe("turngate.baseline.v1");
    expect(stored.snapshot.schema).toBe("turngate.workspace_snapshot.v1");

    p.write("value.txt", "42\n");
    const verify = await cli(["verify", "--json", "--check", "grep -q 42 value.txt"], p.root);
    expect(verify.code).toBe(0);
    const json = JSON.parse(verify.stdout);
    expect(json).toMatchObject({
      verdict: "verified",
      agent: null,
      effect_digest: workspaceDigest("value.txt", "42\n"),
    });
    const failing = await cli(["verify", "--check", "grep -q 43 value.txt"], p.root);
    expect(failing.code).toBe(2);
  });

  test("the baseline's entries are stored compact and content-addressed, covered by the baseline id: an altered entries file is refused with the fix; the turn chain's is not rewritten when unchanged", async () => {
    const p = project({ "value.txt": "41\n", "other.txt": "x\n" });
    expect((await cli(["baseline"], p.root)).code).toBe(0);
    const stored = JSON.parse(readFileSync(join(p.root, ".turngate/baseline.json"), "utf8"));
    expect(stored.snapshot.entries).toEqual([]);
    const ref = stored.snapshot.entries_file as {
      sha256: string;
      entries: number;
      outside: number;
    };
    expect(ref).toMatchObject({ entries: 2 });
    const file = join(snapshotStoreDir(join(p.root, ".turngate"), "baseline"), `${ref.sha256}.bin`);
    const bytes = readFileSync(file);
    expect(createHash("sha256").update(bytes).digest("hex")).toBe(ref.sha256);
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("TGSE");
    // The agent rewrites the recorded digest of value.txt to its broken bytes' digest.
    p.write("value.txt", "broken\n");
    const forged = Buffer.from(bytes);
    const at = forged.indexOf(Buffer.from("value.txt"));
    expect(at).toBeGreaterThan(0);
    writeFileSync(file, forged.fill(7, 16 + 62 + 10 + 3, 16 + 62 + 10 + 35));
    const refused = await cli(["verify", "--check", "true"], p.root);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `does not hash to the digest its record names: it was altered or replaced; take a new baseline (turngate baseline)`,
    );
    // run: a second turn that changes nothing leaves the chain's entries file as it was.
    const chain = snapshotStoreDir(join(p.root, ".turngate"), "chain");
    p.write("value.txt", "41\n");
    expect((await cliFresh(["run", "--check", "true", "--", "true"], p.root)).code).toBe(0);
    const entriesFiles = () => readdirSync(chain).filter((name) => name.endsWith(".bin"));
    const [first] = entriesFiles();
    const before = statSync(join(chain, first as string));
    expect((await cli(["run", "--check", "true", "--", "true"], p.root)).code).toBe(0);
    expect(entriesFiles()).toEqual([first]);
    expect(statSync(join(chain, first as string)).ino).toBe(before.ino);
  });
});
