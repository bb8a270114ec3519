import * as z from "zod";
import { JsonArrayRoot, positiveOrNull, readJsonRoot, unparsedElement } from "./json-util.js";
import type { DiagnosticParser, ParsedDiagnostic, UnparsedInput } from "./types.js";

/** One ESLint `-f json` message (the fields we read; others pass through). */
export const EslintMessageSchema = z.looseObject({
  ruleId: z.string().nullable().optional(),
  severity: z.union([z.literal(0), z.literal(1), z.literal(2)]),
  message: z.string(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  fatal: z.boolean().optional(),
});

/** One file entry of ESLint `-f json`. */
export const EslintFileSchema = z.looseObject({
  filePath: z.string(),
  messages: z.array(z.unknown()),
});

/**
 * ESLint `-f json`: an array of `{filePath, messages: [{ruleId, severity, message, line,
 * column, fatal?}]}`. Severity 2 → error, 1 → warning (0 is "off" and skipped); a parse
 * error (`ruleId: null`, `fatal: true`) gets code null. A message or file entry that does
 * not match is returned in `unparsed` with its JSON pointer.
 */
export const parseEslint: DiagnosticParser = (text) => {
  const files = readJsonRoot("eslint", JsonArrayRoot, text);
  const diagnostics: ParsedDiagnostic[] = [];
  const unparsed: UnparsedInput[] = [];
  files.forEach((rawFile, fi) => {
    const file = EslintFileSchema.safeParse(rawFile);
    if (!file.success) {
      unparsed.push(unparsedElement(`/${fi}`, rawFile, file.error));
      return;
    }
    file.data.messages.forEach((rawMessage, mi) => {
      const m = EslintMessageSchema.safeParse(rawMessage);
      if (!m.success) {
        unparsed.push(unparsedElement(`/${fi}/messages/${mi}`, rawMessage, m.error));
        return;
      }
      if (m.data.severity === 0) return;
      diagnostics.push({
        path: file.data.filePath,
        line: positiveOrNull(m.data.line),
        column: positiveOrNull(m.data.column),
        severity: m.data.severity === 2 ? "error" : "warning",
        code: m.data.ruleId ?? null,
        message: m.data.message,
        source: "eslint",
      });
    });
  });
  return { diagnostics, unparsed };
};
