/**
 * Issue 13, items 1, 2 and 7: reports carried in tool metadata (A3S §2.9 with docs/design.md §3's
 * authorship change), shell evidence on `observeTool("bash", …)` (A3S §2.13 with the masked
 * exit rule) and the per-turn result of `endTurn()` with a fresh ledger per turn. Real
 * temporary git repositories; digests computed here from the A3S §2.2 formula.
 */
import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import { TurngateGateError } from "../../src/session/evidence/turn-result.js";
import { Session } from "../../src/session/session.js";
import { useGitRepos } from "./git-repo.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const repo = useGitRepos();

const E4 = (digest: string) =>
  `completion gate: workspace mutation ${digest} has no bound Passed verification and no host waiver. Assistant text does not count. Bind a verification_report.effect_digest to this digest with required checks Passed, or obtain a host waiver for this digest.`;

/** A passing report with one required check, bound to `digest` when given. */
function passingReport(subject: string, digest?: string) {
  return {
    schema: "verification_report.v1" as const,
    subject,
    status: "passed" as const,
    checks: [
      {
        id: `${subject}:test`,
        kind: "test",
        description: "tests",
        required: true,
        status: "passed" as const,
      },
    ],
    ...(digest !== undefined ? { effect_digest: digest } : {}),
  };
}

/** The digest of one changed file `a.txt` now holding `text` (re-read row). */
const changedA = (text: string) => sha256(`workspace|a.txt|${sha256(text)}`);

async function gateError(promise: Promise<unknown>): Promise<TurngateGateError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(TurngateGateError);
  return error as TurngateGateError;
}

describe("reports from tool metadata (A3S §2.9, docs/design.md §3 authorship)", () => {
  test("a verifier report bound to the digest verifies the turn; endTurn gives A3S's result fields", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "v1\n");
    await session.observeWorkspace();
    const digest = changedA("v1\n");
    expect(session.effectDigest).toBe(digest);
    session.observeTool("review", 0, {
      verification_report: passingReport("ci", digest),
      verification_author: "verifier",
    });
    expect(session.lastToolEvidence).toEqual({
      reports: [{ ...passingReport("ci", digest), checks: [{ ...passingReport("ci").checks[0] }] }],
      refused: [],
    });
    const result = await session.endTurn();
    const { proof, ...fields } = result;
    expect(fields).toEqual({
      turn: 1,
      completion: { kind: "verified", effect_digest: digest },
      effectDigest: digest,
      verificationStatus: "passed",
      pendingVerificationCount: 0,
      failedVerificationCount: 0,
      verificationReportCount: 1,
      verificationSummaryText: "Verification passed: 1 report, 1 required check.",
      verificationSummary: {
        status: "passed",
        report_count: 1,
        required_check_count: 1,
        pending_required_check_count: 0,
        failed_check_count: 0,
        residual_risk_count: 0,
      },
      verificationReports: [passingReport("ci", digest)],
      refusedReports: [],
    });
    expect([proof.effect_digest, proof.terminal, proof.reports.length]).toEqual([
      digest,
      { kind: "verified", effect_digest: digest },
      1,
    ]);
    expect(session.turnNumber).toBe(2);
  });

  test("A3S's capitalised author spellings (Host, Verifier) are accepted", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    session.observeTool("t", 0, {
      verification_report: passingReport("a"),
      verification_author: "Host",
    });
    session.observeTool("t", 0, {
      verificationReport: passingReport("b"),
      verificationAuthor: " VERIFIER ",
    });
    expect(session.turnReports().map((rep) => rep.subject)).toEqual(["a", "b"]);
    expect(session.refusedReports()).toEqual([]);
  });

  test("editor, absent and unknown authors are refused with a typed reason, kept for the host, and never reach the gate", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "v1\n");
    await session.observeWorkspace();
    const digest = changedA("v1\n");
    const report = passingReport("forged", digest);
    session.observeTool("edit", 0, { verification_report: report, verification_author: "editor" });
    session.observeTool("bash", 0, { verification_report: report });
    session.observeTool("bash", 0, { verification_report: report, verification_author: "model" });
    session.observeTool("bash", 0, { verification_report: report, verification_author: 7 });
    const common = { code: "report_author_rejected", report };
    expect(session.refusedReports()).toEqual([
      {
        ...common,
        tool: "edit",
        reason: "author_editor",
        author: "editor",
        message:
          'verification report refused: author "editor" cannot verify its own edits; only host or verifier reports count',
      },
      {
        ...common,
        tool: "bash",
        reason: "author_missing",
        author: null,
        message: "verification report refused: no verification_author (host or verifier) was given",
      },
      {
        ...common,
        tool: "bash",
        reason: "author_unknown",
        author: "model",
        message:
          'verification report refused: unknown verification_author "model"; only host or verifier reports count',
      },
      {
        ...common,
        tool: "bash",
        reason: "author_unknown",
        author: null,
        message:
          "verification report refused: unknown verification_author 7; only host or verifier reports count",
      },
    ]);
    expect(session.turnReports()).toEqual([]);
    const error = await gateError(session.endTurn());
    expect([error.code, error.message, error.outcome.reason]).toEqual([
      "turn_incomplete",
      E4(digest),
      "unverified_mutation",
    ]);
    expect(session.turnNumber).toBe(1);
  });

  test("a malformed report and a report whose status its checks do not derive are refused by name", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    const bad = {
      subject: "x",
      status: "passed",
      checks: [{ id: "c", kind: "test", description: "d", status: "ok" }],
    };
    session.observeTool("t", 0, { verification_report: bad, verification_author: "host" });
    const lying = {
      subject: "lie",
      status: "passed",
      checks: [{ id: "c", kind: "test", description: "d", required: true, status: "failed" }],
    };
    session.observeTool("t", 0, { verification_report: lying, verification_author: "host" });
    expect(session.refusedReports()).toEqual([
      {
        tool: "t",
        reason: "report_invalid",
        code: "invalid_input",
        path: "verification_report.checks.0.status",
        message:
          'invalid verification report at checks.0.status: Invalid option: expected one of "passed"|"failed"|"needs_review"|"skipped"',
        author: "host",
        report: bad,
      },
      {
        tool: "t",
        reason: "status_mismatch",
        code: "report_status_mismatch",
        message: 'verification report "lie" records status "passed" but its checks derive "failed"',
        author: "host",
        report: lying,
      },
    ]);
  });
});

describe("shell evidence on observeTool('bash', …) (A3S §2.13 + masked exit)", () => {
  const nodeCheck = {
    id: "node:test",
    kind: "test",
    description: "Run JavaScript tests",
    required: true,
    suggested_tools: ["bash"],
  };
  const pkg = JSON.stringify({ scripts: { test: "node t.js" } });

  test("a bash command covering a preset yields an unbound shell:<id> report; masked, timed out and uncovered commands as A3S and docs/design.md say", async () => {
    const r = await repo({ "package.json": pkg });
    const session = await Session.start({ root: r.root });
    session.observeTool("bash", 0, { command: "cd . && npm test" });
    session.observeTool("Bash", 3, { command: "npm test", exit_code: 0 });
    session.observeTool("bash", 0, { command: "npm test || true" });
    session.observeTool("bash", 1, { command: "npm test", output: { timed_out: true } });
    session.observeTool("bash", 1, { command: "npm test -- --bail" });
    session.observeTool("bash", 0, { command: "echo npm test" });
    session.observeTool("sh", 0, { command: "npm test" });
    const report = (check: object) => ({
      schema: "verification_report.v1",
      subject: "shell:node:test",
      status: (check as { status: string }).status,
      checks: [{ ...nodeCheck, ...check }],
    });
    expect(session.turnReports()).toEqual([
      report({ status: "passed" }),
      report({ status: "passed" }),
      report({ status: "needs_review", residual_risk: "exit status masked" }),
      report({
        status: "failed",
        residual_risk: "verification command could not run: command timed out",
      }),
      report({
        status: "failed",
        residual_risk: "verification command exited with code 1, expected 0: npm test",
      }),
    ]);
    expect(session.verificationSummaryText()).toBe(
      "Verification failed: 2 failed checks across subjects: shell:node:test. 5 reports, 5 required checks. Residual risks: 3.",
    );
  });

  test("a passing shell report never closes the gate by itself: the change stays unverified", async () => {
    const r = await repo({ "package.json": pkg, "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "v1\n");
    session.observeTool("bash", 0, { command: "npm test" });
    const error = await gateError(session.endTurn());
    expect([error.code, error.message]).toEqual(["turn_incomplete", E4(changedA("v1\n"))]);
  });

  test("the candidates are the presets read when the turn started: a script the agent adds counts from the next turn", async () => {
    const r = await repo({ "package.json": pkg });
    const session = await Session.start({ root: r.root });
    r.write("package.json", JSON.stringify({ scripts: { test: "node t.js", lint: "true" } }));
    session.observeTool("bash", 0, { command: "npm run lint" });
    expect(session.lastToolEvidence).toEqual({ reports: [], refused: [] });
    await session.observeWorkspace();
    session.recordVerificationReports(passingReport("host", session.effectDigest));
    await session.endTurn();
    session.observeTool("bash", 0, { command: "npm run lint" });
    expect(session.lastToolEvidence.reports.map((rep) => [rep.subject, rep.status])).toEqual([
      ["shell:node:lint", "passed"],
    ]);
  });
});

describe("endTurn: per-turn result and a fresh ledger per turn (A3S §1.17)", () => {
  test("a turn that changed nothing ends narrative with A3S's skipped summary", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    const { proof, ...fields } = await session.endTurn();
    expect(fields).toEqual({
      turn: 1,
      completion: { kind: "narrative" },
      effectDigest: "",
      verificationStatus: "skipped",
      pendingVerificationCount: 0,
      failedVerificationCount: 0,
      verificationReportCount: 0,
      verificationSummaryText: "Verification skipped: no reports.",
      verificationSummary: {
        status: "skipped",
        report_count: 0,
        required_check_count: 0,
        pending_required_check_count: 0,
        failed_check_count: 0,
        residual_risk_count: 0,
      },
      verificationReports: [],
      refusedReports: [],
    });
    expect(proof.terminal).toEqual({ kind: "narrative" });
  });

  test("a report of an earlier turn is never a gate input of a later turn, even for the same digest", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    // A write of the bytes already there: one tool row, no workspace change.
    const write = { file_path: "a.txt", after: "base\n" };
    const digest = sha256(`write|a.txt|${sha256("base\n")}`);
    session.observeTool("write", 0, write);
    session.recordVerificationReports(passingReport("ci", digest));
    expect((await session.endTurn()).completion).toEqual({
      kind: "verified",
      effect_digest: digest,
    });

    session.observeTool("write", 0, write);
    expect(session.effectDigest).toBe(digest);
    expect(session.turnReports()).toEqual([]);
    const error = await gateError(session.endTurn());
    expect([error.code, error.message]).toEqual(["turn_incomplete", E4(digest)]);
    // The session keeps every report; the turn's result counts only its own.
    expect(session.verificationReports().map((rep) => rep.subject)).toEqual(["ci"]);
  });

  test("the next turn's baseline is the workspace as the turn ended: its ledger starts empty", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "v1\n");
    await session.observeWorkspace();
    session.recordVerificationReports(passingReport("ci", changedA("v1\n")));
    expect((await session.endTurn()).turn).toBe(1);
    expect(session.records).toEqual([]);
    expect((await session.endTurn()).completion).toEqual({ kind: "narrative" });
    r.write("a.txt", "v2\n");
    const error = await gateError(session.endTurn());
    expect(error.outcome).toEqual({
      kind: "incomplete",
      reason: "unverified_mutation",
      message: E4(changedA("v2\n")),
      effect_digest: changedA("v2\n"),
      paths: ["a.txt"],
    });
  });

  test("a refused turn stays open: its unverified change is not forgotten by asking again", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "v1\n");
    await gateError(session.endTurn());
    const again = await gateError(session.endTurn());
    expect([session.turnNumber, again.message]).toEqual([1, E4(changedA("v1\n"))]);
    session.recordVerificationReports(passingReport("ci", changedA("v1\n")));
    expect((await session.endTurn()).completion).toEqual({
      kind: "verified",
      effect_digest: changedA("v1\n"),
    });
  });
});

describe('gapless turns (docs/cli.md "Gapless turns"): endTurn starts the next turn from the judged state', () => {
  test("a file written while the turn was being decided (after its last observation) is the next turn's change, not part of a fresh baseline", async () => {
    const r = await repo({ "a.txt": "base\n" });
    let wrote = false;
    const session = await Session.start({
      root: r.root,
      // The host attestor runs after the observation and before the decision: it stands in
      // for another process that writes between the judgement and the next turn.
      attestor: (effectDigest) => {
        r.write("between.txt", "written while the turn was decided\n");
        wrote = true;
        return passingReport("attestor", effectDigest);
      },
    });
    r.write("a.txt", "v1\n");
    const result = await session.endTurn();
    expect(wrote).toBe(true);
    expect(result.completion).toEqual({ kind: "verified", effect_digest: changedA("v1\n") });
    // The next turn's baseline is what the turn was judged on: between.txt is not in it.
    expect(session.baseline.entries.has("between.txt")).toBe(false);
    expect(session.baseline.entries.get("a.txt")?.content_digest).toBe(sha256("v1\n"));
    const delta = await session.observeWorkspace();
    expect(delta.changes.map((c) => [c.path, c.change])).toEqual([["between.txt", "added"]]);
    expect(session.effectDigest).toBe(
      sha256(`workspace|between.txt|${sha256("written while the turn was decided\n")}`),
    );
  });
});
