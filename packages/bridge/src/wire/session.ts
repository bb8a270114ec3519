/**
 * Wire shapes of the session methods that `@turngate/node` returns as camelCase objects:
 * the workspace delta, the binding of a `verifyCommands` report and each command run
 * (DESIGN §3 "verifyCommands can bind"), and converters from the Node API's values.
 */
import type { CommandRun, ReportBinding, WorkspaceDelta } from "@turngate/node";
import { z } from "zod";
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

/** Whether a `session.verify_commands` report was bound to the effect digest, and why not. */
export const ReportBindingSchema = z.union([
  z.strictObject({ bound: z.literal(true), effect_digest: z.string() }),
  z.strictObject({
    bound: z.literal(false),
    reason: z.literal("workspace_changed_during_check"),
    changed_paths: z.array(z.string()),
    unreadable: z.array(z.string()),
  }),
  z.strictObject({
    bound: z.literal(false),
    reason: z.enum(["observation_incomplete", "no_effect", "not_requested"]),
  }),
]);

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

/** Converts a Node `ReportBinding` to the wire. */
export function wireBinding(binding: ReportBinding): z.output<typeof ReportBindingSchema> {
  if (binding.bound) return { bound: true, effect_digest: binding.effectDigest };
  if (binding.reason === "workspace_changed_during_check") {
    return {
      bound: false,
      reason: binding.reason,
      changed_paths: [...binding.changedPaths],
      unreadable: [...binding.unreadable],
    };
  }
  return { bound: false, reason: binding.reason };
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
  };
}
