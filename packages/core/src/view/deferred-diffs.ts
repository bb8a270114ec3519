/**
 * Diffs a stored view leaves to `turngate show` (docs/cli.md "turngate show"; issue 33: the
 * end of a turn reads no blob for a display): the view of a turn is stored with its trees
 * kept and its source files' diffs deferred, and filled in from the two trees when it is
 * shown.
 */
import * as z from "zod";
import { parseWith } from "../schemas/parse.js";
import {
  type TurnView,
  type TurnViewFileDiff,
  TurnViewFileDiffSchema,
  TurnViewSchema,
} from "../schemas/turn-view.js";
import { fitDiff, TURN_VIEW_LIMITS } from "./turn-view.js";

/** What `withTurnViewDiffs` fills a view with: the diffs, or why there are none. */
const DiffsSchema = z.object({ diffs: z.array(TurnViewFileDiffSchema) }).strict();
const NoDiffsSchema = z.object({ reason: z.string().min(1) }).strict();

/** `diffs.reason` (and each source file's `unavailable` reason) of a view whose diffs wait for `show`. */
export const TURN_VIEW_DIFFS_DEFERRED =
  "computed when the view is shown (turngate show diffs the kept trees)";

/**
 * True when `view`'s diffs were deferred and both trees are recorded: `withTurnViewDiffs` can
 * fill them. Errors: `TurngateValidationError` naming the field when `view` is not a
 * `turngate.turn_view.v1`.
 */
export function turnViewDiffsDeferred(view: TurnView): boolean {
  return deferredIn(parseWith(TurnViewSchema, view, "turn view"));
}

function deferredIn(view: TurnView): boolean {
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
 * Errors: `TurngateValidationError` naming the field (`turn view …`, `diffs …`) for input
 * that is not a view or not diffs.
 */
export function withTurnViewDiffs(
  input: TurnView,
  diffsOrReason: { diffs: readonly TurnViewFileDiff[] } | { reason: string },
): TurnView {
  const view = parseWith(TurnViewSchema, input, "turn view");
  const made: z.output<typeof DiffsSchema> | z.output<typeof NoDiffsSchema> =
    typeof diffsOrReason === "object" && diffsOrReason !== null && "reason" in diffsOrReason
      ? parseWith(NoDiffsSchema, diffsOrReason, "diffs")
      : parseWith(DiffsSchema, diffsOrReason, "diffs");
  if (!deferredIn(view)) return input;
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
