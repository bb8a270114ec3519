/**
 * Issue #11 §5: exact-value tests for `observeToolResult` (packages/core/src/ledger/observe.ts),
 * written against the mutants Stryker found alive: the exact errors (bad tool or exit code,
 * cycles, the nesting limit of 64 levels, a hasher that fails), ASCII lower-casing of tool
 * names at the ends of A–Z, and which nested calls are followed. Content digests are literal:
 * the SHA-256 of the metadata's canonical JSON, e.g.
 *   printf '%s' '{"file_path":"kept.txt"}' | sha256sum
 * The mutants that stay alive are listed in stryker/equivalent/ledger-observe.md.
 */
import { describe, expect, test } from "vitest";
import {
  type ContentHasher,
  MAX_NESTED_TOOL_DEPTH,
  NOBLE_CONTENT_HASHER,
  observeToolResult,
  TurngateValidationError,
} from "../../src/index.js";

/** `{message, path}` of the TurngateValidationError `run` throws. */
function rejection(run: () => unknown): { message: string; path: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof TurngateValidationError)) throw error;
    return { message: error.message, path: error.path };
  }
  throw new Error("did not throw");
}

/** SHA-256 of `{"file_path":"kept.txt"}`. */
const KEPT_DIGEST = "8fc7525ca9d1e8565d8c103dff7c0278bc680222a8a9bb46912490748d82a89b";
/** SHA-256 of `{"file_path":"deep.txt"}`. */
const DEEP_DIGEST = "938fc851bf25ab7144b8fa083c87d79b77eb8c4761badec6dbc24c085d42440d";

/** A successful nested call in `results` form. */
function call(tool: string, metadata: unknown): Record<string, unknown> {
  return { tool, success: true, exit_code: 0, metadata };
}

/**
 * Metadata whose write of deep.txt sits `levels` nested `results` below the top: the
 * innermost metadata is met with `levels` ancestors.
 */
function nested(levels: number): Record<string, unknown> {
  let metadata: Record<string, unknown> = { file_path: "deep.txt" };
  for (let i = 0; i < levels; i++) {
    metadata = { results: [call(i === 0 ? "write" : "bash", metadata)] };
  }
  return metadata;
}

/** The path of the metadata `levels` nested `results` below the top. */
function nestedPath(levels: number): string {
  return `metadata${".results.0.metadata".repeat(levels)}`;
}

describe("observeToolResult: errors for its arguments", () => {
  test("a tool that is not a string", () => {
    expect(rejection(() => observeToolResult(7 as unknown as string, 0, {}))).toEqual({
      message: "invalid tool result at tool: expected a string",
      path: "tool",
    });
  });

  test("an exit code that is not an integer", () => {
    expect(rejection(() => observeToolResult("bash", 1.5, {}))).toEqual({
      message: "invalid tool result at exit_code: expected an integer",
      path: "exit_code",
    });
  });
});

describe("observeToolResult: cycles and the nesting limit", () => {
  test("a result that contains itself through results", () => {
    const metadata: Record<string, unknown> = {};
    metadata.results = [call("bash", metadata)];
    expect(rejection(() => observeToolResult("bash", 0, metadata))).toEqual({
      message: "invalid tool result at metadata.results.0.metadata: nested tool calls form a cycle",
      path: "metadata.results.0.metadata",
    });
  });

  test("a cycle through program.tool_calls names that field", () => {
    const metadata: Record<string, unknown> = {};
    metadata.program = {
      tool_calls: [{ tool_name: "bash", success: true, exit_code: 0, metadata }],
    };
    expect(rejection(() => observeToolResult("bash", 0, metadata))).toEqual({
      message:
        "invalid tool result at metadata.program.tool_calls.0.metadata: nested tool calls form a cycle",
      path: "metadata.program.tool_calls.0.metadata",
    });
  });

  test(`${MAX_NESTED_TOOL_DEPTH} nested levels are followed`, () => {
    expect(MAX_NESTED_TOOL_DEPTH).toBe(64);
    expect(observeToolResult("bash", 0, nested(64))).toEqual({
      rows: [{ tool: "write", path: "deep.txt", content_digest: DEEP_DIGEST }],
      workspaceChildren: [],
    });
  });

  test("65 nested levels are an error at the 65th", () => {
    expect(rejection(() => observeToolResult("bash", 0, nested(65)))).toEqual({
      message: `invalid tool result at ${nestedPath(65)}: nested tool calls deeper than 64 levels`,
      path: nestedPath(65),
    });
  });
});

describe("observeToolResult: a hasher that fails", () => {
  /** A hasher whose `sha256Hex` throws `error`. */
  function failing(error: Error): ContentHasher {
    return {
      sha256Hex: () => {
        throw error;
      },
      textSink: () => NOBLE_CONTENT_HASHER.textSink(),
    };
  }

  test("a validation error without issues is re-thrown at the metadata's path as 'invalid'", () => {
    const hasher = failing(new TurngateValidationError("hash", []));
    expect(rejection(() => observeToolResult("write", 0, { file_path: "a" }, hasher))).toEqual({
      message: "invalid tool metadata at metadata: invalid",
      path: "metadata",
    });
    const metadata = { results: [call("edit", { file_path: "b" })] };
    expect(rejection(() => observeToolResult("bash", 0, metadata, hasher))).toEqual({
      message: "invalid tool metadata at metadata.results.0.metadata: invalid",
      path: "metadata.results.0.metadata",
    });
  });

  test("a validation error with an issue keeps its message, under the metadata's path", () => {
    const hasher = failing(
      new TurngateValidationError("hash", [{ path: "after", message: "too long" }]),
    );
    expect(rejection(() => observeToolResult("bash", 0, { changed_paths: ["a"] }, hasher))).toEqual(
      { message: "invalid tool metadata at metadata.after: too long", path: "metadata.after" },
    );
  });

  test("any other error is thrown as it is", () => {
    const boom = new RangeError("boom");
    let thrown: unknown;
    try {
      observeToolResult("write", 0, { file_path: "a" }, failing(boom));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(boom);
  });
});

describe("observeToolResult: tool names are ASCII-lowercased", () => {
  test.each([
    ["A", "a"],
    ["Z", "z"],
    ["BASH", "bash"],
    ["Bash", "bash"],
    ["@[`{", "@[`{"],
    ["ÄBC", "Äbc"],
  ])("%s → %s", (tool, key) => {
    expect(observeToolResult(tool, 1, { changed_paths: ["kept.txt"] }).rows).toEqual([
      {
        tool: key,
        path: "kept.txt",
        // SHA-256 of {"changed_paths":["kept.txt"]}
        content_digest: "44347c425990e00daecc5ba0eacb852ecec15098feee15516ffafba4b79a6d4c",
      },
    ]);
  });

  test("an all-uppercase direct mutation tool is one (WRITE, EDIT)", () => {
    expect(observeToolResult("WRITE", 0, { file_path: "kept.txt" }).rows).toEqual([
      { tool: "write", path: "kept.txt", content_digest: KEPT_DIGEST },
    ]);
    expect(
      observeToolResult("EDIT", 0, {
        file_path: "kept.txt",
        results: [call("write", { file_path: "ignored.txt" })],
      }).rows,
    ).toEqual([
      {
        tool: "edit",
        path: "kept.txt",
        // SHA-256 of {"file_path":"kept.txt","results":[{"exit_code":0,"metadata":{"file_path":"ignored.txt"},"success":true,"tool":"write"}]}
        content_digest: "ffb7720b650a4c4563da31d2d368399e0729852bc92502d24754771d39db3de0",
      },
    ]);
  });
});

describe("observeToolResult: which nested calls are followed", () => {
  test("non-object entries and calls with an empty name are skipped", () => {
    const metadata = {
      results: [
        null,
        7,
        "write",
        [call("write", { file_path: "array.txt" })],
        call("", { changed_paths: ["unnamed.txt"] }),
        call("write", { file_path: "kept.txt" }),
      ],
      program: {
        tool_calls: [
          null,
          { tool_name: "", success: true, exit_code: 0, metadata: { changed_paths: ["x.txt"] } },
        ],
      },
    };
    expect(observeToolResult("bash", 0, metadata)).toEqual({
      rows: [{ tool: "write", path: "kept.txt", content_digest: KEPT_DIGEST }],
      workspaceChildren: [],
    });
  });
});
