/**
 * Text form of the affected-targets fact (issue 15): one row per target with its reason
 * and why, the adapters that failed, and whether every check should run.
 */
import type { AffectedTargetsFact } from "@turngate/core";
import { displayPath, escapeControls } from "./terminal-text.js";

function why(t: AffectedTargetsFact["targets"][number]): string {
  switch (t.reason) {
    case "dependent":
      return `via ${(t.via ?? []).map(displayPath).join(" → ")}`;
    case "unmapped":
      return "no adapter or import graph maps this file";
    case "fallback":
      return "changed file (code index)";
    case "lockfile":
      return typeof t.lockfile_importer === "string"
        ? `${t.files.map(displayPath).join(", ")} (importer ${displayPath(t.lockfile_importer)})`
        : t.files.map(displayPath).join(", ");
    default:
      return t.files.length > 3
        ? `${t.files.slice(0, 3).map(displayPath).join(", ")} +${t.files.length - 3} more`
        : t.files.map(displayPath).join(", ");
  }
}

/**
 * The table `turngate affected` prints: a heading naming where the changes came from
 * (`source`), `TARGET  REASON  WHY` rows padded to the widest value, then one line per
 * adapter that failed (with what to do), and the run-all reasons. No trailing newline.
 */
export function renderAffectedText(fact: AffectedTargetsFact, source: string): string {
  const n = fact.changed_paths.length;
  const lines = [`affected targets (${n} changed file${n === 1 ? "" : "s"} ${source})`];
  if (fact.targets.length === 0) lines.push("  none");
  else {
    const rows = fact.targets.map((t) => [displayPath(t.id), t.reason, why(t)] as const);
    const w0 = Math.max(6, ...rows.map((r) => r[0].length));
    const w1 = Math.max(6, ...rows.map((r) => r[1].length));
    lines.push(`  ${"TARGET".padEnd(w0)}  ${"REASON".padEnd(w1)}  WHY`);
    for (const [id, reason, text] of rows)
      lines.push(`  ${id.padEnd(w0)}  ${reason.padEnd(w1)}  ${text}`);
  }
  for (const a of fact.adapters) {
    if (a.status === "not_configured") continue;
    if (a.error !== undefined) {
      lines.push(
        `adapter ${a.id} (${a.parser_id}): ${a.status}, exit ${a.exit ?? "none"}: ${a.error} — its targets are missing; run its command by hand to see why`,
      );
    } else if (!a.ok) {
      lines.push(
        `adapter ${a.id} (${a.parser_id}): command ${a.status}, exit ${a.exit ?? "none"}; its stdout was still read`,
      );
    }
    if (Array.isArray(a.workspace_changed) && a.workspace_changed.length > 0) {
      lines.push(
        `adapter ${a.id} changed ${a.workspace_changed.join(", ")}: run it with its lockfile frozen (e.g. --locked)`,
      );
    }
  }
  if (fact.fallback.enabled && !fact.fallback.available) {
    lines.push("code-index fallback: no index was available; each changed file is its own target");
  }
  if (fact.run_all) lines.push(`run every check: ${fact.run_all_reasons.join("; ")}`);
  return lines.map(escapeControls).join("\n");
}
