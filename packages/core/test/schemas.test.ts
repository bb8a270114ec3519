/**
 * Schemas: defaults, schema ids, bad input (wrong types, blank fields, unknown statuses)
 * with an error naming the field, and the JSON Schema the build generates from them.
 */
import { describe, expect, test } from "vitest";
import { z } from "zod";
import {
  parseCompletionTerminal,
  parseCompletionWaiver,
  parseExternalObservation,
  parseGateOutcome,
  parseLedgerSnapshot,
  parseMutationRecord,
  parseOpenWorkspaceChild,
  parseTurnProof,
  parseVerificationCheck,
  parseVerificationCommand,
  parseVerificationPreset,
  parseVerificationReport,
  parseVerificationSummary,
  TurngateValidationError,
} from "../src/index.js";
import * as schemas from "../src/schemas/index.js";

const check = { id: "t", kind: "test", description: "d", status: "passed" };
const report = {
  schema: "verification_report.v1",
  subject: "s",
  status: "passed",
  checks: [check],
};
const command = { id: "c", kind: "test", description: "d", command: "make test" };
const summary = {
  status: "passed",
  report_count: 1,
  required_check_count: 1,
  pending_required_check_count: 0,
  failed_check_count: 0,
  residual_risk_count: 0,
};
const observation = {
  kind: "ci",
  subject: "s",
  digest: "o1",
  payload: "",
  required_action: "none",
};
const proof = {
  schema: "turn_proof.v1",
  effect_digest: "d",
  records: [{ tool: "write", path: "a", content_digest: "x" }],
  reports: [report],
  waivers_used: [],
  terminal: { kind: "verified", effect_digest: "d" },
  outcome: { kind: "allow", terminal: { kind: "verified", effect_digest: "d" } },
  tool_versions: { turngate: "0.1.0" },
  started_at: "2026-01-02T03:04:05Z",
  finished_at: "2026-01-02T03:04:06.5+01:00",
};

type Parser = (value: unknown, path?: string) => unknown;

/** [parser, bad value, expected error path] — one row per rejected input. */
const badInputs: [string, Parser, unknown, string][] = [
  ["check: unknown status", parseVerificationCheck, { ...check, status: "ok" }, "status"],
  ["check: id not a string", parseVerificationCheck, { ...check, id: 1 }, "id"],
  [
    "check: required not a boolean",
    parseVerificationCheck,
    { ...check, required: "true" },
    "required",
  ],
  [
    "check: suggested_tools element",
    parseVerificationCheck,
    { ...check, suggested_tools: [1] },
    "suggested_tools.0",
  ],
  [
    "check: residual_risk null",
    parseVerificationCheck,
    { ...check, residual_risk: null },
    "residual_risk",
  ],
  [
    "report: unknown schema id",
    parseVerificationReport,
    { ...report, schema: "report.v9" },
    "schema",
  ],
  ["report: unknown status", parseVerificationReport, { ...report, status: "PASSED" }, "status"],
  [
    "report: nested check status",
    parseVerificationReport,
    { ...report, checks: [{ ...check, status: 1 }] },
    "checks.0.status",
  ],
  [
    "report: checks missing",
    parseVerificationReport,
    { schema: "verification_report.v1", subject: "s", status: "passed" },
    "checks",
  ],
  [
    "report: effect_digest number",
    parseVerificationReport,
    { ...report, effect_digest: 5 },
    "effect_digest",
  ],
  ["report: not an object", parseVerificationReport, [], ""],
  [
    "summary: negative count",
    parseVerificationSummary,
    { ...summary, report_count: -1 },
    "report_count",
  ],
  [
    "summary: fractional count",
    parseVerificationSummary,
    { ...summary, failed_check_count: 0.5 },
    "failed_check_count",
  ],
  ["summary: unknown status", parseVerificationSummary, { ...summary, status: "green" }, "status"],
  [
    "command: command missing",
    parseVerificationCommand,
    { ...command, command: undefined },
    "command",
  ],
  ["command: empty command", parseVerificationCommand, { ...command, command: "" }, "command"],
  [
    "command: whitespace-only command",
    parseVerificationCommand,
    { ...command, command: " \t\n" },
    "command",
  ],
  [
    "command: timeout_ms negative",
    parseVerificationCommand,
    { ...command, timeout_ms: -1 },
    "timeout_ms",
  ],
  [
    "command: expect_exit beyond i32",
    parseVerificationCommand,
    { ...command, expect_exit: 2 ** 31 },
    "expect_exit",
  ],
  [
    "preset: command element",
    parseVerificationPreset,
    { id: "p", project_kind: "k", description: "d", commands: [{}] },
    "commands.0.id",
  ],
  ["waiver: blank reason", parseCompletionWaiver, { effect_digest: "d", reason: "   " }, "reason"],
  [
    "waiver: blank digest",
    parseCompletionWaiver,
    { effect_digest: "", reason: "r" },
    "effect_digest",
  ],
  [
    "record: content_digest missing",
    parseMutationRecord,
    { tool: "write", path: "a" },
    "content_digest",
  ],
  ["child: blank task id", parseOpenWorkspaceChild, { task_id: " " }, "task_id"],
  ["child: nongit not boolean", parseOpenWorkspaceChild, { task_id: "j", nongit: "no" }, "nongit"],
  [
    "snapshot: records element",
    parseLedgerSnapshot,
    { records: [{ tool: "w", path: 1, content_digest: "" }], digest: "" },
    "records.0.path",
  ],
  ["terminal: unknown kind", parseCompletionTerminal, { kind: "done" }, "kind"],
  [
    "terminal: verified without digest",
    parseCompletionTerminal,
    { kind: "verified" },
    "effect_digest",
  ],
  [
    "outcome: unknown reason",
    parseGateOutcome,
    { kind: "incomplete", reason: "nope", message: "m" },
    "reason",
  ],
  [
    "observation: blank digest",
    parseExternalObservation,
    { ...observation, digest: " " },
    "digest",
  ],
  [
    "observation: unknown action",
    parseExternalObservation,
    { ...observation, required_action: "fix" },
    "required_action",
  ],
  [
    "observation: payload over 8192 bytes",
    parseExternalObservation,
    { ...observation, payload: "x".repeat(8193) },
    "payload",
  ],
  ["proof: bad timestamp", parseTurnProof, { ...proof, started_at: "yesterday" }, "started_at"],
  [
    "proof: tool version not a string",
    parseTurnProof,
    { ...proof, tool_versions: { a: 1 } },
    "tool_versions.a",
  ],
  ["proof: wrong schema id", parseTurnProof, { ...proof, schema: "turn_proof.v2" }, "schema"],
];

describe("schemas: bad input", () => {
  test.each(badInputs)("%s", (_name, parse, value, path) => {
    let caught: unknown;
    try {
      parse(value);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TurngateValidationError);
    const error = caught as TurngateValidationError;
    expect(error.code).toBe("invalid_input");
    expect(error.path).toBe(path);
    expect(error.message).toContain(path === "" ? "invalid " : ` at ${path}: `);
  });

  test("a blank command is refused with the message must not be blank", () => {
    expect(() => parseVerificationCommand({ ...command, command: "  " }, "commands.0")).toThrow(
      "invalid verification command at commands.0.command: must not be blank",
    );
  });

  test("a base path prefixes every issue path", () => {
    expect(() => parseVerificationCheck({ ...check, status: 1 }, "reports.3.checks.0")).toThrow(
      'invalid verification check at reports.3.checks.0.status: Invalid option: expected one of "passed"|"failed"|"needs_review"|"skipped"',
    );
  });

  test("every issue is listed, the first one names the error", () => {
    try {
      parseVerificationCheck({ status: "x" });
    } catch (error) {
      const e = error as TurngateValidationError;
      expect(e.issues.map((i) => i.path)).toEqual(["id", "kind", "description", "status"]);
      expect(e.message).toBe(
        "invalid verification check at id: Invalid input: expected string, received undefined (+3 more)",
      );
    }
    expect.assertions(2);
  });
});

describe("schemas: defaults and ids", () => {
  test("required defaults to false for checks and commands; expect_exit to 0", () => {
    expect(parseVerificationCheck(check)).toEqual({ ...check, required: false });
    expect(parseVerificationCommand(command)).toEqual({
      ...command,
      required: false,
      expect_exit: 0,
    });
  });

  test("a report without schema gets verification_report.v1; A3S's id is kept", () => {
    const { schema: _omit, ...bare } = report;
    expect(parseVerificationReport(bare).schema).toBe("verification_report.v1");
    expect(
      parseVerificationReport({ ...report, schema: "a3s.verification_report.v1" }).schema,
    ).toBe("a3s.verification_report.v1");
  });

  test("unknown keys are dropped", () => {
    expect(parseVerificationCheck({ ...check, extra: 1 })).toEqual({ ...check, required: false });
  });

  test("a full turn_proof.v1 parses", () => {
    expect(parseTurnProof(proof)).toEqual({
      ...proof,
      reports: [{ ...report, checks: [{ ...check, required: false }] }],
    });
  });
});

describe("schemas: generated JSON Schema", () => {
  const exported = Object.entries(schemas).filter(
    ([name, value]) => name.endsWith("Schema") && value instanceof z.ZodType,
  );

  test("every record the gate writes or reads has an exported *Schema", () => {
    expect(exported.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        "CompletionTerminalSchema",
        "CompletionWaiverSchema",
        "ExternalObservationSchema",
        "GateOutcomeSchema",
        "GateReasonSchema",
        "LedgerSnapshotSchema",
        "MutationRecordSchema",
        "OpenWorkspaceChildSchema",
        "TurnProofSchema",
        "VerificationCheckSchema",
        "VerificationCommandSchema",
        "VerificationPresetSchema",
        "VerificationReportSchema",
        "VerificationStatusSchema",
        "VerificationSummarySchema",
      ]),
    );
  });

  test("each converts to JSON Schema the way the build does", () => {
    for (const [, schema] of exported) {
      expect(() =>
        z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any" }),
      ).not.toThrow();
    }
  });

  test("input JSON Schema keeps defaults optional and blank checks as a pattern", () => {
    const cmd = z.toJSONSchema(schemas.VerificationCommandSchema, { io: "input" }) as unknown as {
      required: string[];
      properties: Record<string, { default?: unknown }>;
    };
    expect(cmd.required).toEqual(["id", "kind", "description", "command"]);
    expect(cmd.properties.required?.default).toBe(false);
    expect(cmd.properties.expect_exit?.default).toBe(0);
    const waiver = z.toJSONSchema(schemas.CompletionWaiverSchema, { io: "input" }) as unknown as {
      properties: Record<string, { pattern?: string }>;
    };
    expect(waiver.properties.reason?.pattern).toBe("\\S");
    const rep = z.toJSONSchema(schemas.VerificationReportSchema, { io: "input" }) as unknown as {
      properties: { schema: { enum: string[] } };
    };
    expect(rep.properties.schema.enum).toEqual([
      "verification_report.v1",
      "a3s.verification_report.v1",
    ]);
  });
});
