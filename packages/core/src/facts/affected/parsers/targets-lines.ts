/** `harn.targets_lines.v1` (alias `lines.v1`): one target id per line (§1.3.1). */
import { targetFromValue } from "../target.js";
import type { AffectedParser } from "./types.js";

/**
 * stdout (nil → `""`) split on `\n`, each line trimmed (so `\r` goes), blanks skipped;
 * each line → `{id: line, label: line, adapter_id, source: "adapter", kind: "target",
 * files: <changed paths>, reason: "direct"}`. Never JSON-parses; never throws.
 */
export const parseTargetsLines: AffectedParser = (stdout, ctx) => {
  const targets = [];
  for (const raw of (stdout ?? "").split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    const t = targetFromValue(line, ctx.adapterId, "target", ctx.changedPaths);
    if (t !== null) targets.push(t);
  }
  return { targets };
};
