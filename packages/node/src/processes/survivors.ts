import { trackedProcessGroups } from "../runner/process-group.js";
import { environHasMarker, type TurnMarker } from "./marker.js";
import {
  defaultProcessSource,
  listProcesses,
  type ProcessSource,
  readCommandLine,
  readProcEnviron,
} from "./process-table.js";

/** How a surviving process of the agent was found. */
export type SurvivorFoundBy = "process_group" | "session" | "environment_marker" | "subreaper";

/** A process still running after the agent exited. */
export interface SurvivorProcess {
  pid: number;
  /** From `/proc/PID/cmdline` (arguments joined by spaces); `ps -o args=` off Linux. */
  command_line: string;
  found_by: SurvivorFoundBy;
}

/** What to look for (issue 10, "Processes the agent left running"). */
export interface SurvivorScanOptions {
  /** The agent's own process group (its pid when it was started detached); absent: not scanned. */
  processGroup?: number;
  /**
   * The agent's own session (its pid when it was started detached): catches a job-control
   * shell's background job, which gets a process group of its own but stays in the session.
   * Absent: not scanned. Needs `/proc` (the `ps` source has no session ids).
   */
  session?: number;
  /** The turn's environment marker; scanned for in `/proc/*\/environ` (Linux only). */
  marker?: TurnMarker;
  /**
   * This process is a child subreaper: its children (orphans reparented to it) are
   * survivors — except its own children, which the host must list in `excludePids`
   * (`childPids()` taken before the agent started: e.g. tsx's esbuild service).
   */
  subreaper?: boolean;
  /** This process (default `process.pid`); never a survivor. */
  selfPid?: number;
  /** Pids that are never survivors (e.g. other children the host started itself). */
  excludePids?: ReadonlySet<number>;
  /**
   * Process groups whose members are never survivors; default `trackedProcessGroups()`
   * (turngate's own running checks, e.g. another session's in a bridge host).
   */
  excludeGroups?: ReadonlySet<number>;
  /** Process table source; default `/proc` on Linux, `ps` elsewhere. */
  source?: ProcessSource;
}

/** Result of one scan. */
export interface SurvivorScan {
  /** Running (non-zombie) survivors, by pid; each found by the first rule that matched. */
  survivors: SurvivorProcess[];
  /** Zombie children of this process (ended orphans) to reap; they run nothing. */
  zombieChildren: number[];
  /** True when the marker was looked for (`/proc` source and a marker given). */
  markerScanned: boolean;
}

/**
 * One scan of the process table for processes the agent left running. A process matches,
 * in this order: its process group is `processGroup` (`process_group`); its session is
 * `session` (`session`); its environment
 * holds `marker` exactly (`environment_marker`, Linux `/proc/PID/environ`, readable for
 * processes of the same user or as root); its parent is this process while `subreaper` is
 * on (`subreaper`). This process, `excludePids` and members of `excludeGroups` never match.
 * Zombies are never survivors; zombie children of this process are listed for reaping.
 *
 * Output: `{survivors, zombieChildren, markerScanned}` sorted by pid. Errors: throws when
 * the process table cannot be read (`/proc` not listable, `ps` missing).
 */
export function findSurvivors(options: SurvivorScanOptions): SurvivorScan {
  const source = options.source ?? defaultProcessSource();
  const self = options.selfPid ?? process.pid;
  const excludeGroups = options.excludeGroups ?? trackedProcessGroups();
  const markerScanned = options.marker !== undefined && source === "proc";
  const survivors: SurvivorProcess[] = [];
  const zombieChildren: number[] = [];
  for (const row of listProcesses(source)) {
    if (row.pid === self || options.excludePids?.has(row.pid)) continue;
    if (excludeGroups.has(row.pgid)) continue;
    const zombie = row.state === "Z" || row.state === "X";
    if (zombie) {
      if (row.ppid === self) zombieChildren.push(row.pid);
      continue;
    }
    let foundBy: SurvivorFoundBy | undefined;
    if (options.processGroup !== undefined && row.pgid === options.processGroup) {
      foundBy = "process_group";
    } else if (options.session !== undefined && row.sid === options.session) {
      foundBy = "session";
    } else if (markerScanned && options.marker && hasMarker(row.pid, options.marker)) {
      foundBy = "environment_marker";
    } else if (options.subreaper === true && row.ppid === self) {
      foundBy = "subreaper";
    }
    if (foundBy === undefined) continue;
    survivors.push({
      pid: row.pid,
      command_line: readCommandLine(row.pid, source),
      found_by: foundBy,
    });
  }
  survivors.sort((a, b) => a.pid - b.pid);
  zombieChildren.sort((a, b) => a - b);
  return { survivors, zombieChildren, markerScanned };
}

function hasMarker(pid: number, marker: TurnMarker): boolean {
  const environ = readProcEnviron(pid);
  return environ !== undefined && environHasMarker(environ, marker);
}

/**
 * Pids of the running children of `parent` (default this process), e.g. taken before the
 * agent starts so that the subreaper rule never counts the host's own children. Errors:
 * throws when the process table cannot be read.
 */
export function childPids(
  parent: number = process.pid,
  source: ProcessSource = defaultProcessSource(),
): Set<number> {
  return new Set(
    listProcesses(source)
      .filter((row) => row.ppid === parent)
      .map((row) => row.pid),
  );
}
