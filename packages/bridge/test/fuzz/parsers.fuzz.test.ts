/**
 * Fuzz of every diagnostic parser (issue #11 §1): tool-shaped output with hostile
 * positions, spliced fixtures, deep JSON and random text. Invariants: `parseDiagnostics`
 * returns a result that validates against `facts.parse_diagnostics`'s result schema in
 * protocol.json (so line/column are 1..2^53−1 or null), or throws its typed
 * `diagnostic_parse_error` — nothing else; through the bridge the same text gets the same
 * result or `diagnostic_parse_error` at path `text`.
 */
import { dispatchStateless, isBridgeError } from "@turngate/bridge/pure";
import { DIAGNOSTIC_FORMATS, DiagnosticParseError, parseDiagnostics } from "@turngate/core";
import fc from "fast-check";
import { describe, test } from "vitest";
import { fcRuns, fuzzTimeout } from "./lib/config.js";
import { resultProblem } from "./lib/protocol-schema.js";
import { toolOutput } from "./lib/tool-output.js";

const SHARE = 0.3 / DIAGNOSTIC_FORMATS.length;

describe("fuzz: diagnostic parsers", () => {
  test.each(DIAGNOSTIC_FORMATS)(
    "%s: a result valid against protocol.json, or diagnostic_parse_error",
    (format) => {
      for (const params of fcRuns(220, SHARE))
        fc.assert(
          fc.property(toolOutput(format), (text) => {
            let direct: unknown;
            try {
              direct = parseDiagnostics(format, text);
            } catch (error) {
              if (!(error instanceof DiagnosticParseError)) {
                throw new Error(
                  `${format} threw ${(error as Error)?.name}: ${(error as Error)?.message}`,
                );
              }
              direct = error;
            }
            let wire: unknown;
            try {
              wire = dispatchStateless("facts.parse_diagnostics", { format, text });
            } catch (error) {
              if (
                !isBridgeError(error) ||
                error.code !== "diagnostic_parse_error" ||
                error.path !== "text"
              ) {
                throw new Error(
                  `bridge refused ${format} with ${JSON.stringify(isBridgeError(error) ? error.toWire() : String(error))}`,
                );
              }
              if (!(direct instanceof DiagnosticParseError))
                throw new Error("bridge refused what core parsed");
              return;
            }
            if (direct instanceof DiagnosticParseError)
              throw new Error("bridge parsed what core refused");
            const problem = resultProblem(
              "facts.parse_diagnostics",
              JSON.parse(JSON.stringify(wire)),
            );
            if (problem !== null)
              throw new Error(`${format} result outside protocol.json: ${problem}`);
          }),
          params,
        );
    },
    fuzzTimeout(60_000, SHARE),
  );
});
