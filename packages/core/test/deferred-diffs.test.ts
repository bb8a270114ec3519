import { describe, expect, test } from "vitest";
import {
  buildTurnView,
  TURN_VIEW_DIFFS_DEFERRED,
  TURN_VIEW_LIMITS,
  TurngateValidationError,
  turnViewDiffsDeferred,
  withTurnViewDiffs,
} from "../src/index.js";
import { TurnViewSchema } from "../src/schemas/index.js";

const D = "a".repeat(64);
const WORKSPACE = {
  root: "/w",
  baseline_tree: "1".repeat(40),
  final_tree: "2".repeat(40),
  tree_reason: null,
};
const OUTCOME = { kind: "allow", terminal: { kind: "verified", effect_digest: D } } as const;
const A_DIFF =
  "diff --git a/src/a.ts b/src/a.ts\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-x\n+y\n";

/** A result's facts: two source files, an ignored one and a user-level one. */
function resultInput(paths: string[]) {
  return {
    source: "result" as const,
    turn: {
      effect_digest: D,
      records: [
        ...paths.map((path) => ({ tool: "workspace", path, content_digest: "e".repeat(64) })),
        { tool: "workspace", path: "node_modules/x.js", content_digest: "f".repeat(64) },
        { tool: "environment", path: "~/.npmrc", content_digest: "c".repeat(64) },
      ],
      reports: [],
      waivers_used: [],
      outcome: OUTCOME,
      workspace: WORKSPACE,
    },
    changes: [
      ...paths.map((path) => ({ path, change: "modified" as const, scope: "source" as const })),
      { path: "node_modules/x.js", change: "added" as const, scope: "ignored" as const },
    ],
  };
}

describe("deferred diffs: a stored view's diffs are made when it is shown", () => {
  test("filled in, a deferred view equals the view built with its diffs; the other files keep their reasons", () => {
    const diffs = [
      {
        path: "src/a.ts",
        change: "modified" as const,
        diff: {
          kind: "text" as const,
          unified: A_DIFF,
          additions: 1,
          deletions: 1,
          truncated: false,
        },
      },
      {
        path: "src/b.bin",
        change: "modified" as const,
        diff: { kind: "binary" as const, old_bytes: 3, new_bytes: 4 },
      },
    ];
    const input = resultInput(["src/a.ts", "src/b.bin"]);
    const deferred = buildTurnView({ ...input, diffs_unavailable: TURN_VIEW_DIFFS_DEFERRED });
    expect(turnViewDiffsDeferred(deferred)).toBe(true);
    expect(deferred.diffs).toEqual({
      available: false,
      reason: TURN_VIEW_DIFFS_DEFERRED,
      baseline_tree: "1".repeat(40),
      final_tree: "2".repeat(40),
    });
    expect(deferred.files.map((f) => f.diff)).toEqual([
      { kind: "unavailable", reason: TURN_VIEW_DIFFS_DEFERRED },
      { kind: "unavailable", reason: TURN_VIEW_DIFFS_DEFERRED },
      {
        kind: "unavailable",
        reason:
          "outside the source scope (ignored, an output location or a harness file): not in git's trees",
      },
      {
        kind: "unavailable",
        reason: "a user-level file outside the workspace: not in the workspace's git trees",
      },
    ]);
    const filled = withTurnViewDiffs(deferred, { diffs });
    expect(TurnViewSchema.parse(filled)).toEqual(filled);
    expect(filled).toEqual(buildTurnView({ ...input, diffs }));
    expect(filled.counts.additions).toBe(1);
    expect(turnViewDiffsDeferred(filled)).toBe(false);
    // Filling twice changes nothing.
    expect(withTurnViewDiffs(filled, { diffs: [] })).toBe(filled);
  });

  test("the view's total budget applies as when the view is built; a file without a diff says so", () => {
    const big = `${"+".padEnd(127, "z")}\n`.repeat(1000);
    const paths = Array.from({ length: 17 }, (_, i) => `f${String(i).padStart(2, "0")}`);
    const diffs = paths.slice(0, 17).map((path) => ({
      path,
      change: "modified" as const,
      diff: {
        kind: "text" as const,
        unified: big,
        additions: 1000,
        deletions: 0,
        truncated: false,
      },
    }));
    const input = resultInput([...paths, "missing.ts"]);
    const deferred = buildTurnView({ ...input, diffs_unavailable: TURN_VIEW_DIFFS_DEFERRED });
    const filled = withTurnViewDiffs(deferred, { diffs });
    expect(filled).toEqual(buildTurnView({ ...input, diffs }));
    expect(filled.files[16]?.diff).toEqual({
      kind: "too_large",
      old_bytes: null,
      new_bytes: null,
      limit_bytes: TURN_VIEW_LIMITS.totalDiffBytes,
    });
    expect(filled.files[17]?.diff).toEqual({
      kind: "unavailable",
      reason: "no diff was computed for this path",
    });
    expect(filled.counts.additions).toBe(16_000);
  });

  test("diffs that cannot be made: every deferred file and the view say why; a view not deferred is returned as it is", () => {
    const deferred = buildTurnView({
      ...resultInput(["src/a.ts"]),
      diffs_unavailable: TURN_VIEW_DIFFS_DEFERRED,
    });
    const why = "the tree 1111 is not in this repository's object store";
    const failed = withTurnViewDiffs(deferred, { reason: why });
    expect(failed.files[0]?.diff).toEqual({ kind: "unavailable", reason: why });
    expect(failed.diffs).toEqual({ ...deferred.diffs, reason: why });
    expect(turnViewDiffsDeferred(failed)).toBe(false);
    const eager = buildTurnView({ ...resultInput(["src/a.ts"]), diffs: [] });
    expect(withTurnViewDiffs(eager, { reason: why })).toBe(eager);
    // No trees recorded: nothing to fill from.
    const treeless = buildTurnView({
      ...resultInput(["src/a.ts"]),
      turn: { ...resultInput(["src/a.ts"]).turn, workspace: { ...WORKSPACE, final_tree: null } },
      diffs_unavailable: TURN_VIEW_DIFFS_DEFERRED,
    });
    expect(turnViewDiffsDeferred(treeless)).toBe(false);
    // Input that is not a view, or not diffs, is a typed error naming the field.
    expect(() => turnViewDiffsDeferred({ schema: "x" } as never)).toThrow(TurngateValidationError);
    expect(() => withTurnViewDiffs(deferred, { diffs: [{ path: 1 }] } as never)).toThrow(
      /diffs\.0\.path/,
    );
  });
});
