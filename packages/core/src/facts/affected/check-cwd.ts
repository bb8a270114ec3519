/**
 * Which targets a check belongs to by the folder it runs in (issue 15 item 2, ours): the
 * projects of the adapters' workspace graphs (`project_roots` of each adapter fact), the
 * deepest root holding the check's `cwd` winning.
 */
import { TurngateValidationError } from "../../errors.js";
import { normalizeCheckCwd } from "../../schemas/command.js";
import type { AffectedTargetsFact } from "./affected-targets.js";

/** The targets of a check `cwd`: their ids (sorted) and the root they share. */
export interface CwdTargets {
  ids: string[];
  root: string;
}

/**
 * Input: a check's `cwd` (workspace-relative, `./` and `.` allowed) and an affected-targets
 * fact. Output: the target ids whose project root is the deepest one holding `cwd` (several
 * when adapters share that root, e.g. a Cargo crate and a pnpm package in one folder), or
 * `null` when no project root holds it (the check then maps to nothing and always runs).
 * A root `""` holds every folder. Reads `project_roots` (id → root) of each adapter fact;
 * an adapter without one (a command that lists targets, not projects) contributes nothing.
 * Throws `TurngateValidationError` for a `cwd` that is not a string (path `cwd`) or a fact
 * without an `adapters` list (path `fact.adapters`).
 */
export function targetsForCwd(cwd: string, fact: AffectedTargetsFact): CwdTargets | null {
  const dir = normalizeCheckCwd(cwd);
  const adapters = (fact as { adapters?: unknown } | null | undefined)?.adapters;
  if (!Array.isArray(adapters)) {
    throw new TurngateValidationError("affected-targets fact", [
      { path: "fact.adapters", message: "must be a list of adapter facts" },
    ]);
  }
  let best: CwdTargets | null = null;
  for (const adapter of adapters as AffectedTargetsFact["adapters"]) {
    if (typeof adapter !== "object" || adapter === null) continue;
    const roots = adapter.project_roots;
    if (typeof roots !== "object" || roots === null || Array.isArray(roots)) continue;
    for (const [id, raw] of Object.entries(roots as Record<string, unknown>)) {
      if (typeof raw !== "string") continue;
      const root = normalizeCheckCwd(raw);
      const holds = root === "" || dir === root || dir.startsWith(`${root}/`);
      if (!holds) continue;
      if (best === null || root.length > best.root.length) best = { ids: [id], root };
      else if (root === best.root && !best.ids.includes(id)) best.ids.push(id);
    }
  }
  if (best !== null) best.ids.sort();
  return best;
}
