/**
 * Diffs a stored view leaves to `turngate show` (docs/cli.md "turngate show"; issue 33: the
 * end of a turn reads no blob for a display): the view of a turn is stored with its trees
 * kept and its source files' diffs deferred, and filled in from the two trees when it is
 * shown.
 */
import type { TurnView, TurnViewFileDiff } from "../schemas/turn-view.js";
import { fitDiff, TURN_VIEW_LIMITS } from "./turn-view.js";

/** `diffs.reason` (and each source file's `unavailable` reason) of a view whose diffs wait for `show`. */
export const TURN_VIEW_DIFFS_DEFERRED =
  "computed when the view is shown (turngate show diffs the kept trees)";

/** True when `view`'s diffs were deferred and both trees are recorded: `withTurnViewDiffs` can fill them. */
export function turnViewDiffsDeferred(view: TurnView): boolean {
  return (
    !view.diffs.available &&
    view.diffs.reason === TURN_VIEW_DIFFS_DEFERRED &&
    view.diffs.baseline_tree !== null &&
    view.diffs.final_tree !== null
  );
}

/**
 * `view` with its deferred diffs filled in (pure): `made.diffs` (`{path, diff}` between the
 * view's trees, as node's `turnDiffs` gives them) replace the deferred `unavailable` diff of
 * each source file, in file order, cut to {@link TURN_VIEW_LIMITS} with the view's total
 * budget as `buildTurnView` cuts them, and `counts.additions`/`deletions` are theirs; a
 * source file with no diff in `made` is `unavailable` ("no diff was computed for this
 * path"). With `made.reason` (the diffs could not be made) every deferred file and
 * `diffs.reason` say that reason. A view whose diffs were not deferred is returned as it is.
 */
export function withTurnViewDiffs(
  view: TurnView,
  made: { diffs: readonly TurnViewFileDiff[] } | { reason: string },
): TurnView {
  if (!turnViewDiffsDeferred(view)) return view;
  const deferred = (file: TurnView["files"][number]) =>
    file.diff.kind === "unavailable" && file.diff.reason === TURN_VIEW_DIFFS_DEFERRED;
  if ("reason" in made) {
    return {
      ...view,
      files: view.files.map((file) =>
        deferred(file) ? { ...file, diff: { kind: "unavailable", reason: made.reason } } : file,
      ),
      diffs: { ...view.diffs, reason: made.reason },
    };
  }
  const given = new Map(made.diffs.map((d) => [d.path, d.diff]));
  let budget = TURN_VIEW_LIMITS.totalDiffBytes;
  let additions = 0;
  let deletions = 0;
  const files = view.files.map((file) => {
    if (!deferred(file)) return file;
    const diff = given.get(file.path);
    if (diff === undefined) {
      return {
        ...file,
        diff: { kind: "unavailable" as const, reason: "no diff was computed for this path" },
      };
    }
    const fitted = fitDiff(diff, budget);
    budget -= fitted.bytes;
    if (fitted.diff.kind === "text") {
      additions += fitted.diff.additions;
      deletions += fitted.diff.deletions;
    }
    return { ...file, diff: fitted.diff };
  });
  return {
    ...view,
    files,
    counts: { ...view.counts, additions, deletions },
    diffs: { ...view.diffs, available: true, reason: null },
  };
}
