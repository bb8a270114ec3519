/**
 * Regressions of issue #11 in the bridge, with exact lines: request ids echoed byte for
 * byte (the id token is taken from the raw line), one depth limit on params, and error
 * paths in wire names (options.use_git).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { handleStatelessLine } from "@turngate/bridge/pure";
import { afterAll, describe, expect, test } from "vitest";
import { invoke } from "../src/rpc/dispatch.js";
import { notificationLine } from "../src/rpc/envelope.js";
import { idToken } from "../src/rpc/id-token.js";
import { SessionRegistry } from "../src/server/sessions.js";
import { bridgeTable, type ServerContext } from "../src/table.js";

const digestLine = (id: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"ledger.digest","params":{"records":[]}}`;

describe("issue #11 class 4: request ids come back exactly as sent", () => {
  test.each([
    "12345678901234567890",
    "9007199254740993",
    "1.0",
    "1e3",
    "-0",
    "0.1000000000000000055511151231257827",
  ])("numeric id %s is echoed as the same token", (id) => {
    expect(handleStatelessLine(digestLine(id))).toBe(
      `{"jsonrpc":"2.0","id":${id},"result":{"effect_digest":""}}`,
    );
  });

  test("an error reply echoes the id token too", () => {
    const line = '{"jsonrpc":"2.0","id":12345678901234567890,"method":"no.such"}';
    expect(handleStatelessLine(line)).toBe(
      '{"jsonrpc":"2.0","id":12345678901234567890,"error":{"code":-32601,"message":"method not found: no.such","data":{"code":"method_not_found","message":"method not found: no.such"}}}',
    );
  });

  test("idToken takes the last top-level id (JSON.parse keeps the last), decodes escaped keys, skips nested ids", () => {
    expect(idToken('{"params":{"id":1},"id" : 7 ,"method":"m"}')).toBe("7");
    expect(idToken('{"id":1,"id":2e0}')).toBe("2e0");
    expect(idToken('{"\\u0069d":10000000000000000001}')).toBe("10000000000000000001");
    expect(idToken('{"x":"\\"id\\":5","id":"s"}')).toBe('"s"');
    expect(idToken('{"params":[{"id":3}]}')).toBe(null);
    expect(idToken("[1]")).toBe(null);
  });

  test("a progress notification carries request_id as the exact token", () => {
    expect(
      notificationLine("progress", { request_id: 1, event: "e" }, "12345678901234567890"),
    ).toBe(
      '{"jsonrpc":"2.0","method":"progress","params":{"request_id":12345678901234567890,"event":"e"}}',
    );
    expect(notificationLine("progress", { request_id: 1 }, "1.0")).toBe(
      '{"jsonrpc":"2.0","method":"progress","params":{"request_id":1.0}}',
    );
  });
});

describe("issue #11 class 1: one depth limit where params enter", () => {
  test.each([
    ["facts.diagnostic_delta", "previous", '"current":null'],
    ["facts.gate_input", "current", '"previous":null'],
    ["facts.diagnostic_classify", "envelope", '"current_hashes":{}'],
  ])("%s with %s nested 100,000 deep is invalid_params at that field", (method, field, other) => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const line = `{"jsonrpc":"2.0","id":1,"method":"${method}","params":{${other},"${field}":${deep}}}`;
    const message = `${field}: nests deeper than 512 levels`;
    expect(JSON.parse(handleStatelessLine(line) as string)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message, data: { code: "invalid_params", path: field, message } },
    });
  });

  test("a value exactly 512 levels deep is accepted", () => {
    const deep = `${"[".repeat(512)}${"]".repeat(512)}`;
    const line = `{"jsonrpc":"2.0","id":1,"method":"facts.diagnostic_delta","params":{"previous":${deep},"current":null}}`;
    const reply = JSON.parse(handleStatelessLine(line) as string);
    expect(reply.error).toBeUndefined();
    expect(reply.result.schema).toBe("harn.verification.diagnostic_delta.v1");
  });
});

describe("issue #11 class 4: error paths use wire names", () => {
  const root = mkdtempSync(join(tmpdir(), "turngate-robust-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test("session.create with use_git true outside a git work tree fails at options.use_git", async () => {
    const ctx: ServerContext = {
      requestId: 1,
      methods: [],
      sessions: new SessionRegistry(),
      notify: () => {},
      requestShutdown: () => {},
    };
    let thrown: unknown;
    try {
      await invoke(bridgeTable, "session.create", { root, options: { use_git: true } }, ctx);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: "git_failed",
      path: "options.use_git",
      message: `use_git is true but ${root} is not inside a git work tree`,
    });
  });
});
