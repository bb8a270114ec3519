import { KILL_WAIT_MS, type KillFunction, killProcesses } from "./kill.js";
import type { ProcessSource } from "./process-table.js";

/** Default bound on the scan → kill rounds: at most this many rounds. */
export const KILL_ROUNDS_MAX = 200;
/** Default bound on the scan → kill rounds: no new round starts after this many ms. */
export const KILL_ROUNDS_MAX_MS = 3000;

/** Options of `killUntilQuiet`. */
export interface KillRoundsOptions {
  /** One scan of the process table: the pids to kill now (called once per round). */
  scan: () => readonly number[];
  /** Process groups signalled as a whole in each round that found a process. */
  groups?: readonly number[];
  /** Pids already known to be unkillable: not signalled again, and not "found". */
  unkillable?: ReadonlySet<number>;
  /** Injected signal sender (tests); default `process.kill`. */
  kill?: KillFunction;
  /** Bounded wait after SIGKILL in each round, ms; default 1,000. */
  killWaitMs?: number;
  /** Poll interval of that wait, ms; default 20. */
  pollMs?: number;
  /** At most this many rounds; default 200. */
  maxRounds?: number;
  /** No new round starts after this many ms; default 3,000. */
  maxMs?: number;
  source?: ProcessSource;
}

/** Result of `killUntilQuiet`. */
export interface KillRoundsResult {
  /** Pids SIGKILLed and gone, in the order they were killed. */
  killed: number[];
  /** Pids still running after SIGKILL and the bounded wait (and those passed in). */
  unkillable: number[];
  /**
   * When the bound ended the rounds before two consecutive scans found nothing: the pids
   * of the last scan that found something (a chain that keeps re-forking); else empty.
   */
  stillAppearing: number[];
  /** Rounds run (scans made). */
  rounds: number;
  /** True when the last two scans found nothing (besides known unkillable pids). */
  quiet: boolean;
}

/**
 * Repeat scan → SIGSTOP-then-SIGKILL every found pid (and `groups`) → wait and reap
 * (`killProcesses` with `stopFirst`), until TWO consecutive scans find nothing, bounded
 * by `maxRounds` (200) and `maxMs` (3,000 ms; a round in progress finishes). Stopping
 * first keeps a process from forking while it is killed; the orphans of a killed process
 * are reparented to this process when it is a child subreaper, so the next scan finds
 * them. Two empty scans are needed because one `/proc` scan is not atomic: a process
 * forked behind the directory read is missed once, not twice after its parent is gone.
 *
 * Output: `{killed, unkillable, stillAppearing, rounds, quiet}`; a host treats each pid
 * of `unkillable` and `stillAppearing` like an unkillable survivor (the turn stays
 * incomplete). Errors: only what `scan` throws. Issue 10, "Processes the agent left
 * running" (security finding F1: a re-forking chain escaping the survivor kill).
 */
export async function killUntilQuiet(options: KillRoundsOptions): Promise<KillRoundsResult> {
  const maxRounds = options.maxRounds ?? KILL_ROUNDS_MAX;
  const deadline = Date.now() + (options.maxMs ?? KILL_ROUNDS_MAX_MS);
  const unkillable = new Set(options.unkillable ?? []);
  const killed: number[] = [];
  let lastFound: number[] = [];
  let empty = 0;
  let rounds = 0;
  while (empty < 2 && rounds < maxRounds && (rounds === 0 || Date.now() < deadline)) {
    rounds += 1;
    const found = options.scan().filter((pid) => !unkillable.has(pid));
    if (found.length === 0) {
      empty += 1;
      // Let the event loop run (signal handlers) between two scans.
      await new Promise((resolve) => setImmediate(resolve));
      continue;
    }
    empty = 0;
    lastFound = found;
    const result = await killProcesses(found, {
      groups: options.groups ?? [],
      stopFirst: true,
      waitMs: options.killWaitMs ?? KILL_WAIT_MS,
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
      ...(options.kill ? { kill: options.kill } : {}),
      ...(options.source ? { source: options.source } : {}),
    });
    killed.push(...result.killed);
    for (const pid of result.unkillable) unkillable.add(pid);
  }
  const quiet = empty >= 2;
  return {
    killed,
    unkillable: [...unkillable],
    stillAppearing: quiet ? [] : lastFound.filter((pid) => !unkillable.has(pid)),
    rounds,
    quiet,
  };
}
