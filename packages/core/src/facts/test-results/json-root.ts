import type * as z from "zod";
import { pointer } from "../parsers/json-util.js";
import { TestResultsParseError, type UnparsedTestInput } from "./types.js";
import { parseJsonDocument } from "./util.js";

/** Validates a document root; throws TestResultsParseError naming the first bad field (JSON pointer). */
export function readRoot<T>(format: string, schema: z.ZodType<T>, text: string): T {
  const value = parseJsonDocument(format, text);
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new TestResultsParseError(
    format,
    pointer(issue?.path ?? []),
    issue?.message ?? "unexpected shape",
  );
}

/** An element of a JSON document that does not have the expected shape, as `unparsed`. */
export function badElement(at: string, value: unknown, error: z.ZodError): UnparsedTestInput {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? `${pointer(issue.path).slice(1)}: ` : "";
  return {
    line: null,
    pointer: at,
    text: JSON.stringify(value) ?? "undefined",
    reason: `${where}${issue?.message ?? "unexpected shape"}`,
  };
}
