import { KILL_WAIT_MS, type KillFunction, killProcesses } from "./kill.js";
import { reapChild } from "./subreaper.js";
import { findSurvivors, type SurvivorProcess, type SurvivorScanOptions } from "./survivors.js";

/** Default grace between the agent's exit and the SIGKILL of what it left running, ms. */
export const DEFAULT_AGENT_GRACE_MS = 2000;

/** How many scan → SIGKILL rounds run at most (a process may fork while it is killed). */
const KILL_ROUNDS = 5;

/** A process the agent left running, and what became of it. */
export interface AgentSurvivor extends SurvivorProcess {
  /**
   * `exited`: it ended by itself within the grace; `killed`: SIGKILLed and gone;
   * `unkillable`: still running after SIGKILL and the bounded wait.
   */
  outcome: "exited" | "killed" | "unkillable";
}

/** Options of `settleAgentProcesses`. */
export interface AgentProcessOptions extends SurvivorScanOptions {
  /** Grace after the agent's exit before survivors are SIGKILLed, ms; default 2,000. */
  graceMs?: number;
  /** Bounded wait after SIGKILL, ms; default 1,000. */
  killWaitMs?: number;
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
 * exit costs no wait), then SIGKILL what is left (its process group too) and wait up to
 * `killWaitMs`; repeat the scan up to 5 rounds for processes forked meanwhile. Zombie
 * children of this process (ended orphans reparented to a subreaper) are reaped.
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
  const graceEnd = Date.now() + graceMs;
  while (alive.length > 0 && Date.now() < graceEnd && options.signal?.aborted !== true) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, graceEnd - Date.now())));
    alive = scan();
  }

  const unkillable = new Set<number>();
  for (let round = 0; round < KILL_ROUNDS && alive.length > 0; round += 1) {
    const targets = alive.filter((survivor) => !unkillable.has(survivor.pid)).map((s) => s.pid);
    if (targets.length === 0) break;
    const groups = options.processGroup !== undefined ? [options.processGroup] : [];
    const result = await killProcesses(targets, {
      groups,
      waitMs: options.killWaitMs ?? KILL_WAIT_MS,
      pollMs,
      ...(options.kill ? { kill: options.kill } : {}),
      ...(options.source ? { source: options.source } : {}),
    });
    for (const pid of result.killed) setOutcome(seen, pid, "killed");
    for (const pid of result.unkillable) unkillable.add(pid);
    alive = scan();
  }
  for (const survivor of alive) unkillable.add(survivor.pid);
  for (const pid of unkillable) setOutcome(seen, pid, "unkillable");

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
