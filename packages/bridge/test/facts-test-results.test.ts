/**
 * `facts.parse_test_results` through `@turngate/bridge/pure`, as the Pyodide transport
 * calls it (params validated, the result checked against its schema).
 */
import { BridgeError, dispatchStateless } from "@turngate/bridge/pure";
import { describe, expect, test } from "vitest";

const call = (method: string, params: unknown) =>
  dispatchStateless(method, params, { validateResult: true }) as Record<string, unknown>;

function wireError(params: unknown): { code: string; path: string | undefined; message: string } {
  try {
    dispatchStateless("facts.parse_test_results", params);
  } catch (error) {
    expect(error).toBeInstanceOf(BridgeError);
    const data = (error as BridgeError).toWire().data;
    return { code: data.code, path: data.path, message: data.message };
  }
  throw new Error("facts.parse_test_results did not fail");
}

describe("facts.parse_test_results", () => {
  test("a JUnit document with a failure, a skip and a suite error", () => {
    const text =
      '<testsuites><testsuite name="unit" failures="1" skipped="1" tests="3"><testcase classname="m" name="ok" time="0.002"/><testcase classname="m" name="größe" time="0.5"><failure message="expected 1, got 2">trace</failure></testcase><testcase classname="m" name="later"><skipped/></testcase></testsuite><!-- Error: late --></testsuites>';
    expect(call("facts.parse_test_results", { format: "junit", text })).toEqual({
      schema: "turngate.parsed_test_results.v1",
      format: "junit",
      tests: [
        {
          id: "unit > m::ok",
          name: "ok",
          suite: "unit > m",
          file: null,
          status: "passed",
          duration_ms: 2,
          message: null,
        },
        {
          id: "unit > m::größe",
          name: "größe",
          suite: "unit > m",
          file: null,
          status: "failed",
          duration_ms: 500,
          message: "expected 1, got 2",
        },
        {
          id: "unit > m::later",
          name: "later",
          suite: "unit > m",
          file: null,
          status: "skipped",
          duration_ms: null,
          message: null,
        },
      ],
      totals: { tests: 3, passed: 1, failed: 1, skipped: 1, errored: 0 },
      errors: [{ suite: null, file: null, message: "Error: late" }],
      unparsed: [],
    });
  });

  test("unreadable text is test_results_parse_error at text; an unknown format is invalid_params", () => {
    expect(wireError({ format: "junit", text: "<testsuites><testsuite>" })).toEqual({
      code: "test_results_parse_error",
      path: "text",
      message:
        "cannot parse junit test results at line:1: unclosed <testsuites>, <testsuite> (a truncated document?)",
    });
    expect(wireError({ format: "ctrf", text: "" }).code).toBe("test_results_parse_error");
    expect(wireError({ format: "xunit", text: "x" })).toMatchObject({
      code: "invalid_params",
      path: "format",
    });
  });
});
