export {
  ACTIVE_LOOP_STATUSES,
  type AcceptanceCriteria,
  type AcceptanceOptions,
  type AcceptanceProblem,
  type AcceptanceProblemReason,
  loopIsActive,
  loopStatus,
  parseAcceptanceCriteria,
  quoteAcceptancePath,
} from "./acceptance.js";
export { existenceCheckPaths } from "./existence-check.js";
export {
  acceptanceLoopId,
  type GoalAchievement,
  type GoalAchievementReason,
  goalAchievement,
} from "./goal.js";
export {
  VERIFIER_REFUSED_SHELL_TEXT,
  VERIFIER_REFUSED_TOOLS,
  type VerifierPolicyDecision,
  type VerifierPolicyRule,
  verifierToolPolicy,
} from "./verifier-policy.js";
