import { describe, expect, test } from "vitest";
import {
  checkExit,
  failureSignature,
  observationFromCommandResult,
  recordCheckResult,
  resultOk,
  TurngateValidationError,
} from "../../../src/index.js";

describe("result-ok rule (§2.2)", () => {
  test("ok, then success, then completed + exit 0 + not timed out", () => {
    expect(resultOk({ ok: false, exit_code: 0 })).toBe(false);
    expect(resultOk({ ok: true, exit_code: 1 })).toBe(true);
    expect(resultOk({ success: true, exit_code: 3 })).toBe(true);
    expect(resultOk({ success: false, exit_code: 0 })).toBe(false);
    expect(resultOk({ exit_code: 0 })).toBe(true);
    expect(resultOk({ exit_code: "0" })).toBe(true);
    expect(resultOk({ status: "failed", exit_code: 0 })).toBe(false);
    expect(resultOk({ exit_code: 0, timed_out: true })).toBe(false);
    expect(resultOk({ status: "completed" })).toBe(false);
  });
});

describe("exit rule (§2.3)", () => {
  test("options.exit, exit_code, timed out → 124, ok/success → 0/1, else null", () => {
    expect(checkExit({ exit_code: 2 }, { exit: 7 })).toBe(7);
    expect(checkExit({ exit_code: 2 })).toBe(2);
    expect(checkExit({ status: "timed_out", exit_code: null })).toBe(124);
    expect(checkExit({ timed_out: true })).toBe(124);
    expect(checkExit({ ok: true })).toBe(0);
    expect(checkExit({ success: false })).toBe(1);
    expect(checkExit({ status: "failed" })).toBeNull();
  });
});

describe("failure-signature rule (§2.4)", () => {
  const failed = { status: "failed", exit_code: 1, stdout: " out ", stderr: "err\n" };
  test("an explicit signature wins, untrimmed, even on success; blank → none", () => {
    expect(failureSignature({ exit_code: 0 }, { failure_signature: " mine " })).toBe(" mine ");
    expect(failureSignature(failed, { failure_signature: "  " })).toBeNull();
  });
  test("an ok result has no signature", () => {
    expect(failureSignature({ exit_code: 0, stderr: "warn" })).toBeNull();
  });
  test("sources: combined (default), stdout, stderr, none, other", () => {
    expect(failureSignature(failed)).toBe("out err");
    expect(failureSignature({ ...failed, combined: " both " })).toBe("both");
    expect(failureSignature(failed, { failure_signature_from: "stdout" })).toBe("out");
    expect(failureSignature(failed, { failure_signature_from: "stderr" })).toBe("err");
    expect(failureSignature(failed, { failure_signature_from: "none" })).toBeNull();
    expect(failureSignature(failed, { failure_signature_from: "log" })).toBe("check failed exit=1");
  });
  test("empty text falls back to check <status> exit=<exit> (nil exit prints nil)", () => {
    expect(failureSignature({ status: "timed_out", timed_out: true })).toBe(
      "check timed_out exit=124",
    );
    expect(failureSignature({})).toBe("check failed exit=nil");
  });
  test("truncation keeps max_failure_signature_chars code points and appends the marker", () => {
    expect(
      failureSignature({ exit_code: 1, stderr: "é😀abcdef" }, { max_failure_signature_chars: 3 }),
    ).toBe("é😀a\n... truncated 5 chars ...");
    const long = "x".repeat(4005);
    expect(failureSignature({ exit_code: 1, stderr: long })).toBe(
      `${"x".repeat(4000)}\n... truncated 5 chars ...`,
    );
  });
});

describe("observationFromCommandResult (§1.4)", () => {
  test("a timed-out run: exit 124, cold, duration from the result, snapshot unwrapped", () => {
    expect(
      observationFromCommandResult(
        { status: "timed_out", timed_out: true, exit_code: null, duration_ms: 1500.9, stdout: "" },
        { cold: true, snapshot: { snapshot: { "a.ts": "1" }, seq: 0 }, at: 17 },
      ),
    ).toEqual({
      warm: false,
      durationMs: 1500,
      exit: 124,
      snapshot: { "a.ts": "1" },
      failureSignature: "check timed_out exit=124",
      at: "17",
    });
  });
  test("a green run: warm by default, no signature; options.duration_ms wins", () => {
    expect(
      observationFromCommandResult(
        { exit_code: 0, duration_ms: 5, execution_duration_ms: 4 },
        { duration_ms: 9 },
      ),
    ).toEqual({ warm: true, durationMs: 9, exit: 0 });
    expect(
      observationFromCommandResult({ ok: true, execution_duration_ms: 4 }, { warm: false }),
    ).toEqual({ warm: false, durationMs: 4, exit: 0 });
  });
  test("malformed results and options name the field", () => {
    const path = (r: unknown, o?: unknown) => {
      try {
        observationFromCommandResult(r, o);
      } catch (error) {
        expect(error).toBeInstanceOf(TurngateValidationError);
        return (error as TurngateValidationError).path;
      }
      return "no error";
    };
    expect(path("exit 0")).toBe("result");
    expect(path({ exit_code: true })).toBe("result.exit_code");
    expect(path({ stdout: 5 })).toBe("result.stdout");
    expect(path({ duration_ms: -1 })).toBe("result.duration_ms");
    expect(path({}, { warm: "yes" })).toBe("options.warm");
    expect(path({}, { snapshot: "abc" })).toBe("options.snapshot");
    expect(path({}, { max_failure_signature_chars: 1.5 })).toBe(
      "options.max_failure_signature_chars",
    );
    expect(path({}, [])).toBe("options");
  });

  // Issue 36: options.exit -1e20 gave a success whose exit its own schema rejects.
  test("an exit or a duration past ±(2^53−1) is refused at its field, never a success", () => {
    const refusal = (r: unknown, o?: unknown) => {
      try {
        return observationFromCommandResult(r, o);
      } catch (error) {
        const e = error as TurngateValidationError;
        return { path: e.path, message: e.message };
      }
    };
    const range = "Out of range: expected an integer from -9007199254740991 to 9007199254740991";
    expect(refusal({ ok: true, stderr: "warning" }, { exit: -1e20 })).toEqual({
      path: "options.exit",
      message: `invalid observation options at options.exit: ${range}`,
    });
    expect(refusal({ exit_code: "9007199254740993" })).toEqual({
      path: "result.exit_code",
      message: `invalid command result at result.exit_code: ${range}`,
    });
    expect(refusal({ exit_code: 2 ** 53 })).toMatchObject({ path: "result.exit_code" });
    expect(refusal({ ok: true, duration_ms: 1e20 })).toEqual({
      path: "result.duration_ms",
      message:
        "invalid command result at result.duration_ms: Too big: expected number to be <=9007199254740991",
    });
    expect(refusal({ ok: true, execution_duration_ms: 2 ** 53 })).toMatchObject({
      path: "result.execution_duration_ms",
    });
    expect(refusal({ ok: true }, { duration_ms: 1.7e308 })).toMatchObject({
      path: "options.duration_ms",
    });
    // The edges themselves, and Harn's nil for a string that is no integer (or past i64).
    expect(refusal({ exit_code: -(2 ** 53 - 1), duration_ms: 2 ** 53 - 1 })).toEqual({
      warm: true,
      durationMs: 2 ** 53 - 1,
      exit: -(2 ** 53 - 1),
      failureSignature: "check failed exit=-9007199254740991",
    });
    expect(refusal({ ok: false }, { exit: "99999999999999999999" })).toMatchObject({ exit: 1 });
    expect(() => recordCheckResult("unit", { exit_code: 0 }, { exit: 1e20 })).toThrow(
      `invalid observation options at options.exit: ${range}`,
    );
  });
});

describe("recordCheckResult (pure reducer)", () => {
  const profiles = { schemaVersion: 1, rows: [{ id: "unit", check: { rung: "R2" } }] };
  const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
  test("records the observation into the row and returns Harn's shape plus profiles", () => {
    const out = recordCheckResult(
      "unit",
      { exit_code: 1, stderr: "E1 broke", duration_ms: 250 },
      { profiles, now_ms: NOW },
    );
    const row = {
      id: "unit",
      check: { rung: "R2" },
      timings: { recentWarmMs: [250], warmMs: { p50: 250, p95: 250, p99: 250 }, samples: 1 },
      lastRun: { at: "2026-06-01T12:00:00Z", exit: 1, failureSignature: "E1 broke" },
    };
    expect(out).toEqual({
      result: { exit_code: 1, stderr: "E1 broke", duration_ms: 250 },
      observation: { warm: true, durationMs: 250, exit: 1, failureSignature: "E1 broke" },
      row,
      snapshot: null,
      profiles: { schemaVersion: 1, rows: [row], updatedAt: "2026-06-01T12:00:00Z" },
    });
  });
  test("unknown row → row null; blank row id → typed error", () => {
    expect(recordCheckResult("nope", { exit_code: 0 }, { profiles, now_ms: NOW }).row).toBeNull();
    expect(() => recordCheckResult("", { exit_code: 0 }, { profiles })).toThrow(
      "row_id must not be empty",
    );
    expect(() => recordCheckResult("unit", { exit_code: 0 }, { profiles: { rows: "x" } })).toThrow(
      /at options\.profiles\.rows/,
    );
  });
});
