/**
 * Text generators for the diagnostic parsers: output shaped like each tool's (so the
 * parsers' success paths run) with hostile positions (0, negative, 1e20, 2^53, long digit
 * runs), hostile messages and paths, real fixtures spliced with fragments, deep JSON,
 * garbage lines and random text.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { DiagnosticFormat } from "@turngate/core";
import fc from "fast-check";
import { deepText, weirdNumber, weirdString } from "./arbitraries.js";

const FIXTURES = new URL("../../../../core/test/facts/fixtures/", import.meta.url);

/** Fixture texts of each format (from packages/core/test/facts/fixtures). */
export function fixtures(format: DiagnosticFormat): string[] {
  const dir: Record<DiagnosticFormat, [string, string]> = {
    tsc: ["tsc", ""],
    eslint: ["eslint", ""],
    sarif: ["sarif", ""],
    cargo: ["cargo", ""],
    ruff: ["ruff", ""],
    pyright: ["pyright", ""],
    go_vet: ["go-vet", ""],
    rdjson: ["rdjson", ".rdjson"],
    rdjsonl: ["rdjson", ".rdjsonl"],
  };
  const [folder, ext] = dir[format];
  const url = new URL(`${folder}/`, FIXTURES);
  return readdirSync(url)
    .filter((n) => n.endsWith(ext))
    .sort()
    .map((n) => readFileSync(new URL(n, url), "utf8"));
}

/** Position digits: valid, 0, huge, and digit runs past 2^53. */
const digits: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 1, max: 5000 }).map(String),
  fc.constantFrom("0", "00", "9007199254740991", "9007199254740992", "100000000000000000000"),
  fc.stringMatching(/^[0-9]{1,40}$/),
);
/** A position as a JSON number. */
const posNumber: fc.Arbitrary<number> = fc.oneof(fc.integer({ min: 1, max: 5000 }), weirdNumber);
const word = fc.oneof(fc.stringMatching(/^[A-Za-z_./-]{1,12}$/), weirdString);
const messageText = fc.oneof(fc.stringMatching(/^[ -~]{0,40}$/), weirdString);

const tscLine = fc.oneof(
  fc
    .tuple(
      word,
      digits,
      digits,
      fc.constantFrom("error", "warning", "message"),
      digits,
      messageText,
    )
    .map(([p, l, c, s, n, m]) => `${p}(${l},${c}): ${s} TS${n}: ${m}`),
  fc
    .tuple(fc.constantFrom("error", "warning"), digits, messageText)
    .map(([s, n, m]) => `${s} TS${n}: ${m}`),
  messageText.map((m) => `  ${m}`),
);

const goVetLine = fc.oneof(
  fc.tuple(word, digits, digits, messageText).map(([p, l, c, m]) => `vet: ${p}:${l}:${c}: ${m}`),
  word.map((p) => `# ${p}`),
  fc
    .tuple(
      word,
      word,
      fc.array(fc.tuple(word, digits, fc.option(digits), messageText), { maxLength: 3 }),
      fc.boolean(),
    )
    .map(([pkg, analyzer, findings, pretty]) => {
      const doc = {
        [pkg]: {
          [analyzer]: findings.map(([f, l, c, m]) => ({
            posn: c === null ? `${f}:${l}` : `${f}:${l}:${c}`,
            message: m,
          })),
        },
      };
      return pretty ? JSON.stringify(doc, null, "\t") : JSON.stringify(doc);
    }),
  fc
    .tuple(word, word, messageText)
    .map(([p, a, e]) => JSON.stringify({ [p]: { [a]: { error: e } } })),
  fc.constant("{"),
  fc.constant('{"unterminated": "'),
);

const cargoLine = fc.oneof(
  fc
    .tuple(
      messageText,
      fc.constantFrom("error", "warning", "note", "failure-note", "error: internal compiler error"),
      word,
      posNumber,
      posNumber,
      fc.boolean(),
      fc.option(word),
    )
    .map(([m, level, f, l, c, primary, code]) =>
      JSON.stringify({
        reason: "compiler-message",
        message: {
          message: m,
          level,
          code: code === null ? null : { code },
          spans: [{ file_name: f, line_start: l, column_start: c, is_primary: primary }],
        },
      }),
    ),
  fc.constant('{"reason":"compiler-artifact"}'),
  fc.constant('{"reason":"build-finished","success":false}'),
  messageText.map((m) => `   Compiling ${m}`),
);

const rdjsonDiagnostic = fc
  .tuple(
    messageText,
    fc.option(word),
    fc.option(posNumber),
    fc.option(posNumber),
    fc.option(
      fc.oneof(
        fc.constantFrom("ERROR", "WARNING", "INFO", "UNKNOWN_SEVERITY"),
        fc.integer({ min: -1, max: 4 }),
      ),
    ),
    fc.option(word),
  )
  .map(([message, path, line, column, severity, code]) => {
    const d: Record<string, unknown> = { message };
    const start: Record<string, unknown> = {};
    if (line !== null) start.line = line;
    if (column !== null) start.column = column;
    d.location = { ...(path === null ? {} : { path }), range: { start } };
    if (severity !== null) d.severity = severity;
    if (code !== null) d.code = { value: code };
    return d;
  });

const lineFormats: Partial<Record<DiagnosticFormat, fc.Arbitrary<string>>> = {
  tsc: tscLine,
  go_vet: goVetLine,
  cargo: cargoLine,
  rdjsonl: rdjsonDiagnostic.map((d) => JSON.stringify(d)),
};

const eslintDoc = fc
  .array(
    fc.tuple(
      word,
      fc.array(
        fc.tuple(
          fc.option(word),
          fc.constantFrom(0, 1, 2, 3),
          messageText,
          fc.option(posNumber),
          fc.option(posNumber),
        ),
        { maxLength: 4 },
      ),
    ),
    { maxLength: 4 },
  )
  .map((files) =>
    files.map(([filePath, messages]) => ({
      filePath,
      messages: messages.map(([ruleId, severity, message, line, column]) => ({
        ruleId,
        severity,
        message,
        ...(line === null ? {} : { line }),
        ...(column === null ? {} : { column }),
      })),
    })),
  );

const ruffDoc = fc.array(
  fc
    .tuple(fc.option(word), messageText, word, fc.option(fc.tuple(posNumber, posNumber)))
    .map(([code, message, filename, loc]) => ({
      code,
      message,
      filename,
      location: loc === null ? null : { row: loc[0], column: loc[1] },
    })),
  { maxLength: 5 },
);

const pyrightDoc = fc
  .array(
    fc
      .tuple(
        word,
        fc.constantFrom("error", "warning", "information", "hint"),
        messageText,
        fc.option(fc.tuple(posNumber, posNumber)),
      )
      .map(([file, severity, message, start]) => ({
        file,
        severity,
        message,
        ...(start === null ? {} : { range: { start: { line: start[0], character: start[1] } } }),
      })),
    { maxLength: 5 },
  )
  .map((generalDiagnostics) => ({ generalDiagnostics }));

const sarifDoc = fc
  .array(
    fc.tuple(
      fc.option(word),
      fc.constantFrom("error", "warning", "note", "none", "bogus"),
      messageText,
      fc.option(word),
      fc.option(posNumber),
      fc.option(posNumber),
      fc.option(fc.constantFrom("fail", "pass", "open")),
    ),
    { maxLength: 5 },
  )
  .map((results) => ({
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "fuzz" } },
        results: results.map(([ruleId, level, text, uri, startLine, startColumn, kind]) => ({
          ...(ruleId === null ? {} : { ruleId }),
          level,
          ...(kind === null ? {} : { kind }),
          message: { text },
          locations: [
            {
              physicalLocation: {
                ...(uri === null ? {} : { artifactLocation: { uri } }),
                region: {
                  ...(startLine === null ? {} : { startLine }),
                  ...(startColumn === null ? {} : { startColumn }),
                },
              },
            },
          ],
        })),
      },
    ],
  }));

const rdjsonDoc = fc
  .array(rdjsonDiagnostic, { maxLength: 5 })
  .map((diagnostics) => ({ source: { name: "fuzz" }, diagnostics }));

const documentFormats: Partial<Record<DiagnosticFormat, fc.Arbitrary<unknown>>> = {
  eslint: eslintDoc,
  ruff: ruffDoc,
  pyright: pyrightDoc,
  sarif: sarifDoc,
  rdjson: rdjsonDoc,
};

/** Splices random fragments into a real fixture (cut, insert, duplicate). */
function spliced(format: DiagnosticFormat): fc.Arbitrary<string> {
  const texts = fixtures(format);
  return fc
    .tuple(
      fc.constantFrom(...texts),
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.nat({ max: 40 }),
          fc.oneof(
            weirdString,
            fc.constantFrom("{", "}", "[", "]", '"', ",", ":", "\n", "0", "-1", "1e20"),
          ),
        ),
        { maxLength: 4 },
      ),
    )
    .map(([text, cuts]) => {
      let t = text;
      for (const [at, len, insert] of cuts) {
        const i = t.length === 0 ? 0 : at % t.length;
        t = t.slice(0, i) + insert + t.slice(i + len);
      }
      return t;
    });
}

/** Deep JSON as text: 100 to 100,000 levels, as a document or as one line of a line format. */
const deepJson: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(fc.integer({ min: 500, max: 520 }), fc.integer({ min: 1000, max: 100_000 })),
    fc.constantFrom("array" as const, "object" as const),
  )
  .map(([levels, kind]) => deepText(levels, kind));

/** Hostile text for `format`: tool-shaped, spliced fixtures, deep JSON, or random. */
export function toolOutput(format: DiagnosticFormat): fc.Arbitrary<string> {
  const shaped = lineFormats[format]
    ? fc
        .array(
          fc.oneof(
            { weight: 6, arbitrary: lineFormats[format] as fc.Arbitrary<string> },
            { weight: 1, arbitrary: fc.constantFrom("", "\r", "garbage") },
            { weight: 1, arbitrary: deepJson },
          ),
          { maxLength: 12 },
        )
        .map((ls) => ls.join("\n"))
    : (documentFormats[format] as fc.Arbitrary<unknown>).map((d) => JSON.stringify(d));
  return fc.oneof(
    { weight: 6, arbitrary: shaped },
    { weight: 2, arbitrary: spliced(format) },
    { weight: 1, arbitrary: deepJson.map((t) => (lineFormats[format] ? `{"a":${t}}` : t)) },
    {
      weight: 1,
      arbitrary: fc.oneof(
        fc.string(),
        fc.jsonValue().map((v) => JSON.stringify(v)),
      ),
    },
  );
}
