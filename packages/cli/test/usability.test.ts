/**
 * Issue #12: what a new user tripped over on a fresh clone and on five real projects. Each
 * test runs the CLI on a real temporary git repository with real processes.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { cli, cliFresh, cliWithAgent, gitProject, UNSANDBOXED_LINE } from "./helpers.js";

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");
const workspaceDigest = (path: string, content: string) =>
  sha256(`workspace|${path}|${sha256(content)}`);
const WRITE_42 = `require("node:fs").writeFileSync("value.txt", "42\\n"); console.log("agent: wrote value.txt");`;
const ISO_TIME = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z";

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
const config = (value: unknown) => JSON.stringify(value);

describe("CLI usability: timeouts and checks in the configuration", () => {
  test("item 1: the top-level timeout_ms applies to --check and to preset checks, under run and verify", async () => {
    const p = project({
      "value.txt": "41\n",
      "package.json": JSON.stringify({ name: "p", private: true, scripts: { test: "sleep 5" } }),
      "turngate.config.json": config({ timeout_ms: 1000 }),
    });
    const agent = p.agent("agent.js", WRITE_42);
    const flagged = await cli(["run", "--json", "--check", "sleep 5", "--", "node", agent], p.root);
    expect(flagged.code).toBe(2);
    const flaggedCheck = JSON.parse(flagged.stdout).checks[0];
    expect([flaggedCheck.timeout_ms, flaggedCheck.timed_out, flaggedCheck.failure_class]).toEqual([
      1000,
      true,
      "timeout",
    ]);
    expect(flaggedCheck.duration_ms).toBeLessThan(4000);

    p.write("value.txt", "41\n");
    const preset = await cliFresh(["run", "--json", "--", "node", agent], p.root);
    const presetJson = JSON.parse(preset.stdout);
    expect(presetJson.checks_source).toBe("presets");
    expect(
      presetJson.checks.map((c: Record<string, unknown>) => [
        c.command,
        c.timeout_ms,
        c.failure_class,
      ]),
    ).toEqual([["npm test", 1000, "timeout"]]);

    // A default above 120,000 ms is honoured too (the issue's `sleep 130` timed out at 120,000).
    p.write("turngate.config.json", config({ timeout_ms: 300000 }));
    p.write("value.txt", "41\n");
    const long = await cliFresh(["run", "--json", "--check", "true", "--", "node", agent], p.root);
    expect(JSON.parse(long.stdout).checks[0].timeout_ms).toBe(300000);

    // verify uses the timeout captured with the baseline.
    p.write("turngate.config.json", config({ timeout_ms: 1000 }));
    p.write("value.txt", "41\n");
    expect((await cli(["baseline"], p.root)).code).toBe(0);
    p.write("value.txt", "42\n");
    const verify = await cli(["verify", "--json", "--check", "sleep 5"], p.root);
    expect(JSON.parse(verify.stdout).checks[0]).toMatchObject({
      timeout_ms: 1000,
      failure_class: "timeout",
    });
  });

  test('item 3: "checks": [] is a configuration error that says what to do', async () => {
    const p = project({ "value.txt": "41\n", "turngate.config.json": config({ checks: [] }) });
    const path = join(p.root, "turngate.config.json");
    const message = `invalid ${path} at checks: must list at least one check: an empty list would leave the turn with nothing to verify; remove "checks" to use the preset checks of the project, or list the commands to run`;
    const run = await cli(["run", "--", "node", p.agent("a.js", WRITE_42)], p.root);
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr: `turngate: error: ${message} [invalid_input]\n`,
    });
    expect(readFileSync(join(p.root, "value.txt"), "utf8")).toBe("41\n");
    const json = await cli(["baseline", "--json"], p.root);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      schema: "turngate.error.v1",
      error: { code: "invalid_input", message, path: "checks" },
    });
  });

  test("item 4: a timeout_ms below 1,000 is refused with the minimum in the message", async () => {
    const p = project({ "turngate.config.json": config({ timeout_ms: 10 }) });
    const path = join(p.root, "turngate.config.json");
    expect((await cli(["run", "--", "true"], p.root)).stderr).toBe(
      `turngate: error: invalid ${path} at timeout_ms: must be at least 1000 ms, the smallest timeout turngate honours (got 10) [invalid_input]\n`,
    );
    p.write("turngate.config.json", config({ checks: [{ command: "true", timeout_ms: 999 }] }));
    expect((await cli(["baseline"], p.root)).stderr).toBe(
      `turngate: error: invalid ${path} at checks.0.timeout_ms: must be at least 1000 ms, the smallest timeout turngate honours (got 999) [invalid_input]\n`,
    );
    p.write("turngate.config.json", config({ timeout_ms: 1000 }));
    expect((await cli(["baseline"], p.root)).code).toBe(0);
  });
});

describe("CLI usability: the Python preset on real projects", () => {
  test("item 2: setup.py + setup.cfg [tool:pytest] + a root test_*.py (six's layout) runs pytest with python3 and verifies", async () => {
    const p = project({
      ".gitignore": "__pycache__/\n.pytest_cache/\n",
      "setup.py": "from setuptools import setup\nsetup(name='six', py_modules=['six'])\n",
      "setup.cfg": "[metadata]\nname = six\n\n[tool:pytest]\nminversion = 2.2.0\n",
      "six.py": "def add(a, b):\n    return a - b\n",
      "test_six.py": "import six\n\ndef test_add():\n    assert six.add(2, 3) == 5\n",
    });
    const agent = p.agent(
      "fix.js",
      `require("node:fs").writeFileSync("six.py", "def add(a, b):\\n    return a + b\\n");`,
    );
    const run = await cli(["run", "--json", "--", "node", agent], p.root);
    const json = JSON.parse(run.stdout);
    expect(json.checks_source).toBe("presets");
    expect(json.checks.map((c: Record<string, unknown>) => [c.id, c.command, c.status])).toEqual([
      ["python:test", "python3 -m pytest --junitxml={results}", "passed"],
    ]);
    expect(json.verdict).toBe("verified");
    expect(run.code).toBe(0);
  });

  test("item 2: pyproject.toml without pytest settings and a root test_*.py (more-itertools' layout): the failing test is found", async () => {
    const p = project({
      ".gitignore": "__pycache__/\n.pytest_cache/\n",
      "pyproject.toml": '[project]\nname = "more"\nversion = "1"\n',
      "more.py": "def first(xs):\n    return xs[0]\n",
      "test_more.py": "import more\n\ndef test_first():\n    assert more.first([1, 2]) == 1\n",
    });
    const agent = p.agent(
      "break.js",
      `require("node:fs").writeFileSync("more.py", "def first(xs):\\n    return xs[-1]\\n");`,
    );
    const run = await cli(["run", "--json", "--", "node", agent], p.root);
    expect(run.code).toBe(2);
    const check = JSON.parse(run.stdout).checks[0];
    expect([check.command, check.status, check.exit_code, check.failure_class]).toEqual([
      "python3 -m pytest --junitxml={results}",
      "failed",
      1,
      "assertion",
    ]);
  });
});

describe("CLI usability: failure vocabulary in progress and text output", () => {
  test("item 5: a timed-out check says timed out after N ms, an unrunnable one infrastructure", async () => {
    const p = project({
      "value.txt": "41\n",
      "turngate.config.json": config({ timeout_ms: 1000 }),
    });
    const agent = p.agent("agent.js", WRITE_42);
    const run = await cli(["run", "--check", "sleep 5", "--", "node", agent], p.root);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("turngate: check check:1 timed out after 1000 ms (timeout)\n");
    expect(run.stdout).toContain("\nfailed (timeout): check:1: timed out after 1000 ms: sleep 5\n");
    expect(run.stdout).not.toContain("could not run");

    p.write("value.txt", "41\n");
    const missing = await cliFresh(
      ["run", "--json", "--check", "no-such-tool-turngate --version", "--", "node", agent],
      p.root,
    );
    expect(missing.stderr).toMatch(
      /turngate: check check:1 could not run after \d+\.\ds: command not found, exit 127 \(infrastructure\)\n/,
    );
    expect(JSON.parse(missing.stdout).checks[0]).toMatchObject({
      exit_code: 127,
      failure_class: "infrastructure",
    });
  });

  test("item 11: a failing check's tail keeps no stray B from ESC ( B (tput sgr0 on xterm)", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    // The bytes of `TERM=xterm tput sgr0` (033 ( B 033 [ m) around words, as rustfmt prints them.
    const check = "printf '\\033[31m-old\\n\\033(B\\033[m\\033[32m+new\\n\\033(B\\033[m' && exit 1";
    const run = await cli(["run", "--check", check, "--", "node", agent], p.root);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain("\n  | -old\n  | +new\n");
  });

  test("item 12: the text says the verdict in the user's terms; --json keeps the A3S gate message verbatim", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", WRITE_42);
    const digest = workspaceDigest("value.txt", "42\n");
    const text = await cli(
      ["run", "--check", "true", "--check", "exit 1", "--", "node", agent],
      p.root,
    );
    expect(text.stdout).toContain("\nchecks: 1 failed (check:2), 1 passed\n");
    expect(text.stdout).toContain(
      `\nincomplete (unverified_mutation): the change (effect digest ${digest}) is not verified: the required checks did not all pass. Fix it and run again, or, as the host, accept this exact change with --waive ${digest}:REASON\n`,
    );
    p.write("value.txt", "41\n");
    const none = await cliFresh(["run", "--", "node", agent], p.root);
    expect(none.stdout).toContain(
      `\nincomplete (unverified_mutation): the change (effect digest ${digest}) is not verified: no check ran on it. Add one (--check CMD, or "checks" in turngate.config.json) and run again, or, as the host, accept this exact change with --waive ${digest}:REASON\n`,
    );
    p.write("value.txt", "41\n");
    const unbound = await cliFresh(
      // Checks that write the workspace are the in-place model's (docs/design.md §3a).
      [
        "run",
        "--isolation",
        "in-place",
        "--check",
        "echo out > check-output.txt",
        "--",
        "node",
        agent,
      ],
      p.root,
    );
    expect(unbound.stdout).toContain(
      `\nincomplete (unverified_mutation): the change (effect digest ${digest}) is not verified: the checks changed the workspace while they ran, so their result does not hold for it. Make the checks leave the workspace as they found it (or add their outputs to "outputs" in turngate.config.json) and run again, or, as the host, accept this exact change with --waive ${digest}:REASON\n`,
    );
    expect(text.stdout).not.toContain("turngate:checks");
    expect(text.stdout).not.toContain("verification_report");
    p.write("value.txt", "41\n");
    const json = JSON.parse(
      (
        await cliFresh(
          ["run", "--json", "--check", "true", "--check", "exit 1", "--", "node", agent],
          p.root,
        )
      ).stdout,
    );
    expect(json.outcome.message).toBe(
      `completion gate: workspace mutation ${digest} has no bound Passed verification and no host waiver. Assistant text does not count. Bind a verification_report.effect_digest to this digest with required checks Passed, or obtain a host waiver for this digest.`,
    );
    const unreadable = await cli(
      ["run", "--json", "--check", "true", "--", "sh", "-c", "touch \"$(printf 'bad\\377')\""],
      p.root,
    );
    expect(JSON.parse(unreadable.stdout).outcome.message).toBe(
      "completion gate: workspace observation is incomplete, so this digest is not the effect. A final answer, a waiver, or a verification of a partial list does not close it.",
    );
    const unreadableText = await cli(["run", "--check", "true", "--", "true"], p.root);
    expect(unreadableText.stdout).toBe(
      `changed: 0 paths\n  unreadable bad\ufffd\nincomplete (observation_incomplete): turngate could not read every path of the workspace (listed as unreadable above), so it cannot tell what the turn changed: make them readable, rename names that are not UTF-8, or add them to ignores, and run again\n${UNSANDBOXED_LINE}\n`,
    );
    expect(json.summary_text).toBe(
      "Verification failed: 1 failed check across subjects: turngate:checks. 1 report, 2 required checks. Residual risks: 1.",
    );
  });
});

describe("CLI usability: one error format", () => {
  test("item 7: a missing --config file, a missing proof and commander's usage errors share turngate: error: … [code]", async () => {
    const p = project({ "value.txt": "41\n" });
    const missing = join(p.agents, "missing.json");
    expect(await cli(["run", "--config", missing, "--", "true"], p.root)).toEqual({
      code: 1,
      stdout: "",
      stderr: `turngate: error: cannot read the configuration file ${missing}: no such file; check the --config path, or drop --config to use <root>/turngate.config.json [config_unreadable]\n`,
    });
    const nope = join(p.agents, "nope.json");
    expect((await cli(["proof", "verify", nope], p.root)).stderr).toBe(
      `turngate: error: cannot read the proof ${nope}: no such file; turngate writes proofs to .turngate/proofs/<effect digest>.json (or <state-dir>/proofs/) [proof_unreadable]\n`,
    );
    expect(await cli(["run"], p.root)).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "turngate: error: missing required argument 'agent' (see turngate run --help) [usage]\n",
    });
    expect((await cli(["proof", "verify"], p.root)).stderr).toBe(
      "turngate: error: missing required argument 'file' (see turngate proof verify --help) [usage]\n",
    );
    expect((await cli(["nonsense"], p.root)).stderr).toBe(
      "turngate: error: unknown command 'nonsense' (see turngate --help) [usage]\n",
    );
    const json = await cli(["run", "--json", "--config", missing, "--", "true"], p.root);
    expect(JSON.parse(json.stdout)).toMatchObject({
      schema: "turngate.error.v1",
      error: { code: "config_unreadable", path: null },
    });
  });

  test("item 9: verify --json with no baseline prints a JSON error object on stdout", async () => {
    const p = project({ "value.txt": "41\n" });
    const verify = await cli(["verify", "--json"], p.root);
    const message =
      "no baseline at .turngate/baseline.json: run `turngate baseline` when the turn starts";
    expect(verify).toEqual({
      code: 1,
      stdout: `${JSON.stringify({ schema: "turngate.error.v1", error: { code: "baseline_missing", message, path: null } }, null, 2)}\n`,
      stderr: `turngate: error: ${message} [baseline_missing]\n`,
    });
    // A usage error under --json is a JSON error object too.
    const usage = await cli(["verify", "--json", "--bogus"], p.root);
    expect(usage.code).toBe(1);
    expect(JSON.parse(usage.stdout)).toEqual({
      schema: "turngate.error.v1",
      error: {
        code: "usage",
        message: "unknown option '--bogus' (see turngate verify --help)",
        path: null,
      },
    });
    // Words after -- belong to the agent: its --json does not turn on JSON errors.
    const agentJson = await cli(
      ["run", "--config", "/nonexistent-turngate.json", "--", "x", "--json"],
      p.root,
    );
    expect(agentJson.stdout).toBe("");
  });

  test("item 10: verify --help describes verify's own --json; proof --help has a description", async () => {
    const p = project({});
    const flat = (text: string) => text.replace(/\s+/g, " ");
    const verify = await cli(["verify", "--help"], p.root);
    expect(flat(verify.stdout)).toContain(
      "--json print only the outcome as JSON on stdout (turngate.turn_result.v1; an error, e.g. no baseline, as turngate.error.v1); progress goes to stderr",
    );
    expect(flat(verify.stdout)).not.toContain("agent's stdout");
    const run = await cli(["run", "--help"], p.root);
    expect(flat(run.stdout)).toContain("progress and the agent's stdout go to stderr");
    expect(flat(run.stdout)).toContain("--fail-on-agent-error");
    const proof = await cli(["proof", "--help"], p.root);
    expect(proof.code).toBe(0);
    expect(flat(proof.stdout)).toContain(
      "Work with turn proofs: the turn_proof.v1 files `turngate run` and `turngate verify` write",
    );
  });
});

describe("CLI usability: proofs and baselines", () => {
  test("item 8: proof verify against the wrong root names it and suggests --root; a bad proof file says what is wrong in words", async () => {
    const p = project({ "a.txt": "1\n", "b.txt": "1\n" });
    const other = project({});
    const agent = p.agent(
      "agent.js",
      `const fs = require("node:fs"); fs.writeFileSync("a.txt", "2\\n"); fs.writeFileSync("b.txt", "2\\n");`,
    );
    expect((await cli(["run", "--check", "true", "--", "node", agent], p.root)).code).toBe(0);
    const [name] = readdirSync(join(p.root, ".turngate/proofs"));
    const proof = join(p.root, ".turngate/proofs", name as string);
    const wrong = await cli(["proof", "verify", "--root", other.root, proof], p.root);
    expect(wrong.code).toBe(2);
    expect(
      wrong.stdout.endsWith(
        `\nnone of the proof's 2 files exist under ${other.root}: if this is not the workspace the proof was written for, pass --root DIR\n`,
      ),
    ).toBe(true);
    const json = JSON.parse(
      (await cli(["proof", "verify", "--json", "--root", other.root, proof], p.root)).stdout,
    );
    expect(json.hint).toBe(
      `none of the proof's 2 files exist under ${other.root}: if this is not the workspace the proof was written for, pass --root DIR`,
    );

    const bad = (name: string, text: string) => {
      const path = join(p.agents, name);
      writeFileSync(path, text);
      return path;
    };
    const cases: Array<[string, string, string]> = [
      [
        "schema.json",
        config({ schema: "turngate.baseline.v1" }),
        `its "schema" is "turngate.baseline.v1", not "turn_proof.v1"`,
      ],
      [
        "none.json",
        config({ effect_digest: "x" }),
        'it has no "schema" field (a turn proof has "schema": "turn_proof.v1")',
      ],
      ["array.json", "[]", 'it holds an array, not a JSON object with "schema": "turn_proof.v1"'],
      ["text.json", "proof", "it is not JSON (Unexpected token 'p', \"proof\" is not valid JSON)"],
    ];
    for (const [file, text, why] of cases) {
      const path = bad(file, text);
      expect((await cli(["proof", "verify", path], p.root)).stderr).toBe(
        `turngate: error: ${path} is not a turn proof: ${why} [invalid_proof]\n`,
      );
    }
    const fields = bad("fields.json", config({ schema: "turn_proof.v1", effect_digest: 7 }));
    expect((await cli(["proof", "verify", fields], p.root)).stderr).toBe(
      `turngate: error: ${fields} is not a valid turn_proof.v1: missing records, reports, waivers_used, terminal, outcome, tool_versions, started_at, finished_at; wrong effect_digest (expected string, received number) [invalid_proof]\n`,
    );
  });

  test("item 13: a re-taken baseline says what it replaced; verify --baseline-id OLD says a newer baseline replaced it, and when", async () => {
    const p = project({ "a.txt": "1\n" });
    const first = JSON.parse((await cli(["baseline", "--json"], p.root)).stdout);
    expect(first.replaced).toBeNull();
    p.write("a.txt", "2\n");
    const second = await cli(["baseline"], p.root);
    const secondId = /^baseline id: ([0-9a-f]{64})$/m.exec(second.stdout)?.[1] as string;
    expect(second.stdout).toMatch(
      new RegExp(
        `\\nreplaced: the previous baseline ${first.baseline_id} \\(taken at ${first.taken_at.replace(/\./g, "\\.")}\\); \`turngate verify --baseline-id\` refuses its id from now on\\n$`,
      ),
    );
    const history = JSON.parse(
      readFileSync(join(p.root, ".turngate/baseline-history.json"), "utf8"),
    );
    expect(history.map((e: { id: string }) => e.id)).toEqual([first.baseline_id, secondId]);
    const verify = await cli(
      ["verify", "--baseline-id", first.baseline_id, "--check", "true"],
      p.root,
    );
    expect(verify.code).toBe(1);
    expect(verify.stderr).toMatch(
      new RegExp(
        `^turngate: error: the baseline --baseline-id names \\(${first.baseline_id}, taken at ${ISO_TIME}\\) is no longer stored: a newer baseline replaced it at ${ISO_TIME} \\(`,
      ),
    );
    expect(verify.stderr).toContain(`now has id ${secondId}`);
    // A baseline edited in place (no newer `turngate baseline`) keeps the plain refusal.
    p.write(
      ".turngate/baseline.json",
      readFileSync(join(p.root, ".turngate/baseline.json"), "utf8").replace("\n", "\n "),
    );
    const edited = await cli(["verify", "--baseline-id", secondId], p.root);
    expect(edited.stderr).toContain("is not the one --baseline-id names");
    expect(edited.stderr).toContain("it was changed or replaced after `turngate baseline`");
  });

  test("item 13 (attacker): a forged baseline history changes no verdict: a replaced baseline is still refused", async () => {
    const p = project({ "a.txt": "good\n" });
    const host = JSON.parse((await cli(["baseline", "--json"], p.root)).stdout);
    // The agent breaks a.txt, re-takes the baseline and rewrites the history so the
    // replaced id looks like the current one.
    p.write("a.txt", "broken\n");
    const forged = JSON.parse((await cli(["baseline", "--json"], p.root)).stdout);
    p.write(
      ".turngate/baseline-history.json",
      JSON.stringify([
        { id: forged.baseline_id, taken_at: "2020-01-01T00:00:00.000Z" },
        { id: host.baseline_id, taken_at: "2020-01-01T00:00:01.000Z" },
      ]),
    );
    const verify = await cli(
      ["verify", "--json", "--baseline-id", host.baseline_id, "--check", "grep -qx good a.txt"],
      p.root,
    );
    expect(verify.code).toBe(1);
    expect(JSON.parse(verify.stdout).error.code).toBe("baseline_mismatch");
    expect(verify.stderr).toContain(
      `is not the one --baseline-id names: its id is ${forged.baseline_id}, --baseline-id is ${host.baseline_id}`,
    );
    expect(existsSync(join(p.root, ".turngate/proofs"))).toBe(false);
  });
});

describe("CLI usability: the agent's exit code", () => {
  test("item 14: a crashed agent that changed nothing stays narrative (exit 0) and says so; --fail-on-agent-error exits 1", async () => {
    const p = project({ "value.txt": "41\n" });
    const crash = p.agent("crash.js", `console.error("agent: boom"); process.exit(3);`);
    const plain = await cliWithAgent(
      ["run", "--isolation", "in-place", "--", "node", crash],
      p.root,
    );
    expect(plain).toEqual({
      code: 0,
      stdout: `changed: nothing\nnarrative: the turn changed no files; nothing to verify\nagent: exited with code 3; the verdict does not depend on it (pass --fail-on-agent-error to exit 1 when the agent fails)\n${UNSANDBOXED_LINE}\n`,
      stderr: "turngate: agent exited with code 3\n",
      agent: "agent: boom\n",
    });
    const strict = await cli(["run", "--fail-on-agent-error", "--", "node", crash], p.root);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toBe(
      `changed: nothing\nnarrative: the turn changed no files; nothing to verify\nagent: exited with code 3; --fail-on-agent-error makes this run exit 1 (the verdict above is unchanged)\n${UNSANDBOXED_LINE}\n`,
    );
    const json = JSON.parse(
      (await cli(["run", "--json", "--fail-on-agent-error", "--", "node", crash], p.root)).stdout,
    );
    expect(json).toMatchObject({
      verdict: "narrative",
      exit_code: 1,
      agent_failed: true,
      fail_on_agent_error: true,
    });
    // An agent that succeeds is not affected by the flag.
    const ok = await cli(["run", "--fail-on-agent-error", "--", "true"], p.root);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toBe(
      `changed: nothing\nnarrative: the turn changed no files; nothing to verify\n${UNSANDBOXED_LINE}\n`,
    );
  });

  test("item 15: an in-process run collects the agent's output instead of printing it into the test log", async () => {
    const p = project({ "value.txt": "41\n" });
    const agent = p.agent("agent.js", `${WRITE_42} console.error("agent: on stderr");`);
    const run = await cliWithAgent(["run", "--check", "true", "--", "node", agent], p.root);
    expect(run.code).toBe(0);
    expect(run.agent).toBe("agent: wrote value.txt\nagent: on stderr\n");
    expect(run.stdout).not.toContain("agent: wrote");
    expect(run.stderr).not.toContain("agent: ");
  });
});

describe("CLI usability: turngate gc", () => {
  test("stale clean rooms: gc names those of workspaces that are gone and what removes them; gc --rooms removes them, never a living workspace's room", async () => {
    const p = project({ "a.txt": "0\n" });
    const base = mkdtempSync(join(tmpdir(), "turngate-gc-rooms-"));
    const saved = process.env.TURNGATE_ROOM_DIR;
    process.env.TURNGATE_ROOM_DIR = base;
    try {
      // A room whose first build was interrupted (no readable manifest), and the living
      // workspace's room after a turn (clean room where bubblewrap starts, else none).
      const broken = join(base, "0123456789abcdef");
      mkdirSync(broken);
      writeFileSync(join(broken, "manifest.bin"), "half");
      const agent = p.agent("a.js", `require("node:fs").writeFileSync("a.txt", "1\\n");`);
      expect((await cli(["run", "--check", "cat a.txt", "--", "node", agent], p.root)).code).toBe(
        0,
      );
      const rooms = () => readdirSync(base).sort();
      const before = rooms();
      expect(before).toContain("0123456789abcdef");
      const listed = await cli(["gc", "--json"], p.root);
      expect(JSON.parse(listed.stdout).stale_rooms).toEqual({
        removed: false,
        rooms: [
          {
            dir: broken,
            workspace: null,
            bytes: 4,
            why: "no readable manifest (an interrupted first build)",
          },
        ],
      });
      const text = await cli(["gc"], p.root);
      expect(text.stdout).toContain(
        `gc: 1 clean room of workspaces that no longer exist (4 bytes, in ${base}) can go: turngate gc --rooms removes them\n`,
      );
      expect(rooms()).toEqual(before);
      const removed = await cli(["gc", "--rooms"], p.root);
      expect(removed.stdout).toContain(
        `gc: removed 1 clean room of workspaces that no longer exist (4 bytes, in ${base})\n`,
      );
      expect(rooms()).toEqual(before.filter((name) => name !== "0123456789abcdef"));
    } finally {
      if (saved === undefined) delete process.env.TURNGATE_ROOM_DIR;
      else process.env.TURNGATE_ROOM_DIR = saved;
      rmSync(base, { recursive: true, force: true });
    }
  });

  test("item 17: keeps the proofs of the last N turns, the logs they cite and N other logs, and the views of the last N turns with the tree refs they name; --max-bytes; the baseline stays", async () => {
    const p = project({ "a.txt": "0\n" });
    const proofsDir = join(p.root, ".turngate/proofs");
    const logsDir = join(p.root, ".turngate/logs");
    const turn = async (value: string, pass: boolean) => {
      const agent = p.agent(
        `a${value}.js`,
        `require("node:fs").writeFileSync("a.txt", "${value}\\n");`,
      );
      const check = pass ? "cat a.txt" : "cat a.txt && exit 1";
      return cli(["run", "--check", check, "--", "node", agent], p.root);
    };
    // Three verified turns and one incomplete one; times set one minute apart, oldest first.
    const names: Array<{ proof?: string; log: string }> = [];
    for (const [i, value] of ["1", "2", "3", "4"].entries()) {
      const result = await turn(value, i < 3);
      expect(result.code).toBe(i < 3 ? 0 : 2);
      const log = `${sha256(`${value}\n`)}.log`;
      const proof = i < 3 ? `${workspaceDigest("a.txt", `${value}\n`)}.json` : undefined;
      const when = new Date(Date.UTC(2026, 0, 1, 0, i));
      utimesSync(join(logsDir, log), when, when);
      if (proof) utimesSync(join(proofsDir, proof), when, when);
      names.push(proof ? { proof, log } : { log });
    }
    expect((await cli(["baseline"], p.root)).code).toBe(0);

    const dry = await cli(["gc", "--keep-turns", "1", "--dry-run", "--json"], p.root);
    const plan = JSON.parse(dry.stdout);
    expect(plan).toMatchObject({
      schema: "turngate.gc_result.v1",
      dry_run: true,
      keep_turns: 1,
      max_bytes: 104857600,
    });
    expect(plan.removed.map((f: { path: string }) => f.path)).toEqual([
      join(proofsDir, names[1]?.proof as string),
      join(logsDir, names[1]?.log as string),
      join(proofsDir, names[0]?.proof as string),
      join(logsDir, names[0]?.log as string),
    ]);
    expect(plan.kept).toMatchObject({ proofs: 1, logs: 2 });
    expect(readdirSync(proofsDir)).toHaveLength(3);
    // The turn views (one per turn) and the refs that keep their trees: four turns, five trees.
    const viewsDir = join(p.root, ".turngate/views");
    const treeRefs = () =>
      execFileSync("git", ["for-each-ref", "--format=%(refname)", "refs/turngate/trees/"], {
        cwd: p.root,
        encoding: "utf8",
      })
        .split("\n")
        .filter((line) => line !== "")
        .sort();
    const viewTrees = (file: string) => {
      const diffs = JSON.parse(readFileSync(join(viewsDir, file), "utf8")).diffs;
      return [diffs.baseline_tree, diffs.final_tree];
    };
    const turnViews = readdirSync(viewsDir).filter((name) => name !== "last.json");
    expect(turnViews).toHaveLength(4);
    expect(treeRefs()).toHaveLength(5);
    expect(plan.views.removed).toHaveLength(3);
    expect(plan.views.kept).toBe(1);
    expect(plan.tree_refs_removed).toHaveLength(3);
    expect(readdirSync(viewsDir)).toHaveLength(5);
    expect(treeRefs()).toHaveLength(5);

    const gc = await cli(["gc", "--keep-turns", "1"], p.root);
    expect(gc.code).toBe(0);
    expect(gc.stdout).toMatch(
      /^gc: removed 2 proofs and 2 logs \(\d+ bytes\) from \.turngate; kept 1 proof and 2 logs \(\d+ bytes; limits: 1 turn, 104857600 bytes\)\ngc: removed 3 turn views \(\d+ bytes\) and 3 kept tree refs \(refs\/turngate\/trees\/\); kept 1 turn view\n/,
    );
    // The newest turn's view stays, and the refs of exactly the two trees it names.
    const keptViews = readdirSync(viewsDir).filter((name) => name !== "last.json");
    expect(keptViews).toHaveLength(1);
    const keptTrees = viewTrees(keptViews[0] as string);
    expect(treeRefs()).toEqual(
      keptTrees.map((tree: string) => `refs/turngate/trees/${tree}`).sort(),
    );
    expect(plan.tree_refs_removed).not.toContain(`refs/turngate/trees/${keptTrees[1]}`);
    const shown = await cli(["show"], p.root);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("a.txt");
    expect(readdirSync(proofsDir)).toEqual([names[2]?.proof]);
    expect(readdirSync(logsDir).sort()).toEqual([names[2]?.log, names[3]?.log].sort());
    // The kept proof is still there to check: turn 4 changed a.txt since, so it does not hold (exit 2).
    expect(
      (await cli(["proof", "verify", join(proofsDir, names[2]?.proof as string)], p.root)).code,
    ).toBe(2);

    // A 1-byte limit removes the uncited log but never the newest proof and its log.
    await cli(["gc", "--max-bytes", "1"], p.root);
    expect(readdirSync(proofsDir)).toEqual([names[2]?.proof]);
    expect(readdirSync(logsDir)).toEqual([names[2]?.log]);
    expect(existsSync(join(p.root, ".turngate/baseline.json"))).toBe(true);
    expect(existsSync(join(p.root, ".turngate/.gitignore"))).toBe(true);

    expect((await cli(["gc", "--keep-turns", "0"], p.root)).stderr).toBe(
      'turngate: error: invalid --keep-turns value at --keep-turns: "0" is not a whole number of at least 1 [invalid_input]\n',
    );
    expect((await cli(["gc", "--max-bytes", "lots"], p.root)).stderr).toBe(
      'turngate: error: invalid --max-bytes value at --max-bytes: "lots" is not a size: give bytes, or a number with K, M or G (e.g. 500M) [invalid_input]\n',
    );
    const help = await cli(["gc", "--help"], p.root);
    expect(help.stdout).toContain("(default 20)");
    expect(help.stdout).toContain("(default 100M)");
  });
});
