/**
 * Shell evidence (A3S §2.13) and turngate's masked-exit rule (docs/design.md §3 change).
 */
import { describe, expect, test } from "vitest";
import {
  exitStatusMasked,
  exitStatusMaskedBy,
  shellCommandCoversPreset,
  shellEvidenceReport,
  splitShellCommand,
  TurngateValidationError,
} from "../src/index.js";

const rustTest = {
  id: "rust:test",
  kind: "test",
  description: "Run Rust tests",
  command: "cargo test",
  required: true,
};
const rustClippy = {
  id: "rust:clippy",
  kind: "lint",
  description: "Run Rust clippy lints",
  command: "cargo clippy -- -D warnings",
};

describe("shellCommandCoversPreset (A3S §2.13)", () => {
  test("covered forms", () => {
    for (const command of [
      "cargo test",
      "cargo test -p x",
      "cd d && cargo test",
      "a; cargo test",
      "  cargo   test  ",
      "cargo\ttest\n",
      "a && cargo test --release",
      "cargo test || true",
    ]) {
      expect(shellCommandCoversPreset(command, "cargo test")).toBe(true);
    }
  });

  test("not covered forms", () => {
    for (const command of [
      "echo cargo test",
      "cargo testing",
      "a || cargo test",
      "a | cargo test",
      "(cargo test)",
      "a;cargo test",
      "",
      "   ",
    ]) {
      expect(shellCommandCoversPreset(command, "cargo test")).toBe(false);
    }
    expect(shellCommandCoversPreset("cargo test", "  ")).toBe(false);
  });
});

describe("splitShellCommand", () => {
  test("top-level operators, quotes, subshells, redirections and comments", () => {
    expect(splitShellCommand("a && b || c | d; e & f\ng")).toEqual([
      { text: "a", op: "&&" },
      { text: "b", op: "||" },
      { text: "c", op: "|" },
      { text: "d", op: ";" },
      { text: "e", op: "&" },
      { text: "f", op: "\n" },
      { text: "g", op: null },
    ]);
    expect(splitShellCommand(`echo "a || b" 'c; d' \\; $(x || y) (z | w)`)).toEqual([
      { text: `echo "a || b" 'c; d' \\; $(x || y) (z | w)`, op: null },
    ]);
    expect(splitShellCommand("cargo test 2>&1 >&2 &>log >|f")).toEqual([
      { text: "cargo test 2>&1 >&2 &>log >|f", op: null },
    ]);
    expect(splitShellCommand("cargo test # || true\nmake")).toEqual([
      { text: "cargo test", op: "\n" },
      { text: "make", op: null },
    ]);
    expect(splitShellCommand("a |& b")).toEqual([
      { text: "a", op: "|" },
      { text: "b", op: null },
    ]);
  });
});

describe("exitStatusMasked (docs/design.md §3)", () => {
  test("masked commands", () => {
    for (const command of [
      "cargo test || true",
      "cargo test || :",
      "cargo test | tee log",
      "cargo test 2>&1 | tail -n 20",
      "cargo test; true",
      "cargo test; :",
      "cargo test\necho done",
      "cargo test &",
      "set -e; cargo test && echo ok; true",
      "exit 0; cargo test",
      "return 0; cargo test",
      "set -e; exit 0; cargo test",
      "{ exit 0; }; cargo test",
      "exit 0 && cargo test",
      "coproc cargo test",
    ]) {
      expect(exitStatusMasked(command)).toBe(true);
      expect(exitStatusMasked(command, "cargo test")).toBe(true);
    }
  });

  test("unmasked commands", () => {
    for (const command of [
      "cargo test",
      "cd d && cargo test",
      "cargo test && echo ok",
      "cargo test;",
      "cargo test # || true",
      "set -o pipefail; cargo test | tee log",
      "set -euo pipefail\ncargo test | tee log",
      'cargo test -- --skip "a || b"',
      "set -e; cargo test; echo done",
    ]) {
      expect(exitStatusMasked(command)).toBe(false);
      expect(exitStatusMasked(command, "cargo test")).toBe(false);
    }
  });

  test("relative to a preset: only the preset's own status matters", () => {
    expect(exitStatusMasked("cd d; cargo test")).toBe(true);
    expect(exitStatusMasked("cd d; cargo test", "cargo test")).toBe(false);
    expect(exitStatusMasked("cat x | cargo test", "cargo test")).toBe(false);
    expect(exitStatusMasked("make || cargo test", "cargo test")).toBe(true);
    expect(exitStatusMasked("cargo test && make || true", "cargo test")).toBe(true);
    expect(exitStatusMasked("if cargo test; then echo ok; fi", "cargo test")).toBe(true);
    expect(exitStatusMasked(`echo "a; cargo test b"`, "cargo test")).toBe(true);
    expect(exitStatusMasked("set +o pipefail; cargo test | tee log", "cargo test")).toBe(true);
    expect(exitStatusMasked("cd d || exit 1; cargo test", "cargo test")).toBe(false);
    expect(exitStatusMasked("cd d || exit 0; cargo test", "cargo test")).toBe(true);
    expect(exitStatusMasked("cd d && exit 0; cargo test", "cargo test")).toBe(true);
    expect(exitStatusMasked("(exit 0); cargo test", "cargo test")).toBe(false);
  });

  test("an exit before the real command, and coproc (security report item 3)", () => {
    expect(exitStatusMaskedBy("exit 0; node test.js")).toEqual({
      operator: "exit",
      command: "exit 0",
      skipped: "node test.js",
    });
    expect(exitStatusMaskedBy("set -e; return 0\nnode test.js")).toEqual({
      operator: "exit",
      command: "return 0",
      skipped: "node test.js",
    });
    expect(exitStatusMaskedBy("{ exit 0; }; node test.js")).toEqual({
      operator: "exit",
      command: "exit 0",
      skipped: "node test.js",
    });
    expect(exitStatusMaskedBy("exit 0 && node test.js")).toEqual({
      operator: "exit",
      command: "exit 0",
      skipped: "node test.js",
    });
    expect(exitStatusMaskedBy("coproc node test.js")).toEqual({
      operator: "unreadable",
      command: "coproc node test.js",
      word: "coproc",
    });
    expect(exitStatusMaskedBy("node test.js && exit 0")).toBeNull();
    expect(exitStatusMaskedBy("set -e; (exit 0); node test.js")).toBeNull();
  });
});

describe("exitStatusMaskedBy", () => {
  test("names the first operator that loses a status and the segment before it", () => {
    expect(exitStatusMaskedBy("sleep 1; npm test")).toEqual({ operator: ";", command: "sleep 1" });
    expect(exitStatusMaskedBy("cargo test  ||  true")).toEqual({
      operator: "||",
      command: "cargo test",
      fallback: "true",
    });
    expect(exitStatusMaskedBy("cargo test 2>&1 | tail -n 20")).toEqual({
      operator: "|",
      command: "cargo test 2>&1",
    });
    expect(exitStatusMaskedBy("cargo test &")).toEqual({ operator: "&", command: "cargo test" });
    expect(exitStatusMaskedBy("make\ncargo test")).toEqual({ operator: "\n", command: "make" });
    expect(exitStatusMaskedBy("set -e; a && b; c")).toEqual({
      operator: ";",
      command: "a && b",
      andList: true,
    });
    expect(exitStatusMaskedBy("set -o pipefail; a | b; c")).toEqual({
      operator: ";",
      command: "b",
    });
  });

  test("null exactly for the commands exitStatusMasked calls unmasked", () => {
    for (const command of [
      "cargo test",
      "a && b && c",
      "cargo test;",
      "set -o pipefail; cargo test | tee log",
      "set -e; cargo test; echo done",
    ]) {
      expect(exitStatusMaskedBy(command)).toBeNull();
      expect(exitStatusMasked(command)).toBe(false);
    }
  });
});

describe("exitStatusMaskedBy: negation, subshells, groups and nested scripts", () => {
  test("a leading ! masks the status", () => {
    expect(exitStatusMaskedBy("! false")).toEqual({ operator: "!", command: "! false" });
    expect(exitStatusMaskedBy("make && ! make test")).toEqual({
      operator: "!",
      command: "! make test",
    });
    expect(exitStatusMasked("! false")).toBe(true);
    expect(exitStatusMaskedBy("make !x")).toBeNull();
  });

  test("( … ) subshells are read inside", () => {
    expect(exitStatusMaskedBy("(false || true)")).toEqual({
      operator: "||",
      command: "false",
      fallback: "true",
    });
    expect(exitStatusMaskedBy("(false | cat)")).toEqual({ operator: "|", command: "false" });
    expect(exitStatusMaskedBy("make && (false; true) 2>&1")).toEqual({
      operator: ";",
      command: "false",
    });
    expect(exitStatusMaskedBy("((! false))")).toEqual({ operator: "!", command: "! false" });
    expect(exitStatusMaskedBy("(make && make test)")).toBeNull();
    expect(exitStatusMaskedBy("(set -o pipefail; make | tee log)")).toBeNull();
    expect(exitStatusMasked("(make && make test)")).toBe(false);
  });

  test("{ …; } groups are read inside; the closing } is not a further command", () => {
    expect(exitStatusMaskedBy("{ false || true; }")).toEqual({
      operator: "||",
      command: "false",
      fallback: "true",
    });
    expect(exitStatusMaskedBy("{ false; true; }")).toEqual({ operator: ";", command: "false" });
    expect(exitStatusMaskedBy("{ ! false; }")).toEqual({ operator: "!", command: "! false" });
    expect(exitStatusMaskedBy("{ make && make test; }")).toBeNull();
    expect(exitStatusMaskedBy("{ make; } && make test")).toBeNull();
    expect(exitStatusMaskedBy("{ make; }; true")).toEqual({ operator: ";", command: "{ make; }" });
  });

  test("sh -c / bash -c / eval quoted scripts are read recursively", () => {
    expect(exitStatusMaskedBy("sh -c 'false || true'")).toEqual({
      operator: "||",
      command: "false",
      fallback: "true",
    });
    expect(exitStatusMaskedBy('bash -c "false; true"')).toEqual({
      operator: ";",
      command: "false",
    });
    expect(exitStatusMaskedBy("eval 'false || true'")).toEqual({
      operator: "||",
      command: "false",
      fallback: "true",
    });
    expect(exitStatusMaskedBy("/bin/sh -c 'make\ntrue'")).toEqual({
      operator: "\n",
      command: "make",
    });
    expect(exitStatusMaskedBy('bash -c "echo \\"a\\"; true"')).toEqual({
      operator: ";",
      command: 'echo "a"',
    });
    expect(exitStatusMaskedBy("sh -c \"sh -c 'a | b'\"")).toEqual({ operator: "|", command: "a" });
    expect(exitStatusMaskedBy("sh -c 'make && make test'")).toBeNull();
    expect(exitStatusMaskedBy('bash -c "make test" arg0')).toBeNull();
    expect(exitStatusMaskedBy("echo 'false || true'")).toBeNull();
    for (const command of ["sh -c 'false || true'", 'bash -c "false; true"', "(false | cat)"]) {
      expect(exitStatusMasked(command)).toBe(true);
    }
  });

  test("nesting deeper than 32 levels counts as masked", () => {
    const deep = `${"(".repeat(40)}make${")".repeat(40)}`;
    expect(exitStatusMaskedBy(deep)).toEqual({
      operator: "nesting",
      command: `${"(".repeat(8)}make${")".repeat(8)}`,
    });
    expect(exitStatusMaskedBy(`${"(".repeat(30)}make${")".repeat(30)}`)).toBeNull();
  });
});

describe("shellEvidenceReport (A3S §2.13 + masked exit)", () => {
  test("the first covered candidate gives a shell:{id} report with no effect digest", () => {
    expect(
      shellEvidenceReport("cd /w && cargo test", 0, [rustClippy, rustTest], { exit_code: 0 }),
    ).toEqual({
      schema: "verification_report.v1",
      subject: "shell:rust:test",
      status: "passed",
      checks: [
        {
          id: "rust:test",
          kind: "test",
          description: "Run Rust tests",
          status: "passed",
          required: true,
          suggested_tools: ["bash"],
        },
      ],
    });
  });

  test("a failing run gives a failed report", () => {
    const report = shellEvidenceReport("cargo test", 101, [rustTest]);
    expect(report?.status).toBe("failed");
    expect(report?.checks[0]?.residual_risk).toBe(
      "verification command exited with code 101, expected 0: cargo test",
    );
  });

  test("no covered candidate → null", () => {
    expect(shellEvidenceReport("echo cargo test", 0, [rustTest])).toBeNull();
    expect(shellEvidenceReport("cargo test", 0, [])).toBeNull();
  });

  test("a masked exit status yields needs_review with residual risk 'exit status masked'", () => {
    const report = shellEvidenceReport("cargo test || true", 0, [rustTest]);
    expect(report).toEqual({
      schema: "verification_report.v1",
      subject: "shell:rust:test",
      status: "needs_review",
      checks: [
        {
          id: "rust:test",
          kind: "test",
          description: "Run Rust tests",
          status: "needs_review",
          required: true,
          suggested_tools: ["bash"],
          residual_risk: "exit status masked",
        },
      ],
    });
    expect(shellEvidenceReport("cargo test | tee log", 1, [rustTest])?.checks[0]?.status).toBe(
      "needs_review",
    );
  });

  test("a command that could not run stays failed even if masked", () => {
    const report = shellEvidenceReport(
      "cargo test || true",
      0,
      [rustTest],
      {},
      "command timed out",
    );
    expect(report?.status).toBe("failed");
    expect(report?.checks[0]?.residual_risk).toBe(
      "verification command could not run: command timed out",
    );
  });

  test("bad input throws TurngateValidationError naming the field", () => {
    expect(() => shellEvidenceReport(1 as never, 0, [rustTest])).toThrow(/at command/);
    expect(() =>
      shellEvidenceReport("cargo test", 0, [{ ...rustTest, command: 1 }] as never),
    ).toThrow(/at candidates\.0\.command/);
    expect(() => shellEvidenceReport("cargo test", 0, "x" as never)).toThrow(
      TurngateValidationError,
    );
    expect(() => shellEvidenceReport("cargo test", 0.5, [rustTest])).toThrow(/at exitCode/);
  });
});
