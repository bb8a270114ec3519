import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BridgeProcess } from "./helpers/bridge-process.js";

// Expected digests are computed here with node:crypto from the formula (A3S §2.2):
// sha256 over "tool|path|content_digest" rows sorted by (path, tool), joined by "\n".
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const HELLO = sha256("hello");

const trueCommand = {
  id: "t",
  kind: "test",
  description: "exit 0",
  command: "true",
  required: true,
};

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), "turngate-bridge-"));
  writeFileSync(join(root, "package.json"), JSON.stringify({ scripts: { test: "node t.js" } }));
  return root;
}

describe("bridge session methods", () => {
  let bridge: BridgeProcess;
  let root: string;
  let sessionId: string;
  beforeAll(async () => {
    bridge = new BridgeProcess();
    root = workspace();
    const created = await bridge.call<{ session_id: string }>("session.create", {
      root,
      options: { use_git: false },
    });
    sessionId = created.session_id;
  });
  afterAll(() => {
    bridge.kill();
    rmSync(root, { recursive: true, force: true });
  });

  test("session.create returns a session id", () => {
    expect(sessionId).toBe("session-1");
  });

  test("session.presets detects the workspace's package.json (A3S §2.17)", async () => {
    expect(await bridge.call("session.presets", { session_id: sessionId })).toEqual({
      presets: [
        {
          id: "node-default",
          project_kind: "node",
          description: "Node.js package verification",
          commands: [
            {
              id: "node:test",
              kind: "test",
              description: "Run JavaScript tests",
              command: "npm test",
              required: true,
              expect_exit: 0,
            },
          ],
        },
      ],
    });
  });

  test("observe_workspace → verify_commands(bind) → decide verified → proof", async () => {
    writeFileSync(join(root, "a.txt"), "hello");
    const digest = sha256(`workspace|a.txt|${HELLO}`);
    expect(await bridge.call("session.observe_workspace", { session_id: sessionId })).toEqual({
      effect_digest: digest,
      changes: [{ path: "a.txt", change: "added", content_digest: HELLO, scope: "source" }],
      complete: true,
      unreadable: [],
    });
    expect(await bridge.call("session.effect_digest", { session_id: sessionId })).toEqual({
      effect_digest: digest,
    });

    const verify = await bridge.request("session.verify_commands", {
      session_id: sessionId,
      subject: "unit",
      commands: [trueCommand],
      bind: true,
    });
    const result = verify.result as {
      report: { status: string; effect_digest?: string; checks: Array<{ status: string }> };
      binding: unknown;
      runs: Array<{ id: string; exit_code: number; status: string; timed_out: boolean }>;
    };
    expect(result.binding).toEqual({ bound: true, effect_digest: digest });
    expect(result.report).toMatchObject({
      schema: "verification_report.v1",
      subject: "unit",
      status: "passed",
      effect_digest: digest,
      checks: [
        { id: "t", kind: "test", status: "passed", required: true, suggested_tools: ["bash"] },
      ],
    });
    expect(result.runs).toMatchObject([
      { id: "t", status: "passed", exit_code: 0, timed_out: false },
    ]);

    const progress = bridge.messages.filter(
      (m) => m.method === "progress" && m.params?.request_id === verify.id,
    );
    expect(progress.map((m) => m.params?.event)).toEqual(["check_started", "check_finished"]);
    expect(progress[0]?.params).toEqual({
      event: "check_started",
      request_id: verify.id,
      index: 0,
      total: 1,
      check_id: "t",
      command: "true",
    });
    expect(progress[1]?.params).toMatchObject({
      event: "check_finished",
      status: "passed",
      exit_code: 0,
    });
    expect(bridge.messages.indexOf(progress[1] as never)).toBeLessThan(
      bridge.messages.indexOf(verify),
    );

    expect(await bridge.call("session.decide", { session_id: sessionId })).toEqual({
      kind: "allow",
      terminal: { kind: "verified", effect_digest: digest },
    });
    const { proof } = await bridge.call<{ proof: Record<string, unknown> }>("session.proof", {
      session_id: sessionId,
    });
    expect(proof).toMatchObject({
      schema: "turn_proof.v1",
      effect_digest: digest,
      records: [{ tool: "workspace", path: "a.txt", content_digest: HELLO }],
      terminal: { kind: "verified", effect_digest: digest },
      waivers_used: [],
    });
    expect(await bridge.call("session.summary", { session_id: sessionId })).toEqual({
      status: "passed",
      report_count: 1,
      required_check_count: 1,
      pending_required_check_count: 0,
      failed_check_count: 0,
      residual_risk_count: 0,
    });
    expect(await bridge.call("session.summary_text", { session_id: sessionId })).toEqual({
      text: "Verification passed: 1 report, 1 required check.",
    });
  });

  test("observe_tool lower-cases the tool and returns the rows it added", async () => {
    const out = await bridge.call<{ effect_digest: string; added: unknown }>(
      "session.observe_tool",
      {
        session_id: sessionId,
        tool: "Write",
        exit_code: 0,
        metadata: { file_path: "b.txt", after: "x" },
      },
    );
    expect(out.added).toEqual([{ tool: "write", path: "b.txt", content_digest: sha256("x") }]);
    expect(out.effect_digest).toBe(sha256(`workspace|a.txt|${HELLO}\nwrite|b.txt|${sha256("x")}`));
  });

  test("record_reports records host reports and refuses a status its checks do not derive", async () => {
    const check = { id: "c", kind: "test", description: "d", status: "passed", required: true };
    const ok = await bridge.call("session.record_reports", {
      session_id: sessionId,
      reports: [{ subject: "host", status: "passed", checks: [check] }],
    });
    expect(ok).toEqual({ recorded: 1 });
    const bad = await bridge.request("session.record_reports", {
      session_id: sessionId,
      reports: [{ subject: "lie", status: "passed", checks: [{ ...check, status: "failed" }] }],
    });
    expect(bad.error?.code).toBe(-32602);
    expect(bad.error?.data).toEqual({
      code: "report_status_mismatch",
      path: "reports.0.status",
      message: 'verification report "lie" records status "passed" but its checks derive "failed"',
    });
    const { reports } = await bridge.call<{ reports: Array<{ subject: string }> }>(
      "session.reports",
      {
        session_id: sessionId,
      },
    );
    expect(reports.map((r) => r.subject)).toEqual(["unit", "host"]);
  });

  test("an unknown session id is session_not_found at path session_id", async () => {
    const response = await bridge.request("session.summary", { session_id: "session-99" });
    expect(response.error?.data).toEqual({
      code: "session_not_found",
      path: "session_id",
      message: "session not found: session-99",
    });
  });

  test("a bad root is invalid_root at path root", async () => {
    const response = await bridge.request("session.create", { root: join(root, "missing") });
    expect(response.error?.data).toMatchObject({ code: "invalid_root", path: "root" });
  });

  test("a slow verify_commands does not block a later ledger.digest", async () => {
    const slowId = bridge.send("session.verify_commands", {
      session_id: sessionId,
      subject: "slow",
      commands: [{ ...trueCommand, id: "slow", command: "sleep 1.5" }],
    });
    await bridge.waitFor((m) => m.method === "progress" && m.params?.request_id === slowId);
    const fast = await bridge.request("ledger.digest", { records: [] });
    expect(fast.result).toEqual({ effect_digest: "" });
    const slow = await bridge.waitFor((m) => m.id === slowId);
    expect(bridge.messages.indexOf(fast)).toBeLessThan(bridge.messages.indexOf(slow));
    expect((slow.result as { report: { status: string } }).report.status).toBe("passed");
  });

  test("session.close kills a running check and answers it session_closed", async () => {
    const second = await bridge.call<{ session_id: string }>("session.create", {
      root,
      options: { use_git: false },
    });
    const runId = bridge.send("session.verify_commands", {
      session_id: second.session_id,
      subject: "hang",
      commands: [{ ...trueCommand, id: "hang", command: "sleep 41.25" }],
    });
    await bridge.waitFor((m) => m.method === "progress" && m.params?.request_id === runId);
    expect(await bridge.call("session.close", { session_id: second.session_id })).toEqual({});
    const answer = await bridge.waitFor((m) => m.id === runId);
    expect(answer.error?.data.code).toBe("session_closed");
    expect(processRunning("sleep 41.25")).toBe(false);
    const gone = await bridge.request("session.reports", { session_id: second.session_id });
    expect(gone.error?.data.code).toBe("session_not_found");
  });
});

function processRunning(commandLine: string): boolean {
  try {
    execFileSync("pgrep", ["-f", commandLine], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("bridge EOF with open sessions", () => {
  test("EOF closes sessions, kills their running checks and exits 0", async () => {
    const bridge = new BridgeProcess();
    const root = workspace();
    try {
      const { session_id } = await bridge.call<{ session_id: string }>("session.create", {
        root,
        options: { use_git: false },
      });
      const runId = bridge.send("session.verify_commands", {
        session_id,
        subject: "hang",
        commands: [{ ...trueCommand, id: "hang", command: "sleep 43.75" }],
      });
      await bridge.waitFor((m) => m.method === "progress" && m.params?.request_id === runId);
      expect(await bridge.end()).toBe(0);
      expect(bridge.messages.find((m) => m.id === runId)?.error?.data.code).toBe("session_closed");
      expect(processRunning("sleep 43.75")).toBe(false);
      expect(bridge.nonJson).toEqual([]);
    } finally {
      bridge.kill();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
