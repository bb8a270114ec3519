import { parseCompletionTerminal, parseList } from "../schemas/parse.js";
import type { CompletionTerminal } from "../schemas/terminal.js";

function digestOf(t: CompletionTerminal): string | undefined {
  return t.kind === "verified" || t.kind === "waived" ? t.effect_digest : undefined;
}

/**
 * Folds the terminals of several plan steps into one, A3S §2.10:
 * drop `narrative` entries and exact duplicates (first occurrence kept); none left →
 * `narrative`; one left → it; several → when the first has a digest and every other entry
 * has that same digest, `verified` if any entry is verified, else the first entry
 * (`waived`); otherwise `distinct` (different digests are never combined).
 * Throws `TurngateValidationError` (path `N.kind` …) for a malformed terminal.
 */
export function foldStepCompletions(terminals: readonly CompletionTerminal[]): CompletionTerminal {
  const parsed = parseList(terminals, "completion terminals", "", parseCompletionTerminal);
  const kept: CompletionTerminal[] = [];
  for (const t of parsed) {
    if (t.kind === "narrative") continue;
    if (kept.some((k) => k.kind === t.kind && digestOf(k) === digestOf(t))) continue;
    kept.push(t);
  }
  const first = kept[0];
  if (first === undefined) return { kind: "narrative" };
  if (kept.length === 1) return first;
  const d = digestOf(first);
  if (d !== undefined && kept.every((t) => digestOf(t) === d)) {
    return kept.some((t) => t.kind === "verified") ? { kind: "verified", effect_digest: d } : first;
  }
  return { kind: "distinct" };
}
