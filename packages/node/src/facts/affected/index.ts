export {
  type AffectedTargetsOptions,
  affectedTargets,
  DEFAULT_ADAPTER_TIMEOUT_MS,
  detectAdapters,
} from "./affected-targets.js";
export { readPnpmWorkspace } from "./pnpm-workspace.js";
