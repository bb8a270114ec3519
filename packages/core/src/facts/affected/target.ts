/**
 * Affected targets and their dedupe (harn-verification.md §1.3.1 `target_from_value`,
 * §2.8 Target, §2.11), with our `reason` / `via` (docs/design.md §4).
 */
import { type Dict, display, isDict, isNil, stringList, trimmedText } from "../harn-values.js";

/**
 * Why a target is affected (our change):
 * - `direct`: a changed file lies in the target's root (or the adapter listed it);
 * - `dependent`: reached through the workspace or import graph; `via` is the chain;
 * - `global_file`: a root config file changed (every target is affected);
 * - `lockfile`: a lockfile changed and this target's dependencies did (or it could not be told);
 * - `unmapped`: a changed file that no adapter and no graph maps (listed, never dropped);
 * - `fallback`: a changed file the code-index fallback keeps as its own target.
 */
export type AffectedReason =
  | "direct"
  | "dependent"
  | "global_file"
  | "lockfile"
  | "unmapped"
  | "fallback";

/** Every reason, in the order the CLI explains them. */
export const AFFECTED_REASONS: readonly AffectedReason[] = [
  "direct",
  "dependent",
  "global_file",
  "lockfile",
  "unmapped",
  "fallback",
];

/**
 * One affected target (§2.8): `id`, `label`, `kind`, `source` (`adapter`, `code_index`,
 * `unmapped` or the value the adapter gave), `files` (the changed paths that reach it),
 * `reason` and, for `dependent`, `via` — target ids (or file paths, for the code index)
 * from the changed one to the one this target depends on. Parser-specific keys
 * (`manifest_path`, `target_names`, `root`, `changed_path`, `test_files`, …) ride along.
 */
export interface AffectedTarget {
  id: string;
  label: string;
  kind: string;
  adapter_id?: string;
  source: string;
  files: string[];
  reason: AffectedReason;
  via?: string[];
  [key: string]: unknown;
}

const REASONS = new Set<string>(AFFECTED_REASONS);

/**
 * Harn `target_from_value(value, adapter_id, default_kind, files)` (§1.3.1): a dict is the
 * base, any other value becomes `{id, label}` of its display text; id = trimmed `id ??
 * name ?? label`; blank → `null`. `adapter_id` always wins; `source` defaults to
 * `adapter`, `label` to the id, `kind` to `defaultKind`, `files` to the string list of
 * `files` (a given `files` is kept verbatim). Ours: `reason` defaults to `direct` (a
 * given reason from our set is kept).
 */
export function targetFromValue(
  value: unknown,
  adapterId: string,
  defaultKind: string,
  files: unknown,
): AffectedTarget | null {
  const base: Dict = isDict(value) ? { ...value } : { id: display(value), label: display(value) };
  const id = trimmedText(base.id ?? base.name ?? base.label ?? "");
  if (id === "") return null;
  const out: Dict = { ...base, id, adapter_id: adapterId, source: base.source ?? "adapter" };
  if (isNil(out.label)) out.label = id;
  if (isNil(out.kind)) out.kind = defaultKind;
  if (isNil(out.files)) out.files = stringList(files);
  if (typeof out.reason !== "string" || !REASONS.has(out.reason)) out.reason = "direct";
  return out as unknown as AffectedTarget;
}

/**
 * Target dedupe (§2.11): targets whose trimmed id is blank are dropped; a target whose id
 * is already present is dropped (first occurrence wins). Mutates and returns `into`.
 */
export function mergeTargets(
  into: AffectedTarget[],
  more: readonly (AffectedTarget | null | undefined)[],
  seen: Set<string> = new Set(into.map((t) => trimmedText(t.id))),
): AffectedTarget[] {
  for (const t of more) {
    if (t === null || t === undefined) continue;
    const key = trimmedText(t.id);
    if (key === "" || seen.has(key)) continue;
    seen.add(key);
    into.push(t);
  }
  return into;
}
