export {
  CLEAN_ROOM_SCHEMA,
  CleanRoom,
  cleanRoomDir,
  cleanRoomId,
  cleanRoomsBase,
  ROOM_MANIFEST_FILE,
  type RoomPreparation,
} from "./clean-room.js";
export {
  AGENT_WRITABLE_IN_WORKSPACE,
  type AgentNetwork,
  agentWritableProblem,
  CLAUDE_GATE_FOLDERS,
  CONFINE_READ_ONLY,
  type ConfinePlan,
  type ConfineRequest,
  confineArgs,
  confinedAgentEnv,
  confinePlan,
  GIT_ALWAYS_READ_ONLY,
  type HiddenPath,
  HOOK_SETTINGS_PATHS,
  SCRUBBED_ENV_PREFIX,
  userSocketPaths,
} from "./confine.js";
export {
  confineGatePaths,
  type GatePath,
  type GatePlaceholders,
  makeGatePlaceholders,
  PLACEHOLDER_JOURNAL,
  PLACEHOLDER_JOURNAL_SCHEMA,
  type Placeholder,
  type PlaceholderRemoval,
  removeLeftoverPlaceholders,
} from "./confine-placeholders.js";
export {
  DEPENDENCY_DIR_NAMES,
  DEPENDENCY_FILE_NAMES,
  type DependencyFolder,
  dependencyFileMounts,
  dependencyMounts,
  findDependencyFiles,
  findDependencyFolders,
} from "./dependency-folders.js";
export {
  type AddressSet,
  EGRESS_REFUSAL_TEXT,
  type EgressAllowEntry,
  type EgressRefusal,
  egressAllowed,
  egressAllowProblem,
  egressDecision,
  localDestination,
  METADATA_ADDRESSES,
  normalizeAddress,
  parseAuthority,
  parseEgressAllow,
} from "./egress-policy.js";
export {
  EGRESS_BOOTSTRAP,
  EGRESS_HANDLE_MESSAGE,
  EGRESS_PROXY_PORT,
  EGRESS_PROXY_URL,
  EGRESS_READY_MESSAGE,
  EgressProxy,
  type EgressProxyOptions,
  type EgressRefused,
  egressProxyEnv,
  type NativeEgress,
  nativeEgress,
} from "./egress-proxy.js";
export {
  type HarnessPrograms,
  harnessGateFiles,
  harnessProgramPaths,
  harnessPrograms,
  harnessSettingsFiles,
  nestedHarnessSettings,
  PROGRAM_SETTING_KEYS,
  PROJECT_DIR_VARIABLES,
  programsIn,
} from "./harness-programs.js";
export {
  HOME_VALUE_NAMES,
  homeValues,
  readCargoRegistries,
  readNpmRegistry,
} from "./home-values.js";
export {
  fibTrieLocalPrefixes,
  ifInet6Addresses,
  ipv6LocalPrefixes,
  localAddresses,
  peerOnThisMachine,
  procTcpEndpoint,
} from "./local-networks.js";
export {
  argvPrograms,
  type CommandPrograms,
  type CommandScope,
  shellCommandPrograms,
} from "./program-words.js";
export {
  RoomChecks,
  type RoomChecksOptions,
  type RoomSetupPlan,
  roomCheckEnv,
} from "./room-checks.js";
export {
  isKeptCacheDir,
  KEPT_CACHE_DIRS,
  RoomSourceChangedError,
  syncRoomFiles,
} from "./room-files.js";
export { findStaleRooms, removeRooms, type StaleRoom } from "./room-gc.js";
export {
  type BaselineHead,
  ensureRoomClone,
  RoomGitError,
  readBaselineHead,
  updateRoomIndex,
} from "./room-git.js";
export { dropKept, type KeptFingerprint, keptDirs, keptFingerprint } from "./room-kept.js";
export {
  DIR_RECORD_BYTES,
  decodeRoomManifest,
  encodeRoomManifest,
  NO_DIRS,
  NO_RECORDS,
  RECORD_BYTES,
  ROOM_MANIFEST_VERSION,
  type RoomDirs,
  type RoomManifestHeader,
  type RoomRecord,
  type RoomRecords,
  readRecord,
  writeRecord,
} from "./room-manifest.js";
export { type CopiedOutputs, copyRoomOutputs } from "./room-outputs.js";
export {
  beginRoomProof,
  type ProofAhead,
  type ProofEntry,
  proveRoom,
  proveRoomTs,
  type RoomProof,
} from "./room-proof.js";
export {
  detectSetup,
  isSetupInput,
  SETUP_CACHE_KEEP,
  SETUP_SCHEMA,
  SetupCache,
  type SetupCommand,
  type SetupConfig,
  type SetupNeed,
  type SetupResult,
  setupKey,
  setupNeed,
  toolchainFingerprint,
} from "./room-setup.js";
export {
  bwrapArgs,
  findBwrap,
  HOME_TOOLCHAINS,
  namespaceArgs,
  probeSandbox,
  type RoomMount,
  resetSandboxProbe,
  type SandboxAvailability,
  type SandboxBind,
  type SandboxPlan,
  SYSTEM_DIRS,
  toolchainBinds,
} from "./sandbox.js";
export {
  AUDIT_ARCH_AARCH64,
  AUDIT_ARCH_X86_64,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_EPERM,
  SECCOMP_RET_KILL_PROCESS,
  SOCK_FILTER_BYTES,
  SOCKET_SYSCALL,
  unixSocketFilter,
  unixSocketFilterSupports,
} from "./seccomp-unix.js";
