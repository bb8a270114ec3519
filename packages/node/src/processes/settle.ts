import { KILL_WAIT_MS, type KillFunction } from "./kill.js";
import { KILL_ROUNDS_MAX, KILL_ROUNDS_MAX_MS, killUntilQuiet } from "./kill-rounds.js";
import { reapChild } from "./subreaper.js";
import { findSurvivors, type SurvivorProcess, type SurvivorScanOptions } from "./survivors.js";

/** Default grace between the agent's exit and the SIGKILL of what it left running, ms. */
export const DEFAULT_AGENT_GRACE_MS = 2000;

/** A process the agent left running, and what became of it. */
export interface AgentSurvivor extends SurvivorProcess {
  /**
   * `exited`: it ended by itself within the grace; `killed`: SIGKILLed and gone;
   * `unkillable`: still running after SIGKILL and the bounded wait, or still appearing
   * when the bounded kill rounds ended (a chain that keeps re-forking).
   */
  outcome: "exited" | "killed" | "unkillable";
}

/** Options of `settleAgentProcesses`. */
export interface AgentProcessOptions extends SurvivorScanOptions {
  /** Grace after the agent's exit before survivors are SIGKILLed, ms; default 2,000. */
  graceMs?: number;
  /** Bounded wait after SIGKILL, ms; default 1,000. */
  killWaitMs?: number;
  /** Bound on the scan → kill rounds after the grace; default 200 rounds. */
  maxKillRounds?: number;
  /** Bound on the scan → kill rounds after the grace, ms; default 3,000. */
  maxKillRoundsMs?: number;
  /** Poll interval of the grace and of the waits, ms; default 25. */
  pollMs?: number;
  /** Injected signal sender (tests); default `process.kill`. */
  kill?: KillFunction;
  /** Aborting ends the grace at once (e.g. the user pressed Ctrl-C): survivors are killed now. */
  signal?: AbortSignal;
}

/** Result of `settleAgentProcesses`. */
export interface AgentProcessSettlement {
  /** Every survivor seen, by pid, with its outcome. */
  survivors: AgentSurvivor[];
  /** The survivors whose outcome is `unkillable` (the turn stays incomplete for them). */
  unkillable: AgentSurvivor[];
  /** False when the marker could not be scanned for (no `/proc`): a `setsid` daemon with a cleared group is then not found. */
  markerScanned: boolean;
}

/**
 * After the agent exited: find what it left running (`findSurvivors`: process group,
 * environment marker, subreaper), give it `graceMs` to end by itself (polling, so a clean
 * exit costs no wait), then — whether or not the grace's last scan found anything —
 * repeat scan → SIGSTOP-then-SIGKILL (its process group too) → wait up to `killWaitMs`
 * and reap, until two consecutive scans find nothing (`killUntilQuiet`, bounded by
 * `maxKillRounds` 200 and `maxKillRoundsMs` 3,000 ms). A process that ended within the
 * grace stays `exited`; a descendant it left (reparented to this subreaper) is found in
 * the rounds. What still appears when the bound ends is `unkillable`. Zombie children of
 * this process (ended orphans reparented to a subreaper) are reaped.
 *
 * Output: `{survivors, unkillable, markerScanned}`. A host makes the turn incomplete for
 * each unkillable survivor (`Session.settleAgentProcesses` opens a background child,
 * A3S E2). Errors: throws only when the process table cannot be read.
 * Issue 10, "Processes the agent left running".
 */
export async function settleAgentProcesses(
  options: AgentProcessOptions,
): Promise<AgentProcessSettlement> {
  const graceMs = options.graceMs ?? DEFAULT_AGENT_GRACE_MS;
  const pollMs = options.pollMs ?? 25;
  const seen = new Map<number, AgentSurvivor>();
  let markerScanned = false;
  const scan = (): SurvivorProcess[] => {
    const found = findSurvivors(options);
    markerScanned = found.markerScanned;
    for (const pid of found.zombieChildren) reapChild(pid);
    for (const survivor of found.survivors) {
      if (!seen.has(survivor.pid)) seen.set(survivor.pid, { ...survivor, outcome: "exited" });
    }
    return found.survivors;
  };

  let alive = scan();
  // The grace: polls until nothing is found or it ends (a clean exit costs no wait).
  const graceEnd = Date.now() + graceMs;
  while (alive.length > 0 && Date.now() < graceEnd && options.signal?.aborted !== true) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, graceEnd - Date.now())));
    alive = scan();
  }

  const rounds = await killUntilQuiet({
    scan: () => scan().map((survivor) => survivor.pid),
    groups: options.processGroup !== undefined ? [options.processGroup] : [],
    killWaitMs: options.killWaitMs ?? KILL_WAIT_MS,
    pollMs,
    maxRounds: options.maxKillRounds ?? KILL_ROUNDS_MAX,
    maxMs: options.maxKillRoundsMs ?? KILL_ROUNDS_MAX_MS,
    ...(options.kill ? { kill: options.kill } : {}),
    ...(options.source ? { source: options.source } : {}),
  });
  for (const pid of rounds.killed) setOutcome(seen, pid, "killed");
  for (const pid of [...rounds.unkillable, ...rounds.stillAppearing]) {
    setOutcome(seen, pid, "unkillable");
  }

  const survivors = [...seen.values()].sort((a, b) => a.pid - b.pid);
  return {
    survivors,
    unkillable: survivors.filter((survivor) => survivor.outcome === "unkillable"),
    markerScanned,
  };
}

function setOutcome(
  seen: Map<number, AgentSurvivor>,
  pid: number,
  outcome: AgentSurvivor["outcome"],
): void {
  const survivor = seen.get(pid);
  if (survivor) survivor.outcome = outcome;
}
