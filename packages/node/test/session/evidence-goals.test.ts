/**
 * Issue 13 items 3 and 4 on real temporary git repositories: goal criteria from
 * ACCEPTANCE.md (A3S §2.14) as shell-evidence candidates and goal-achievement gating
 * (§2.15); existence checks (off by default) binding reports or synthesising
 * `shell:mutation_path_verify:<path>`. Digests computed here from the A3S §2.2 formula.
 */
import { createHash } from "node:crypto";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MutationLedger } from "@turngate/core";
import { describe, expect, test } from "vitest";
import { EXISTENCE_ONLY_RISK, existenceEvidence } from "../../src/session/evidence/existence.js";
import { Session } from "../../src/session/session.js";
import { useGitRepos } from "./git-repo.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const repo = useGitRepos();

const ACCEPTANCE = [
  "# Fix login",
  "",
  "- [ ] kind:command assert:`node check.js`",
  "- [ ] kind:file_exists assert:`out/ok.txt`",
  "- [ ] kind:manual the page looks right",
  "- [ ] kind:command assert:`never closed",
].join("\n");

const loopFiles = {
  ".a3s/loops/fix-login/STATE.md": "# State\nStatus: running\n",
  ".a3s/loops/fix-login/ACCEPTANCE.md": ACCEPTANCE,
  ".a3s/loops/done/STATE.md": "Status: achieved\n",
  ".a3s/loops/done/ACCEPTANCE.md": "- [ ] kind:command assert:`true`\n",
  ".turngate/goals/docs/STATE.md": "Status: Paused\n",
  ".turngate/goals/docs/ACCEPTANCE.md": "- [x] kind:command assert:`npm test`\n",
  "package.json": JSON.stringify({ scripts: { test: "node t.js" } }),
};

const command = (loop: string, line: number, cmd: string) => ({
  id: `acceptance:${loop}:${line}`,
  kind: "acceptance_command",
  description: `ACCEPTANCE kind:command (${loop})`,
  command: cmd,
  required: true,
  expect_exit: 0,
});
const fileExists = {
  id: "acceptance:fix-login:4",
  kind: "acceptance_file_exists",
  description: "ACCEPTANCE kind:file_exists (fix-login)",
  command: "test -f out/ok.txt",
  required: true,
  expect_exit: 0,
};

describe("goal criteria (A3S §2.14) and goal gating (§2.15)", () => {
  test("goalCriteria() lists the active loops of .a3s/loops and .turngate/goals with their commands and problems", async () => {
    const r = await repo(loopFiles);
    const session = await Session.start({ root: r.root });
    expect(session.goalCriteria()).toEqual({
      loops: [
        {
          loop_id: "fix-login",
          path: ".a3s/loops/fix-login/ACCEPTANCE.md",
          status: "running",
          commands: [command("fix-login", 3, "node check.js"), fileExists],
          problems: [
            {
              line: 6,
              reason: "unterminated_backtick",
              message: "the assert: value has no closing backtick",
            },
          ],
        },
        {
          loop_id: "docs",
          path: ".turngate/goals/docs/ACCEPTANCE.md",
          status: "Paused",
          commands: [command("docs", 1, "npm test")],
          problems: [],
        },
      ],
      commands: [
        command("fix-login", 3, "node check.js"),
        fileExists,
        command("docs", 1, "npm test"),
      ],
      unreadable: [],
    });
  });

  test("a command covering a criterion yields shell:acceptance:…; a preset with the same command yields its own report too", async () => {
    const r = await repo(loopFiles);
    const session = await Session.start({ root: r.root });
    session.observeTool("bash", 0, { command: "npm test" });
    expect(session.lastToolEvidence.reports.map((rep) => [rep.subject, rep.status])).toEqual([
      ["shell:node:test", "passed"],
      ["shell:acceptance:docs:1", "passed"],
    ]);
  });

  test("the goal is achieved only when every active loop has a passing criterion; the claim alone never suffices", async () => {
    const r = await repo(loopFiles);
    const session = await Session.start({ root: r.root });
    expect(session.goalAchievement(true)).toEqual({
      achieved: false,
      reason: "evidence_insufficient",
      unmet_loops: [],
    });
    session.observeTool("bash", 0, { command: "npm test" });
    expect(session.goalAchievement(true)).toEqual({
      achieved: false,
      reason: "acceptance_unmet",
      unmet_loops: ["fix-login"],
    });
    session.observeTool("bash", 0, { command: "cd . && node check.js" });
    expect(session.goalAchievement(true)).toEqual({
      achieved: true,
      reason: "achieved",
      unmet_loops: [],
    });
    expect(session.goalAchievement(false).reason).toBe("not_claimed");
    session.observeTool("bash", 1, { command: "test -f out/ok.txt" });
    expect(session.goalAchievement(true).reason).toBe("evidence_insufficient");
  });

  test("an agent that edits ACCEPTANCE.md changes the ledger, not this turn's criteria", async () => {
    const r = await repo(loopFiles);
    const session = await Session.start({ root: r.root });
    const edited = "- [x] kind:command assert:`true`\n";
    r.write(".turngate/goals/docs/ACCEPTANCE.md", edited);
    await session.observeWorkspace();
    expect(session.records).toEqual([
      {
        tool: "workspace",
        path: ".turngate/goals/docs/ACCEPTANCE.md",
        content_digest: sha256(edited),
      },
    ]);
    session.observeTool("bash", 0, { command: "true" });
    expect(session.lastToolEvidence.reports).toEqual([]);
    expect(session.goalCriteria().loops[1]?.commands).toEqual([command("docs", 1, "npm test")]);
  });

  test("a goal file that is not UTF-8 or is a symlink is reported and its loop skipped; nothing is thrown", async () => {
    const r = await repo({ ".turngate/goals/bin/STATE.md": "Status: running\n" });
    writeFileSync(
      join(r.root, ".turngate/goals/bin/ACCEPTANCE.md"),
      Buffer.from([0xff, 0xfe, 0x00]),
    );
    mkdirSync(join(r.root, ".turngate/goals/link"));
    writeFileSync(join(r.root, ".turngate/goals/link/STATE.md"), "Status: running\n");
    symlinkSync("/etc/hostname", join(r.root, ".turngate/goals/link/ACCEPTANCE.md"));
    const session = await Session.start({ root: r.root });
    expect(session.goalCriteria()).toEqual({
      loops: [],
      commands: [],
      unreadable: [
        {
          path: ".turngate/goals/bin/ACCEPTANCE.md",
          reason: "not_utf8",
          message: ".turngate/goals/bin/ACCEPTANCE.md is not UTF-8 text; its loop is skipped",
        },
        {
          path: ".turngate/goals/link/ACCEPTANCE.md",
          reason: "not_a_regular_file",
          message:
            ".turngate/goals/link/ACCEPTANCE.md is not a regular file (symlinks are not followed); its loop is skipped",
        },
      ],
    });
  });
});

describe("existence checks (off unless the host opts in)", () => {
  const pkg = JSON.stringify({ scripts: { test: "node t.js" } });
  const digestOf = (text: string) => sha256(`workspace|a.txt|${sha256(text)}`);

  test("off by default: test -f on a mutated path binds nothing and the turn stays unverified", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "v1\n");
    await session.observeWorkspace();
    session.observeTool("bash", 0, { command: "test -f a.txt" });
    expect([session.lastExistenceEvidence, session.turnReports()]).toEqual([undefined, []]);
    expect((await session.decide()).kind).toBe("incomplete");
  });

  test("on: a matching existence check with nothing to bind synthesises shell:mutation_path_verify:<path>", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root, existenceEvidence: true });
    r.write("a.txt", "v1\n");
    await session.observeWorkspace();
    const digest = digestOf("v1\n");
    session.observeTool("bash", 0, { command: "[ -f a.txt ] && echo yes" });
    const synthesized = {
      schema: "verification_report.v1",
      subject: "shell:mutation_path_verify:a.txt",
      status: "passed",
      checks: [
        {
          id: "mutation_path_verify:a.txt",
          kind: "existence",
          description: "a.txt exists with the bytes the ledger recorded",
          required: true,
          status: "passed",
          suggested_tools: ["bash"],
          residual_risk: EXISTENCE_ONLY_RISK,
        },
      ],
      effect_digest: digest,
    };
    expect(session.lastExistenceEvidence).toEqual({
      checks: [{ path: "a.txt", ledgerPath: "a.txt", status: "match" }],
      bound: [],
      synthesized: [synthesized],
    });
    const result = await session.endTurn();
    expect([result.completion, result.verificationStatus, result.verificationSummaryText]).toEqual([
      { kind: "verified", effect_digest: digest },
      "needs_review",
      "Verification needs review: review required across subjects: shell:mutation_path_verify:a.txt. 1 report, 1 required check. Residual risks: 1.",
    ]);
  });

  test("on: a passing report recorded at the current digest is bound instead of synthesising", async () => {
    const r = await repo({ "a.txt": "base\n", "package.json": pkg });
    const session = await Session.start({ root: r.root, existenceEvidence: true });
    r.write("a.txt", "v1\n");
    await session.observeWorkspace();
    session.observeTool("bash", 0, { command: "npm test" });
    session.observeTool("bash", 0, { command: "test -e ./a.txt" });
    const evidence = session.lastExistenceEvidence;
    expect([
      evidence?.bound.map((rep) => [rep.subject, rep.effect_digest]),
      evidence?.synthesized,
    ]).toEqual([[["shell:node:test", digestOf("v1\n")]], []]);
    expect((await session.decide()).kind).toBe("allow");
  });

  test("on: a report from before the latest change is not bound (it ran on other bytes)", async () => {
    const r = await repo({ "a.txt": "base\n", "package.json": pkg });
    const session = await Session.start({ root: r.root, existenceEvidence: true });
    r.write("a.txt", "v1\n");
    await session.observeWorkspace();
    session.observeTool("bash", 0, { command: "npm test" });
    r.write("a.txt", "v2\n");
    await session.observeWorkspace();
    session.observeTool("bash", 0, { command: "test -f a.txt" });
    expect(session.lastExistenceEvidence?.bound).toEqual([]);
    expect(session.lastExistenceEvidence?.synthesized.map((rep) => rep.effect_digest)).toEqual([
      digestOf("v2\n"),
    ]);
    expect(session.turnReports()[0]?.effect_digest).toBeUndefined();
  });

  test("on: bytes changed since the observation, a failed test, an unmutated path, ../ and a symlink out bind nothing", async () => {
    const r = await repo({ "a.txt": "base\n", "b.txt": "b\n" });
    const session = await Session.start({ root: r.root, existenceEvidence: true });
    r.write("a.txt", "v1\n");
    symlinkSync("/etc/hostname", join(r.root, "out-link"));
    await session.observeWorkspace();
    r.write("a.txt", "tampered\n");
    session.observeTool("bash", 0, {
      command: "test -f a.txt && test -f b.txt && test -f ../a.txt && test -f out-link",
    });
    expect(session.lastExistenceEvidence).toEqual({
      checks: [
        { path: "a.txt", ledgerPath: "a.txt", status: "mismatch" },
        { path: "b.txt", ledgerPath: "b.txt", status: "not_mutated" },
        { path: "../a.txt", ledgerPath: null, status: "outside" },
        { path: "out-link", ledgerPath: null, status: "outside" },
      ],
      bound: [],
      synthesized: [],
    });
    r.write("a.txt", "v1\n");
    session.observeTool("bash", 1, { command: "test -f a.txt" });
    expect(session.lastExistenceEvidence?.synthesized).toEqual([]);
    expect(session.turnReports()).toEqual([]);
  });

  test("a changed_paths row carries the metadata digest, not the bytes: no match until the workspace is observed", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root, existenceEvidence: true });
    r.write("a.txt", "v1\n");
    session.observeTool("bash", 0, { command: "echo v1 > a.txt", changed_paths: ["a.txt"] });
    session.observeTool("bash", 0, { command: "test -f a.txt" });
    expect(session.lastExistenceEvidence?.checks).toEqual([
      { path: "a.txt", ledgerPath: "a.txt", status: "mismatch" },
    ]);
  });

  test("a path without recorded content can bind an existing passed report but never synthesises one", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const ledger = new MutationLedger();
    ledger.observeUnseenPaths(["a.txt"]);
    const passed = {
      schema: "verification_report.v1" as const,
      subject: "ci",
      status: "passed" as const,
      checks: [
        { id: "c", kind: "test", description: "d", required: true, status: "passed" as const },
      ],
    };
    const base = { root: r.root, command: "test -f a.txt", exitCode: 0, ledger };
    const none = existenceEvidence({ ...base, reports: [], digestAtRecord: () => ledger.digest });
    expect(none).toEqual({
      checks: [{ path: "a.txt", ledgerPath: "a.txt", status: "no_recorded_content" }],
      bound: [],
      synthesized: [],
    });
    const report = structuredClone(passed);
    const bound = existenceEvidence({
      ...base,
      reports: [report],
      digestAtRecord: () => ledger.digest,
    });
    expect([bound.bound.length, (report as { effect_digest?: string }).effect_digest]).toEqual([
      1,
      sha256("workspace|a.txt|"),
    ]);
  });
});
