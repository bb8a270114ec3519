/** `hudText`: the HUD as terminal text (harn-verification.md §1.10, §4.1). */
import { coalesce, display, field, isDict, isNil } from "../harn-values.js";
import { HUD_MODEL_SCHEMA, hudModel } from "./hud-model.js";

function entryLine(label: string, entry: unknown): string {
  return `${label}: ${display(coalesce(field(entry, "rung"), "R?"))} ${display(coalesce(field(entry, "command"), ""))} - est ${display(coalesce(field(entry, "p95"), "0s"))} (p95 ${display(coalesce(field(entry, "timing_kind"), "warm"))})`;
}

/**
 * The HUD text of a model (`schema` = `harn.verification.hud_model.v1`) or of a state
 * (built with `hudModel(state, options)`). Not visible → `""`. Otherwise lines joined by
 * `\n`, no trailing newline:
 * `[verification]`;
 * `elapsed: <elapsed>[ - since last edit: <since>]`;
 * `last check: <rung> -> <verdict> @<age> ago` + ` - STALE (<n> file(s) changed since)` |
 * ` (current snapshot)` | ` (freshness unknown)`;
 * `next check: <rung> <command> - est <p95> (p95 <timing kind>)`;
 * `full verify: …` (same shape). Throws what `hudModel` throws.
 */
export function hudText(modelOrState: unknown, options: unknown = {}): string {
  const model =
    isDict(modelOrState) && modelOrState.schema === HUD_MODEL_SCHEMA
      ? modelOrState
      : (hudModel(modelOrState, options) as unknown as Record<string, unknown>);
  if (model.visible !== true) return "";
  const lines = ["[verification]"];
  let elapsed = `elapsed: ${display(coalesce(model.elapsed, "0s"))}`;
  if (!isNil(model.since_last_edit))
    elapsed += ` - since last edit: ${display(model.since_last_edit)}`;
  lines.push(elapsed);
  const last = model.last_check;
  if (isDict(last)) {
    const freshness = last.freshness;
    const status = field(freshness, "status");
    const staleFiles = coalesce(field(freshness, "stale_files"), []);
    const suffix =
      status === "bound_stale"
        ? ` - STALE (${Array.isArray(staleFiles) ? staleFiles.length : 0} file(s) changed since)`
        : status === "bound_fresh"
          ? " (current snapshot)"
          : " (freshness unknown)";
    lines.push(
      `last check: ${display(coalesce(last.rung, "R?"))} -> ${display(coalesce(last.verdict, "?"))} @${display(coalesce(last.age, "0s"))} ago${suffix}`,
    );
  }
  if (isDict(model.next_check)) lines.push(entryLine("next check", model.next_check));
  if (isDict(model.full_check)) lines.push(entryLine("full verify", model.full_check));
  return lines.join("\n");
}
