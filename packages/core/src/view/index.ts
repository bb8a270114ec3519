export {
  TURN_VIEW_DIFFS_DEFERRED,
  turnViewDiffsDeferred,
  withTurnViewDiffs,
} from "./deferred-diffs.js";
export { buildTurnView, TURN_VIEW_LIMITS } from "./turn-view.js";
