/** Wire schemas of the affected-targets fact and the code index (harn-verification.md §2.8). */
import { AFFECTED_REASONS } from "@turngate/core";
import * as z from "zod";

const Reason = z.enum(AFFECTED_REASONS as [string, ...string[]]);

/** One target: the fields every target has, parser-specific ones kept (`root`, `target_names`, …). */
export const AffectedTargetSchema = z.looseObject({
  id: z.string(),
  label: z.string(),
  kind: z.string(),
  source: z.string(),
  files: z.array(z.string()).describe("the changed paths that reach this target"),
  reason: Reason.describe(
    "direct | dependent (via) | global_file | lockfile | unmapped | fallback",
  ),
  via: z
    .array(z.string())
    .optional()
    .describe(
      "dependent: target ids (or file paths, code index) from the changed one to the one this depends on",
    ),
  adapter_id: z.string().optional(),
});

/** `AdapterFact`: one per adapter row. */
export const AdapterFactSchema = z.looseObject({
  id: z.string(),
  parser_id: z.string(),
  status: z.string().describe("completed | failed | timed_out | not_configured | …"),
  ok: z.boolean(),
  target_count: z.number().int(),
  exit: z.number().int().nullable().optional(),
  error: z
    .string()
    .optional()
    .describe("why the command could not run or its stdout did not parse"),
  workspace_changed: z
    .array(z.string())
    .optional()
    .describe("lockfiles the adapter command changed"),
});

/** `VerificationAffectedTargetsFact` plus ours. */
export const AffectedTargetsFactSchema = z.strictObject({
  changed_paths: z.array(z.string()),
  targets: z.array(AffectedTargetSchema),
  adapters: z.array(AdapterFactSchema),
  fallback: z.strictObject({
    enabled: z.boolean(),
    available: z.boolean(),
    targets: z.array(AffectedTargetSchema),
    errors: z.array(z.string()).optional(),
  }),
  unmapped: z.array(z.string()).describe("changed files no adapter and no graph maps"),
  global_files: z.array(z.string()),
  lockfiles: z.array(z.string()),
  run_all: z
    .boolean()
    .describe(
      "a global file, an unmapped file or an un-narrowed lockfile changed: run every check",
    ),
  run_all_reasons: z.array(z.string()),
});

/** One version-log entry of the code index. */
export const CodeIndexChangeSchema = z.strictObject({
  seq: z.number().int().min(1),
  path: z.string(),
  change: z.enum(["added", "modified", "deleted"]),
  hash: z.string().nullable().describe("FNV-1a 64 decimal of the new bytes; null when deleted"),
});

/** How the code index read Go imports (issue 15 item 1). */
export const GoImportsFactSchema = z
  .strictObject({
    source: z
      .enum(["go_list", "import_lines", "none"])
      .describe(
        "go_list: `go list -json` packages (frozen, offline, bounded); import_lines: Go import declarations (reason says why go list was not used); none: no go.mod or go.work",
      ),
    reason: z.string().optional().describe("why go list was not used (import_lines only)"),
    modules: z
      .array(z.string())
      .describe('module roots go list ran in, workspace-relative ("" = root)'),
    packages: z.number().int().min(0).describe("Go packages go list listed"),
    duration_ms: z.number().min(0).optional().describe("time go list took, ms"),
    changed_workspace: z
      .array(z.string())
      .optional()
      .describe("module files a go list run changed (it runs with -mod=readonly; reported)"),
    frozen: z
      .string()
      .optional()
      .describe("go list would have changed go.mod/go.sum and did not (frozen)"),
  })
  .describe("how the code index read Go imports");

/** Result of `facts.code_index_changes_since`. */
export const CodeIndexChangesSchema = z.strictObject({
  current_seq: z.number().int().min(0),
  since: z.number().int().min(0),
  complete: z
    .boolean()
    .describe("false when log entries after since were dropped (the log keeps 10,000)"),
  changes: z.array(CodeIndexChangeSchema),
  files: z.number().int().min(0).describe("number of indexed files"),
  built: z.boolean().describe("true when the index was built cold by this call"),
  go_imports: GoImportsFactSchema,
});
