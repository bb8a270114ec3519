/**
 * Wire shapes of the session methods that `@turngate/node` returns as camelCase objects:
 * the workspace delta, the binding of a `verifyCommands` report and each command run
 * (docs/design.md §3 "verifyCommands can bind"), and converters from the Node API's values.
 */

import { failureDigest } from "@turngate/core";
import type { CommandRun, ReportBinding, WorkspaceDelta } from "@turngate/node";
import * as z from "zod";
import { VerificationStatusSchema } from "./domain.js";

/** One changed path of a workspace delta. */
export const WorkspaceChangeSchema = z.strictObject({
  path: z.string(),
  change: z.enum(["added", "modified", "deleted"]),
  content_digest: z.string().describe('SHA-256 hex of the current bytes, or "deleted"'),
  scope: z
    .enum(["source", "ignored", "output", "harness"])
    .describe(
      "where the path lies: the source scope, or outside it (ignored by git, at an output location, a .git/ or .turngate/ harness file); every scope is in the effect digest",
    ),
});

/** One ignored or output-location file the checks changed (issue 10): never unbinding. */
export const CheckOutputSchema = z.strictObject({
  path: z.string(),
  change: z.enum(["added", "modified", "deleted"]),
  scope: z.enum(["ignored", "output"]),
});

/** The check outputs of a binding: the first 100 by path and the exact count. */
export const CheckOutputsSchema = z.strictObject({
  count: z.int().nonnegative(),
  paths: z.array(CheckOutputSchema),
});

/** A lockfile a passing first run rewrote ("rewrite_paths") and the check that did. */
export const CheckRewriteSchema = z.strictObject({ path: z.string(), check_id: z.string() });

/** How a pre-existing source file changed while the checks ran. */
export const SourceChangeSchema = z.strictObject({
  path: z.string(),
  change: z.enum(["modified", "deleted", "metadata"]),
});

const checkOutputs = CheckOutputsSchema.optional().describe(
  "ignored files and output locations the checks changed (listed, never unbinding); absent when none",
);
const rewrites = z
  .array(CheckRewriteSchema)
  .optional()
  .describe('lockfiles rewritten by a passing first run, then re-run ("rewrite_paths")');
const hint = z.string().describe("what to do so the next run binds");

/** Whether a `session.verify_commands` report was bound to the effect digest, and why not. */
export const ReportBindingSchema = z.union([
  z.strictObject({
    bound: z.literal(true),
    effect_digest: z.string(),
    check_outputs: checkOutputs,
    rewrites,
    changed_after: z
      .array(z.string())
      .optional()
      .describe(
        "clean room: source paths the workspace changed while the checks ran; the report stays bound to the checked bytes",
      ),
  }),
  z.strictObject({
    bound: z.literal(false),
    reason: z.literal("workspace_changed_during_check"),
    changed_paths: z.array(z.string()),
    unreadable: z.array(z.string()),
    hint,
    changes: z.array(SourceChangeSchema).optional(),
    created: z.array(z.string()).optional(),
    check_outputs: checkOutputs,
    rewrites,
  }),
  z.strictObject({
    bound: z.literal(false),
    reason: z.literal("observation_incomplete"),
    hint,
    check_outputs: checkOutputs,
    rewrites,
  }),
  z.strictObject({
    bound: z.literal(false),
    reason: z.literal("isolation_unavailable"),
    hint,
    check_outputs: checkOutputs,
  }),
  z.strictObject({
    bound: z.literal(false),
    reason: z.enum(["no_effect", "not_requested"]),
    check_outputs: checkOutputs,
  }),
]);

/** Where bound checks may run (docs/design.md §3b). */
export const IsolationRequestSchema = z.enum(["clean-room", "in-place", "auto"]);

/** Where the checks ran, as the session decided it (never a claim). */
export const IsolationSchema = z
  .strictObject({
    mode: z.enum(["clean-room", "in-place"]),
    requested: IsolationRequestSchema,
    available: z
      .boolean()
      .describe("false: clean-room was required and the sandbox cannot start, so no check ran"),
    reason: z.string().optional().describe("why the sandbox was not used or cannot start"),
  })
  .describe("where the checks ran");

/** One verification command as it ran. Times in milliseconds, sizes in bytes. */
export const CommandRunSchema = z.strictObject({
  id: z.string().describe("the command's id"),
  status: VerificationStatusSchema,
  exit_code: z.int().nullable().describe("128 + signal number when killed; null if it never ran"),
  signal: z.string().nullable(),
  timed_out: z.boolean(),
  aborted: z.boolean(),
  timeout_ms: z.number().nonnegative(),
  duration_ms: z.number().nonnegative(),
  output: z.string().describe("combined stdout+stderr: first 64 KiB, notice, last 36 KiB"),
  total_bytes: z.int().nonnegative(),
  truncated: z.boolean(),
  log_uri: z.string().optional().describe("the full log, when it was written"),
  spawn_error: z.string().optional(),
  failure_digest: z
    .array(z.string())
    .describe(
      "a check that did not pass: its failing tests, each with the first lines of its failure, then the output's last lines — the lines `turngate run` prints under it; [] when it passed",
    ),
});

/** Converts a Node `WorkspaceDelta` to the wire. */
export function wireDelta(delta: WorkspaceDelta) {
  return {
    changes: delta.changes.map((c) => ({
      path: c.path,
      change: c.change,
      content_digest: c.content_digest,
      scope: c.scope,
    })),
    complete: delta.complete,
    unreadable: [...delta.unreadable],
  };
}

/** Converts a Node `ReportBinding` to the wire (optional parts only when present). */
export function wireBinding(binding: ReportBinding): z.output<typeof ReportBindingSchema> {
  const extra = {
    ...(binding.checkOutputs
      ? {
          check_outputs: {
            count: binding.checkOutputs.count,
            paths: binding.checkOutputs.paths.map((o) => ({ ...o })),
          },
        }
      : {}),
    ...("rewrites" in binding && binding.rewrites
      ? { rewrites: binding.rewrites.map((r) => ({ path: r.path, check_id: r.checkId })) }
      : {}),
  };
  if (binding.bound) {
    return {
      bound: true,
      effect_digest: binding.effectDigest,
      ...extra,
      ...(binding.changedAfter ? { changed_after: [...binding.changedAfter] } : {}),
    };
  }
  if (binding.reason === "workspace_changed_during_check") {
    return {
      bound: false,
      reason: binding.reason,
      changed_paths: [...binding.changedPaths],
      unreadable: [...binding.unreadable],
      hint: binding.hint,
      ...(binding.changes ? { changes: binding.changes.map((c) => ({ ...c })) } : {}),
      ...(binding.created ? { created: [...binding.created] } : {}),
      ...extra,
    };
  }
  if (binding.reason === "observation_incomplete") {
    return { bound: false, reason: binding.reason, hint: binding.hint, ...extra };
  }
  if (binding.reason === "isolation_unavailable") {
    return { bound: false, reason: binding.reason, hint: binding.hint };
  }
  return {
    bound: false,
    reason: binding.reason,
    ...(binding.checkOutputs ? { check_outputs: extra.check_outputs } : {}),
  };
}

/** Converts one Node `CommandRun` to the wire. */
export function wireRun(run: CommandRun): z.output<typeof CommandRunSchema> {
  const e = run.execution;
  return {
    id: run.command.id,
    status: run.check.status,
    exit_code: e.exitCode,
    signal: e.signal,
    timed_out: e.timedOut,
    aborted: e.aborted,
    timeout_ms: e.timeoutMs,
    duration_ms: e.durationMs,
    output: e.output,
    total_bytes: e.totalBytes,
    truncated: e.truncated,
    ...(e.log ? { log_uri: e.log.uri } : {}),
    ...(e.spawnError !== undefined ? { spawn_error: e.spawnError } : {}),
    failure_digest:
      run.check.status === "passed"
        ? []
        : failureDigest({
            results: run.testResults ?? null,
            output: e.output,
            logPath: e.log?.uri ?? null,
          }).lines,
  };
}
