/**
 * The pure `facts.*` bridge methods, called in-process through `@turngate/bridge/pure`
 * exactly as the Pyodide transport calls them (params validated, results checked against
 * their schemas). Expected values are worked out by hand from harn-verification.md
 * (§1.2 staleness, §1.5 classify, §1.11 decision table, §1.12 gate input, §3.7
 * normalization) and docs/design.md §4 (the rung rule); the derivation is noted next to each.
 */
import { BridgeError, dispatchStateless } from "@turngate/bridge/pure";
import { describe, expect, test } from "vitest";

const call = (method: string, params: unknown) =>
  dispatchStateless(method, params, { validateResult: true }) as Record<string, unknown>;

/** The wire error `method` answers with: `{code, path}` of its `data`. */
function wireError(method: string, params: unknown): { code: string; path: string | undefined } {
  try {
    dispatchStateless(method, params);
  } catch (error) {
    expect(error).toBeInstanceOf(BridgeError);
    const data = (error as BridgeError).toWire().data;
    return { code: data.code, path: data.path };
  }
  throw new Error(`${method} did not fail`);
}

/** Defaults of §3.7 step 1, as the merged `normalization` echoes them. */
const DEFAULT_NORMALIZATION = {
  lowercase: true,
  strip_ansi: true,
  strip_locations: true,
  strip_temp_paths: true,
  collapse_whitespace: true,
  include_path: false,
  include_code: true,
  include_severity: false,
  max_chars: 4000,
  replacements: [],
  ignore_patterns: [],
  strip_patterns: [],
};

const TS2322 = "Type 'string' is not assignable to type 'number'.";
/** Signature of a TS2322 entry: code, then message, lowercased (§3.7). */
const SIG_TS2322 = "ts2322 type 'string' is not assignable to type 'number'.";
const SIG_TS2304 = "ts2304 cannot find name 'foo'.";

describe("facts.snapshot_staleness", () => {
  test("a changed and an absent bound path make the snapshot bound_stale (current unwrapped from a snapshot)", () => {
    // Bound keys in byte order a, b, c: a equal, b differs, c absent from current → stale b, c.
    expect(
      call("facts.snapshot_staleness", {
        bound_snapshot: { "src/b.ts": "2", "src/a.ts": "1", "src/c.ts": "3" },
        current_hashes: { seq: 0, snapshot: { "src/a.ts": "1", "src/b.ts": "9" } },
      }),
    ).toEqual({
      schema: "harn.verification.snapshot_staleness.v1",
      status: "bound_stale",
      stale: true,
      fresh: false,
      staleFiles: ["src/b.ts", "src/c.ts"],
      stale_files: ["src/b.ts", "src/c.ts"],
      changed_files: ["src/b.ts", "src/c.ts"],
      advisory: true,
      reason: "snapshot superseded or unverifiable for 2 file(s); re-check before trusting",
    });
  });

  test("equal hashes are bound_fresh; a null binding is unbound", () => {
    expect(
      call("facts.snapshot_staleness", {
        bound_snapshot: { "src/a.ts": "1" },
        current_hashes: { "src/a.ts": "1" },
      }),
    ).toMatchObject({
      status: "bound_fresh",
      stale: false,
      fresh: true,
      staleFiles: [],
      advisory: false,
      reason: "snapshot matches current file hashes",
    });
    expect(call("facts.snapshot_staleness", { bound_snapshot: null, current_hashes: {} })).toEqual({
      schema: "harn.verification.snapshot_staleness.v1",
      status: "unbound",
      stale: false,
      fresh: false,
      staleFiles: [],
      stale_files: [],
      changed_files: [],
      advisory: true,
      reason: "diagnostic carries no file-hash snapshot binding",
    });
  });

  test("a bound snapshot that is not an object, or a missing current_hashes, is invalid_params", () => {
    expect(
      wireError("facts.snapshot_staleness", { bound_snapshot: "abc", current_hashes: {} }),
    ).toEqual({ code: "invalid_params", path: "bound_snapshot" });
    expect(wireError("facts.snapshot_staleness", { bound_snapshot: {} })).toEqual({
      code: "invalid_params",
      path: "current_hashes",
    });
  });
});

describe("facts.diagnostic_classify", () => {
  test("hashes compare as typed JSON: a number where the snapshot has a string is stale", () => {
    // rung " R2 " trims to "R2"; at is a string; b.ts "2" ≠ 2 → bound_stale, 1 file.
    expect(
      call("facts.diagnostic_classify", {
        envelope: {
          rung: " R2 ",
          rowId: "row-1",
          at: "2025-01-01T00:00:00Z",
          snapshot: { "a.ts": "1", "b.ts": "2" },
        },
        current_hashes: { "a.ts": "1", "b.ts": 2 },
      }),
    ).toEqual({
      rung: "R2",
      rowId: "row-1",
      status: "bound_stale",
      staleFiles: ["b.ts"],
      feedsGates: false,
      advisory: true,
      reason: "snapshot superseded for 1 file(s); re-check before trusting",
    });
  });

  test("an integer rung does not bind; omitted current_hashes is {}", () => {
    expect(
      call("facts.diagnostic_classify", { envelope: { rung: 2, at: 1, snapshot: { a: "1" } } }),
    ).toEqual({
      status: "unbound",
      staleFiles: [],
      feedsGates: false,
      advisory: true,
      reason: "diagnostic carries no rung+timestamp+snapshot binding; advisory only",
    });
    expect(
      call("facts.diagnostic_classify", { envelope: { rung: "R0", at: 1, snapshot: { a: "1" } } }),
    ).toMatchObject({ status: "bound_stale", staleFiles: ["a"] });
  });

  test("current_hashes that is a list is invalid_params", () => {
    expect(wireError("facts.diagnostic_classify", { envelope: null, current_hashes: [] })).toEqual({
      code: "invalid_params",
      path: "current_hashes",
    });
  });
});

describe("facts.diagnostic_delta", () => {
  const tsc = (line: number) => ({
    diagnostics: [{ path: "src/a.ts", line, column: 5, code: "TS2322", message: TS2322 }],
  });

  test("a diagnostic moved down one line is unchanged (line numbers stay out of signatures)", () => {
    expect(call("facts.diagnostic_delta", { previous: tsc(3), current: tsc(4) })).toEqual({
      schema: "harn.verification.diagnostic_delta.v1",
      status: "unchanged",
      progress_credit: false,
      feedsGates: true,
      feeds_gates: true,
      advisory: false,
      reason: "same_diagnostic_signature_set",
      previous: { count: 1, feedsGates: true, feeds_gates: true, signatures: [SIG_TS2322] },
      current: { count: 1, feedsGates: true, feeds_gates: true, signatures: [SIG_TS2322] },
      removed: [],
      added: [],
      persisted: [SIG_TS2322],
      same_signature_set: true,
      normalization: DEFAULT_NORMALIZATION,
      count_delta: 0,
    });
  });

  test("options reach the normalization: include_path adds the path, max_chars truncates", () => {
    // "src/a.ts TS2322 Type …" lowercased, cut to 12 chars + the §3.7 marker.
    const full = `src/a.ts ${SIG_TS2322}`;
    const cut = `${full.slice(0, 12)}\n... truncated ${full.length - 12} chars ...`;
    const delta = call("facts.diagnostic_delta", {
      previous: null,
      current: tsc(3),
      options: { include_path: true, max_chars: 12 },
    });
    expect(delta.current).toEqual({
      count: 1,
      feedsGates: true,
      feeds_gates: true,
      signatures: [cut],
    });
    expect([delta.status, delta.reason]).toEqual(["initialized", "no_prior_gate_bearing_failure"]);
    expect(delta.normalization).toEqual({
      ...DEFAULT_NORMALIZATION,
      include_path: true,
      max_chars: 12,
    });
  });

  test("bad options: a wrong knob type, an unknown key, a look-around pattern", () => {
    expect(
      wireError("facts.diagnostic_delta", { previous: [], current: [], options: { lowercase: 1 } }),
    ).toEqual({ code: "invalid_params", path: "options.lowercase" });
    expect(
      wireError("facts.diagnostic_delta", {
        previous: [],
        current: [],
        options: { ignorePatterns: [] },
      }),
    ).toEqual({ code: "invalid_params", path: "options.ignorePatterns" });
    expect(
      wireError("facts.diagnostic_delta", {
        previous: [],
        current: [],
        options: { row: { check: { diagnostic_delta: { strip_ansi: "no" } } } },
      }),
    ).toEqual({ code: "invalid_params", path: "options.row.check.diagnostic_delta.strip_ansi" });
    expect(
      wireError("facts.diagnostic_delta", {
        previous: [],
        current: [],
        options: { replacements: [{ pattern: "(?<=a)b" }] },
      }),
    ).toEqual({ code: "invalid_regex", path: "options.replacements.0.pattern" });
    expect(wireError("facts.diagnostic_delta", { previous: [] })).toEqual({
      code: "invalid_params",
      path: "current",
    });
  });
});

describe("facts.gate_input", () => {
  const hashes = { "src/a.ts": "12" };
  const failure = (rung: string, hash: string) => ({
    rung,
    at: "t1",
    snapshot: { "src/a.ts": hash },
    diagnostics: [{ code: "TS2322", message: TS2322 }],
  });
  const green = (rung: string) => ({ rung, at: "t2", snapshot: hashes, success: true });
  const verdict = (g: Record<string, unknown>) => ({
    status: g.status,
    reason: g.reason,
    feedsGates: g.feedsGates,
    progress_credit: g.progress_credit,
    gate_bearing_failure: g.gate_bearing_failure,
    blocks_completion: g.blocks_completion,
    delta_status: (g.delta as { status: string }).status,
    rung_comparison: g.rung_comparison,
  });

  test("a green at a lower rung than the failure is advisory lower_rung_green (change from Harn)", () => {
    // Delta: cleared with credit (success over a fresh gate-bearing failure); rung 1 < 3.
    expect(
      verdict(
        call("facts.gate_input", {
          previous: failure("R3", "12"),
          current: green("R1"),
          current_hashes: hashes,
        }),
      ),
    ).toEqual({
      status: "advisory",
      reason: "lower_rung_green",
      feedsGates: false,
      progress_credit: false,
      gate_bearing_failure: true,
      blocks_completion: true,
      delta_status: "cleared",
      rung_comparison: {
        previous_rung: "R3",
        current_rung: "R1",
        previous_rank: 3,
        current_rank: 1,
        outcome: "lower",
      },
    });
  });

  test("a green at the same rung clears the failure with progress credit", () => {
    expect(
      verdict(
        call("facts.gate_input", {
          previous: failure("R3", "12"),
          current: green("r3"),
          current_hashes: hashes,
        }),
      ),
    ).toEqual({
      status: "cleared",
      reason: "current_result_is_passing",
      feedsGates: true,
      progress_credit: true,
      gate_bearing_failure: false,
      blocks_completion: false,
      delta_status: "cleared",
      rung_comparison: {
        previous_rung: "R3",
        current_rung: "r3",
        previous_rank: 3,
        current_rank: 3,
        outcome: "same_or_higher",
      },
    });
  });

  test("a stale previous is no baseline: the fresh failure after it is initialized", () => {
    const g = call("facts.gate_input", {
      previous: failure("R3", "11"),
      current: failure("R3", "12"),
      current_hashes: hashes,
    });
    expect(verdict(g)).toEqual({
      status: "initialized",
      reason: "no_prior_gate_bearing_failure",
      feedsGates: true,
      progress_credit: false,
      gate_bearing_failure: true,
      blocks_completion: true,
      delta_status: "initialized",
      rung_comparison: {
        previous_rung: "R3",
        current_rung: "R3",
        previous_rank: 3,
        current_rank: 3,
        outcome: "not_applicable",
      },
    });
    expect((g.previous as { classification: unknown }).classification).toEqual({
      rung: "R3",
      status: "bound_stale",
      staleFiles: ["src/a.ts"],
      feedsGates: false,
      advisory: true,
      reason: "snapshot superseded for 1 file(s); re-check before trusting",
    });
  });

  test("an ignore pattern with a backreference is invalid_regex under options", () => {
    expect(
      wireError("facts.gate_input", {
        previous: null,
        current: "x",
        options: { ignore_patterns: ["(a)\\1"] },
      }),
    ).toEqual({ code: "invalid_regex", path: "options.ignore_patterns.0" });
  });

  // Issue 36 (fuzz seed 1563118123, path 17870): a single-string pattern was named `.0`,
  // and a list's blank or repeated entries shifted the index of the ones after them.
  test("a bad pattern is named as sent: the string itself, or its index in the list", () => {
    const at = (patterns: unknown) =>
      wireError("facts.gate_input", {
        previous: null,
        current: "x",
        options: { ignore_patterns: patterns, strip_patterns: ["ok", ""] },
      });
    expect(at("~+PM@Rf!{(")).toEqual({ code: "invalid_regex", path: "options.ignore_patterns" });
    expect(at(["", "a", " a ", "("])).toEqual({
      code: "invalid_regex",
      path: "options.ignore_patterns.3",
    });
    expect(
      wireError("facts.diagnostic_delta", {
        previous: null,
        current: "x",
        options: { strip_patterns: [" ", "[z-a]"] },
      }),
    ).toEqual({ code: "invalid_regex", path: "options.strip_patterns.1" });
  });
});

describe("facts.parse_diagnostics", () => {
  const before = [
    `src/a.ts(3,5): error TS2322: ${TS2322}`,
    "src/b.ts(10,1): error TS2304: Cannot find name 'foo'.",
    "",
  ].join("\n");
  const after = ["", `src/a.ts(4,5): error TS2322: ${TS2322}`, "Found 1 error."].join("\n");

  test("tsc text: one diagnostic per error line, other lines unparsed with their line number", () => {
    expect(call("facts.parse_diagnostics", { format: "tsc", text: after })).toEqual({
      schema: "turngate.parsed_diagnostics.v1",
      format: "tsc",
      diagnostics: [
        {
          path: "src/a.ts",
          line: 4,
          column: 5,
          severity: "error",
          code: "TS2322",
          message: TS2322,
          source: "tsc",
        },
      ],
      unparsed: [
        {
          line: 3,
          pointer: null,
          text: "Found 1 error.",
          reason: "not a tsc --pretty false diagnostic line",
        },
      ],
    });
  });

  test("two parsed tsc outputs, before and after a fix, are an advanced delta with progress credit", () => {
    const previous = call("facts.parse_diagnostics", { format: "tsc", text: before });
    const current = call("facts.parse_diagnostics", { format: "tsc", text: after });
    expect(call("facts.diagnostic_delta", { previous, current })).toMatchObject({
      status: "advanced",
      progress_credit: true,
      reason: "diagnostic_signature_set_changed",
      removed: [SIG_TS2304],
      added: [],
      persisted: [SIG_TS2322],
      count_delta: -1,
    });
  });

  test("SARIF keeps ruleId, level and partialFingerprints", () => {
    const sarif = {
      version: "2.1.0",
      runs: [
        {
          tool: { driver: { name: "CodeQL" } },
          results: [
            {
              ruleId: "js/unused-local-variable",
              level: "note",
              message: { text: "Unused variable x." },
              locations: [
                {
                  physicalLocation: {
                    artifactLocation: { uri: "src/a.js" },
                    region: { startLine: 7, startColumn: 3 },
                  },
                },
              ],
              partialFingerprints: { primaryLocationLineHash: "abc:1" },
            },
          ],
        },
      ],
    };
    expect(
      call("facts.parse_diagnostics", { format: "sarif", text: JSON.stringify(sarif) }).diagnostics,
    ).toEqual([
      {
        path: "src/a.js",
        line: 7,
        column: 3,
        severity: "info",
        code: "js/unused-local-variable",
        message: "Unused variable x.",
        source: "CodeQL",
        fingerprints: { primaryLocationLineHash: "abc:1" },
      },
    ]);
  });

  test("text that is not JSON is diagnostic_parse_error at text; an unknown format is invalid_params", () => {
    expect(wireError("facts.parse_diagnostics", { format: "eslint", text: "oops" })).toEqual({
      code: "diagnostic_parse_error",
      path: "text",
    });
    expect(wireError("facts.parse_diagnostics", { format: "mypy", text: "" })).toEqual({
      code: "invalid_params",
      path: "format",
    });
  });
});
