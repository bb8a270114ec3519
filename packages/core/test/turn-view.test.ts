import { describe, expect, test } from "vitest";
import { buildTurnView, TURN_VIEW_LIMITS, TurngateValidationError } from "../src/index.js";
import { TurnViewSchema } from "../src/schemas/index.js";
import { truncateUnifiedDiff } from "../src/view/turn-view.js";

const D = "a".repeat(64);
const LOG = "b".repeat(64);

/** A waived proof's facts: one source file, one ignored file, one user-level file. */
const PROOF = {
  schema: "turn_proof.v1",
  effect_digest: D,
  records: [
    { tool: "environment", path: "~/.gitconfig", content_digest: "c".repeat(64) },
    { tool: "workspace", path: "dist/out.js", content_digest: "d".repeat(64) },
    { tool: "write", path: "src/a.ts", content_digest: "e".repeat(64) },
    { tool: "workspace", path: "src/a.ts", content_digest: "e".repeat(64) },
    { tool: "workspace", path: "old.txt", content_digest: "deleted" },
  ],
  reports: [
    {
      schema: "verification_report.v1",
      subject: "turngate:checks",
      status: "failed",
      effect_digest: D,
      checks: [
        {
          id: "unit",
          kind: "test",
          description: "npm test",
          status: "failed",
          required: true,
          evidence_uris: [`file:///w/.turngate/logs/${LOG}.log`],
          failing_tests: ["math > adds"],
          tests: { passed: 3, failed: 1, skipped: 0, errored: 0 },
        },
      ],
    },
  ],
  waivers_used: [{ effect_digest: D, reason: "reviewed by hand" }],
  terminal: { kind: "waived", effect_digest: D },
  outcome: { kind: "allow", terminal: { kind: "waived", effect_digest: D } },
  tool_versions: { turngate: "0.1.0" },
  started_at: "2026-12-02T01:00:00.000Z",
  finished_at: "2026-12-02T01:00:05.000Z",
  workspace: {
    root: "/w",
    baseline_tree: "1".repeat(40),
    final_tree: "2".repeat(40),
    tree_reason: null,
  },
  evidence_logs: [{ uri: `file:///w/.turngate/logs/${LOG}.log`, sha256: LOG }],
  trust: "unsandboxed",
};

const A_DIFF =
  "diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-x\n+y\n";

describe("buildTurnView (turngate.turn_view.v1)", () => {
  test("from a proof with diffs: verdict, checks joined with their logs, files by kind, counts", () => {
    const view = buildTurnView({
      turn: PROOF,
      diffs: [
        {
          path: "src/a.ts",
          change: "modified",
          diff: { kind: "text", unified: A_DIFF, additions: 1, deletions: 1, truncated: false },
        },
        {
          path: "old.txt",
          change: "deleted",
          diff: { kind: "binary", old_bytes: 10, new_bytes: null },
        },
      ],
    });
    expect(TurnViewSchema.parse(view)).toEqual(view);
    expect(view).toEqual({
      schema: "turngate.turn_view.v1",
      source: "proof",
      verdict: "waived",
      effect_digest: D,
      reason: null,
      message: null,
      root: "/w",
      trust: "unsandboxed",
      started_at: "2026-12-02T01:00:00.000Z",
      finished_at: "2026-12-02T01:00:05.000Z",
      counts: {
        checks: { passed: 0, failed: 1, needs_review: 0, skipped: 0 },
        files: { added: 0, modified: 1, deleted: 1, outside_scope: 1, environment: 1 },
        additions: 1,
        deletions: 1,
      },
      checks: [
        {
          id: "unit",
          kind: "test",
          description: "npm test",
          command: null,
          status: "failed",
          required: true,
          failure_class: null,
          duration_ms: null,
          exit_code: null,
          residual_risk: null,
          hint: null,
          tests: { passed: 3, failed: 1, skipped: 0, errored: 0 },
          failing_tests: ["math > adds"],
          failure_digest: [],
          output_tail: [],
          output_lines: 0,
          log: {
            path: `/w/.turngate/logs/${LOG}.log`,
            uri: `file:///w/.turngate/logs/${LOG}.log`,
            sha256: LOG,
          },
        },
      ],
      files: [
        {
          path: "~/.gitconfig",
          change: "environment",
          scope: "environment",
          tool: "environment",
          content_digest: "c".repeat(64),
          diff: {
            kind: "unavailable",
            reason: "a user-level file outside the workspace: not in the workspace's git trees",
          },
        },
        {
          path: "dist/out.js",
          change: "changed",
          scope: "ignored",
          tool: "workspace",
          content_digest: "d".repeat(64),
          diff: {
            kind: "unavailable",
            reason:
              "outside the source scope (ignored, an output location or a harness file): not in git's trees",
          },
        },
        {
          path: "src/a.ts",
          change: "modified",
          scope: "source",
          tool: "write",
          content_digest: "e".repeat(64),
          diff: { kind: "text", unified: A_DIFF, additions: 1, deletions: 1, truncated: false },
        },
        {
          path: "old.txt",
          change: "deleted",
          scope: "source",
          tool: "workspace",
          content_digest: "deleted",
          diff: { kind: "binary", old_bytes: 10, new_bytes: null },
        },
      ],
      diffs: {
        available: true,
        reason: null,
        baseline_tree: "1".repeat(40),
        final_tree: "2".repeat(40),
      },
      waivers: [{ effect_digest: D, reason: "reviewed by hand" }],
      attempts: null,
      affected_targets: null,
      hud: null,
      outputs: null,
    });
  });

  test("from a result: runs give command, duration, failure class and the last 40 output lines; observer changes give the kind", () => {
    const output = `${Array.from({ length: 45 }, (_, i) => `line ${i + 1}`).join("\n")}\n\n`;
    const view = buildTurnView({
      source: "result",
      turn: {
        effect_digest: D,
        records: [
          { tool: "workspace", path: "new.ts", content_digest: "f".repeat(64) },
          { tool: "workspace", path: "node_modules/x.js", content_digest: "f".repeat(64) },
        ],
        reports: PROOF.reports,
        outcome: {
          kind: "incomplete",
          reason: "unverified_mutation",
          message: "completion gate: verification report required",
          effect_digest: D,
        },
      },
      runs: [
        {
          id: "unit",
          command: "npm test",
          duration_ms: 1234,
          exit_code: 1,
          timed_out: false,
          failure_class: "assertion",
          output,
          log_path: "/w/l.log",
          log_sha256: LOG,
          failure_digest: ["failing tests (1 of 4; full log: l.log):", "  ✗ math > adds"],
        },
      ],
      outputs: { dir: "/state/outputs/d", paths: ["junit.xml"] },
      changes: [
        { path: "new.ts", change: "added", scope: "source" },
        { path: "node_modules/x.js", change: "added", scope: "ignored" },
      ],
      diffs_unavailable: "not a git work tree",
      attempts: 2,
      affected_targets: [{ target: "pkg-a", reason: "direct" }],
      hud: "[verification]",
    });
    expect(view.verdict).toBe("incomplete");
    expect(view.reason).toBe("unverified_mutation");
    expect(view.message).toBe("completion gate: verification report required");
    const check = view.checks[0];
    expect(check?.command).toBe("npm test");
    expect(check?.duration_ms).toBe(1234);
    expect(check?.exit_code).toBe(1);
    expect(check?.failure_class).toBe("assertion");
    expect(check?.output_lines).toBe(45);
    expect(check?.output_tail).toHaveLength(TURN_VIEW_LIMITS.outputTailLines);
    expect(check?.output_tail[0]).toBe("line 6");
    expect(check?.output_tail[39]).toBe("line 45");
    // The run's failure digest (what `run` printed) is kept for a check that did not pass.
    expect(check?.failure_digest).toEqual([
      "failing tests (1 of 4; full log: l.log):",
      "  ✗ math > adds",
    ]);
    expect(view.outputs).toEqual({ dir: "/state/outputs/d", paths: ["junit.xml"] });
    expect(check?.log).toEqual({
      path: "/w/l.log",
      uri: `file:///w/.turngate/logs/${LOG}.log`,
      sha256: LOG,
    });
    expect(view.files.map((f) => [f.path, f.change, f.scope, f.diff])).toEqual([
      ["new.ts", "added", "source", { kind: "unavailable", reason: "not a git work tree" }],
      [
        "node_modules/x.js",
        "ignored",
        "ignored",
        {
          kind: "unavailable",
          reason:
            "outside the source scope (ignored, an output location or a harness file): not in git's trees",
        },
      ],
    ]);
    expect(view.diffs).toEqual({
      available: false,
      reason: "not a git work tree",
      baseline_tree: null,
      final_tree: null,
    });
    expect(view.attempts).toBe(2);
    expect(view.affected_targets).toEqual([{ target: "pkg-a", reason: "direct" }]);
    expect(view.hud).toBe("[verification]");
    expect(view.counts.files).toEqual({
      added: 1,
      modified: 0,
      deleted: 0,
      outside_scope: 1,
      environment: 0,
    });
  });

  test("diff limits: lines, bytes, and the view's total budget", () => {
    const many = `${Array.from({ length: 1500 }, (_, i) => `+${i}`).join("\n")}\n`;
    const cut = truncateUnifiedDiff(many);
    expect(cut.truncated).toBe(true);
    expect(cut.text.split("\n")).toHaveLength(TURN_VIEW_LIMITS.fileDiffLines + 1);
    const wide = `${"+".padEnd(1000, "w")}\n`.repeat(200);
    const byBytes = truncateUnifiedDiff(wide);
    expect(byBytes.truncated).toBe(true);
    expect(byBytes.text.length).toBe(Math.floor(TURN_VIEW_LIMITS.fileDiffBytes / 1001) * 1001); // 130 whole lines
    expect(truncateUnifiedDiff("@@ -1 +1 @@\n-a\n+b\n")).toEqual({
      text: "@@ -1 +1 @@\n-a\n+b\n",
      truncated: false,
    });

    // 17 files of ~128 KiB each: the 17th no longer fits the 2 MiB budget
    const big = `${"+".padEnd(127, "z")}\n`.repeat(1000);
    const paths = Array.from({ length: 17 }, (_, i) => `f${String(i).padStart(2, "0")}`);
    const view = buildTurnView({
      turn: {
        ...PROOF,
        records: paths.map((path) => ({ tool: "workspace", path, content_digest: D })),
      },
      diffs: paths.map((path) => ({
        path,
        change: "modified",
        diff: { kind: "text", unified: big, additions: 1000, deletions: 0, truncated: false },
      })),
    });
    const kinds = view.files.map((f) => f.diff.kind);
    expect(kinds.slice(0, 16)).toEqual(Array(16).fill("text"));
    expect(view.files[16]?.diff).toEqual({
      kind: "too_large",
      old_bytes: null,
      new_bytes: null,
      limit_bytes: TURN_VIEW_LIMITS.totalDiffBytes,
    });
    expect(view.counts.additions).toBe(16_000);
  });

  test("bad input names the field", () => {
    expect(() =>
      buildTurnView({ turn: { ...PROOF, outcome: { kind: "maybe" } } } as never),
    ).toThrow(TurngateValidationError);
    try {
      buildTurnView({ turn: { ...PROOF, records: [{ tool: "w", path: 3 }] } } as never);
    } catch (error) {
      expect((error as TurngateValidationError).path).toBe("turn.records.0.path");
    }
  });
});
