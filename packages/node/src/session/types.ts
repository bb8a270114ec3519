import type {
  CompletionAttestor,
  CompletionWaiver,
  ParsedTestResults,
  TurnProofTrust,
  VerificationCheck,
  VerificationCommand,
  VerificationReport,
} from "@turngate/core";
import type { EnvironmentBaseline } from "../environment/environment-baseline.js";
import type { SourceTree } from "../proofs/source-tree.js";
import type { ShellRunResult } from "../runner/shell.js";
import type { WorkspaceDelta } from "../workspace/diff/diff.js";
import type { CheckOutputs, SourceChange } from "../workspace/diff/during-check.js";
import type { WorkspaceSnapshot } from "../workspace/snapshot.js";
import type { SessionVerifier } from "./evidence/verifier.js";

/** Options of `Session.start`. */
export interface SessionOptions {
  /** Workspace root (a directory). */
  root: string;
  /** gitignore-style patterns the workspace observer skips (on top of git's own rules). */
  ignores?: string[];
  /** Host waivers (`completion_waiver.v1`); validated when the session starts. */
  waivers?: CompletionWaiver[];
  /**
   * Host attestor `(effectDigest, [{path, content_digest}]) → report | null` (sync or
   * async), called by `decide()` when the ledger is not empty (A3S §2.11).
   */
  attestor?: CompletionAttestor;
  /** Folder for verification command logs; default `<root>/.turngate/logs`. */
  logDir?: string;
  /**
   * The environment verification commands start from; default `process.env`. Checks get
   * the controlled environment derived from it (`checkEnvironment`, issue 10): PATH as
   * fixed at baseline time, secrets stripped, pinned Python/git/cargo variables;
   * `TURNGATE_SIGNING_KEY` is always removed (checks never see the proof signing key).
   */
  env?: NodeJS.ProcessEnv;
  /** A stored baseline (e.g. from `turngate baseline`) used instead of taking a new one. */
  baseline?: WorkspaceSnapshot;
  /** Extra `tool_versions` entries for the proof (e.g. `{turngate: "0.1.0"}`). */
  toolVersions?: Record<string, string>;
  /** Passed to the workspace observer: force (true) or forbid (false) git mode. */
  useGit?: boolean;
  /**
   * `@turngate/native` for the observer and the ledger's SHA-256 (issue 17): true requires
   * it, false uses the TypeScript path (`node:crypto` for the ledger), undefined lets
   * `TURNGATE_NATIVE` decide. The results are the same either way.
   */
  native?: boolean;
  /**
   * Grace between the agent's exit and the SIGKILL of the processes it left running, ms
   * (`settleAgentProcesses`); default 2,000. Config `agent_grace_ms`. Issue 10.
   */
  agentGraceMs?: number;
  /**
   * Record the git tree ids of the baseline and the final source scope in the proof
   * (`sourceTreeId`, a temporary index; issue 10). Default true.
   */
  recordTrees?: boolean;
  /**
   * With `baseline`: its git tree id as recorded when it was taken (e.g. in
   * `turngate.baseline.v1`); absent → the proof's `baseline_tree` is null with a reason.
   */
  baselineTree?: SourceTree;
  /**
   * The host's claim about the agent (issue 10): `sandboxed` when it runs as another OS
   * user or in a sandbox, so it cannot read the signing key. Default `unsandboxed`.
   */
  trust?: TurnProofTrust;
  /**
   * Extra output locations (gitignore syntax; config `outputs`, issue 10): untracked files
   * there are outside the source scope (`scope: "output"`); the agent's changes to them
   * are still ledger rows.
   */
  outputs?: string[];
  /** false turns off `DEFAULT_OUTPUT_LOCATIONS` (config `default_outputs`); default true. */
  defaultOutputs?: boolean;
  /**
   * Lockfiles a passing check may rewrite (config `"rewrite_paths"`, issue 10): a bare
   * lockfile name (`"Cargo.lock"`, any folder) or a relative path ending in one; only names
   * in `REWRITE_LOCKFILES`. When the first run of `verifyCommands({bind: true})` passed and
   * changed only these paths, the checks run once more and the report binds when that run
   * passes and changes nothing. Validated by `Session.start` (path `rewrite_paths.N`).
   */
  rewritePaths?: string[];
  /**
   * User-level folder of the per-check test histories (vanished tests, issue #16 §3);
   * default `defaultTestHistoryDir(env)`; `false` turns the comparison off. A folder inside
   * the workspace root is not used (the agent could edit it).
   */
  testHistoryDir?: string | false;
  /** Issue 10 (shellenv): how the checks' controlled environment is fixed and watched. */
  checkEnvironment?: SessionCheckEnvironment;
  /**
   * Where the checks of `verifyCommands({bind: true})` run (docs/design.md §3b):
   * - `"clean-room"`: in the clean room (exactly the snapshot's source-scope bytes, a `.git`
   *   cloned at the baseline commit) inside the bubblewrap check sandbox; when the sandbox
   *   cannot start, no check runs and the turn is `incomplete` with reason
   *   `isolation_unavailable` (fail closed);
   * - `"in-place"`: in the workspace (the sealed-check model, docs/design.md §3a);
   * - `"auto"`: `clean-room` where the sandbox starts, else `in-place` (`Session.isolation`
   *   says which ran and why).
   * Default `"in-place"` for this API (a host opts in); the CLI's default is `"auto"`.
   */
  isolation?: IsolationRequest;
  /** The clean room's folder (default `cleanRoomDir`: under the user's cache folder). */
  roomDir?: string;
  /**
   * When the previous turn on this workspace ended (ms since the epoch; the turn chain's
   * `endedAt`), for a session whose `baseline` is that turn's judged snapshot. The clean
   * room trusts what was written in it before the later of this and the baseline's
   * `taken_at_ms` (the previous turn's own room work came after its snapshot); it is never
   * later than the session's start. Default: the baseline's `taken_at_ms` alone.
   */
  previousTurnEndedMs?: number;
  /**
   * When turngate last sealed this workspace's clean room in the turn chain (ms since the
   * epoch; the chain's `room_sealed_at`, `Session.roomSealedMs` of the last turn that wrote
   * the room), or null when no turn of the chain did (an older chain: not known). When given
   * (a number or null) it replaces `previousTurnEndedMs` and the baseline's `taken_at_ms` as
   * the room's trust anchor (never later than the session's start; null: nothing in the room
   * is trusted, it is re-proven), because a turn that changes nothing never opens the room and
   * what its agent wrote there is after that turn's snapshot and end (docs/design.md §3b
   * "Gapless turns"). Undefined: the anchor is as `previousTurnEndedMs` says.
   */
  roomSealedMs?: number | null;
  /** Whether clean-room checks may reach the network (config `"network": true`); default false. */
  network?: boolean;
  /**
   * The dependency setup of clean-room checks (config `"setup"`, docs/design.md §3b,
   * `isolation/room-setup.ts`): a shell command run in the room, in the sandbox, with
   * network, when a dependency folder changed during the turn (or is absent but needed);
   * `false`: never (a changed folder stays hidden); undefined: the preset default
   * (`npm ci`, `pnpm install --frozen-lockfile`, `pip install -e .` into a room venv).
   * Read when the session starts, like `isolation` and `network`.
   */
  setup?: string | false;
  /**
   * Issue 13 item 4, default false: let an existence check in a `bash` command (`test -f P`,
   * `[ -e P ]`, `[[ -f P ]]`) on a mutated path whose bytes match the ledger bind the turn's
   * passing reports, or synthesise `shell:mutation_path_verify:<path>`
   * (`existenceEvidence`). Off by default: the file existing proves the write landed, not
   * that the code works.
   */
  existenceEvidence?: boolean;
  /**
   * Issue 13 item 5, default off: the read-only verifier (A3S §2.18), a callback
   * `(input) → report | null` or `{command, timeoutMs?}`, run once per turn by `decide()`
   * before the gate when the ledger is not empty. The workspace is snapshotted around it:
   * any change voids its report (`verifier_changed_workspace`). Its report must still bind.
   */
  verifier?: SessionVerifier;
  /**
   * Issue 13 item 6, default false: the gate may answer `continue` once per turn for an
   * open external observation (never on the mutation path, not when force-ended).
   */
  allowContinuation?: boolean;
}

/**
 * Issue 10 (shellenv), `SessionOptions.checkEnvironment`. Every session runs its checks in
 * the controlled environment of `runner/check-env.ts` (absolute shell and `PATH` fixed at
 * baseline time, `PYTHONNOUSERSITE`, `PYTHONPYCACHEPREFIX`, pinned git config, secrets
 * stripped, `CARGO_TARGET_DIR` under the state folder); these options tune it.
 */
export interface SessionCheckEnvironment {
  /** Config `shell`: a program name looked up on PATH or an absolute path; default bash if found, else sh. */
  shell?: string;
  /** The state folder (`CARGO_TARGET_DIR` = `<stateDir>/cargo-target`); default `<root>/.turngate`. */
  stateDir?: string;
  /** Secret-looking variables passed to checks all the same (config `allow_env`, exact names). */
  allowEnv?: string[];
  /** The home directory whose user-level files are fingerprinted; default `env.HOME`. Tests pass a temp folder. */
  home?: string;
  /**
   * Files whose change after the baseline makes the checks' report `needs_review` (the
   * configuration file: the turn uses the configuration read before the agent ran).
   * Absolute paths; fingerprinted (SHA-256 of the bytes) at baseline time.
   */
  reviewFiles?: string[];
  /**
   * The harnesses' hook settings in the workspace (`HOOK_SETTINGS_PATHS`, docs/design.md
   * §3b): created, changed or removed during the turn, the report is `needs_review`
   * (`turngate:hook-settings`). Absolute paths; fingerprinted at baseline time.
   */
  hookFiles?: string[];
  /** A stored environment baseline (`turngate baseline`); then nothing is re-resolved. */
  baseline?: EnvironmentBaseline;
}

/** Progress of `verifyCommands`, one `start` and one `end` per command, in order. */
export type VerifyProgressEvent =
  | { type: "start"; index: number; total: number; command: VerificationCommand }
  | {
      type: "end";
      index: number;
      total: number;
      command: VerificationCommand;
      check: VerificationCheck;
      /** Wall time of the command in ms. */
      durationMs: number;
      execution: ShellRunResult;
    };

/** Options of `Session.verifyCommands`. */
export interface VerifyCommandsOptions {
  /**
   * Snapshot the workspace before and after the checks and bind the report to the effect
   * digest when nothing changed in between (docs/design.md §3). Default false (unbound report).
   */
  bind?: boolean;
  onProgress?: (event: VerifyProgressEvent) => void;
  /** Aborting stops the running command's process group; later commands do not start. */
  signal?: AbortSignal;
  /**
   * The result cache (issue 20): asked before each command runs; a result it returns is
   * used instead of running the command (the run is marked `cached`), and the report is
   * still bound only when the workspace did not change across the checks.
   */
  cache?: CommandResultCache;
  /**
   * Where these bound checks run, overriding the session's `isolation` for this call
   * (docs/design.md §3b). A clean room chosen here, in a session started `in-place`, gets its
   * `.git` at the HEAD of this moment, not of the baseline: choose it in `SessionOptions`
   * to fix it at baseline time. Ignored without `bind` (unbound checks run in place).
   */
  isolation?: IsolationRequest;
  /**
   * Called when the clean room's dependency setup is needed (`SessionOptions.setup`), before
   * it runs (`cache: "miss"`) or when a cached result is reused (`cache: "hit"`): the CLI
   * prints one progress line on stderr.
   */
  onSetup?: (event: SetupProgressEvent) => void;
}

/** What `VerifyCommandsOptions.onSetup` is told. */
export interface SetupProgressEvent {
  /** The setup's shell command. */
  command: string;
  /** Why it is needed ("node_modules changed during the turn"). */
  reason: string;
  /** `miss`: it runs now; `hit`: the result sealed for the same inputs is reused. */
  cache: "hit" | "miss";
  /** The first 12 hex of the cache key. */
  key: string;
}

/** A stored result of one command, as the result cache hands it to `verifyCommands`. */
export interface CachedCommandResult {
  /** The check as stored (its id, kind, description and `required` are taken from the command). */
  check: VerificationCheck;
  exitCode: number | null;
  /** How long it ran where it was stored, ms. */
  durationMs: number;
  /** The stored log excerpt, and the full log's size in bytes. */
  output: string;
  totalBytes: number;
  truncated: boolean;
  /** Where the hit came from. */
  source: "remote" | "local";
}

/** The hook `verifyCommands` asks before each command (`VerifyCommandsOptions.cache`). */
export interface CommandResultCache {
  /** A stored result for `command`, or undefined to run it. Must not throw. */
  lookup(command: VerificationCommand, index: number): Promise<CachedCommandResult | undefined>;
}

/**
 * A lockfile a check rewrote and `"rewrite_paths"` allowed: the path and the id of the
 * first check after which it had changed. It is a ledger row with tool `check:<checkId>`.
 */
export interface CheckRewrite {
  path: string;
  checkId: string;
}

/**
 * Whether the report of a `verifyCommands` call was bound (issue 10, "What the checks
 * changed"; docs/design.md §3a). Every variant may carry `checkOutputs` (ignored files and output
 * locations the checks changed: the first `CHECK_OUTPUTS_CAP` by path plus the exact
 * count; only present when there is at least one) and `rewrites` (lockfiles rewritten by a
 * passing first run and re-run, `"rewrite_paths"`). `workspace_changed_during_check` and
 * `observation_incomplete` carry `hint`: what the user should do.
 * - `{bound: true, effectDigest}`: the checks changed nothing in source scope (after the
 *   re-run, when `rewrites` is set);
 * - `reason: "workspace_changed_during_check"` (stale): `changedPaths` (pre-existing source
 *   files modified, deleted or with changed size/mtime/ctime/inode; new source files
 *   outside the output locations; changed harness files such as `.git/hooks/*`) changed,
 *   or `unreadable` paths could not be read, between the snapshots around the checks;
 *   `changes` says how each pre-existing source file changed, `created` lists the new ones;
 * - `reason: "observation_incomplete"`: the turn's own observation is incomplete, so its
 *   digest is not the effect (A3S E3);
 * - `reason: "no_effect"`: the turn changed nothing, so there is no digest to bind;
 * - `reason: "not_requested"`: `bind` was false.
 */
export type ReportBinding =
  | {
      bound: true;
      effectDigest: string;
      checkOutputs?: CheckOutputs;
      rewrites?: CheckRewrite[];
      /**
       * Clean room only: source paths the workspace changed while the checks ran (by the
       * agent's leftovers or another process). The report stays bound to the bytes that were
       * checked; the turn's final digest differs, so the gate does not allow it.
       */
      changedAfter?: string[];
    }
  | {
      bound: false;
      reason: "isolation_unavailable";
      hint: string;
      checkOutputs?: CheckOutputs;
    }
  | {
      bound: false;
      reason: "workspace_changed_during_check";
      changedPaths: string[];
      unreadable: string[];
      hint: string;
      changes?: SourceChange[];
      created?: string[];
      checkOutputs?: CheckOutputs;
      rewrites?: CheckRewrite[];
    }
  | {
      bound: false;
      reason: "observation_incomplete";
      hint: string;
      checkOutputs?: CheckOutputs;
      rewrites?: CheckRewrite[];
    }
  | { bound: false; reason: "no_effect" | "not_requested"; checkOutputs?: CheckOutputs };

/** How the checks may be isolated: a mode, or `"auto"` (clean-room where the sandbox starts). */
export type IsolationRequest = "clean-room" | "in-place" | "auto";

/**
 * The isolation a session's checks run under, as decided at `Session.start` (never a claim):
 * `mode` is what runs; `requested` what was asked for; `available` false when `clean-room`
 * was required and the sandbox cannot start (then no check runs); `reason` why the sandbox
 * is unavailable (for `auto`, why it fell back to `in-place`).
 */
export interface SessionIsolation {
  mode: "clean-room" | "in-place";
  requested: IsolationRequest;
  available: boolean;
  reason?: string;
}

/** One command's run inside `verifyCommands`. */
export interface CommandRun {
  command: VerificationCommand;
  check: VerificationCheck;
  execution: ShellRunResult;
  /** Set when the result came from the result cache (issue 20): the command did not run. */
  cached?: "remote" | "local";
  /** The structured test results, when the command declared `results` and they were read. */
  testResults?: ParsedTestResults;
}

/**
 * Result of `Session.verifyCommands`: the recorded report, its binding and each run. After
 * a `"rewrite_paths"` re-run, `runs` and `report` are the re-run's and `firstRuns` holds the
 * first run (its report is not recorded: it ran on other bytes).
 */
export interface VerifyCommandsResult {
  report: VerificationReport;
  binding: ReportBinding;
  runs: CommandRun[];
  /** Where the checks ran (docs/design.md §3b): what ran, never a claim. */
  isolation: SessionIsolation;
  /**
   * Clean room: the files the configuration's `outputs` named that the checks wrote, copied
   * to `<room's folder>/outputs/<effect digest>/`, outside the workspace (absent when none
   * was).
   */
  outputs?: { dir: string; paths: string[] };
  firstRuns?: CommandRun[];
}

/** Result of `Session.settleWorkspaceChild`. */
export interface WorkspaceChildSettlement {
  /** True when an open child had the task id and is now settled; false when none had it. */
  settled: boolean;
  /** Task ids of the children still open, in the order they were opened. */
  openChildren: string[];
  /** The delta of the workspace re-read that followed (as from `observeWorkspace()`). */
  delta: WorkspaceDelta;
}
