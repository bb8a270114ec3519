/**
 * Gate-integrity findings of a QA pass, each replayed on a real temporary git repository
 * through the CLI (in-process `main`, real agent and check processes) with exact verdicts
 * and texts: baseline/verify trust (baseline id, configuration captured in the baseline,
 * --state-dir), blank check commands, text-output injection, and small usage errors.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { effectDigest } from "@turngate/core";
import { snapshotStoreDir } from "@turngate/node";
import { afterEach, describe, expect, test } from "vitest";
import { cli, cliFresh, gitProject, localKeyId, UNSANDBOXED_LINE } from "./helpers.js";

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const workspaceDigest = (path: string, content: string) =>
  effectDigest([{ tool: "workspace", path, content_digest: sha256(content) }]);

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
function tempFolder(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const baselineIdOf = (stdout: string) => /^baseline id: ([0-9a-f]{64})$/m.exec(stdout)?.[1] ?? "";

const UNAUTHENTICATED = (id: string) =>
  `turngate: warning: the baseline .turngate/baseline.json is not authenticated: anything that could write it since \`turngate baseline\` decides what this turn is compared against; pass --baseline-id with the id \`turngate baseline\` printed (id of this file: ${id}), or keep it outside the workspace with --state-dir\n`;

describe("baseline and verify: trust", () => {
  test("a baseline re-taken after the agent's change is refused by --baseline-id (exit 1); without it verify warns", async () => {
    const p = project({ "a.txt": "good\n" });
    const first = await cli(["baseline"], p.root);
    const id = baselineIdOf(first.stdout);
    expect(id).toBe(sha256(readFileSync(join(p.root, ".turngate/baseline.json"))));
    // The agent breaks a.txt and re-takes the baseline, so the change looks like none.
    p.write("a.txt", "broken\n");
    const forged = baselineIdOf((await cli(["baseline"], p.root)).stdout);
    expect(forged).not.toBe(id);

    const refused = await cli(
      ["verify", "--baseline-id", id, "--check", "grep -qx good a.txt"],
      p.root,
    );
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: expect.stringMatching(
        new RegExp(
          `^turngate: error: the baseline --baseline-id names \\(${id}, taken at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\) is no longer stored: a newer baseline replaced it at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(\`turngate baseline\` ran again, by the host or by the agent; the baseline at \\.turngate/baseline\\.json now has id ${forged}\\); this turn cannot be judged against the old one: run \`turngate baseline\` when a turn starts and pass the id it prints to this turn's verify \\[baseline_mismatch\\]\n$`,
        ),
      ),
    });

    const unauthenticated = await cli(["verify", "--check", "grep -qx good a.txt"], p.root);
    expect(unauthenticated.code).toBe(0);
    expect(unauthenticated.stdout).toBe(
      `changed: nothing\nnarrative: the turn changed no files; nothing to verify\n${UNSANDBOXED_LINE}\n`,
    );
    expect(unauthenticated.stderr).toBe(UNAUTHENTICATED(forged));
  });

  test("a baseline edited in place after the agent's change is refused by --baseline-id (exit 1), naming both ids", async () => {
    const p = project({ "a.txt": "good\n" });
    const id = baselineIdOf((await cli(["baseline"], p.root)).stdout);
    const file = join(p.root, ".turngate/baseline.json");
    // The agent breaks a.txt and rewrites the stored digest of a.txt to the broken bytes',
    // so the baseline says a.txt was always broken: no history entry, no re-take.
    // The digests are in the baseline's entries file, which baseline.json names by its
    // SHA-256: the agent writes a forged entries file and points baseline.json at it.
    p.write("a.txt", "broken\n");
    const stored = readFileSync(file, "utf8");
    const ref = JSON.parse(stored).snapshot.entries_file.sha256 as string;
    const store = snapshotStoreDir(join(p.root, ".turngate"), "baseline");
    const entries = readFileSync(join(store, `${ref}.bin`));
    const good = Buffer.from(sha256("good\n"), "hex");
    expect(entries.indexOf(good)).toBeGreaterThan(0);
    const forged = Buffer.from(entries);
    Buffer.from(sha256("broken\n"), "hex").copy(forged, entries.indexOf(good));
    writeFileSync(join(store, `${sha256(forged)}.bin`), forged);
    writeFileSync(file, stored.replaceAll(ref, sha256(forged)));
    const edited = sha256(readFileSync(file));

    // Without --baseline-id the edit hides the change (the warning names the edited file's id).
    const unauthenticated = await cli(["verify", "--check", "grep -qx good a.txt"], p.root);
    expect(unauthenticated.stdout).toBe(
      `changed: nothing\nnarrative: the turn changed no files; nothing to verify\n${UNSANDBOXED_LINE}\n`,
    );
    expect(unauthenticated.stderr).toBe(UNAUTHENTICATED(edited));

    const refused = await cli(
      ["verify", "--baseline-id", id, "--check", "grep -qx good a.txt"],
      p.root,
    );
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: `turngate: error: the baseline at .turngate/baseline.json is not the one --baseline-id names: its id is ${edited}, --baseline-id is ${id}; it was changed or replaced after \`turngate baseline\` [baseline_mismatch]\n`,
    });
  });

  test("with the right --baseline-id there is no warning and the change is judged", async () => {
    const p = project({ "a.txt": "good\n" });
    const id = baselineIdOf((await cli(["baseline"], p.root)).stdout);
    p.write("a.txt", "broken\n");
    const verify = await cli(
      ["verify", "--json", "--baseline-id", id, "--check", "grep -qx good a.txt"],
      p.root,
    );
    expect(verify.code).toBe(2);
    expect(verify.stderr).toMatch(
      /^turngate: check check:1 started: grep -qx good a\.txt\nturngate: check check:1 failed in \d+\.\ds: exit code 1, expected 0 \(assertion\)\n$/,
    );
    expect(JSON.parse(verify.stdout)).toMatchObject({
      verdict: "incomplete",
      effect_digest: workspaceDigest("a.txt", "broken\n"),
    });
  });

  test("verify uses the checks captured in the baseline; a config changed to checks [true] is reported and ignored", async () => {
    const p = project({
      "a.txt": "good\n",
      "turngate.config.json": JSON.stringify({ checks: ["grep -qx good a.txt"] }),
    });
    const id = baselineIdOf((await cli(["baseline"], p.root)).stdout);
    p.write("a.txt", "broken\n");
    p.write("turngate.config.json", JSON.stringify({ checks: ["true"] }));
    const verify = await cli(["verify", "--json", "--baseline-id", id], p.root);
    expect(verify.code).toBe(2);
    const json = JSON.parse(verify.stdout);
    expect(json.verdict).toBe("incomplete");
    expect(json.checks_source).toBe("config");
    expect(
      json.checks.map((c: { command: string; status: string }) => [c.command, c.status]),
    ).toEqual([["grep -qx good a.txt", "failed"]]);
    expect(verify.stderr.split("\n")[0]).toBe(
      `turngate: warning: the configuration ${join(p.root, "turngate.config.json")} differs from the one captured by \`turngate baseline\` (checks); verify uses the captured configuration`,
    );
  });

  test('a config changed to ignores ["*"] (or timeouts) after the baseline does not hide the change', async () => {
    const p = project({
      "a.txt": "good\n",
      "turngate.config.json": JSON.stringify({ checks: ["grep -qx good a.txt"] }),
    });
    const id = baselineIdOf((await cli(["baseline"], p.root)).stdout);
    p.write("a.txt", "broken\n");
    p.write(
      "turngate.config.json",
      JSON.stringify({ checks: ["grep -qx good a.txt"], ignores: ["*"], timeout_ms: 1000 }),
    );
    const verify = await cli(["verify", "--json", "--baseline-id", id], p.root);
    expect(verify.code).toBe(2);
    const json = JSON.parse(verify.stdout);
    expect(json.changes).toEqual([
      { path: "a.txt", change: "modified", content_digest: sha256("broken\n"), scope: "source" },
      {
        path: "turngate.config.json",
        change: "modified",
        content_digest: sha256(
          JSON.stringify({ checks: ["grep -qx good a.txt"], ignores: ["*"], timeout_ms: 1000 }),
        ),
        scope: "source",
      },
    ]);
    expect(verify.stderr.split("\n")[0]).toBe(
      `turngate: warning: the configuration ${join(p.root, "turngate.config.json")} differs from the one captured by \`turngate baseline\` (checks, timeout_ms, ignores); verify uses the captured configuration`,
    );
  });

  test("--state-dir keeps the baseline, logs and proofs outside the workspace", async () => {
    const p = project({ "a.txt": "old\n" });
    const state = tempFolder("turngate-state-");
    const baseline = await cli(["baseline", "--state-dir", state, "--json"], p.root);
    expect(baseline.code).toBe(0);
    const out = JSON.parse(baseline.stdout);
    expect(out).toEqual({
      schema: "turngate.baseline_result.v1",
      baseline_id: sha256(readFileSync(join(state, "baseline.json"))),
      path: join(state, "baseline.json"),
      root: p.root,
      files: 1,
      config_path: null,
      taken_at: out.taken_at,
      replaced: null,
      chain: null,
    });
    expect(out.taken_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    p.write("a.txt", "new\n");
    const verify = await cli(
      [
        "verify",
        "--state-dir",
        state,
        "--baseline-id",
        out.baseline_id,
        "--check",
        "grep -qx new a.txt",
      ],
      p.root,
    );
    const digest = workspaceDigest("a.txt", "new\n");
    expect(verify).toEqual({
      code: 0,
      stdout: `changed: 1 path\n  modified a.txt\naffected: 1 target: file:a.txt (unmapped)\nchecks: 1 passed\nverified: effect digest ${digest}\nproof: ${join(state, "proofs", `${digest}.json`)}\n${UNSANDBOXED_LINE}\n`,
      stderr: verify.stderr,
    });
    expect(readdirSync(join(state, "logs"))).toHaveLength(1);
    expect(existsSync(join(p.root, ".turngate"))).toBe(false);

    const inside = await cli(["baseline", "--state-dir", "state"], p.root);
    expect(inside).toEqual({
      code: 1,
      stdout: "",
      stderr: `turngate: error: invalid --state-dir value at --state-dir: ${join(p.root, "state")} is inside the workspace root ${p.root}: choose a folder outside it (the agent must not be able to write it, and the observer would record turngate's files as changes) [invalid_input]\n`,
    });
  });

  test("run --state-dir writes the proof and logs there", async () => {
    const p = project({ "a.txt": "old\n" });
    const state = tempFolder("turngate-state-");
    const agent = p.agent("agent.js", `require("node:fs").writeFileSync("a.txt", "new\\n");`);
    const run = await cli(
      ["run", "--state-dir", state, "--check", "grep -qx new a.txt", "--", "node", agent],
      p.root,
    );
    const digest = workspaceDigest("a.txt", "new\n");
    expect(run.code).toBe(0);
    expect(
      run.stdout.endsWith(
        `proof: ${join(state, "proofs", `${digest}.json`)}\n${UNSANDBOXED_LINE}\n`,
      ),
    ).toBe(true);
    expect(existsSync(join(state, "proofs", `${digest}.json`))).toBe(true);
    expect(existsSync(join(p.root, ".turngate"))).toBe(false);
  });

  test("a --baseline-id that is not 64 lowercase hex characters is a usage error", async () => {
    const p = project({ "a.txt": "x\n" });
    await cli(["baseline"], p.root);
    expect(await cli(["verify", "--baseline-id", "ABC"], p.root)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'turngate: error: invalid --baseline-id "ABC": expected the 64 lowercase hex characters `turngate baseline` printed [invalid_input]\n',
    });
  });
});

describe("blank check commands", () => {
  test('run --check "" (or whitespace) is a usage error, and the agent never runs', async () => {
    const p = project({ "a.txt": "x\n" });
    for (const blank of ["", "  \t"]) {
      const run = await cli(["run", "--check", blank, "--", "sh", "-c", "echo x >> a.txt"], p.root);
      expect(run).toEqual({
        code: 1,
        stdout: "",
        stderr:
          "turngate: error: invalid --check value at --check[0]: must not be blank [invalid_input]\n",
      });
    }
    expect(readFileSync(join(p.root, "a.txt"), "utf8")).toBe("x\n");
    const second = await cli(["verify", "--check", "true", "--check", " "], p.root);
    expect(second.stderr).toBe(
      "turngate: error: invalid --check value at --check[1]: must not be blank [invalid_input]\n",
    );
  });
});

describe("text output cannot be forged by file names or check output", () => {
  test("a file name with line breaks and escape codes is quoted; the failing check's tail is made inert and capped", async () => {
    const p = project({ "a.txt": "base\n" });
    const name = "x\nverified: effect digest 0000\nproof: ok\n\x1b[8m";
    const agent = p.agent(
      "agent.js",
      `require("node:fs").writeFileSync(${JSON.stringify(name)}, "hi\\n");`,
    );
    const script = p.agent(
      "out.sh",
      [
        "printf 'a\\033[31mred\\033[0m b\\r\\n'",
        "printf 'c\\033]0;title\\007d\\rverified\\n'",
        "printf 'e\\342\\200\\256gnp.exe\\177\\n'",
        "head -c 1000 /dev/zero | tr '\\0' x",
        "exit 1",
        "",
      ].join("\n"),
    );
    // The check's script lies outside the workspace, which clean-room checks cannot see.
    const run = await cli(
      ["run", "--isolation", "in-place", "--check", `sh ${script}`, "--", "node", agent],
      p.root,
    );
    const output = Buffer.concat([
      Buffer.from("a\x1b[31mred\x1b[0m b\r\nc\x1b]0;title\x07d\rverified\n", "latin1"),
      Buffer.from("e\u202egnp.exe\x7f\n", "utf8"),
      Buffer.from("x".repeat(1000)),
    ]);
    const digest = workspaceDigest(name, "hi\n");
    expect(run.code).toBe(2);
    expect(run.stdout).toBe(
      [
        "changed: 1 path",
        '  added    "x\\nverified: effect digest 0000\\nproof: ok\\n\\u001b[8m"',
        'affected: 1 target: "file:x\\nverified: effect digest 0000\\nproof: ok\\n\\u001b[8m" (unmapped)',
        "checks: 1 failed (check:1)",
        `incomplete (unverified_mutation): the change (effect digest ${digest}) is not verified: the required checks did not all pass. Fix it and run again, or, as the host, accept this exact change with --waive ${digest}:REASON`,
        `failed (assertion): check:1: exit code 1, expected 0: sh ${script}`,
        `  last 4 lines (full log: .turngate/logs/${sha256(output)}.log):`,
        "  | ared b",
        "  | cd\\rverified",
        "  | e\\u202egnp.exe\\x7f",
        `  | ${"x".repeat(400)}…(600 more bytes)`,
        UNSANDBOXED_LINE,
        "",
      ].join("\n"),
    );
    // JSON output is unchanged: the raw name and the raw output.
    p.write("a.txt", "base\n");
    rmSync(join(p.root, name));
    const json = await cliFresh(
      ["run", "--json", "--check", `sh ${script}`, "--", "node", agent],
      p.root,
    );
    const parsed = JSON.parse(json.stdout);
    expect(parsed.changes).toEqual([
      { path: name, change: "added", content_digest: sha256("hi\n"), scope: "source" },
    ]);
  });
});

describe("small usage errors", () => {
  test('run -- "" is a usage error naming the agent program', async () => {
    const p = project({ "a.txt": "x\n" });
    expect(await cli(["run", "--", ""], p.root)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "turngate: error: invalid agent command at agent[0]: the program to run must not be blank [invalid_input]\n",
    });
  });

  test("--root naming a file or a missing folder is a clear error", async () => {
    const p = project({ "a.txt": "x\n" });
    const file = join(p.root, "a.txt");
    const missing = join(p.root, "missing");
    for (const args of [
      ["run", "--root", file, "--", "true"],
      ["verify", "--root", file],
      ["baseline", "--root", file],
    ]) {
      expect(await cli(args, p.root)).toEqual({
        code: 1,
        stdout: "",
        stderr: `turngate: error: invalid --root value at --root: ${file} is not a directory [invalid_input]\n`,
      });
    }
    expect((await cli(["baseline", "--root", missing], p.root)).stderr).toBe(
      `turngate: error: invalid --root value at --root: ${missing} does not exist [invalid_input]\n`,
    );
  });

  test("a signed proof copied into another repository with the same rows does not hold there: the root is named and the source tree differs", async () => {
    const a = project({ "a.txt": "old\n" });
    const agent = a.agent("agent.js", `require("node:fs").writeFileSync("a.txt", "new\\n");`);
    expect(
      (await cli(["run", "--check", "grep -qx new a.txt", "--", "node", agent], a.root)).code,
    ).toBe(0);
    const digest = workspaceDigest("a.txt", "new\n");
    // another repository: the proof's row holds (a.txt = "new\n"), but it also has b.js
    const b = project({ "a.txt": "new\n", "b.js": "module.exports = 1;\n" });
    mkdirSync(join(b.root, ".turngate/proofs"), { recursive: true });
    writeFileSync(
      join(b.root, ".turngate/proofs", `${digest}.json`),
      readFileSync(join(a.root, ".turngate/proofs", `${digest}.json`)),
    );
    const blob = (text: string) =>
      execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: b.root, input: text })
        .toString()
        .trim();
    const mktree = (entries: string) =>
      execFileSync("git", ["mktree"], { cwd: b.root, input: entries }).toString().trim();
    const finalTree = mktree(`100644 blob ${blob("new\n")}\ta.txt\n`);
    // the tree of b's files now, written by git itself with a throwaway index
    const indexDir = mkdtempSync(join(tmpdir(), "turngate-idx-"));
    const index = join(indexDir, "index");
    const env = { ...process.env, GIT_INDEX_FILE: index };
    execFileSync("git", ["add", "-A"], { cwd: b.root, env });
    const nowTree = execFileSync("git", ["write-tree"], { cwd: b.root, env }).toString().trim();
    rmSync(indexDir, { recursive: true, force: true });
    expect(nowTree).not.toBe(finalTree);
    const proof = await cli(["proof", "verify", `.turngate/proofs/${digest}.json`], b.root);
    expect(proof.code).toBe(2);
    expect(proof.stdout).toBe(
      `proof does not hold against ${b.root}:\n  source tree: the workspace's source tree ${nowTree} is not the proof's final tree ${finalTree}: it changed since, or this is another workspace\nsignature: dsse, signed by key ${localKeyId()}\nevidence logs: 1 of 1 re-hashed\nnote: workspace root: the proof was made in ${a.root}, it is checked in ${b.root}\n`,
    );
  });

  test("proof verify after a recorded file became a directory: does not hold (exit 2), naming the path", async () => {
    const p = project({ "a.txt": "old\n" });
    const agent = p.agent("agent.js", `require("node:fs").writeFileSync("a.txt", "new\\n");`);
    const run = await cli(["run", "--check", "grep -qx new a.txt", "--", "node", agent], p.root);
    expect(run.code).toBe(0);
    const digest = workspaceDigest("a.txt", "new\n");
    rmSync(join(p.root, "a.txt"));
    mkdirSync(join(p.root, "a.txt"));
    writeFileSync(join(p.root, "a.txt", "inner"), "x");
    const proof = await cli(["proof", "verify", `.turngate/proofs/${digest}.json`], p.root);
    // the trees, with git itself: the proof's final tree (a.txt = "new\n") and the tree now
    const blob = (text: string) =>
      execFileSync("git", ["hash-object", "-w", "--stdin"], { cwd: p.root, input: text })
        .toString()
        .trim();
    const mktree = (entries: string) =>
      execFileSync("git", ["mktree"], { cwd: p.root, input: entries }).toString().trim();
    const finalTree = mktree(`100644 blob ${blob("new\n")}\ta.txt\n`);
    const nowTree = mktree(`040000 tree ${mktree(`100644 blob ${blob("x")}\tinner\n`)}\ta.txt\n`);
    expect(proof).toEqual({
      code: 2,
      stdout: `proof does not hold against ${p.root}:\n  a.txt: recorded ${sha256("new\n")}, on disk a directory\n  source tree: the workspace's source tree ${nowTree} is not the proof's final tree ${finalTree}: it changed since, or this is another workspace\nsignature: dsse, signed by key ${localKeyId()}\nevidence logs: 1 of 1 re-hashed\n`,
      stderr: "",
    });
    const json = JSON.parse(
      (await cli(["proof", "verify", "--json", `.turngate/proofs/${digest}.json`], p.root)).stdout,
    );
    expect(json.rows).toEqual([
      {
        tool: "workspace",
        path: "a.txt",
        recorded: sha256("new\n"),
        found: "directory",
        status: "mismatch",
      },
    ]);
  });
});
