/** `harn.targets_json.v1` (alias `json.targets.v1`): a target list in JSON (§1.3.1). */
import { isDict } from "../../harn-values.js";
import { type AffectedTarget, targetFromValue } from "../target.js";
import { type AffectedParser, parseJsonStdout } from "./types.js";

/**
 * stdout JSON is a list, or a dict whose first list among `targets`, `affectedTargets`,
 * `affected_targets` is used (else no targets). Each item → `target_from_value(item,
 * adapter_id, "target", item.files ?? changed_paths)`; strings and numbers become
 * `{id, label}` targets. Throws `AffectedParseError` when stdout is not JSON.
 */
export const parseTargetsJson: AffectedParser = (stdout, ctx) => {
  const data = parseJsonStdout(stdout, "harn.targets_json.v1");
  let values: unknown[] = [];
  if (Array.isArray(data)) values = data;
  else if (isDict(data)) {
    for (const key of ["targets", "affectedTargets", "affected_targets"]) {
      const v = data[key];
      if (Array.isArray(v)) {
        values = v;
        break;
      }
    }
  }
  const targets: AffectedTarget[] = [];
  for (const item of values) {
    const files =
      isDict(item) && item.files !== undefined && item.files !== null
        ? item.files
        : ctx.changedPaths;
    const t = targetFromValue(item, ctx.adapterId, "target", files);
    if (t !== null) targets.push(t);
  }
  return { targets };
};
