/**
 * Server-side Facts II methods (they run commands and read or write files, so they need
 * `@turngate/node` and are not served in-process under Pyodide): `facts.run_check`,
 * `facts.toolchain`, `facts.warm_state` (harn-verification.md §1.4, §1.6, §1.7).
 */
import { ProfileStore, runCheck, toolchainFacts, warmStateFacts } from "@turngate/node";
import { z } from "zod";
import { defineMethod } from "../method.js";
import {
  RunCheckResultSchema,
  ToolchainFactSchema,
  WarmStateFactSchema,
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
      'Runs one check and records its timing (harn-verification.md §1.4): snapshot_paths are hashed (FNV-1a 64) BEFORE the command starts; spec is an argv list, {argv} or {mode: "shell", command}; it runs with turngate\'s command runner (own process group, timeout from spec.timeout_ms or options.command_options.timeout_ms, timed out → exit 124); one observation is recorded into row row_id of the profile store <store_dir>/verification-profiles.json (atomic, locked) unless options.record is false. Returns {result, observation, row (null for an unknown row), snapshot (the file-hash snapshot taken, or null)}. Errors: background_not_supported (options.command_options.background: true), invalid_params (spec, row_id, options.*), profile_store_invalid (the store file is corrupt or foreign; it is left unchanged).',
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
      "Toolchain identity facts (harn-verification.md §1.6): each row's version probe (row.versionProbe ?? row.probe: a spec or {spec, versionPattern}) runs in parallel, bounded by options.timeout_ms; {id, name, available, version (first capture of versionPattern, default the first dotted number), raw_version, cache_identity, probe: {status, exit, durationMs, stdout, stderr, error?}}. A missing binary or a failing probe is available: false, never an error.",
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
};
