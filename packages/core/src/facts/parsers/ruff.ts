import * as z from "zod";
import { JsonArrayRoot, positiveOrNull, readJsonRoot, unparsedElement } from "./json-util.js";
import type { DiagnosticParser, ParsedDiagnostic, UnparsedInput } from "./types.js";

const Location = z.looseObject({ row: z.number().int(), column: z.number().int() });

/** One Ruff `--output-format=json` violation (the fields we read). */
export const RuffViolationSchema = z.looseObject({
  code: z.string().nullable().optional(),
  message: z.string(),
  filename: z.string(),
  location: Location.nullable().optional(),
  severity: z.string().optional(),
});

/**
 * Ruff `check --output-format=json`: an array of `{code, message, filename, location: {row,
 * column}, …}` (1-based). Ruff reports violations as errors unless the entry carries a
 * `severity` of `warning`/`info`; a syntax error has code `invalid-syntax` (or null in older
 * versions). Entries that do not match go to `unparsed` with their JSON pointer.
 */
export const parseRuff: DiagnosticParser = (text) => {
  const items = readJsonRoot("ruff", JsonArrayRoot, text);
  const diagnostics: ParsedDiagnostic[] = [];
  const unparsed: UnparsedInput[] = [];
  items.forEach((raw, i) => {
    const v = RuffViolationSchema.safeParse(raw);
    if (!v.success) {
      unparsed.push(unparsedElement(`/${i}`, raw, v.error));
      return;
    }
    const sev = v.data.severity?.toLowerCase();
    diagnostics.push({
      path: v.data.filename,
      line: positiveOrNull(v.data.location?.row),
      column: positiveOrNull(v.data.location?.column),
      severity:
        sev === "warning" ? "warning" : sev === "info" || sev === "information" ? "info" : "error",
      code: v.data.code ?? null,
      message: v.data.message,
      source: "ruff",
    });
  });
  return { diagnostics, unparsed };
};
