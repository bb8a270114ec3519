import { type CommandRun, killTrackedProcessGroups, SETUP_CHECK_ID } from "@turngate/node";
import { escapeControls } from "../terminal-text.js";
import { STOP_HOOK_TIMEOUT_S } from "./install.js";

/**
 * Milliseconds a whole stop may take (docs/hooks.md "Time budget of a stop"): the installed
 * hook's timeout less a minute. A harness treats a stop hook that outlives its timeout as
 * not blocking (Claude Code: "Stop command hook timed out; not blocking"), so the clean
 * room's dependency setup and every check draw from this one budget, and the stop blocks
 * when it runs out.
 */
export const STOP_BUDGET_MS = (STOP_HOOK_TIMEOUT_S - 60) * 1000;

/**
 * The host variable that lowers the budget, for tests and for hosts whose hook timeout is
 * shorter than the one `turngate hook install` writes. It can never raise it.
 */
export const STOP_BUDGET_ENV = "TURNGATE_STOP_BUDGET_MS";

/**
 * Milliseconds after the budget by which the stop answers even if turngate's own work (not a
 * check: those are stopped when the budget runs out) has not ended: the answer still comes
 * before the hook's timeout.
 */
export const STOP_ANSWER_GRACE_MS = 30_000;

/**
 * The stop's budget in milliseconds (docs/hooks.md "Time budget of a stop"):
 * `TURNGATE_STOP_BUDGET_MS` when it is a positive integer below {@link STOP_BUDGET_MS},
 * else {@link STOP_BUDGET_MS} (a larger, malformed or absent value keeps the default: the
 * variable only lowers the budget). Input: the host's environment. Output: ms. Pure.
 */
export function stopBudgetMs(env: NodeJS.ProcessEnv): number {
  const raw = env[STOP_BUDGET_ENV];
  if (raw === undefined || !/^[1-9][0-9]{0,9}$/.test(raw)) return STOP_BUDGET_MS;
  return Math.min(Number(raw), STOP_BUDGET_MS);
}

/** A running stop's budget: a signal aborted when it runs out. */
export interface StopBudget {
  /** The budget, ms. */
  ms: number;
  /** Aborted when the budget runs out. */
  signal: AbortSignal;
  /** Clears the timer (the stop ended first). */
  release(): void;
}

/**
 * Start the stop's budget of `ms` milliseconds: its signal aborts when it runs out. The timer
 * does not keep the process alive. Output: the budget; `release` clears it.
 */
export function startStopBudget(ms: number): StopBudget {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ms);
  timer.unref();
  return { ms, signal: controller.signal, release: () => clearTimeout(timer) };
}

/** Seconds of `ms` as the answers print them (`540 s`, `3 s`, `2.5 s`). Pure. */
export function budgetSeconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * The line a stop whose budget ran out starts with (docs/hooks.md "Time budget of a stop"):
 * the budget, the hook's timeout, and what was still running — the check or dependency
 * setup the budget stopped (from `runs`: the run that was aborted), else turngate's own work.
 * Input: the budget in ms and the checks' runs (none when no check started). Output: one
 * line. Pure.
 */
export function budgetLine(ms: number, runs: readonly CommandRun[]): string {
  const stopped = runs.find((run) => run.execution.aborted);
  let what: string;
  if (stopped === undefined) {
    what = "turngate's own work (observing the workspace, preparing the checks) was still running";
  } else if (stopped.command.id === SETUP_CHECK_ID) {
    what = `the dependency setup \`${escapeControls(stopped.command.command)}\` was still running and was stopped`;
  } else {
    const id = escapeControls(stopped.command.id ?? stopped.command.command);
    what = `the check \`${id}\` (\`${escapeControls(stopped.command.command)}\`) was still running and was stopped`;
  }
  return `the checks did not finish within the stop's time budget (${budgetSeconds(ms)}, below the hook's ${STOP_HOOK_TIMEOUT_S} s timeout): ${what}. A hook that outlives its timeout does not block, so turngate blocks now: make the setup and the checks finish sooner (a hanging test, a slow or hanging install script).`;
}

/**
 * `work`, or — when it has not ended `graceMs` after `budget` ran out — `late()`, after
 * `abandon` was called (docs/hooks.md "Time budget of a stop": the stop answers before the
 * hook's timeout even when turngate's own work hangs). The default `abandon` kills the checks'
 * process groups and makes the process exit 5 s later (time to write the answer), whatever is
 * still pending. Input: the budget, the work, the late result, the grace in ms (default
 * {@link STOP_ANSWER_GRACE_MS}) and `abandon`. Output: the first of the two. Errors: `work`'s.
 */
export async function withinBudget<T>(
  budget: StopBudget,
  work: Promise<T>,
  late: () => T,
  graceMs: number = STOP_ANSWER_GRACE_MS,
  abandon: () => void = abandonStop,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const fallback = new Promise<T>((resolve) => {
    timer = setTimeout(() => {
      abandon();
      resolve(late());
    }, budget.ms + graceMs);
    timer.unref();
  });
  try {
    return await Promise.race([work, fallback]);
  } finally {
    clearTimeout(timer);
  }
}

/** Kill the checks' process groups; exit 5 s later (the answer is written by then). */
function abandonStop(): void {
  killTrackedProcessGroups();
  setTimeout(() => process.exit(), 5_000).unref();
}
