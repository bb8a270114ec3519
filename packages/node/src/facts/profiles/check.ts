/**
 * Check timing with the profile store (harn-verification.md §1.4): recording a result,
 * and running one check bound to a snapshot taken before it starts.
 */
import { resolve } from "node:path";
import {
  type CheckObservation,
  type FileHashSnapshot,
  observationFromCommandResult,
  type ProfileRow,
  TurngateError,
} from "@turngate/core";
import { runShellCommand } from "../../runner/shell.js";
import { fileHashSnapshot } from "../file-hash-snapshot.js";
import { type BackgroundStarted, startBackground, waitBackground } from "./background.js";
import { type CheckCommandResult, toCommandResult } from "./command-result.js";
import { resolveSpec } from "./command-spec.js";
import type { ProfileStore } from "./store.js";

/** `VerificationRecordedCheck`. */
export interface RecordedCheck<R = unknown> {
  result: R;
  observation: CheckObservation;
  row: ProfileRow | null;
  snapshot: FileHashSnapshot | null;
}

/**
 * `verification_record_check_result`: the observation of `result` (with `options`, see
 * core's `observationFromCommandResult`) recorded into row `rowId` of `store` at store
 * directory `options.dir` (its origin, see `ProfileStore.recordRun`). Unknown row
 * → `row: null` (not an error). Throws `TurngateValidationError` (blank `row_id`, bad
 * `result.*` / `options.*`) or `ProfileStoreError`.
 */
export async function recordCheckResult(
  store: ProfileStore,
  rowId: unknown,
  result: unknown,
  options: Record<string, unknown> = {},
): Promise<RecordedCheck> {
  const observation = observationFromCommandResult(result, options);
  const row = await store.recordRun(rowId, observation, options.dir);
  return { result, observation, row, snapshot: null };
}

/** Options of `runCheck`: observation options plus these. */
export interface RunCheckOptions extends Record<string, unknown> {
  /** Workspace root: the command's working directory and the snapshot's root. */
  root: string;
  /** Paths hashed (FNV-1a 64) before the command starts; the observation binds to them. */
  snapshot_paths?: string[];
  /** A snapshot taken by the caller, when `snapshot_paths` is absent. */
  snapshot?: Record<string, unknown>;
  /** `{timeout_ms?}`; `background: true` is refused (use a background check). */
  command_options?: { background?: boolean; timeout_ms?: number };
  /** `false`: run and observe, but record nothing. */
  record?: boolean;
  /** Folder for the full output log. */
  log_dir?: string;
  /** Store directory (Harn's `dir`, relative to the store root) to record into; default the root. */
  dir?: string;
}

/**
 * `verification_run_check` (§1.4): refuses `command_options.background: true`; hashes
 * `snapshot_paths` BEFORE launching; runs `spec` (an argv list, `{argv}` or
 * `{mode: "shell", command}`) with our command runner (own process group, bounded capture,
 * timeout → exit 124 in the observation); builds one observation bound to the snapshot and
 * records it into row `rowId` unless `record: false`. Returns
 * `{result, observation, row, snapshot}` (`snapshot` = the file-hash snapshot taken, else null).
 * Throws `TurngateError` `background_not_supported`, `TurngateValidationError` (bad spec
 * or options) or `ProfileStoreError`; a failing command is a result, not an error.
 */
export async function runCheck(
  store: ProfileStore,
  rowId: unknown,
  spec: unknown,
  options: RunCheckOptions,
): Promise<RecordedCheck<CheckCommandResult>> {
  if (options.command_options?.background === true) {
    throw new TurngateError(
      "background_not_supported",
      "verification_run_check: background command_options are not supported; use verification_start_check",
    );
  }
  const resolved = resolveSpec(spec);
  let fact: FileHashSnapshot | null = null;
  const given = options.snapshot;
  // Snapshot-map rule (§2.9): a file-hash snapshot's `snapshot` member, else the map itself.
  let snapshot: unknown =
    given !== undefined && given !== null && given.snapshot !== undefined && given.snapshot !== null
      ? given.snapshot
      : given;
  if (options.snapshot_paths !== undefined) {
    fact = await fileHashSnapshot(options.root, options.snapshot_paths);
    snapshot = fact.snapshot;
  }
  const timeoutMs = resolved.timeoutMs ?? options.command_options?.timeout_ms;
  const run = await runShellCommand(resolved.command, {
    cwd: resolved.cwd === undefined ? options.root : resolve(options.root, resolved.cwd),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(options.log_dir === undefined ? {} : { logDir: options.log_dir }),
  });
  const result = toCommandResult(run);
  const {
    root: _root,
    snapshot_paths: _paths,
    command_options: _co,
    record,
    log_dir: _log,
    ...observationOptions
  } = options;
  const observation = observationFromCommandResult(result, {
    ...observationOptions,
    ...(snapshot === undefined ? {} : { snapshot }),
  });
  const row =
    record === false ? null : await store.recordRun(rowId, observation, observationOptions.dir);
  return { result, observation, row, snapshot: fact };
}

/** `VerificationStartedCheck`: persist it to finish the check later (in this process). */
export interface StartedCheck {
  row_id: string;
  started: BackgroundStarted;
  observation_options: Record<string, unknown>;
  snapshot: FileHashSnapshot | null;
}

/**
 * `verification_start_check` (§1.4): hashes `snapshot_paths` first (or takes
 * `options.snapshot`), then starts `spec` in the background (own process group, timeout =
 * `spec.timeout_ms ?? command_options.timeout_ms`, none by default). Records nothing.
 * Throws `TurngateValidationError` for a bad spec.
 */
export async function startCheck(
  rowId: string,
  spec: unknown,
  options: RunCheckOptions,
): Promise<StartedCheck> {
  const resolved = resolveSpec(spec);
  let fact: FileHashSnapshot | null = null;
  let snapshot: unknown = options.snapshot?.snapshot ?? options.snapshot;
  if (options.snapshot_paths !== undefined) {
    fact = await fileHashSnapshot(options.root, options.snapshot_paths);
    snapshot = fact.snapshot;
  }
  const timeoutMs = resolved.timeoutMs ?? options.command_options?.timeout_ms;
  const started = startBackground(resolved.command, {
    cwd: resolved.cwd === undefined ? options.root : resolve(options.root, resolved.cwd),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  });
  const { root: _r, snapshot_paths: _p, command_options: _c, log_dir: _l, ...rest } = options;
  return {
    row_id: rowId,
    started,
    observation_options: { ...rest, ...(snapshot === undefined ? {} : { snapshot }) },
    snapshot: fact,
  };
}

/** Options of `finishCheck`: observation options that override the receipt's, plus these. */
export interface FinishCheckOptions extends Record<string, unknown> {
  row_id?: string;
  /** How long to wait for the check (default `{timeout_ms: 60000}`). */
  wait_options?: { timeout_ms?: number };
  record?: boolean;
}

/**
 * `verification_finish_check` (§1.4): waits for the started check (60 s by default), builds
 * its observation (receipt options overridden by `options`) and records it into
 * `options.row_id ?? receipt.row_id` unless `record: false` (in either). A check still
 * running after the wait is returned as `{status: "running"}` with `observation` and `row`
 * null — nothing is recorded (Harn leaves this case open; a half-run's timing would skew
 * p95). Throws `TurngateError` `row_id_required`
 * (`verification_finish_check: row_id must be supplied in the receipt or options`).
 */
export async function finishCheck(
  store: ProfileStore,
  receipt: StartedCheck,
  options: FinishCheckOptions = {},
): Promise<{
  result: unknown;
  observation: CheckObservation | null;
  row: ProfileRow | null;
  snapshot: FileHashSnapshot | null;
}> {
  const rowId = String(options.row_id ?? receipt.row_id ?? "").trim();
  if (rowId === "") {
    throw new TurngateError(
      "row_id_required",
      "verification_finish_check: row_id must be supplied in the receipt or options",
    );
  }
  const result = await waitBackground(
    receipt.started.handle_id,
    options.wait_options?.timeout_ms ?? 60_000,
  );
  if (result.status === "running")
    return { result, observation: null, row: null, snapshot: receipt.snapshot };
  const { row_id: _id, wait_options: _w, record, ...overrides } = options;
  const observationOptions = { ...receipt.observation_options, ...overrides };
  const { record: receiptRecord, ...obsOptions } = observationOptions;
  const observation = observationFromCommandResult(result, obsOptions);
  const row =
    record === false || receiptRecord === false
      ? null
      : await store.recordRun(rowId, observation, observationOptions.dir);
  return { result, observation, row, snapshot: receipt.snapshot };
}
