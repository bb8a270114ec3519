/**
 * `facts.parse_test_results` (issue #16): a test runner's machine-readable results read by
 * `@turngate/core`'s `parseTestResults`. Stateless and pure, so also served in-process
 * under Pyodide.
 */
import { parseTestResults, TEST_RESULT_FORMATS } from "@turngate/core";
import { ParsedTestResultsSchema } from "@turngate/core/schemas";
import * as z from "zod";
import { BridgeError } from "../errors.js";
import { defineMethod } from "../method.js";
import { toBridgeError } from "../rpc/dispatch.js";

export const factsTestResultsMethods = {
  "facts.parse_test_results": defineMethod({
    description:
      "Parses a test runner's machine-readable results into tests [{id, name, suite, file, status: passed|failed|skipped|errored, duration_ms, message}], totals {tests, passed, failed, skipped, errored}, errors (suite-level failures no single test carries: collection/build errors, unhandled errors, failed hooks, counts that do not add up — treat them like failed tests) and unparsed input (line or JSON pointer, text, reason). Formats: junit (surefire, pytest --junitxml, jest-junit, gotestsum, node --test --test-reporter=junit), tap (13/14, subtests, YAML diagnostics), ctrf, go_test_json (go test -json), jest_json (Jest --json, Vitest --reporter=json), pytest_reportlog (pytest --report-log), libtest (cargo test text). Test ids are unique within the result. Errors: test_results_parse_error (path text) for empty text or an XML/JSON document that is malformed, truncated, nested deeper than 512 levels or of the wrong shape at its root; the message names the line or JSON pointer.",
    params: z.strictObject({
      format: z.enum(TEST_RESULT_FORMATS),
      text: z.string().describe("the results file's or the runner's output text"),
    }),
    result: ParsedTestResultsSchema,
    handler: (p) => {
      try {
        return parseTestResults(p.format, p.text);
      } catch (error) {
        const wire = toBridgeError(error);
        // The parser names a line or JSON pointer inside the text; on the wire the field is `text`.
        if (wire.code === "test_results_parse_error") {
          throw new BridgeError(wire.code, wire.message, "text");
        }
        throw wire;
      }
    },
  }),
};
