import * as z from "zod";
import { positiveOrNull, readJsonRoot, unparsedElement } from "./json-util.js";
import type { DiagnosticParser, ParsedDiagnostic, UnparsedInput } from "./types.js";

const Position = z.looseObject({
  line: z.number().int().min(0),
  character: z.number().int().min(0),
});

/** One pyright `--outputjson` diagnostic (the fields we read). */
export const PyrightDiagnosticSchema = z.looseObject({
  file: z.string().optional(),
  uri: z.string().optional(),
  severity: z.enum(["error", "warning", "information"]),
  message: z.string(),
  range: z.looseObject({ start: Position }).optional(),
  rule: z.string().optional(),
});

const Root = z.looseObject({ generalDiagnostics: z.array(z.unknown()) });

/**
 * pyright `--outputjson`: `{generalDiagnostics: [{file, severity, message, range: {start:
 * {line, character}}, rule?}]}`. Positions are 0-based in pyright and become 1-based here;
 * `information` → `info`; `rule` is the code (null when absent). Entries that do not
 * match go to `unparsed` with their JSON pointer.
 */
export const parsePyright: DiagnosticParser = (text) => {
  const root = readJsonRoot("pyright", Root, text);
  const diagnostics: ParsedDiagnostic[] = [];
  const unparsed: UnparsedInput[] = [];
  root.generalDiagnostics.forEach((raw, i) => {
    const d = PyrightDiagnosticSchema.safeParse(raw);
    if (!d.success) {
      unparsed.push(unparsedElement(`/generalDiagnostics/${i}`, raw, d.error));
      return;
    }
    const start = d.data.range?.start;
    diagnostics.push({
      path: d.data.file ?? d.data.uri ?? null,
      line: start ? positiveOrNull(start.line + 1) : null,
      column: start ? positiveOrNull(start.character + 1) : null,
      severity: d.data.severity === "information" ? "info" : d.data.severity,
      code: d.data.rule ?? null,
      message: d.data.message,
      source: "pyright",
    });
  });
  return { diagnostics, unparsed };
};
