import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { BRIDGE_VERSION, MAX_MESSAGE_BYTES, PROTOCOL_ID } from "../src/protocol.js";
import { BridgeProcess } from "./helpers/bridge-process.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(60_000), hookTimeout: testTimeout(60_000) });

describe("bridge stdio framing", () => {
  let bridge: BridgeProcess;
  beforeAll(() => {
    bridge = new BridgeProcess();
  });
  afterAll(() => bridge.kill());

  test("initialize returns the protocol id, version and every method name", async () => {
    const result = await bridge.call<{ protocol: string; version: string; methods: string[] }>(
      "initialize",
      { client: { name: "vitest", language: "typescript" } },
    );
    expect(result.protocol).toBe(PROTOCOL_ID);
    expect(result.version).toBe(BRIDGE_VERSION);
    expect(result.methods).toEqual([
      "cache.key",
      "evidence.acceptance_criteria",
      "evidence.existence_checks",
      "evidence.goal_achievement",
      "evidence.loop_status",
      "evidence.verifier_tool_policy",
      "facts.affected_from_outputs",
      "facts.affected_targets",
      "facts.code_index_changes_since",
      "facts.code_index_file_hash_snapshot",
      "facts.diagnostic_classify",
      "facts.diagnostic_delta",
      "facts.file_hash_snapshot",
      "facts.finish_check",
      "facts.gate_input",
      "facts.hud_model",
      "facts.hud_text",
      "facts.ladder_plan",
      "facts.observation_from_command_result",
      "facts.parse_diagnostics",
      "facts.parse_test_results",
      "facts.profile_matches",
      "facts.record_check_result",
      "facts.run_check",
      "facts.snapshot_staleness",
      "facts.start_check",
      "facts.start_warm_state",
      "facts.teardown_warm_state",
      "facts.toolchain",
      "facts.warm_state",
      "gate.decide",
      "gate.fold",
      "initialize",
      "ledger.content_digest",
      "ledger.digest",
      "proof.verify",
      "report.derive_status",
      "report.turn_view",
      "session.baseline",
      "session.close",
      "session.create",
      "session.decide",
      "session.effect_digest",
      "session.end_turn",
      "session.goal_achievement",
      "session.goal_criteria",
      "session.observe_tool",
      "session.observe_workspace",
      "session.presets",
      "session.proof",
      "session.record_observation",
      "session.record_reports",
      "session.refused_reports",
      "session.reports",
      "session.settle_child",
      "session.signed_proof",
      "session.summary",
      "session.summary_text",
      "session.verifier_run",
      "session.verify_commands",
      "shutdown",
      "verification.summary",
      "verification.summary_text",
      "waiver.validate",
    ]);
  });

  test("a malformed line gets parse_error with id null and the server keeps serving", async () => {
    bridge.write('{"jsonrpc":"2.0","id":1,"method":\n');
    const error = await bridge.waitFor((m) => m.error?.data.code === "parse_error");
    expect(error.id).toBeNull();
    expect(error.error?.code).toBe(-32700);
    const ok = await bridge.request("waiver.validate", {
      waiver: { effect_digest: "d", reason: "r" },
    });
    expect(ok.result).toEqual({ valid: true, waiver: { effect_digest: "d", reason: "r" } });
  });

  test("invalid UTF-8 is a parse_error", async () => {
    const before = bridge.messages.length;
    bridge.write(Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    const error = await bridge.waitFor(
      (m) => bridge.messages.indexOf(m) >= before && m.error?.data.code === "parse_error",
    );
    expect(error.error?.data.message).toBe("parse error: invalid UTF-8");
  });

  test("a JSON value that is not a request object gets invalid_request", async () => {
    bridge.write('[{"jsonrpc":"2.0","id":5,"method":"initialize"}]\n');
    const batch = await bridge.waitFor((m) => m.error?.data.code === "invalid_request");
    expect(batch.id).toBeNull();
    expect(batch.error?.code).toBe(-32600);
    bridge.write('{"jsonrpc":"1.0","id":"v1","method":"initialize"}\n');
    const version = await bridge.waitFor((m) => m.id === "v1");
    expect(version.error?.data).toEqual({
      code: "invalid_request",
      path: "jsonrpc",
      message: 'invalid request: "jsonrpc" must be "2.0"',
    });
  });

  test("an unknown method gets method_not_found", async () => {
    const response = await bridge.request("ledger.nope", {});
    expect(response.error).toEqual({
      code: -32601,
      message: "method not found: ledger.nope",
      data: { code: "method_not_found", message: "method not found: ledger.nope" },
    });
  });

  test("invalid params name the field path", async () => {
    const response = await bridge.request("initialize", { client: { name: 7 } });
    expect(response.error?.code).toBe(-32602);
    expect(response.error?.data.code).toBe("invalid_params");
    expect(response.error?.data.path).toBe("client.name");
    const extra = await bridge.request("shutdown", { now: true });
    expect(extra.error?.data).toMatchObject({ code: "invalid_params", path: "now" });
    const positional = await bridge.request("initialize", []);
    expect(positional.error?.data).toMatchObject({ code: "invalid_params", path: "" });
  });

  test("a notification (no id) gets no reply", async () => {
    const before = bridge.messages.length;
    bridge.write('{"jsonrpc":"2.0","method":"ledger.nope"}\n');
    await bridge.call("initialize", {});
    expect(bridge.messages.length).toBe(before + 1);
  });

  test("stdout carries only JSON-RPC 2.0 messages", async () => {
    // Self-contained (it used to check whatever earlier tests had left, an empty list when
    // run alone): its own bridge, a fixed script, every line accounted for.
    const own = new BridgeProcess();
    try {
      own.write("{oops\n");
      own.write('{"jsonrpc":"2.0","method":"ledger.nope"}\n');
      own.write('[{"jsonrpc":"2.0","id":1,"method":"initialize"}]\n');
      await own.call("ledger.digest", { records: [] });
      await own.call("initialize", {});
      expect(own.nonJson).toEqual([]);
      expect(own.lines).toHaveLength(4);
      expect(
        own.messages.map((m) => [m.jsonrpc, m.id ?? null, m.error?.data.code ?? null]),
      ).toEqual([
        ["2.0", null, "parse_error"],
        ["2.0", null, "invalid_request"],
        ["2.0", 1, null],
        ["2.0", 2, null],
      ]);
      expect(await own.end()).toBe(0);
    } finally {
      own.kill();
    }
  });
});

describe("bridge stdio limits and lifecycle", () => {
  test("a line over 32 MiB gets too_large and the next line is served", async () => {
    const bridge = new BridgeProcess();
    try {
      const big = `{"jsonrpc":"2.0","id":1,"method":"ledger.digest","params":{"pad":"${"x".repeat(MAX_MESSAGE_BYTES)}"}}\n`;
      bridge.write(big);
      const error = await bridge.waitFor((m) => m.error?.data.code === "too_large");
      expect(error.id).toBeNull();
      expect(error.error?.data.message).toBe(`message exceeds ${MAX_MESSAGE_BYTES} bytes`);
      const ok = await bridge.call("initialize", {});
      expect(ok).toMatchObject({ protocol: PROTOCOL_ID });
      expect(bridge.messages.filter((m) => m.error?.data.code === "too_large")).toHaveLength(1);
    } finally {
      bridge.kill();
    }
  });

  test("EOF ends the server with exit code 0", async () => {
    const bridge = new BridgeProcess();
    await bridge.call("initialize", {});
    expect(await bridge.end()).toBe(0);
  });

  test("shutdown replies {} and the server exits 0", async () => {
    const bridge = new BridgeProcess();
    const response = await bridge.request("shutdown", {});
    expect(response.result).toEqual({});
    expect(await bridge.exited).toBe(0);
  });
});
