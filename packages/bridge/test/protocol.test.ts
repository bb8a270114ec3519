import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test, vi } from "vitest";
import { z } from "zod";
import { testTimeout } from "../../../test-time.js";
import { ERROR_CODES } from "../src/errors.js";
import { defineMethod } from "../src/method.js";
import { BRIDGE_VERSION, MAX_MESSAGE_BYTES, PROTOCOL_ID } from "../src/protocol.js";
import { lintMethodTable, renderProtocolDocument } from "../src/protocol-doc.js";
import { mergeTables } from "../src/stateless.js";
import { bridgeTable } from "../src/table.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(60_000), hookTimeout: testTimeout(60_000) });

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const protocolFile = join(pkgDir, "schema", "protocol.json");
const generator = join(pkgDir, "scripts", "gen-protocol.ts");
const repoRoot = join(pkgDir, "..", "..");

function runGenerator(args: string[]) {
  return spawnSync(
    process.execPath,
    ["--conditions=@turngate/source", "--import", "tsx", generator, ...args],
    {
      cwd: repoRoot,
      encoding: "utf8",
    },
  );
}

describe("protocol.json", () => {
  test("the checked-in protocol.json equals the document regenerated from the method table", () => {
    expect(readFileSync(protocolFile, "utf8")).toBe(renderProtocolDocument(bridgeTable));
  });

  test("gen-protocol --check passes on the checked-in file and fails on a drifted copy", () => {
    expect(runGenerator(["--check"]).status).toBe(0);
    const dir = mkdtempSync(join(tmpdir(), "turngate-protocol-"));
    try {
      const copy = join(dir, "protocol.json");
      copyFileSync(protocolFile, copy);
      writeFileSync(
        copy,
        readFileSync(copy, "utf8").replace('"ledger.digest"', '"ledger.digest_old"'),
      );
      const drift = runGenerator(["--check", "--file", copy]);
      expect(drift.status).toBe(1);
      expect(drift.stderr).toContain("protocol drift:");
      expect(runGenerator(["--file", copy]).status).toBe(0);
      expect(readFileSync(copy, "utf8")).toBe(readFileSync(protocolFile, "utf8"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the document states protocol id, version, framing and every method", () => {
    const doc = JSON.parse(readFileSync(protocolFile, "utf8"));
    expect(doc.protocol).toBe(PROTOCOL_ID);
    expect(doc.version).toBe(BRIDGE_VERSION);
    expect(doc.framing.max_message_bytes).toBe(MAX_MESSAGE_BYTES);
    expect(Object.keys(doc.methods)).toEqual(Object.keys(bridgeTable).sort());
    expect(Object.keys(doc.notifications)).toEqual(["progress"]);
    expect(doc.error_codes.parse_error).toEqual({
      rpc_code: -32700,
      description: ERROR_CODES.parse_error.description,
    });
    expect(Object.keys(doc.error_codes)).toEqual(Object.keys(ERROR_CODES));
  });

  test("defaults are written into the params schemas (required defaults to false everywhere)", () => {
    const doc = JSON.parse(readFileSync(protocolFile, "utf8"));
    const verify = doc.methods["session.verify_commands"].params.properties;
    expect(verify.bind.default).toBe(false);
    expect(verify.commands.items.properties.required.default).toBe(false);
    expect(verify.commands.items.properties.expect_exit.default).toBe(0);
    expect(verify.commands.items.required).toEqual(["id", "kind", "description", "command"]);
    const report = doc.methods["session.record_reports"].params.properties.reports.items;
    expect(report.properties.checks.items.properties.required.default).toBe(false);
    expect(report.properties.effect_digest.type).toBe("string");
    expect(doc.methods["gate.decide"].params.properties.allow_continuation.default).toBe(false);
  });

  test("package.json version equals BRIDGE_VERSION", () => {
    const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
    expect(pkg.version).toBe(BRIDGE_VERSION);
  });
});

describe("method table lint", () => {
  test("the bridge method table lints clean", () => {
    expect(lintMethodTable(bridgeTable)).toEqual([]);
  });

  test("lint names a camelCase wire key, a missing description and a bad method name", () => {
    const bad = {
      "demo.Method": defineMethod({
        description: " ",
        params: z.strictObject({ sessionId: z.string() }),
        result: z.strictObject({ ok: z.boolean() }),
        handler: () => ({ ok: true }),
      }),
    };
    expect(lintMethodTable(bad)).toEqual([
      "demo.Method: method name is not namespace.snake_case",
      "demo.Method: missing description",
      'methods.demo.Method.params: wire key "sessionId" is not snake_case',
    ]);
  });

  test("mergeTables rejects a method defined twice", () => {
    expect(() =>
      mergeTables(bridgeTable, { "ledger.digest": bridgeTable["ledger.digest"] as never }),
    ).toThrow("duplicate bridge method: ledger.digest");
  });
});
