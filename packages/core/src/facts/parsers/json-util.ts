import * as z from "zod";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "../../ledger/json.js";
import { DiagnosticParseError, type UnparsedInput } from "./types.js";

/** Reason given for a JSON value nested deeper than `MAX_JSON_DEPTH` (512) levels. */
export const TOO_DEEP = `nests deeper than ${MAX_JSON_DEPTH} levels`;

/**
 * Parses a whole-document JSON output; throws DiagnosticParseError (path `""`) when it is
 * not JSON or nests deeper than `MAX_JSON_DEPTH` (512) levels — the one depth limit where a
 * document enters (issue #11 §2), so later `JSON.stringify` of its parts cannot overflow the
 * call stack.
 */
export function parseJsonDocument(format: string, text: string): unknown {
  const body = text.replace(/^\uFEFF/, "").trim();
  if (body === "")
    throw new DiagnosticParseError(format, "", "empty output (expected a JSON document)");
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw new DiagnosticParseError(format, "", `not JSON: ${(err as Error).message}`);
  }
  if (exceedsJsonDepth(value)) throw new DiagnosticParseError(format, "", TOO_DEEP);
  return value;
}

/**
 * Parses one JSON record of a line-oriented output. On a syntax error it appends an
 * `unparsed` entry (`line`, `text` as given, reason `not JSON: <parser message>`) and
 * returns `undefined` (JSON.parse never yields `undefined` itself); a record nested deeper
 * than `MAX_JSON_DEPTH` (512) levels is unparsed the same way, reason `nests deeper than 512
 * levels`.
 */
export function parseJsonRecord(
  body: string,
  line: number,
  text: string,
  unparsed: UnparsedInput[],
): unknown {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    unparsed.push({ line, pointer: null, text, reason: `not JSON: ${(err as Error).message}` });
    return undefined;
  }
  if (exceedsJsonDepth(value)) {
    unparsed.push({ line, pointer: null, text, reason: TOO_DEEP });
    return undefined;
  }
  return value;
}

/** Root schema of the formats whose document is a bare JSON array (ESLint, Ruff). */
export const JsonArrayRoot = z.array(z.unknown());

/**
 * A whole-document JSON output checked against its root schema: `parseJsonDocument`
 * then `parseRoot`. Throws DiagnosticParseError (path `""` when not JSON, else the JSON
 * pointer of the first bad field).
 */
export function readJsonRoot<T>(format: string, schema: z.ZodType<T>, text: string): T {
  return parseRoot(format, schema, parseJsonDocument(format, text));
}

/** Validates the document root; throws DiagnosticParseError naming the first bad field. */
export function parseRoot<T>(format: string, schema: z.ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new DiagnosticParseError(
    format,
    pointer(issue?.path ?? []),
    issue?.message ?? "unexpected shape",
  );
}

/** JSON pointer (RFC 6901) of a path. */
export function pointer(path: readonly PropertyKey[]): string {
  return path.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** An unparsed element of a JSON document, with the reason zod gave. */
export function unparsedElement(at: string, value: unknown, error: z.ZodError): UnparsedInput {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? `${pointer(issue.path).slice(1)}: ` : "";
  return {
    line: null,
    pointer: at,
    text: JSON.stringify(value) ?? "undefined",
    reason: `${where}${issue?.message ?? "unexpected shape"}`,
  };
}

/**
 * A 1-based position as the schema allows it: an integer from 1 to 2^53−1 (a safe
 * integer), else null — 0, negatives, fractions, 1e20 and non-numbers all become null
 * (issue #11 class 3). Used by every parser for `line` and `column`.
 */
export function positiveOrNull(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** A decimal digit string (a regex capture) as a position: `positiveOrNull(Number(digits))`. */
export function positionOf(digits: string | undefined): number | null {
  return digits === undefined ? null : positiveOrNull(Number(digits));
}
