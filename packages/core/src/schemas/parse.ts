/**
 * Validators for every wire/file record: each takes an unknown value, returns the parsed
 * (normalised, defaults applied, unknown keys dropped) plain object, or throws
 * `TurngateValidationError` whose `path` names the first bad field (e.g. `checks.0.status`).
 * These are the main entry's way in; the zod schemas stay on the `/schemas` subpath.
 */
import type * as z from "zod";
import { TurngateValidationError } from "../errors.js";
import { type VerificationCheck, VerificationCheckSchema } from "./check.js";
import {
  type VerificationCommand,
  VerificationCommandSchema,
  type VerificationPreset,
  VerificationPresetSchema,
} from "./command.js";
import {
  type LedgerSnapshot,
  LedgerSnapshotSchema,
  type MutationRecord,
  MutationRecordSchema,
  type OpenWorkspaceChild,
  OpenWorkspaceChildSchema,
} from "./ledger.js";
import { type ExternalObservation, ExternalObservationSchema } from "./observation.js";
import { type GateOutcome, GateOutcomeSchema } from "./outcome.js";
import { type TurnProof, TurnProofSchema } from "./proof.js";
import { type VerificationReport, VerificationReportSchema } from "./report.js";
import {
  type DsseEnvelope,
  DsseEnvelopeSchema,
  type TurnProofStatement,
  TurnProofStatementSchema,
} from "./signed-proof.js";
import { type VerificationSummary, VerificationSummarySchema } from "./summary.js";
import { type CompletionTerminal, CompletionTerminalSchema } from "./terminal.js";
import { type CompletionWaiver, CompletionWaiverSchema } from "./waiver.js";

/**
 * Joins a prefix path and a relative path with ".", skipping empty parts. A `base` that is
 * not a string (a caller's optional path argument given a hostile value) counts as the
 * root `""`, so building an error message never throws.
 */
export function joinPath(base: string, rest: string): string {
  if (typeof base !== "string" || base === "") return rest;
  if (rest === "") return base;
  return `${base}.${rest}`;
}

/**
 * Parses `value` with `schema`. `label` names the record in the message ("verification
 * report"); `basePath` prefixes every issue path (e.g. `"reports.2"` when validating one
 * element of a list). Throws `TurngateValidationError`.
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  label: string,
  basePath = "",
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: joinPath(basePath, issue.path.map((key) => String(key)).join(".")),
    message: issue.message,
  }));
  throw new TurngateValidationError(label, issues);
}

/**
 * Validates a list: `value` must be an array (else `TurngateValidationError` at `path`);
 * each element goes through `item` with path `path.N`.
 */
export function parseList<T>(
  value: unknown,
  label: string,
  path: string,
  item: (element: unknown, path: string) => T,
): T[] {
  if (!Array.isArray(value)) {
    throw new TurngateValidationError(label, [{ path, message: "expected an array" }]);
  }
  return value.map((element, i) => item(element, joinPath(path, String(i))));
}

/** Validates a `VerificationCheck` (A3S §1.2); `required` defaults to false. */
export function parseVerificationCheck(value: unknown, path = ""): VerificationCheck {
  return parseWith(VerificationCheckSchema, value, "verification check", path);
}

/** Validates a `verification_report.v1` / `a3s.verification_report.v1` report (A3S §1.3). */
export function parseVerificationReport(value: unknown, path = ""): VerificationReport {
  return parseWith(VerificationReportSchema, value, "verification report", path);
}

/** Validates a `VerificationSummary` (A3S §1.4). */
export function parseVerificationSummary(value: unknown, path = ""): VerificationSummary {
  return parseWith(VerificationSummarySchema, value, "verification summary", path);
}

/** Validates a `VerificationCommand` (A3S §1.5); `required`=false, `expect_exit`=0 defaults. */
export function parseVerificationCommand(value: unknown, path = ""): VerificationCommand {
  return parseWith(VerificationCommandSchema, value, "verification command", path);
}

/** Validates a `VerificationPreset` (A3S §1.6). */
export function parseVerificationPreset(value: unknown, path = ""): VerificationPreset {
  return parseWith(VerificationPresetSchema, value, "verification preset", path);
}

/** Validates a `completion_waiver.v1` (A3S §1.11): both fields non-blank, kept untrimmed. */
export function parseCompletionWaiver(value: unknown, path = ""): CompletionWaiver {
  return parseWith(CompletionWaiverSchema, value, "completion waiver", path);
}

/** Validates a `MutationRecord` (A3S §1.8). */
export function parseMutationRecord(value: unknown, path = ""): MutationRecord {
  return parseWith(MutationRecordSchema, value, "mutation record", path);
}

/** Validates an `OpenWorkspaceChild` (A3S §1.8). */
export function parseOpenWorkspaceChild(value: unknown, path = ""): OpenWorkspaceChild {
  return parseWith(OpenWorkspaceChildSchema, value, "open workspace child", path);
}

/** Validates the shape of a `LedgerSnapshot` (use `MutationLedger.fromJSON` to load one). */
export function parseLedgerSnapshot(value: unknown, path = ""): LedgerSnapshot {
  return parseWith(LedgerSnapshotSchema, value, "ledger snapshot", path);
}

/** Validates a `CompletionTerminal` (A3S §1.9). */
export function parseCompletionTerminal(value: unknown, path = ""): CompletionTerminal {
  return parseWith(CompletionTerminalSchema, value, "completion terminal", path);
}

/** Validates a `GateOutcome` (A3S §2.7 with typed reasons). */
export function parseGateOutcome(value: unknown, path = ""): GateOutcome {
  return parseWith(GateOutcomeSchema, value, "gate outcome", path);
}

/** Validates an `external_observation.v1` (A3S §1.14): non-blank digest, ≤ 8192-byte payload. */
export function parseExternalObservation(value: unknown, path = ""): ExternalObservation {
  return parseWith(ExternalObservationSchema, value, "external observation", path);
}

/** Validates a `turn_proof.v1` (docs/design.md §3 "Proof"). */
export function parseTurnProof(value: unknown, path = ""): TurnProof {
  return parseWith(TurnProofSchema, value, "turn proof", path);
}

/** Validates the JSON form of a DSSE v1.0 envelope (payload, payloadType, signatures). */
export function parseDsseEnvelope(value: unknown, path = ""): DsseEnvelope {
  return parseWith(DsseEnvelopeSchema, value, "DSSE envelope", path);
}

/** Validates an in-toto Statement v1 whose predicate is a `turn_proof.v1` (issue 10). */
export function parseTurnProofStatement(value: unknown, path = ""): TurnProofStatement {
  return parseWith(TurnProofStatementSchema, value, "in-toto statement", path);
}
