import type { OutsideScope, WorkspaceChange } from "@turngate/node";
import { displayPath } from "./terminal-text.js";

/** Most folder groups (ignored, output) or paths (harness) printed per scope. */
export const OUTSIDE_LINES_CAP = 12;

/** Heading word of each outside scope in the text output, in print order. */
const HEADINGS: readonly [OutsideScope, string][] = [
  ["harness", "harness"],
  ["ignored", "ignored"],
  ["output", "outputs"],
];

/**
 * Text lines for the turn's changes outside the source scope (issue 10): per scope a line
 * `ignored: N paths` (`outputs:`, `harness:`), then — capped at {@link OUTSIDE_LINES_CAP}
 * lines — ignored and output paths grouped by top folder (`  node_modules/  59998 (added
 * 59998)`, a file in the root by its name), harness paths one by one (`  added    .git/hooks/pre-commit`).
 * So 60,000 ignored paths are a few short lines. Input: the delta's changes (any scope;
 * source ones are skipped). Output: lines without newlines, `[]` when there are none.
 */
export function outsideScopeLines(changes: readonly WorkspaceChange[]): string[] {
  const lines: string[] = [];
  for (const [scope, heading] of HEADINGS) {
    const mine = changes.filter((change) => change.scope === scope);
    if (mine.length === 0) continue;
    const note =
      scope === "harness"
        ? "git or turngate state that can change what the checks run"
        : "outside the source scope, still in the effect digest";
    lines.push(`${heading}: ${mine.length} ${mine.length === 1 ? "path" : "paths"} (${note})`);
    if (scope === "harness") {
      for (const change of mine.slice(0, OUTSIDE_LINES_CAP)) {
        lines.push(`  ${change.change.padEnd(8)} ${displayPath(change.path)}`);
      }
      if (mine.length > OUTSIDE_LINES_CAP)
        lines.push(`  … ${mine.length - OUTSIDE_LINES_CAP} more`);
      continue;
    }
    const groups = groupByTopFolder(mine);
    const width = Math.min(40, Math.max(...groups.map((g) => g.label.length)));
    for (const group of groups.slice(0, OUTSIDE_LINES_CAP)) {
      const kinds = (["added", "modified", "deleted"] as const)
        .filter((kind) => group.kinds[kind] > 0)
        .map((kind) => `${kind} ${group.kinds[kind]}`)
        .join(", ");
      lines.push(`  ${group.label.padEnd(width)}  ${group.count} (${kinds})`);
    }
    if (groups.length > OUTSIDE_LINES_CAP) {
      const rest = groups.slice(OUTSIDE_LINES_CAP).reduce((n, g) => n + g.count, 0);
      lines.push(`  … ${groups.length - OUTSIDE_LINES_CAP} more folders (${rest} paths)`);
    }
  }
  return lines;
}

/**
 * The `--json` field `outside_scope`: every changed path outside the source scope, by
 * scope (`{ignored: [...], output: [...], harness: [...]}`, each sorted as the delta is).
 */
export function outsideScopeJson(
  changes: readonly WorkspaceChange[],
): Record<OutsideScope, string[]> {
  const out: Record<OutsideScope, string[]> = { ignored: [], output: [], harness: [] };
  for (const change of changes) if (change.scope !== "source") out[change.scope].push(change.path);
  return out;
}

interface Group {
  label: string;
  count: number;
  kinds: Record<WorkspaceChange["change"], number>;
}

function groupByTopFolder(changes: readonly WorkspaceChange[]): Group[] {
  const groups = new Map<string, Group>();
  for (const change of changes) {
    const slash = change.path.indexOf("/");
    const label = displayPath(slash < 0 ? change.path : `${change.path.slice(0, slash)}/`);
    let group = groups.get(label);
    if (group === undefined) {
      group = { label, count: 0, kinds: { added: 0, modified: 0, deleted: 0 } };
      groups.set(label, group);
    }
    group.count++;
    group.kinds[change.change]++;
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || (a.label < b.label ? -1 : 1));
}
