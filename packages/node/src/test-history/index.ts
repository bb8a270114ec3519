export { defaultTestHistoryDir, isInside, TEST_HISTORY_SCHEMA, TestHistoryStore } from "./store.js";
export { TurnTestHistory } from "./turn-history.js";
