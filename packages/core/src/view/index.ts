export { buildTurnView, TURN_VIEW_LIMITS, truncateUnifiedDiff } from "./turn-view.js";
