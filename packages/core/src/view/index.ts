export { buildTurnView, TURN_VIEW_LIMITS } from "./turn-view.js";
