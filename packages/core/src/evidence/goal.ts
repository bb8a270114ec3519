/**
 * Goal-achievement gating, A3S §2.15 (pure): a model's claim that the goal is achieved
 * counts only when the reports support it and, when goal loops are active, when every
 * loop has a passing shell report of one of its own ACCEPTANCE commands.
 */
import { TurngateValidationError } from "../errors.js";
import { summarizeReports, supportsGoalAchievement } from "../reports/summary.js";
import type { VerificationCommand } from "../schemas/command.js";
import { parseList, parseVerificationReport } from "../schemas/parse.js";
import type { VerificationReportInput } from "../schemas/report.js";

/** Why `goalAchievement` said what it said. */
export type GoalAchievementReason =
  | "achieved"
  | "not_claimed"
  | "evidence_insufficient"
  | "acceptance_unmet";

/** The answer of `goalAchievement`: `achieved`, why, and the loops still without a passing criterion. */
export interface GoalAchievement {
  achieved: boolean;
  reason: GoalAchievementReason;
  unmet_loops: string[];
}

/** The loop id of an acceptance command id: `acceptance:` stripped, then cut at the LAST `:`. */
export function acceptanceLoopId(commandId: string): string | null {
  if (typeof commandId !== "string") {
    throw new TurngateValidationError("acceptance id", [
      { path: "command_id", message: "expected a string" },
    ]);
  }
  if (!commandId.startsWith("acceptance:")) return null;
  const rest = commandId.slice("acceptance:".length);
  const cut = rest.lastIndexOf(":");
  return cut <= 0 ? null : rest.slice(0, cut);
}

/**
 * A3S §2.15 `should_emit_goal_achieved_for_workspace`, rules in order:
 * 1. `llmAchieved` false → `not_claimed` (the model did not claim it);
 * 2. the summary of `reports` does not support it (`supportsGoalAchievement`: passed, at
 *    least one report and one required check, nothing pending, failed or at risk) →
 *    `evidence_insufficient` — so the model's claim never suffices alone;
 * 3. no acceptance commands among `criteria` → `achieved`;
 * 4. every loop (commands grouped by `acceptanceLoopId`) needs a report whose subject is
 *    `shell:{command.id}` of one of its commands, with status `passed` and at least one
 *    required passed check; else `acceptance_unmet` with those loops (first-seen order).
 * Throws `TurngateValidationError` for a non-boolean claim (`llm_achieved`), a malformed
 * report (`reports.N.field`) or a criterion without a string id (`criteria.N.id`).
 */
export function goalAchievement(
  llmAchieved: boolean,
  reports: readonly VerificationReportInput[],
  criteria: readonly Pick<VerificationCommand, "id">[] = [],
): GoalAchievement {
  if (typeof llmAchieved !== "boolean") {
    throw new TurngateValidationError("goal achievement", [
      { path: "llm_achieved", message: "expected a boolean" },
    ]);
  }
  const parsed = parseList(reports, "goal achievement", "reports", parseVerificationReport);
  const ids = parseList(criteria, "goal achievement", "criteria", (c, path) => {
    const id = typeof c === "object" && c !== null ? (c as { id?: unknown }).id : undefined;
    if (typeof id !== "string") {
      throw new TurngateValidationError("goal achievement", [
        { path: `${path}.id`, message: "expected a string" },
      ]);
    }
    return id;
  });
  if (!llmAchieved) return { achieved: false, reason: "not_claimed", unmet_loops: [] };
  if (!supportsGoalAchievement(summarizeReports(parsed))) {
    return { achieved: false, reason: "evidence_insufficient", unmet_loops: [] };
  }
  const loops = new Map<string, Set<string>>();
  for (const id of ids) {
    const loop = acceptanceLoopId(id);
    if (loop === null) continue;
    const subjects = loops.get(loop) ?? new Set<string>();
    subjects.add(`shell:${id}`);
    loops.set(loop, subjects);
  }
  const unmet = [...loops].flatMap(([loop, subjects]) =>
    parsed.some(
      (r) =>
        subjects.has(r.subject) &&
        r.status === "passed" &&
        r.checks.some((c) => c.required && c.status === "passed"),
    )
      ? []
      : [loop],
  );
  if (unmet.length > 0) return { achieved: false, reason: "acceptance_unmet", unmet_loops: unmet };
  return { achieved: true, reason: "achieved", unmet_loops: [] };
}
