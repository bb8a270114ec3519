import * as z from "zod";
import { MutationRecordSchema } from "./ledger.js";
import { GateOutcomeSchema } from "./outcome.js";
import {
  TurnProofEvidenceLogSchema,
  TurnProofTrustSchema,
  TurnProofWorkspaceSchema,
} from "./proof.js";
import { VerificationReportSchema } from "./report.js";
import { VerificationStatusSchema } from "./status.js";
import { CompletionWaiverSchema } from "./waiver.js";

/** Schema id of the view model a person reads (`turngate show`, issue 21). */
export const TURN_VIEW_SCHEMA = "turngate.turn_view.v1";

/** What a turn did to one path, as the view names it (issue 21 "files the turn changed"). */
export const TurnViewChangeSchema = z.enum([
  "added",
  "modified",
  "deleted",
  "ignored",
  "output",
  "harness",
  "environment",
  "changed",
]);

/**
 * One file's diff against the baseline (issue 21; limits in `TURN_VIEW_LIMITS`):
 * - `text`: a unified diff (`git diff` form, 3 lines of context, `--no-color`), with line
 *   counts; `truncated` when it was cut at the per-file line or byte limit;
 * - `binary`: git saw a binary file (a NUL byte in the first 8000 bytes); sizes in bytes;
 * - `too_large`: a side is larger than `limit_bytes`, or the view's total budget is spent;
 * - `unavailable`: no diff can be made (`reason`: not a git work tree, the tree was not
 *   recorded, the object is missing, the path is outside the source scope …).
 */
export const TurnViewDiffSchema = z
  .discriminatedUnion("kind", [
    z.object({
      kind: z.literal("text"),
      unified: z.string(),
      additions: z.number().int().nonnegative(),
      deletions: z.number().int().nonnegative(),
      truncated: z.boolean(),
    }),
    z.object({
      kind: z.literal("binary"),
      old_bytes: z.number().int().nonnegative().nullable().default(null),
      new_bytes: z.number().int().nonnegative().nullable().default(null),
    }),
    z.object({
      kind: z.literal("too_large"),
      old_bytes: z.number().int().nonnegative().nullable().default(null),
      new_bytes: z.number().int().nonnegative().nullable().default(null),
      limit_bytes: z.number().int().nonnegative(),
    }),
    z.object({ kind: z.literal("unavailable"), reason: z.string() }),
  ])
  .describe("A file's diff against the baseline, or why there is none.");

/** A diff the host computed for one path (input of the view; node's `turnDiffs`). */
export const TurnViewFileDiffSchema = z
  .object({
    path: z.string(),
    change: z.enum(["added", "modified", "deleted"]).optional(),
    diff: TurnViewDiffSchema,
  })
  .describe("A diff for one path, as the host computed it.");

/** One row of the view's file list. */
export const TurnViewFileSchema = z
  .object({
    path: z.string(),
    change: TurnViewChangeSchema,
    scope: z.enum(["source", "ignored", "output", "harness", "environment"]),
    tool: z
      .string()
      .describe('The ledger row\'s tool ("workspace", "environment", an agent tool).'),
    content_digest: z.string(),
    diff: TurnViewDiffSchema,
  })
  .describe("A path the turn changed, with its diff against the baseline.");

/** How one check ran, when the host has it (a turn result; a proof does not carry it). */
export const TurnViewRunSchema = z
  .object({
    id: z.string(),
    command: z.string(),
    duration_ms: z.number().nonnegative().nullable(),
    exit_code: z.number().int().nullable(),
    timed_out: z.boolean(),
    failure_class: z.string().nullable(),
    output: z.string().describe("The check's captured output (the view keeps its tail)."),
    log_path: z.string().nullable(),
    log_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable(),
    hint: z.string().nullable().optional(),
    failure_digest: z
      .array(z.string())
      .optional()
      .describe(
        "a check that did not pass: its failing tests with the first lines of each failure, then the output's last lines (the lines `turngate run` prints under it)",
      ),
  })
  .describe("How one check ran (turn result).");

/** One check of the view: the report's check joined with how it ran. */
export const TurnViewCheckSchema = z
  .object({
    id: z.string(),
    kind: z.string(),
    description: z.string(),
    command: z.string().nullable(),
    status: VerificationStatusSchema,
    required: z.boolean().default(false),
    failure_class: z.string().nullable(),
    duration_ms: z.number().nonnegative().nullable(),
    exit_code: z.number().int().nullable(),
    residual_risk: z.string().nullable(),
    hint: z.string().nullable(),
    tests: z
      .object({
        passed: z.number().int().nonnegative(),
        failed: z.number().int().nonnegative(),
        skipped: z.number().int().nonnegative(),
        errored: z.number().int().nonnegative(),
      })
      .nullable(),
    failing_tests: z.array(z.string()),
    failure_digest: z
      .array(z.string())
      .default([])
      .describe(
        "the run's failure digest (failing tests with their failures, then the tail) when the view has the run and the check did not pass; [] otherwise",
      ),
    output_tail: z.array(z.string()).describe("The last lines of the output (at most 40)."),
    output_lines: z.number().int().nonnegative().describe("Lines in the whole output."),
    log: z
      .object({
        path: z.string().nullable(),
        uri: z.string().nullable(),
        sha256: z.string().nullable(),
      })
      .nullable(),
  })
  .describe("One check of the turn.");

/** An affected target, as the facts give it (passed through when present). */
export const TurnViewAffectedTargetSchema = z
  .object({
    target: z.string(),
    reason: z.string().optional(),
    via: z.array(z.string()).optional(),
  })
  .describe("An affected target (passed through).");

/** The facts of a turn the view is built from: a `turn_proof.v1` is accepted as is. */
export const TurnViewFactsSchema = z
  .object({
    effect_digest: z.string(),
    records: z.array(MutationRecordSchema),
    reports: z.array(VerificationReportSchema),
    waivers_used: z.array(CompletionWaiverSchema).default([]),
    outcome: GateOutcomeSchema,
    workspace: TurnProofWorkspaceSchema.optional(),
    evidence_logs: z.array(TurnProofEvidenceLogSchema).optional(),
    trust: TurnProofTrustSchema.optional(),
    started_at: z.string().optional(),
    finished_at: z.string().optional(),
  })
  .describe("A turn's facts: a turn_proof.v1, or the same fields from a turn that has none.");

/**
 * Input of `buildTurnView`: the turn's facts (`turn`, a proof or its fields), and what a
 * host adds when it has it: how each check ran (`runs`), the observer's changes with their
 * scope (`changes`), diffs (`diffs`, else `diffs_unavailable` says why there are none),
 * the source (`proof` / `result`) and the optional facts (`attempts`, `affected_targets`,
 * `hud`).
 */
export const TurnViewInputSchema = z
  .object({
    turn: TurnViewFactsSchema,
    source: z.enum(["proof", "result"]).default("proof"),
    runs: z.array(TurnViewRunSchema).optional(),
    changes: z
      .array(
        z.object({
          path: z.string(),
          change: z.enum(["added", "modified", "deleted"]),
          scope: z.enum(["source", "ignored", "output", "harness"]),
        }),
      )
      .optional(),
    diffs: z.array(TurnViewFileDiffSchema).optional(),
    diffs_unavailable: z.string().nullable().optional(),
    attempts: z.number().int().nonnegative().nullable().optional(),
    affected_targets: z.array(TurnViewAffectedTargetSchema).nullable().optional(),
    hud: z.string().nullable().optional(),
    outputs: z
      .object({
        dir: z.string().describe("the folder outside the workspace the files were copied to"),
        paths: z.array(z.string()).describe("the copied files, relative to dir"),
      })
      .nullable()
      .optional()
      .describe('clean room: the files "outputs" named that the checks wrote, copied out'),
  })
  .describe("Input of the turn view builder.");

/**
 * `turngate.turn_view.v1` (issue 21): what a person reviewing a turn reads first. The
 * summary (verdict, digest, gate reason and message, counts), the checks (status, failure
 * class, duration, failing tests, the output's tail, the log's path and SHA-256), the files
 * the turn changed with a diff each against the baseline tree, and the waivers, attempts,
 * affected targets and HUD when those facts are present (else null).
 */
export const TurnViewSchema = z
  .object({
    schema: z.literal(TURN_VIEW_SCHEMA),
    source: z.enum(["proof", "result"]),
    verdict: z.enum(["verified", "waived", "narrative", "distinct", "incomplete", "continue"]),
    effect_digest: z.string(),
    reason: z.string().nullable(),
    message: z.string().nullable(),
    root: z.string().nullable(),
    trust: TurnProofTrustSchema.nullable(),
    started_at: z.string().nullable(),
    finished_at: z.string().nullable(),
    counts: z.object({
      checks: z.object({
        passed: z.number().int().nonnegative(),
        failed: z.number().int().nonnegative(),
        needs_review: z.number().int().nonnegative(),
        skipped: z.number().int().nonnegative(),
      }),
      files: z.object({
        added: z.number().int().nonnegative(),
        modified: z.number().int().nonnegative(),
        deleted: z.number().int().nonnegative(),
        outside_scope: z.number().int().nonnegative(),
        environment: z.number().int().nonnegative(),
      }),
      additions: z.number().int().nonnegative(),
      deletions: z.number().int().nonnegative(),
    }),
    checks: z.array(TurnViewCheckSchema),
    files: z.array(TurnViewFileSchema),
    diffs: z.object({
      available: z.boolean(),
      reason: z.string().nullable(),
      baseline_tree: z.string().nullable(),
      final_tree: z.string().nullable(),
    }),
    waivers: z.array(CompletionWaiverSchema),
    attempts: z.number().int().nonnegative().nullable(),
    affected_targets: z.array(TurnViewAffectedTargetSchema).nullable(),
    hud: z.string().nullable(),
    outputs: z
      .object({
        dir: z.string().describe("the folder outside the workspace the files were copied to"),
        paths: z.array(z.string()).describe("the copied files, relative to dir"),
      })
      .nullable()
      .describe(
        'clean room: the files the configuration\'s "outputs" named that the checks wrote, copied out of the room (null when none or not known, e.g. from a proof)',
      ),
  })
  .describe("turngate.turn_view.v1");

export type TurnView = z.output<typeof TurnViewSchema>;
export type TurnViewInput = z.input<typeof TurnViewInputSchema>;
export type TurnViewDiff = z.output<typeof TurnViewDiffSchema>;
export type TurnViewFile = z.output<typeof TurnViewFileSchema>;
export type TurnViewCheck = z.output<typeof TurnViewCheckSchema>;
export type TurnViewFileDiff = z.output<typeof TurnViewFileDiffSchema>;
export type TurnViewRun = z.output<typeof TurnViewRunSchema>;
