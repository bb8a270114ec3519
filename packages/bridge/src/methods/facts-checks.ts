/**
 * Server-side Facts II methods (they run commands and read or write files, so they need
 * `@turngate/node` and are not served in-process under Pyodide): `facts.run_check`,
 * `facts.toolchain`, `facts.warm_state` (harn-verification.md §1.4, §1.6, §1.7).
 */
import {
  finishCheck,
  ProfileStore,
  runCheck,
  type StartedCheck,
  startCheck,
  startWarmState,
  teardownWarmState,
  toolchainFacts,
  warmStateFacts,
} from "@turngate/node";
import * as z from "zod";
import { defineMethod } from "../method.js";
import {
  FinishedCheckSchema,
  RunCheckResultSchema,
  StartedCheckSchema,
  ToolchainFactSchema,
  WarmStateFactSchema,
  WarmStateReceiptSchema,
  WarmStateTeardownSchema,
} from "../wire/facts-profiles.js";
import { jsonObject } from "../wire/json-object.js";

const Root = z
  .string()
  .min(1)
  .describe(
    "workspace root: the commands' working directory (absolute, or relative to the bridge's cwd)",
  );
const Rows = z.array(jsonObject()).describe("profile rows (packages/core/schema/profile-row.json)");
const TimeoutMs = z
  .number()
  .int()
  .min(1)
  .optional()
  .describe("bound of each probe in ms (default 10000)");
const Cache = z
  .record(z.string(), z.unknown())
  .optional()
  .describe("cache identity merged under each row's");

export const factsCheckMethods = {
  "facts.run_check": defineMethod({
    description:
      'Runs one check and records its timing (harn-verification.md §1.4): snapshot_paths are hashed (FNV-1a 64) BEFORE the command starts; spec is an argv list, {argv} or {mode: "shell", command}; it runs with turngate\'s command runner (own process group, timeout from spec.timeout_ms or options.command_options.timeout_ms, timed out → exit 124); one observation is recorded into row row_id of the profile store rooted at store_dir (atomic, locked) unless options.record is false: at <store_dir>/verification-profiles.json, or with options.dir (a Harn store directory relative to store_dir, e.g. packages/core) at the deepest directory from the root to dir whose record set has rows (<store_dir>/verification-profiles.d/<dir>/verification-profiles.json). Returns {result, observation, row (null for an unknown row), snapshot (the file-hash snapshot taken, or null)}. Errors: background_not_supported (options.command_options.background: true), invalid_params (spec, row_id, options.*), profile_store_invalid (the store file is corrupt or foreign; it is left unchanged).',
    params: z.strictObject({
      root: Root,
      store_dir: z.string().min(1).describe("directory of the profile store file"),
      row_id: z.string().describe("the profile row to record into"),
      spec: z
        .unknown()
        .describe(
          'an argv list, {argv, cwd?, timeout_ms?} or {mode: "shell", command, cwd?, timeout_ms?}',
        ),
      options: z
        .looseObject({
          snapshot_paths: z.array(z.string().min(1)).max(4096).optional(),
          snapshot: z.record(z.string(), z.unknown()).optional(),
          command_options: z
            .strictObject({
              timeout_ms: z.number().int().min(1).optional(),
              background: z.boolean().optional(),
            })
            .optional(),
          record: z.boolean().optional(),
          warm: z.boolean().optional(),
          cold: z.boolean().optional(),
          failure_signature_from: z.string().optional(),
          max_failure_signature_chars: z.number().int().optional(),
        })
        .default({}),
    }),
    result: RunCheckResultSchema,
    handler: async (p) => {
      const store = new ProfileStore(p.store_dir);
      return (await runCheck(store, p.row_id, p.spec, { ...p.options, root: p.root })) as z.output<
        typeof RunCheckResultSchema
      >;
    },
  }),

  "facts.toolchain": defineMethod({
    description:
      "Toolchain identity facts (harn-verification.md §1.6): each row's version probe (row.versionProbe ?? row.probe: a spec or {spec, versionPattern}) runs in parallel, bounded by options.timeout_ms; {id, name, available, version (first capture of versionPattern, default the first dotted number), raw_version, cache_identity, probe: {status, exit, durationMs, stdout, stderr, error?}}. A missing binary or a failing probe is available: false, never an error. Errors: invalid_regex naming the field (options.version_pattern, rows.N.probe.versionPattern, rows.N.versionPattern, …) for a version pattern that is not a valid JavaScript regular expression (unicode mode), before any probe runs.",
    params: z.strictObject({
      root: Root,
      rows: Rows,
      options: z
        .strictObject({
          timeout_ms: TimeoutMs,
          version_pattern: z.string().optional(),
          cache_identity: Cache,
        })
        .default({}),
    }),
    result: z.strictObject({ facts: z.array(ToolchainFactSchema) }),
    handler: async (p) => ({ facts: await toolchainFacts(p.rows, { ...p.options, root: p.root }) }),
  }),

  "facts.warm_state": defineMethod({
    description:
      "Warm-state facts (harn-verification.md §1.7): each row's warm mode (warmMode | warm_mode | warmState | warm_state) and readiness probe (run in parallel, bounded by options.timeout_ms); a declared ready / warm overrides the probe. {id, name, configured, available, ready, warm, timing_kind (warm | cold), mode, expected_warm_delta_ms, warm_ms, cold_ms, cache_identity, probe}. Pass the facts to facts.ladder_plan as options.warm_state_facts. Never an error for a failing probe.",
    params: z.strictObject({
      root: Root,
      rows: Rows,
      options: z.strictObject({ timeout_ms: TimeoutMs, cache_identity: Cache }).default({}),
    }),
    result: z.strictObject({ facts: z.array(WarmStateFactSchema) }),
    handler: async (p) => ({ facts: await warmStateFacts(p.rows, { ...p.options, root: p.root }) }),
  }),

  "facts.start_check": defineMethod({
    description:
      "Starts one check in the background (harn-verification.md §1.4): snapshot_paths are hashed first; the command runs in its own process group inside the bridge process (killed if the bridge exits). Records nothing; returns the receipt {row_id, started: {handle_id, pid, …}, observation_options, snapshot} for facts.finish_check on the same bridge. Errors: invalid_params (spec).",
    params: z.strictObject({
      root: Root,
      row_id: z.string(),
      spec: z
        .unknown()
        .describe('an argv list, {argv} or {mode: "shell", command}; timeout_ms optional'),
      options: z
        .looseObject({
          snapshot_paths: z.array(z.string().min(1)).max(4096).optional(),
          snapshot: z.record(z.string(), z.unknown()).optional(),
          command_options: z
            .strictObject({ timeout_ms: z.number().int().min(1).optional() })
            .optional(),
        })
        .default({}),
    }),
    result: StartedCheckSchema,
    handler: async (p) =>
      (await startCheck(p.row_id, p.spec, { ...p.options, root: p.root })) as z.output<
        typeof StartedCheckSchema
      >,
  }),

  "facts.finish_check": defineMethod({
    description:
      'Waits for a started check (default 60000 ms, options.wait_options.timeout_ms) and records its observation into the profile store rooted at store_dir (at the store directory options.dir, else the dir given at start, as facts.run_check does) under options.row_id ?? receipt.row_id unless record is false (harn-verification.md §1.4). Still running after the wait → result {status: "running"}, observation and row null, nothing recorded. Errors: row_id_required, unknown_handle (the receipt is from another bridge process), profile_store_invalid.',
    params: z.strictObject({
      store_dir: z.string().min(1),
      receipt: jsonObject().describe("the facts.start_check result"),
      options: z
        .looseObject({
          row_id: z.string().optional(),
          wait_options: z
            .strictObject({ timeout_ms: z.number().int().min(0).optional() })
            .optional(),
          record: z.boolean().optional(),
        })
        .default({}),
    }),
    result: FinishedCheckSchema,
    handler: async (p) =>
      (await finishCheck(
        new ProfileStore(p.store_dir),
        p.receipt as unknown as StartedCheck,
        p.options,
      )) as z.output<typeof FinishedCheckSchema>,
  }),

  "facts.start_warm_state": defineMethod({
    description:
      "Starts a row's warm state (harn-verification.md §1.8): probes first; ready → nothing spawned (status ready); options.existing, a receipt still warming, is reused (status starting, nothing spawned) unless reuse_existing is false; else the row's start command runs in the background in its own process group (killed if the bridge exits) and the row is probed again. No start command → not_configured. Warm-state processes are never evidence.",
    params: z.strictObject({
      root: Root,
      row: jsonObject(),
      options: z
        .strictObject({
          existing: jsonObject().optional(),
          receipt: jsonObject().optional(),
          reuse_existing: z.boolean().optional(),
          timeout_ms: TimeoutMs,
          cache_identity: Cache,
        })
        .default({}),
    }),
    result: WarmStateReceiptSchema,
    handler: async (p) =>
      (await startWarmState(p.row, { ...p.options, root: p.root })) as z.output<
        typeof WarmStateReceiptSchema
      >,
  }),

  "facts.teardown_warm_state": defineMethod({
    description:
      "Tears a warm state down (harn-verification.md §1.8): stops the receipt's process group (SIGTERM, SIGKILL 500 ms later; cancelled is true only the first time), then runs the row's stop command; re-probes only with probe_after.",
    params: z.strictObject({
      root: Root,
      receipt: jsonObject(),
      options: z
        .strictObject({
          row: jsonObject().optional(),
          handle_id: z.string().optional(),
          wait_result_ms: z.number().int().min(0).optional(),
          probe_after: z.boolean().optional(),
          timeout_ms: TimeoutMs,
        })
        .default({}),
    }),
    result: WarmStateTeardownSchema,
    handler: async (p) =>
      (await teardownWarmState(p.receipt, { ...p.options, root: p.root })) as z.output<
        typeof WarmStateTeardownSchema
      >,
  }),
};
