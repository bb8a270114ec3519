import { defaultTestHistoryDir, isInside, TestHistoryStore } from "./store.js";
import { TurnTestHistory } from "./turn-history.js";

/**
 * The test history a session uses: `options.testHistoryDir` (default
 * `defaultTestHistoryDir(options.env)`), none when it is `false` or lies inside the
 * workspace root (a history the agent can edit proves nothing).
 */
export function sessionTestHistory(
  root: string,
  options: { testHistoryDir?: string | false; env?: NodeJS.ProcessEnv },
): TurnTestHistory {
  if (options.testHistoryDir === false) return new TurnTestHistory(undefined);
  const dir = options.testHistoryDir ?? defaultTestHistoryDir(options.env ?? process.env);
  return new TurnTestHistory(isInside(root, dir) ? undefined : new TestHistoryStore(dir, root));
}
