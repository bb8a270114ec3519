import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { diagnosticDelta, parseDiagnostics } from "../../src/index.js";

const fixture = (name: string) =>
  readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8");

describe("diagnosticDelta decision table", () => {
  test("row 1: a current diagnostic that does not feed gates is advisory", () => {
    const d = diagnosticDelta(
      { diagnostics: ["e1"] },
      { diagnostics: ["e1"], status: "bound_stale" },
    );
    expect([d.status, d.progress_credit, d.reason, d.feedsGates, d.advisory]).toEqual([
      "advisory",
      false,
      "current_diagnostic_does_not_feed_gates",
      false,
      true,
    ]);
    expect(d.count_delta).toBeUndefined();
    expect(d.removed).toEqual(["e1"]);
    expect(d.current.signatures).toEqual(["e1"]);
  });

  test("row 2: an explicit success or an empty collection clears, with credit only after a gate-bearing failure", () => {
    const cleared = diagnosticDelta({ diagnostics: ["e1", "e2"] }, { success: true });
    expect([cleared.status, cleared.progress_credit, cleared.reason]).toEqual([
      "cleared",
      true,
      "current_result_is_passing",
    ]);
    expect(cleared.removed).toEqual(["e1", "e2"]);
    expect(cleared.count_delta).toBe(-2);
    const empty = diagnosticDelta({ diagnostics: ["e1"] }, { diagnostics: [] });
    expect([empty.status, empty.progress_credit]).toEqual(["cleared", true]);
    const nothingBefore = diagnosticDelta(null, { exit_code: 0 });
    expect([nothingBefore.status, nothingBefore.progress_credit]).toEqual(["cleared", false]);
    const advisoryBefore = diagnosticDelta(
      { diagnostics: ["e1"], feedsGates: false },
      { ok: true },
    );
    expect([advisoryBefore.status, advisoryBefore.progress_credit]).toEqual(["cleared", false]);
  });

  test("row 3: a current result without failure signatures is initialized", () => {
    const d = diagnosticDelta({ diagnostics: ["e1"] }, { status: "running" });
    expect([d.status, d.progress_credit, d.reason]).toEqual([
      "initialized",
      false,
      "current_has_no_gate_bearing_failure_signature",
    ]);
  });

  test("row 4: no prior gate-bearing failure gives initialized", () => {
    for (const previous of [
      null,
      { ok: true },
      { diagnostics: ["e1"], status: "unbound" },
      { diagnostics: [] },
    ]) {
      const d = diagnosticDelta(previous, { diagnostics: ["e1"] });
      expect([d.status, d.progress_credit, d.reason]).toEqual([
        "initialized",
        false,
        "no_prior_gate_bearing_failure",
      ]);
    }
  });

  test("rows 5–7: the same signature set compares counts", () => {
    const fewer = diagnosticDelta({ diagnostics: ["e1", "e1", "e1"] }, { diagnostics: ["e1"] });
    expect([fewer.status, fewer.progress_credit, fewer.reason, fewer.count_delta]).toEqual([
      "advanced",
      true,
      "diagnostic_count_decreased",
      -2,
    ]);
    const more = diagnosticDelta({ diagnostics: ["e1"] }, { diagnostics: ["e1", "e1"] });
    expect([more.status, more.progress_credit, more.reason, more.count_delta]).toEqual([
      "regressed",
      false,
      "diagnostic_count_increased",
      1,
    ]);
    const same = diagnosticDelta({ diagnostics: ["e1", "e2"] }, { diagnostics: ["e2", "e1"] });
    expect([same.status, same.progress_credit, same.reason, same.same_signature_set]).toEqual([
      "unchanged",
      false,
      "same_diagnostic_signature_set",
      true,
    ]);
    expect(same.persisted).toEqual(["e1", "e2"]);
  });

  test("row 8: a removed signature advances even when others were added", () => {
    const d = diagnosticDelta({ diagnostics: ["e1", "e2"] }, { diagnostics: ["e2", "e3"] });
    expect([d.status, d.progress_credit, d.reason]).toEqual([
      "advanced",
      true,
      "diagnostic_signature_set_changed",
    ]);
    expect([d.removed, d.added, d.persisted]).toEqual([["e1"], ["e3"], ["e2"]]);
  });

  test("row 9: only added signatures regress", () => {
    const d = diagnosticDelta({ diagnostics: ["e1"] }, { diagnostics: ["e1", "e2"] });
    expect([d.status, d.progress_credit, d.reason]).toEqual([
      "regressed",
      false,
      "new_diagnostics_added_without_clearing_prior_signatures",
    ]);
  });

  test("an explicit count field overrides the normalized count", () => {
    const d = diagnosticDelta(
      { diagnostics: ["e1"], error_count: 5 },
      { diagnostics: ["e1"], diagnostic_count: "3" },
    );
    expect([d.status, d.previous.count, d.current.count]).toEqual(["advanced", 5, 3]);
  });

  test("a failing result with no text becomes a synthetic signature", () => {
    const d = diagnosticDelta({ exit_code: 2 }, { exit: 2, status: "FAILED" });
    expect(d.previous.signatures).toEqual(["failed check failed exit=2"]);
    expect(d.current.signatures).toEqual(["failed check failed exit=2"]);
    expect(d.status).toBe("unchanged");
  });

  test("Harn's documented example: the same message at another line is unchanged", () => {
    const d = diagnosticDelta(
      { diagnostics: ["src/a.zig:10:2: error: missing writeEscaped"] },
      { diagnostics: ["src/a.zig:44:9: error: missing writeEscaped"] },
      { row: { diagnosticDelta: { strip_locations: true } } },
    );
    expect(d.status).toBe("unchanged");
    // The path:line:col run becomes a space; the colon after it stays (Harn's pipeline).
    expect(d.current.signatures).toEqual([": error: missing writeescaped"]);
  });
});

describe("diagnosticDelta on real tsc output", () => {
  const before = parseDiagnostics("tsc", fixture("tsc/before.txt"));

  test("inserting blank lines above the diagnostics leaves the delta unchanged", () => {
    const shifted = parseDiagnostics("tsc", fixture("tsc/shifted.txt"));
    expect(shifted.diagnostics.map((d) => d.line)).toEqual([5, 3, 16, 17, 18]);
    const d = diagnosticDelta(before, shifted);
    expect([d.status, d.reason, d.same_signature_set, d.count_delta]).toEqual([
      "unchanged",
      "same_diagnostic_signature_set",
      true,
      0,
    ]);
  });

  test("a fix advances with progress credit; a clean run clears", () => {
    const after = parseDiagnostics("tsc", fixture("tsc/after.txt"));
    const d = diagnosticDelta(before, after);
    expect([d.status, d.progress_credit, d.reason]).toEqual([
      "advanced",
      true,
      "diagnostic_signature_set_changed",
    ]);
    expect(d.removed).toEqual(["ts2304 cannot find name 'missingvalue'."]);
    expect(d.added).toEqual([]);
    const clean = diagnosticDelta(after, parseDiagnostics("tsc", fixture("tsc/clean.txt")));
    expect([clean.status, clean.progress_credit]).toEqual(["cleared", true]);
  });
});

describe("diagnosticDelta normalization knobs", () => {
  const sig = (entry: unknown, options: Record<string, unknown> = {}) =>
    diagnosticDelta(null, { diagnostics: [entry] }, options).current.signatures;

  const entry = {
    path: "src/Main.ts",
    line: 7,
    column: 3,
    severity: "Error",
    code: "TS2322",
    message:
      "\u001b[31mType   'A'\u001b[0m at /tmp/build-1/x.ts:9:1 line 12\tin /var/folders/ab/T/y.ts",
  };

  test("defaults lowercase, strip ANSI, locations and temp paths, collapse whitespace, include the code", () => {
    expect(sig(entry)).toEqual(["ts2322 type 'a' at in"]);
  });

  test("each default-on knob can be switched off", () => {
    expect(sig(entry, { lowercase: false })).toEqual(["TS2322 Type 'A' at in"]);
    expect(sig(entry, { strip_ansi: false })).toEqual(["ts2322 \u001b[31mtype 'a'\u001b[0m at in"]);
    expect(sig(entry, { strip_locations: false })).toEqual(["ts2322 type 'a' at :9:1 line 12 in"]);
    expect(sig(entry, { strip_temp_paths: false })).toEqual([
      "ts2322 type 'a' at in /var/folders/ab/t/y.ts",
    ]);
    expect(sig(entry, { collapse_whitespace: false })).toEqual(["ts2322 type   'a' at    \tin  "]);
    expect(sig(entry, { include_code: false })).toEqual(["type 'a' at in"]);
  });

  test("include_path and include_severity add parts; the location keeps line:col only without strip_locations", () => {
    expect(sig(entry, { include_path: true, include_severity: true })).toEqual([
      "src/main.ts error ts2322 type 'a' at in",
    ]);
    expect(sig(entry, { include_path: true, strip_locations: false, lowercase: false })).toEqual([
      "src/Main.ts:7:3 TS2322 Type 'A' at :9:1 line 12 in",
    ]);
  });

  test("max_chars truncates by code point and says how much was dropped", () => {
    expect(sig({ message: "😀😀😀abcdef" }, { max_chars: 4 })).toEqual([
      "😀😀😀a\n... truncated 5 chars ...",
    ]);
    expect(sig({ message: "abc" }, { max_chars: 3 })).toEqual(["abc"]);
    expect(sig({ message: "x".repeat(4005) })).toEqual([
      `${"x".repeat(4000)}\n... truncated 5 chars ...`,
    ]);
    expect(sig({ message: "x".repeat(4005) }, { max_chars: 0 })).toEqual(["x".repeat(4005)]);
  });

  test("replacements, strip_patterns and ignore_patterns use Rust regex syntax", () => {
    const diagnostics = [
      "Error in worker-17: timeout",
      "Error in worker-3: timeout",
      "note: flaky",
    ];
    const d = diagnosticDelta(
      null,
      { diagnostics },
      {
        replacements: [{ pattern: "worker-(?P<n>\\d+)", replacement: "worker-N" }],
        ignore_patterns: ["^note:"],
      },
    );
    expect(d.current.signatures).toEqual(["error in worker-n: timeout"]);
    expect(d.current.count).toBe(2);
    expect(sig("id=abc123 done", { strip_patterns: ["id=\\w+"] })).toEqual(["done"]);
    expect(sig("a\u00a0b", { replacements: ["\\s"], lowercase: false })).toEqual(["a b"]);
  });

  test("precedence: defaults < row < row.check < direct dict < top-level knobs", () => {
    const row = {
      diagnosticDelta: { lowercase: false, custom: 1 },
      check: { signature_normalization: { include_code: false } },
    };
    const d = diagnosticDelta(null, { diagnostics: [{ code: "C1", message: "Msg" }] }, { row });
    expect(d.current.signatures).toEqual(["Msg"]);
    expect(d.normalization).toMatchObject({
      lowercase: false,
      include_code: false,
      custom: 1,
      max_chars: 4000,
    });
    const direct = diagnosticDelta(
      null,
      { diagnostics: [{ code: "C1", message: "Msg" }] },
      {
        row,
        diagnostic_delta: { include_code: true },
        signatureNormalization: { lowercase: true },
      },
    );
    expect(direct.current.signatures).toEqual(["C1 Msg"]);
    const top = diagnosticDelta(
      null,
      { diagnostics: [{ code: "C1", message: "Msg" }] },
      { row, lowercase: true },
    );
    expect(top.current.signatures).toEqual(["msg"]);
  });

  test("bad knob types and bad patterns are typed errors naming the field", () => {
    expect(() =>
      diagnosticDelta(null, "x", { row: { diagnosticDelta: { lowercase: "no" } } }),
    ).toThrow(
      expect.objectContaining({ code: "invalid_input", path: "row.diagnosticDelta.lowercase" }),
    );
    expect(() => diagnosticDelta(null, "x", { max_chars: "lots" })).toThrow(
      expect.objectContaining({ code: "invalid_input", path: "max_chars" }),
    );
    expect(() => diagnosticDelta(null, "x", { replacements: [{ pattern: "(?=x)" }] })).toThrow(
      expect.objectContaining({ code: "invalid_regex", path: "replacements.0.pattern" }),
    );
    expect(() => diagnosticDelta(null, "x", { ignore_patterns: ["ok", "(a)\\1"] })).toThrow(
      expect.objectContaining({ code: "invalid_regex", path: "ignore_patterns.1" }),
    );
  });
});
