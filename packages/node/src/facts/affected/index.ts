export {
  type AffectedTargetsOptions,
  affectedTargets,
  DEFAULT_ADAPTER_TIMEOUT_MS,
} from "./affected-targets.js";
export { detectAdapters, rustupToolchain } from "./detected-adapters.js";
export { readPnpmWorkspace } from "./pnpm-workspace.js";
