import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  BridgeError,
  dispatchStateless,
  handleStatelessLine,
  MAX_MESSAGE_BYTES,
  statelessMethodNames,
} from "@turngate/bridge/pure";
import { describe, expect, test } from "vitest";

const src = join(dirname(fileURLToPath(import.meta.url)), "..", "src");

/** Every module specifier imported (statically or dynamically) by the files reachable from `entry`. */
function importGraph(entry: string): { files: string[]; bare: Set<string> } {
  const files: string[] = [];
  const bare = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop() as string;
    if (files.includes(file)) continue;
    files.push(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
      const spec = m[1] as string;
      if (spec.startsWith(".")) todo.push(resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
      else bare.add(spec);
    }
  }
  return { files, bare };
}

describe("@turngate/bridge/pure", () => {
  test("its module graph imports no node: module and not @turngate/node", () => {
    const { files, bare } = importGraph(join(src, "pure.ts"));
    expect(files.length).toBeGreaterThan(5);
    const nodeish = [...bare].filter(
      (s) => s.startsWith("node:") || builtinModules.includes(s) || s.startsWith("@turngate/node"),
    );
    expect(nodeish).toEqual([]);
    expect([...bare].sort()).toEqual(["@turngate/core", "@turngate/core/schemas", "zod"]);
  });

  test("serves initialize, shutdown and the stateless methods only", () => {
    expect(statelessMethodNames()).toEqual([
      "cache.key",
      "evidence.acceptance_criteria",
      "evidence.existence_checks",
      "evidence.goal_achievement",
      "evidence.loop_status",
      "evidence.verifier_tool_policy",
      "facts.affected_from_outputs",
      "facts.diagnostic_classify",
      "facts.diagnostic_delta",
      "facts.gate_input",
      "facts.hud_model",
      "facts.hud_text",
      "facts.ladder_plan",
      "facts.observation_from_command_result",
      "facts.parse_diagnostics",
      "facts.parse_test_results",
      "facts.profile_matches",
      "facts.record_check_result",
      "facts.snapshot_staleness",
      "gate.decide",
      "gate.fold",
      "initialize",
      "ledger.content_digest",
      "ledger.digest",
      "report.derive_status",
      "report.turn_view",
      "shutdown",
      "verification.summary",
      "verification.summary_text",
      "waiver.validate",
    ]);
  });

  test("dispatchStateless returns results synchronously and throws BridgeError with the field path", () => {
    const expected = createHash("sha256").update("write|a|").digest("hex");
    expect(
      dispatchStateless("ledger.digest", {
        records: [{ tool: "write", path: "a", content_digest: "" }],
      }),
    ).toEqual({ effect_digest: expected });
    let thrown: unknown;
    try {
      dispatchStateless("ledger.digest", { records: [{ tool: 1, path: "a", content_digest: "" }] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(BridgeError);
    const message = "records.0.tool: Invalid input: expected string, received number";
    expect((thrown as BridgeError).toWire()).toEqual({
      code: -32602,
      message,
      data: { code: "invalid_params", path: "records.0.tool", message },
    });
  });

  test("a __proto__ key in free-form JSON params is kept as an ordinary key", () => {
    // sha256 of the RFC 8785 text {"__proto__":{"x":1},"b":1} ({"b":1} would be eb8ed3cc…)
    const withProto = "38d80567dc2b4ce3a33dce168281ce9109713bdf6a3fd52c4d8f70112112d689";
    const line = handleStatelessLine(
      '{"jsonrpc":"2.0","id":1,"method":"ledger.content_digest","params":{"metadata":{"__proto__":{"x":1},"b":1}}}',
    );
    expect(line).toBe(`{"jsonrpc":"2.0","id":1,"result":{"content_digest":"${withProto}"}}`);
    const params = JSON.parse('{"metadata":{"__proto__":{"x":1},"b":1}}');
    expect(dispatchStateless("ledger.content_digest", params)).toEqual({
      content_digest: withProto,
    });
    expect(
      dispatchStateless("facts.diagnostic_classify", {
        envelope: JSON.parse('{"rung":"r","at":1,"snapshot":{"__proto__":"h"}}'),
        current_hashes: JSON.parse('{"__proto__":"h"}'),
      }),
    ).toMatchObject({ status: "bound_fresh", feedsGates: true });
    let thrown: unknown;
    try {
      dispatchStateless("ledger.content_digest", { metadata: [1] });
    } catch (error) {
      thrown = error;
    }
    expect((thrown as BridgeError).toWire().message).toBe(
      "metadata: Invalid input: expected record, received array",
    );
  });

  test("metadata nested 100k deep is invalid_params at metadata, not an internal error", () => {
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const line = handleStatelessLine(
      `{"jsonrpc":"2.0","id":2,"method":"ledger.content_digest","params":{"metadata":{"a":${deep}}}}`,
    );
    const message = "metadata: nests deeper than 512 levels";
    expect(JSON.parse(line as string)).toEqual({
      jsonrpc: "2.0",
      id: 2,
      error: { code: -32602, message, data: { code: "invalid_params", path: "metadata", message } },
    });
  });

  test("handleStatelessLine answers one JSON-RPC line with the server's response line", () => {
    expect(
      handleStatelessLine(
        '{"jsonrpc":"2.0","id":7,"method":"ledger.digest","params":{"records":[]}}',
      ),
    ).toBe('{"jsonrpc":"2.0","id":7,"result":{"effect_digest":""}}');
    expect(JSON.parse(handleStatelessLine("{oops") as string)).toMatchObject({
      id: null,
      error: { code: -32700, data: { code: "parse_error" } },
    });
    expect(
      JSON.parse(
        handleStatelessLine(
          '{"jsonrpc":"2.0","id":"s","method":"session.create","params":{}}',
        ) as string,
      ),
    ).toEqual({
      jsonrpc: "2.0",
      id: "s",
      error: {
        code: -32601,
        message: "method not found: session.create",
        data: { code: "method_not_found", message: "method not found: session.create" },
      },
    });
    expect(
      handleStatelessLine('{"jsonrpc":"2.0","method":"ledger.digest","params":{"records":[]}}'),
    ).toBeNull();
    const huge = `{"jsonrpc":"2.0","id":1,"method":"ledger.digest","params":{"pad":"${"é".repeat(MAX_MESSAGE_BYTES / 2)}"}}`;
    expect(JSON.parse(handleStatelessLine(huge) as string).error.data.code).toBe("too_large");
  });
});
