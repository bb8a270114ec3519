import { z } from "zod";
import { DiagnosticParseError, type UnparsedInput } from "./types.js";

/** Parses a whole-document JSON output; throws DiagnosticParseError (path `""`) when it is not JSON. */
export function parseJsonDocument(format: string, text: string): unknown {
  const body = text.replace(/^\uFEFF/, "").trim();
  if (body === "")
    throw new DiagnosticParseError(format, "", "empty output (expected a JSON document)");
  try {
    return JSON.parse(body);
  } catch (err) {
    throw new DiagnosticParseError(format, "", `not JSON: ${(err as Error).message}`);
  }
}

/**
 * Parses one JSON record of a line-oriented output. On a syntax error it appends an
 * `unparsed` entry (`line`, `text` as given, reason `not JSON: <parser message>`) and
 * returns `undefined` (JSON.parse never yields `undefined` itself).
 */
export function parseJsonRecord(
  body: string,
  line: number,
  text: string,
  unparsed: UnparsedInput[],
): unknown {
  try {
    return JSON.parse(body);
  } catch (err) {
    unparsed.push({ line, pointer: null, text, reason: `not JSON: ${(err as Error).message}` });
    return undefined;
  }
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

/** A positive integer or null. */
export function positiveOrNull(value: number | null | undefined): number | null {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : null;
}
