import { createHash } from "node:crypto";
import { createReport, TurngateStatusMismatchError } from "@turngate/core";
import { describe, expect, test } from "vitest";
import { Session } from "../../src/session/session.js";
import type { VerifyProgressEvent } from "../../src/session/types.js";
import { deserializeSnapshot, serializeSnapshot } from "../../src/workspace/snapshot.js";
import { useGitRepos } from "./git-repo.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
/** Effect digest of workspace rows, by the formula of docs/design.md §3 (rows sorted by path). */
const digestOf = (rows: Array<[path: string, content: string]>) =>
  sha256(
    rows
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([path, content]) => `workspace|${path}|${sha256(content)}`)
      .join("\n"),
  );

const passing = {
  id: "c:ok",
  kind: "test",
  description: "passes",
  command: "true",
  required: true,
};
const failing = {
  id: "c:bad",
  kind: "test",
  description: "fails",
  command: "exit 1",
  required: true,
};

const repo = useGitRepos();

describe("Session", () => {
  test("binds a passing check to the digest of the changed bytes: verified, with a proof", async () => {
    const r = await repo({ "a.txt": "old\n", "b.txt": "same\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    r.write("dir/c.txt", "added\n");
    const delta = await session.observeWorkspace();
    expect(delta).toEqual({
      changes: [
        { path: "a.txt", change: "modified", content_digest: sha256("new\n"), scope: "source" },
        { path: "dir/c.txt", change: "added", content_digest: sha256("added\n"), scope: "source" },
      ],
      complete: true,
      unreadable: [],
    });
    const digest = digestOf([
      ["a.txt", "new\n"],
      ["dir/c.txt", "added\n"],
    ]);
    expect(session.effectDigest).toBe(digest);

    const events: string[] = [];
    const onProgress = (e: VerifyProgressEvent) =>
      events.push(`${e.type}:${e.command.id}${e.type === "end" ? `:${e.check.status}` : ""}`);
    const result = await session.verifyCommands("host:test", [passing], { bind: true, onProgress });
    expect(events).toEqual(["start:c:ok", "end:c:ok:passed"]);
    expect(result.binding).toEqual({ bound: true, effectDigest: digest });
    expect(result.report.effect_digest).toBe(digest);
    expect(result.report.status).toBe("passed");
    expect(session.verificationSummaryText()).toBe(
      "Verification passed: 1 report, 1 required check.",
    );

    const outcome = await session.decide();
    expect(outcome).toEqual({
      kind: "allow",
      terminal: { kind: "verified", effect_digest: digest },
    });
    const proof = session.proof();
    expect(proof.schema).toBe("turn_proof.v1");
    expect(proof.effect_digest).toBe(digest);
    expect(proof.records).toEqual([
      { tool: "workspace", path: "a.txt", content_digest: sha256("new\n") },
      { tool: "workspace", path: "dir/c.txt", content_digest: sha256("added\n") },
    ]);
    expect(proof.reports).toEqual([result.report]);
    expect(proof.waivers_used).toEqual([]);
    expect(proof.terminal).toEqual({ kind: "verified", effect_digest: digest });
    expect(proof.outcome).toEqual(outcome);
    expect(Object.keys(proof.tool_versions).sort()).toEqual([
      "@turngate/core",
      "@turngate/node",
      "node",
    ]);
    expect(Date.parse(proof.finished_at)).toBeGreaterThanOrEqual(Date.parse(proof.started_at));
  });

  test("a check that writes a file leaves its report unbound and stale: workspace_changed_during_check", async () => {
    const r = await repo({ "a.txt": "old\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const writer = { ...passing, id: "c:writer", command: "echo built > generated.txt" };
    const result = await session.verifyCommands("host:test", [writer], { bind: true });
    expect(result.binding).toEqual({
      bound: false,
      reason: "workspace_changed_during_check",
      changedPaths: ["generated.txt"],
      unreadable: [],
      created: ["generated.txt"],
      hint: 'the checks created generated.txt: add "generated.txt" to "outputs" in turngate.config.json, or to .gitignore',
    });
    expect(result.report.effect_digest).toBeUndefined();
    expect(result.report.status).toBe("passed");
    const outcome = await session.decide();
    expect(outcome.kind).toBe("incomplete");
    expect(outcome.kind === "incomplete" && outcome.reason).toBe("unverified_mutation");
  });

  test("a failing bound check keeps the turn incomplete with A3S's E4 message", async () => {
    const r = await repo({ "a.txt": "old\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const result = await session.verifyCommands("host:test", [passing, failing], { bind: true });
    const digest = digestOf([["a.txt", "new\n"]]);
    expect(result.binding).toEqual({ bound: true, effectDigest: digest });
    expect(result.report.status).toBe("failed");
    expect(session.verificationSummaryText()).toBe(
      "Verification failed: 1 failed check across subjects: host:test. 1 report, 2 required checks. Residual risks: 1.",
    );
    const outcome = await session.decide();
    expect(outcome).toMatchObject({
      kind: "incomplete",
      reason: "unverified_mutation",
      message: `completion gate: workspace mutation ${digest} has no bound Passed verification and no host waiver. Assistant text does not count. Bind a verification_report.effect_digest to this digest with required checks Passed, or obtain a host waiver for this digest.`,
    });
    expect(() => session.proof()).toThrow(/not allow/);
  });

  test("nothing changed: narrative, and binding reports no_effect", async () => {
    const r = await repo({ "a.txt": "same\n" });
    const session = await Session.start({ root: r.root });
    await session.observeWorkspace();
    expect(session.effectDigest).toBe("");
    const result = await session.verifyCommands("host:test", [passing], { bind: true });
    expect(result.binding).toEqual({ bound: false, reason: "no_effect" });
    expect(await session.decide()).toEqual({ kind: "allow", terminal: { kind: "narrative" } });
  });

  test("a host waiver of the exact digest ends the turn as waived", async () => {
    const r = await repo({ "a.txt": "old\n" });
    const digest = digestOf([["a.txt", "new\n"]]);
    const session = await Session.start({
      root: r.root,
      waivers: [{ effect_digest: digest, reason: "reviewed by hand" }],
    });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    expect(await session.decide()).toEqual({
      kind: "allow",
      terminal: { kind: "waived", effect_digest: digest },
    });
    expect(session.proof().waivers_used).toEqual([
      { effect_digest: digest, reason: "reviewed by hand" },
    ]);
  });

  test("a blank waiver is rejected when the session starts, naming the field", async () => {
    const r = await repo({});
    await expect(
      Session.start({ root: r.root, waivers: [{ effect_digest: "  ", reason: "x" }] }),
    ).rejects.toThrow(/waivers\.0\.effect_digest/);
  });

  test("the attestor gets the digest and paths and its bound report verifies the turn", async () => {
    const r = await repo({ "a.txt": "old\n" });
    const seen: unknown[] = [];
    const session = await Session.start({
      root: r.root,
      attestor: (effectDigest, paths) => {
        seen.push({ effectDigest, paths });
        return createReport(
          "host:attestor",
          [
            {
              id: "h",
              kind: "host_attestation",
              description: "ok",
              status: "passed",
              required: true,
            },
          ],
          { effectDigest },
        );
      },
    });
    r.write("a.txt", "new\n");
    await session.observeWorkspace();
    const digest = digestOf([["a.txt", "new\n"]]);
    expect(await session.decide()).toEqual({
      kind: "allow",
      terminal: { kind: "verified", effect_digest: digest },
    });
    expect(seen).toEqual([
      { effectDigest: digest, paths: [{ path: "a.txt", content_digest: sha256("new\n") }] },
    ]);
    // Asked once per digest: deciding again does not add a second attested report.
    await session.decide();
    expect(seen).toHaveLength(1);
    expect(session.verificationReports().map((report) => report.subject)).toEqual([
      "host:attestor",
    ]);
  });

  test("recorded reports: one or many, host-authored, status checked against the checks", async () => {
    const r = await repo({});
    const session = await Session.start({ root: r.root });
    const check = {
      id: "x",
      kind: "test",
      description: "d",
      status: "passed" as const,
      required: true,
    };
    session.recordVerificationReports(createReport("one", [check]));
    session.recordVerificationReports([createReport("two", [check]), createReport("three", [])]);
    expect(session.verificationReports().map((report) => report.subject)).toEqual([
      "one",
      "two",
      "three",
    ]);
    expect(() =>
      session.recordVerificationReports({
        subject: "liar",
        status: "passed",
        checks: [{ ...check, status: "failed" }],
      }),
    ).toThrow(TurngateStatusMismatchError);
    expect(session.verificationReports()).toHaveLength(3);
  });

  test("a tool-recorded path also gets a workspace row carrying the bytes on disk", async () => {
    const r = await repo({ "a.txt": "old\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "new\n");
    session.observeTool("write", 0, { file_path: "a.txt", after: "new\n" });
    await session.observeWorkspace();
    expect(session.records).toEqual([
      { tool: "workspace", path: "a.txt", content_digest: sha256("new\n") },
      { tool: "write", path: "a.txt", content_digest: sha256("new\n") },
    ]);
    expect(session.effectDigest).toBe(
      sha256(`workspace|a.txt|${sha256("new\n")}\nwrite|a.txt|${sha256("new\n")}`),
    );
  });

  test("bytes rewritten after a tool write change the digest, so a bound report no longer closes the gate", async () => {
    const r = await repo({ "hello.txt": "old\n" });
    const session = await Session.start({ root: r.root });
    r.write("hello.txt", "hello\n");
    session.observeTool("write", 0, { file_path: "hello.txt", after: "hello\n" });
    const run = await session.verifyCommands(
      "tests",
      [
        {
          id: "t",
          kind: "test",
          description: "hello",
          command: "grep -qx hello hello.txt",
          required: true,
          expect_exit: 0,
        },
      ],
      { bind: true },
    );
    expect(run.binding.bound).toBe(true);
    expect((await session.decide()).kind).toBe("allow");
    r.write("hello.txt", "rm -rf /\n");
    await session.observeWorkspace();
    const outcome = await session.decide();
    expect(outcome.kind).toBe("incomplete");
    expect(outcome.kind === "incomplete" && outcome.reason).toBe("unverified_mutation");
  });

  test("each observation rebuilds the ledger, so the digest follows the latest bytes", async () => {
    const r = await repo({ "a.txt": "old\n" });
    const session = await Session.start({ root: r.root });
    r.write("a.txt", "first\n");
    await session.observeWorkspace();
    r.write("a.txt", "second, longer\n");
    await session.observeWorkspace();
    expect(session.effectDigest).toBe(digestOf([["a.txt", "second, longer\n"]]));
  });

  test("a stored baseline (serialised and restored) measures the same turn", async () => {
    const r = await repo({ "a.txt": "old\n" });
    const first = await Session.start({ root: r.root });
    const stored = JSON.parse(JSON.stringify(serializeSnapshot(first.baseline)));
    r.write("a.txt", "new\n");
    const second = await Session.start({ root: r.root, baseline: deserializeSnapshot(stored) });
    await second.observeWorkspace();
    expect(second.effectDigest).toBe(digestOf([["a.txt", "new\n"]]));
  });

  test("verificationPresets reads the workspace root", async () => {
    const r = await repo({ "package.json": JSON.stringify({ scripts: { test: "node t.js" } }) });
    const session = await Session.start({ root: r.root });
    expect(session.verificationPresets().map((preset) => preset.id)).toEqual(["node-default"]);
  });

  test("zero commands give a skipped report; a malformed command is rejected before anything runs", async () => {
    const r = await repo({});
    const session = await Session.start({ root: r.root });
    expect((await session.verifyCommands("none", [])).report.status).toBe("skipped");
    await expect(
      session.verifyCommands("bad", [passing, { id: "x", kind: "t", description: "d" } as never]),
    ).rejects.toThrow(/commands\.1\.command/);
    expect(session.verificationReports()).toHaveLength(1);
  });
});
