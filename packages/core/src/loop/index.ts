export { FAILURE_KEY_SCHEMA, type FailureKeyInput, failureCacheKey } from "./failure-key.js";
export {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_MAX_INFRASTRUCTURE_ATTEMPTS,
  type DigestAttempts,
  decideStop,
  type LoopPolicy,
  type StopDecision,
  type StopFailureKind,
  type StopInput,
} from "./stop-decision.js";
