/**
 * Wire shapes of the goal and existence evidence of issue 13 (A3S §2.14, §2.15, the
 * existence checks of seed 002, the verifier policy of §2.18).
 */
import * as z from "zod";
import { VerificationCommandSchema, VerificationReportSchema } from "./domain.js";

/** A criterion line of ACCEPTANCE.md that could not be read. */
export const AcceptanceProblemSchema = z.strictObject({
  line: z.int().positive().describe("1-based line number in ACCEPTANCE.md"),
  reason: z.enum(["missing_assert", "unterminated_backtick", "empty_assert", "path_not_allowed"]),
  message: z.string(),
});

/** The machine criteria of one ACCEPTANCE.md. */
export const AcceptanceCriteriaSchema = z.strictObject({
  loop_id: z.string(),
  commands: z
    .array(VerificationCommandSchema)
    .describe("required commands, id acceptance:<loop_id>:<line>, in line order"),
  problems: z.array(AcceptanceProblemSchema),
});

/** One active goal loop of a workspace. */
export const GoalLoopSchema = z.strictObject({
  loop_id: z.string(),
  path: z.string().describe("the ACCEPTANCE.md path relative to the root"),
  status: z.string().describe("the STATE.md status as written (running, retrying or paused)"),
  commands: z.array(VerificationCommandSchema),
  problems: z.array(AcceptanceProblemSchema),
});

/** The goal criteria of a workspace. */
export const GoalCriteriaSchema = z.strictObject({
  loops: z.array(GoalLoopSchema),
  commands: z
    .array(VerificationCommandSchema)
    .describe("every loop's commands: shell-evidence candidates"),
  unreadable: z.array(
    z.strictObject({
      path: z.string(),
      reason: z.enum(["unreadable", "not_utf8", "not_a_regular_file"]),
      message: z.string(),
    }),
  ),
});

/** The answer of goal-achievement gating. */
export const GoalAchievementSchema = z.strictObject({
  achieved: z.boolean(),
  reason: z
    .enum(["achieved", "not_claimed", "evidence_insufficient", "acceptance_unmet"])
    .describe(
      "not_claimed: the model did not claim it; evidence_insufficient: the reports do not support it (the claim never suffices alone); acceptance_unmet: a loop has no passing shell:acceptance report",
    ),
  unmet_loops: z.array(z.string()),
});

/** What the existence checks of one bash command found (session.observe_tool). */
export const ExistenceEvidenceSchema = z.strictObject({
  checks: z.array(
    z.strictObject({
      path: z.string().describe("as written in the command"),
      ledger_path: z
        .string()
        .nullable()
        .describe("the workspace path it names; null outside the root"),
      status: z.enum(["match", "mismatch", "no_recorded_content", "not_mutated", "outside"]),
    }),
  ),
  bound: z.array(VerificationReportSchema).describe("turn reports now bound to the digest"),
  synthesized: z
    .array(VerificationReportSchema)
    .describe("shell:mutation_path_verify:<path> reports made, bound to the digest"),
});

/** The verifier tool policy's answer. */
export const VerifierPolicyDecisionSchema = z.strictObject({
  allowed: z.boolean(),
  rule: z
    .enum([
      "writer_tool",
      "shell_redirect",
      "shell_rm",
      "shell_mv",
      "shell_tee",
      "shell_changed_paths",
      "git_checkout",
      "git_branch_create",
      "git_stash",
      "git_worktree",
    ])
    .optional()
    .describe("the rule that refused the call; absent when allowed"),
  message: z.string().optional(),
});

/** How the turn's read-only verifier run went (session.verifier_run). */
export const VerifierRunSchema = z.strictObject({
  status: z.enum([
    "reported",
    "no_report",
    "refused",
    "crashed",
    "timed_out",
    "verifier_changed_workspace",
  ]),
  effect_digest: z.string(),
  message: z.string().optional(),
  changed_paths: z.array(z.string()).optional(),
  report: VerificationReportSchema.optional(),
});
