export {
  KILL_WAIT_MS,
  type KillFunction,
  type KillOptions,
  killProcesses,
} from "./kill.js";
export {
  KILL_ROUNDS_MAX,
  KILL_ROUNDS_MAX_MS,
  type KillRoundsOptions,
  type KillRoundsResult,
  killUntilQuiet,
} from "./kill-rounds.js";
export {
  createTurnMarker,
  environHasMarker,
  TURN_MARKER_NAME,
  type TurnMarker,
  withTurnMarker,
} from "./marker.js";
export {
  defaultProcessSource,
  listProcesses,
  type ProcessInfo,
  type ProcessSource,
  parseProcStat,
  processRunning,
  readCommandLine,
  readProcEnviron,
  readProcStat,
  runningGroupMembers,
} from "./process-table.js";
export {
  type AgentProcessOptions,
  type AgentProcessSettlement,
  type AgentSurvivor,
  DEFAULT_AGENT_GRACE_MS,
  settleAgentProcesses,
} from "./settle.js";
export { reapChild, type SubreaperStatus, setChildSubreaper } from "./subreaper.js";
export {
  childPids,
  findSurvivors,
  type SurvivorFoundBy,
  type SurvivorProcess,
  type SurvivorScan,
  type SurvivorScanOptions,
} from "./survivors.js";
