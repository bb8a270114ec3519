import type {
  CompletionAttestor,
  CompletionWaiver,
  ParsedTestResults,
  VerificationCheck,
  VerificationCommand,
  VerificationReport,
} from "@turngate/core";
import type { ShellRunResult } from "../runner/shell.js";
import type { WorkspaceDelta } from "../workspace/diff.js";
import type { WorkspaceSnapshot } from "../workspace/snapshot.js";

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
  /** Environment for verification commands; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** A stored baseline (e.g. from `turngate baseline`) used instead of taking a new one. */
  baseline?: WorkspaceSnapshot;
  /** Extra `tool_versions` entries for the proof (e.g. `{turngate: "0.1.0"}`). */
  toolVersions?: Record<string, string>;
  /** Passed to the workspace observer: force (true) or forbid (false) git mode. */
  useGit?: boolean;
  /**
   * User-level folder of the per-check test histories (vanished tests, issue #16 §3);
   * default `defaultTestHistoryDir(env)`; `false` turns the comparison off. A folder inside
   * the workspace root is not used (the agent could edit it).
   */
  testHistoryDir?: string | false;
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
   * digest when nothing changed in between (DESIGN §3). Default false (unbound report).
   */
  bind?: boolean;
  onProgress?: (event: VerifyProgressEvent) => void;
  /** Aborting stops the running command's process group; later commands do not start. */
  signal?: AbortSignal;
}

/**
 * Whether the report of a `verifyCommands` call was bound:
 * - `{bound: true, effectDigest}`: nothing changed while the checks ran;
 * - `reason: "workspace_changed_during_check"` (stale): `changedPaths` changed, or
 *   `unreadable` paths could not be read, between the snapshots around the checks;
 * - `reason: "observation_incomplete"`: the turn's own observation is incomplete, so its
 *   digest is not the effect (A3S E3);
 * - `reason: "no_effect"`: the turn changed nothing, so there is no digest to bind;
 * - `reason: "not_requested"`: `bind` was false.
 */
export type ReportBinding =
  | { bound: true; effectDigest: string }
  | {
      bound: false;
      reason: "workspace_changed_during_check";
      changedPaths: string[];
      unreadable: string[];
    }
  | { bound: false; reason: "observation_incomplete" | "no_effect" | "not_requested" };

/** One command's run inside `verifyCommands`. */
export interface CommandRun {
  command: VerificationCommand;
  check: VerificationCheck;
  execution: ShellRunResult;
  /** The structured test results, when the command declared `results` and they were read. */
  testResults?: ParsedTestResults;
}

/** Result of `Session.verifyCommands`: the recorded report, its binding and each run. */
export interface VerifyCommandsResult {
  report: VerificationReport;
  binding: ReportBinding;
  runs: CommandRun[];
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
