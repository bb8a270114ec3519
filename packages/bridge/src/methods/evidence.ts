/**
 * `evidence.*` methods (stateless, pure; issue 13): ACCEPTANCE.md criteria and loop status
 * (a3s-completion-gate.md §2.14), goal-achievement gating (§2.15), existence-check parsing
 * (seed 002) and the read-only verifier's tool policy (§2.18) — core's functions.
 */
import {
  existenceCheckPaths,
  goalAchievement,
  loopIsActive,
  loopStatus,
  parseAcceptanceCriteria,
  verifierToolPolicy,
} from "@turngate/core";
import * as z from "zod";
import { defineMethod } from "../method.js";
import { VerificationReportSchema } from "../wire/domain.js";
import {
  AcceptanceCriteriaSchema,
  GoalAchievementSchema,
  VerifierPolicyDecisionSchema,
} from "../wire/goals.js";
import { jsonObject } from "../wire/json-object.js";
import { acceptHostReports } from "./accept-reports.js";
import { withFieldPath } from "./field-path.js";

export const evidenceMethods = {
  "evidence.acceptance_criteria": defineMethod({
    description:
      "The machine criteria of one ACCEPTANCE.md (a3s-completion-gate.md §2.14): each `- [ ]`/`* [x]` line whose body starts kind:command or kind:file_exists (kind:file-exists) becomes a required command with id acceptance:<loop_id>:<line number>; kind:command takes the assert: value (backtick-quoted, else the first token) and expect:exit=N; kind:file_exists becomes `test -f <path>` for a relative path that stays inside the root (absolute paths need the file system: refused here). Lines that look like criteria but cannot be read are listed in problems.",
    params: z.strictObject({
      loop_id: z.string().regex(/\S/, { message: "must not be blank" }),
      text: z.string().describe("the ACCEPTANCE.md text"),
    }),
    result: AcceptanceCriteriaSchema,
    handler: (p) => parseAcceptanceCriteria(p.loop_id, p.text),
  }),
  "evidence.loop_status": defineMethod({
    description:
      "The status a goal loop's STATE.md names (the value after `Status:` on the first line that starts with it, case-sensitive prefix; null when none) and whether it is active (running, retrying or paused, case-insensitively).",
    params: z.strictObject({ state: z.string().describe("the STATE.md text") }),
    result: z.strictObject({ status: z.string().nullable(), active: z.boolean() }),
    handler: (p) => ({ status: loopStatus(p.state), active: loopIsActive(p.state) }),
  }),
  "evidence.goal_achievement": defineMethod({
    description:
      "Goal-achievement gating (§2.15): the model's claim llm_achieved counts only when the reports' summary supports it (passed, a report and a required check, nothing pending, failed or at risk) and every loop of the acceptance criteria (ids acceptance:<loop>:<line>) has a passed shell:<id> report with a required passed check. Reports are host reports (status must be the derived one).",
    params: z.strictObject({
      llm_achieved: z.boolean(),
      reports: z.array(VerificationReportSchema).default([]),
      criteria: z
        .array(z.strictObject({ id: z.string() }))
        .default([])
        .describe("the active acceptance commands (only id is read)"),
    }),
    result: GoalAchievementSchema,
    handler: (p) => {
      acceptHostReports(p.reports, "reports");
      return goalAchievement(p.llm_achieved, p.reports, p.criteria);
    },
  }),
  "evidence.existence_checks": defineMethod({
    description:
      "The paths a shell command checks for existence: each list element that is exactly `test -f|-e P`, `[ -f|-e P ]` or `[[ -f|-e P ]]` (after if/then/… words), quotes removed, each path once; negated tests, other operators, extra operands and computed paths ($x, $(…)) are not listed.",
    params: z.strictObject({ command: z.string() }),
    result: z.strictObject({ paths: z.array(z.string()) }),
    handler: (p) => ({ paths: existenceCheckPaths(p.command) }),
  }),
  "evidence.verifier_tool_policy": defineMethod({
    description:
      "The read-only verifier's tool policy (§2.18): write, edit, patch, download, skill, task and batch are refused (writer_tool); bash is refused when its command contains `>`, `rm `, `mv ` or `tee ` or its args have changed_paths; git is refused for checkout, branch with a name, stash with a message or include_untracked, worktree create/add/remove; everything else is allowed.",
    params: z.strictObject({
      tool: z.string(),
      args: jsonObject()
        .optional()
        .describe("the tool call's arguments (bash: {command}, git: {command, name, …})"),
    }),
    result: VerifierPolicyDecisionSchema,
    handler: (p) => withFieldPath("args", () => verifierToolPolicy(p.tool, p.args ?? {})),
  }),
};
