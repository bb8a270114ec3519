/**
 * Check results as observations: the result-ok, exit and failure-signature rules and
 * `observationFromCommandResult` (harn-verification.md §1.4, §2.2–2.5, §2.7).
 */
import * as z from "zod";
import {
  coalesce,
  display,
  isNil,
  rustTrim,
  toInt,
  truthy,
  unwrapSnapshot,
} from "../harn-values.js";
import { truncateChars } from "../normalization.js";
import { SafeIntLike, SafeNonNegNumber } from "./safe-int.js";
import type { CheckObservation } from "./schemas.js";
import { validated } from "./validate.js";

/** Exit code recorded for a timed-out check. */
export const TIMEOUT_EXIT_CODE = 124;
/** Default cap of a failure signature, in characters (code points). */
export const DEFAULT_FAILURE_SIGNATURE_CHARS = 4000;

const Int = z.number().int();

/** The fields of a `CommandResult` (§2.5) these rules read; others are kept and ignored. */
export const CommandResultSchema = z.looseObject({
  ok: z.boolean().nullish(),
  success: z.boolean().nullish(),
  status: z.string().nullish(),
  exit_code: SafeIntLike.nullish(),
  timed_out: z.boolean().nullish(),
  stdout: z.string().nullish(),
  stderr: z.string().nullish(),
  combined: z.string().nullish(),
  duration_ms: SafeNonNegNumber.nullish(),
  execution_duration_ms: SafeNonNegNumber.nullish(),
});

/** Options of `observationFromCommandResult` (and of the check functions built on it). */
export const ObservationOptionsSchema = z.looseObject({
  warm: z.boolean().nullish(),
  cold: z.boolean().nullish(),
  duration_ms: SafeNonNegNumber.nullish(),
  exit: SafeIntLike.nullish(),
  snapshot: z.record(z.string(), z.unknown()).nullish(),
  failure_signature: z.union([z.string(), z.number(), z.boolean()]).nullish(),
  failure_signature_from: z.string().nullish(),
  max_failure_signature_chars: Int.nullish(),
  at: z.union([z.string(), z.number()]).nullish(),
  /** Clock for `recordCheckResult` (ms since the epoch). */
  now_ms: Int.nullish(),
});

export type CommandResultLike = z.output<typeof CommandResultSchema>;
export type ObservationOptions = z.output<typeof ObservationOptionsSchema>;

/**
 * Result-ok rule (§2.2): `ok` if non-nil, else `success` if non-nil, else status
 * (default `completed`) is `completed` AND `exit_code` is the integer 0 AND not `timed_out`.
 * A missing exit code is not ok. Pure. Throws `TurngateValidationError` (path `result` /
 * `result.*`) when `result` is not a command result.
 */
export function resultOk(result: CommandResultLike): boolean {
  return okOf(parseCommandResult(result));
}

function okOf(result: CommandResultLike): boolean {
  if (!isNil(result.ok)) return truthy(result.ok);
  if (!isNil(result.success)) return truthy(result.success);
  return (
    (result.status ?? "completed") === "completed" &&
    toInt(result.exit_code) === 0 &&
    !truthy(result.timed_out ?? false)
  );
}

/**
 * Exit rule (§2.3), first that applies: `options.exit` (as an integer); `result.exit_code`;
 * 124 when `status` is `timed_out` or `timed_out` is true; 0/1 from the result-ok rule
 * when `ok` or `success` is given; else `null`. Throws `TurngateValidationError` (path
 * `result.*` / `options.*`) for a malformed result or options.
 */
export function checkExit(
  result: CommandResultLike,
  options: ObservationOptions = {},
): number | null {
  return exitOf(parseCommandResult(result), parseObservationOptions(options));
}

function exitOf(result: CommandResultLike, options: ObservationOptions): number | null {
  const fromOptions = toInt(options.exit);
  if (fromOptions !== null) return fromOptions;
  const fromResult = toInt(result.exit_code);
  if (fromResult !== null) return fromResult;
  if (result.status === "timed_out" || result.timed_out === true) return TIMEOUT_EXIT_CODE;
  if (!isNil(result.ok) || !isNil(result.success)) return okOf(result) ? 0 : 1;
  return null;
}

/**
 * Failure-signature rule (§2.4): an explicit `options.failure_signature` wins (blank →
 * none; kept untrimmed, even on success); an ok result has none; else the trimmed text of
 * `failure_signature_from` (`combined` default = `result.combined` or stdout + stderr;
 * `stdout`; `stderr`; `none` → no signature; anything else → empty), truncated to
 * `max_failure_signature_chars` (default 4000) code points with the
 * `\n... truncated <N> chars ...` marker; empty text → `check <status> exit=<exit>`
 * (`status` default `failed`, a missing exit renders `nil`). Throws
 * `TurngateValidationError` (path `result.*` / `options.*`) for a malformed result or options.
 */
export function failureSignature(
  result: CommandResultLike,
  options: ObservationOptions = {},
): string | null {
  return signatureOf(parseCommandResult(result), parseObservationOptions(options));
}

function signatureOf(result: CommandResultLike, options: ObservationOptions): string | null {
  if (!isNil(options.failure_signature)) {
    const text = display(options.failure_signature);
    return rustTrim(text) === "" ? null : text;
  }
  if (okOf(result)) return null;
  const source = options.failure_signature_from ?? "combined";
  if (source === "none") return null;
  let raw = "";
  if (source === "stderr") raw = result.stderr ?? "";
  else if (source === "stdout") raw = result.stdout ?? "";
  else if (source === "combined")
    raw = result.combined ?? (result.stdout ?? "") + (result.stderr ?? "");
  const text = rustTrim(raw);
  if (text !== "") {
    const max = toInt(options.max_failure_signature_chars) ?? DEFAULT_FAILURE_SIGNATURE_CHARS;
    return truncateChars(text, max);
  }
  return `check ${display(result.status ?? "failed")} exit=${display(exitOf(result, options))}`;
}

/** Validates a command result (path `resultPath`) and observation options (path `optionsPath`). */
export function parseCommandResult(result: unknown, resultPath = "result"): CommandResultLike {
  return validated(CommandResultSchema, result, "command result", resultPath);
}

/** Validates observation options. */
export function parseObservationOptions(options: unknown, path = "options"): ObservationOptions {
  return validated(ObservationOptionsSchema, options ?? {}, "observation options", path);
}

/**
 * `verification_observation_from_command_result` (§1.4): `{warm, durationMs?, exit?,
 * snapshot?, failureSignature?, at?}` — keys only when non-nil. `warm` = `options.warm`,
 * else `!options.cold`, else true; `durationMs` (ms, integer) from `options.duration_ms`,
 * `result.duration_ms` or `result.execution_duration_ms` (floats truncated); `exit` by the
 * exit rule; `snapshot` = `options.snapshot` (a `{path: hash}` map or a file-hash snapshot,
 * unwrapped); `failureSignature` by the failure-signature rule; `at` = `options.at` as text.
 * Throws `TurngateValidationError` (path `result.*` / `options.*`) for a field of the wrong type.
 */
export function observationFromCommandResult(result: unknown, options?: unknown): CheckObservation {
  const r = parseCommandResult(result);
  const o = parseObservationOptions(options);
  const obs: CheckObservation = {
    warm: !isNil(o.warm) ? truthy(o.warm) : !isNil(o.cold) ? !truthy(o.cold) : true,
  };
  const duration = coalesce(
    toInt(o.duration_ms),
    toInt(r.duration_ms),
    toInt(r.execution_duration_ms),
  ) as number | undefined;
  if (duration !== undefined) obs.durationMs = duration;
  const exit = exitOf(r, o);
  if (exit !== null) obs.exit = exit;
  const snapshot = unwrapSnapshot(o.snapshot);
  if (!isNil(snapshot)) obs.snapshot = snapshot as Record<string, unknown>;
  const signature = signatureOf(r, o);
  if (signature !== null) obs.failureSignature = signature;
  if (!isNil(o.at)) obs.at = display(o.at);
  return obs;
}
