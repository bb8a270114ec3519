/**
 * Warm-state facts and lifecycle (harn-verification.md §1.7, §1.8, §2.8): is a row's warm
 * state (a watch-mode compiler, a test server) ready, and starting / tearing it down.
 *
 * Warm-state processes are declared by rows, run in their own process group (tracked:
 * SIGKILLed if this process exits), and are never a source of evidence: only a check run
 * binds a report, and whatever they change in the workspace while checks run unbinds it
 * as any other change does.
 */
import { runShellCommand } from "../../runner/shell.js";
import { type BackgroundStarted, cancelBackground, startBackground } from "./background.js";
import { type CheckCommandResult, toCommandResult } from "./command-result.js";
import { resolveSpec } from "./command-spec.js";
import { DEFAULT_PROBE_TIMEOUT_MS } from "./toolchain.js";

type Dict = Record<string, unknown>;
const asDict = (v: unknown): Dict =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Dict) : {};
const text = (v: unknown): string => (v === undefined || v === null ? "" : String(v)).trim();
const first = (...values: unknown[]): unknown => values.find((v) => v !== undefined && v !== null);
const toInt = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v)
    ? Math.trunc(v)
    : typeof v === "string" && /^[+-]?\d+$/.test(v)
      ? Number(v)
      : null;

/** `VerificationWarmStateFact`. */
export interface WarmStateFact {
  id: string;
  name: string;
  configured: boolean;
  available: boolean;
  ready: boolean;
  warm: boolean;
  timing_kind: "warm" | "cold";
  mode: string;
  expected_warm_delta_ms: number | null;
  warm_ms: number | null;
  cold_ms: number | null;
  cache_identity: Dict;
  probe: {
    status: string;
    exit: number | null;
    durationMs: number | null;
    stdout: string;
    stderr: string;
    error?: string;
  };
}

/** Options of the warm-state functions. */
export interface WarmStateOptions {
  /** Working directory of probes and warm-state commands. */
  root: string;
  /** Bound of each probe and of the stop command, in ms (default 10000). */
  timeout_ms?: number;
  cache_identity?: Dict;
}

function modeOf(row: Dict): Dict | undefined {
  const m = first(row.warmMode, row.warm_mode, row.warmState, row.warm_state);
  if (m === undefined) return undefined;
  return typeof m === "object" && m !== null && !Array.isArray(m)
    ? (m as Dict)
    : { warm: Boolean(m) };
}

function unwrapSpec(v: unknown): unknown {
  const d = asDict(v);
  return d.spec !== undefined && d.spec !== null ? d.spec : v;
}

/** Warm-state id of a row (§1.7): `mode.id ?? row.row_id ?? row.id ?? row.name`, else `warm-state/<i>`. */
export function warmStateId(row: Dict, index: number): { id: string; name: string } {
  const mode = modeOf(row) ?? {};
  const raw = text(first(mode.id, row.row_id, row.id, row.name));
  const id = raw === "" ? `warm-state/${index}` : raw;
  const name = text(first(mode.name, row.name));
  return { id, name: name === "" ? id : name };
}

async function runProbe(
  spec: unknown,
  options: WarmStateOptions,
): Promise<{ result?: CheckCommandResult; error?: string }> {
  try {
    const resolved = resolveSpec(spec, "probe");
    const run = await runShellCommand(resolved.command, {
      cwd: options.root,
      timeoutMs: resolved.timeoutMs ?? options.timeout_ms ?? DEFAULT_PROBE_TIMEOUT_MS,
    });
    return { result: toCommandResult(run) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

async function factOf(row: Dict, index: number, options: WarmStateOptions): Promise<WarmStateFact> {
  const mode = modeOf(row);
  const m = mode ?? {};
  const { id, name } = warmStateId(row, index);
  const probeKeys = ["readyProbe", "ready_probe", "readinessProbe", "readiness_probe", "probe"];
  const probeValue = first(...probeKeys.map((k) => m[k]), ...probeKeys.map((k) => row[k]));
  const probeSpec = probeValue === undefined ? undefined : unwrapSpec(probeValue);
  const ran = probeSpec === undefined ? undefined : await runProbe(probeSpec, options);
  const probeReady = ran?.result?.ok === true;
  const ready =
    m.ready !== undefined && m.ready !== null
      ? Boolean(m.ready)
      : m.warm !== undefined && m.warm !== null
        ? Boolean(m.warm)
        : probeReady;
  const t = asDict(first(row.timings, m.timings, {}));
  const p95 = (k1: string, k2: string) => first(asDict(t[k1]).p95, asDict(t[k2]).p95);
  const kind = text(first(m.mode, m.kind, m.type, "probe")).toLowerCase();
  const probe: WarmStateFact["probe"] =
    ran === undefined
      ? { status: "not_configured", exit: null, durationMs: null, stdout: "", stderr: "" }
      : ran.result === undefined
        ? {
            status: "failed",
            exit: null,
            durationMs: null,
            stdout: "",
            stderr: "",
            error: ran.error ?? "",
          }
        : {
            status: ran.result.status,
            exit: ran.result.timed_out ? 124 : ran.result.exit_code,
            durationMs: ran.result.duration_ms,
            stdout: ran.result.stdout,
            stderr: ran.result.stderr,
          };
  return {
    id,
    name,
    configured: mode !== undefined || probeSpec !== undefined,
    available: probeReady,
    ready,
    warm: ready,
    timing_kind: ready ? "warm" : "cold",
    mode: kind === "" ? "probe" : kind,
    expected_warm_delta_ms: toInt(
      first(
        m.expectedWarmDeltaMs,
        m.expected_warm_delta_ms,
        row.expectedWarmDeltaMs,
        row.expected_warm_delta_ms,
      ),
    ),
    warm_ms: toInt(first(m.warmMs, m.warm_ms, p95("warmMs", "warm_ms"))),
    cold_ms: toInt(first(m.coldMs, m.cold_ms, p95("coldMs", "cold_ms"))),
    cache_identity: {
      ...(options.cache_identity ?? {}),
      ...asDict(first(row.cacheIdentity, row.cache_identity)),
      ...asDict(first(m.cacheIdentity, m.cache_identity)),
    },
    probe,
  };
}

/**
 * One warm-state fact per row (§1.7), readiness probes run in parallel, each bounded by
 * `timeout_ms`. A declared `ready` / `warm` overrides the probe (which still runs); a
 * failing or missing probe is `available: false`, never an exception. Never rejects.
 */
export async function warmStateFacts(
  rows: readonly unknown[],
  options: WarmStateOptions,
): Promise<WarmStateFact[]> {
  return Promise.all(rows.map((row, i) => factOf(asDict(row), i, options)));
}

/** The receipt of `startWarmState`. */
export interface WarmStateReceipt {
  id: string;
  name: string;
  status: "ready" | "starting" | "not_configured";
  reused: boolean;
  handle_id: string | null;
  started: BackgroundStarted | null;
  initial_fact: WarmStateFact;
  fact: WarmStateFact;
  row: unknown;
}

function receiptHandle(receipt: unknown): string | null {
  const r = asDict(receipt);
  const direct = text(r.handle_id);
  if (r.handle_id !== undefined && r.handle_id !== null) return direct === "" ? null : direct;
  const nested = text(asDict(r.started).handle_id);
  return nested === "" ? null : nested;
}

const startKeys = ["startCommand", "start_command", "spawnCommand", "spawn_command"];
const stopKeys = ["teardownCommand", "teardown_command", "stopCommand", "stop_command"];

/**
 * `verification_start_warm_state` (§1.8): probes first; ready → no spawn (`status: "ready"`);
 * an `existing` receipt still warming is reused (`status: "starting"`, nothing spawned,
 * unless `reuse_existing: false`); else the row's start command is started in the
 * background (own process group) and the row probed again. No start command →
 * `not_configured`. Throws `TurngateValidationError` for a bad start spec.
 */
export async function startWarmState(
  row: unknown,
  options: WarmStateOptions & { existing?: unknown; receipt?: unknown; reuse_existing?: boolean },
): Promise<WarmStateReceipt> {
  const r = asDict(row);
  const m = modeOf(r) ?? {};
  const { id, name } = warmStateId(r, 0);
  const existing = first(options.existing, options.receipt);
  const existingHandle = existing === undefined ? null : receiptHandle(existing);
  const [before] = await warmStateFacts([r], options);
  const base = { id, name, initial_fact: before as WarmStateFact, row };
  if (before?.warm) {
    return {
      ...base,
      status: "ready",
      reused: existingHandle !== null,
      handle_id: existingHandle,
      started: (asDict(existing).started as BackgroundStarted) ?? null,
      fact: before,
    };
  }
  if (existingHandle !== null && options.reuse_existing !== false) {
    return {
      ...base,
      status: "starting",
      reused: true,
      handle_id: existingHandle,
      started: (asDict(existing).started as BackgroundStarted) ?? null,
      fact: before as WarmStateFact,
    };
  }
  const startValue = first(...startKeys.map((k) => m[k]), m.command, ...startKeys.map((k) => r[k]));
  if (startValue === undefined) {
    return {
      ...base,
      status: "not_configured",
      reused: false,
      handle_id: null,
      started: null,
      fact: before as WarmStateFact,
    };
  }
  const resolved = resolveSpec(unwrapSpec(startValue), "row.startCommand");
  const started = startBackground(resolved.command, { cwd: options.root });
  const [fact] = await warmStateFacts([r], options);
  return {
    ...base,
    status: fact?.warm ? "ready" : "starting",
    reused: false,
    handle_id: started.handle_id,
    started,
    fact: fact as WarmStateFact,
  };
}

/**
 * `verification_teardown_warm_state` (§1.8): stops the receipt's background process group
 * (SIGTERM, then SIGKILL; `cancelled` is true only the first time), then runs the row's
 * stop command (foreground, bounded by `timeout_ms`) if it declares one; re-probes only
 * with `probe_after: true`. Never leaves the started group alive.
 */
export async function teardownWarmState(
  receipt: unknown,
  options: WarmStateOptions & {
    row?: unknown;
    handle_id?: string;
    wait_result_ms?: number;
    probe_after?: boolean;
  },
) {
  const rc = asDict(receipt);
  const row = asDict(first(options.row, rc.row, {}));
  const m = modeOf(row) ?? {};
  const ids = warmStateId(row, 0);
  const handleId = first(options.handle_id, receiptHandle(receipt)) as string | undefined;
  const cancel =
    handleId === undefined || handleId === null
      ? null
      : await cancelBackground(handleId, options.wait_result_ms ?? 2_000);
  const stopValue = first(...stopKeys.map((k) => m[k]), ...stopKeys.map((k) => row[k]));
  let teardown: CheckCommandResult | null = null;
  if (stopValue !== undefined) {
    const resolved = resolveSpec(unwrapSpec(stopValue), "row.stopCommand");
    teardown = toCommandResult(
      await runShellCommand(resolved.command, {
        cwd: options.root,
        timeoutMs: resolved.timeoutMs ?? options.timeout_ms ?? DEFAULT_PROBE_TIMEOUT_MS,
      }),
    );
  }
  const fact =
    options.probe_after === true ? ((await warmStateFacts([row], options))[0] ?? null) : null;
  return {
    id: text(rc.id) === "" ? ids.id : text(rc.id),
    name: text(rc.name) === "" ? ids.name : text(rc.name),
    status: "torn_down" as const,
    handle_id: handleId ?? null,
    cancelled: cancel?.cancelled ?? false,
    cancel,
    teardown,
    fact,
    row,
  };
}
