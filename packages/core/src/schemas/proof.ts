import * as z from "zod";
import { MutationRecordSchema } from "./ledger.js";
import { GateOutcomeSchema } from "./outcome.js";
import { VerificationReportSchema } from "./report.js";
import { CompletionTerminalSchema } from "./terminal.js";
import { CompletionWaiverSchema } from "./waiver.js";

/** Schema id of a turn proof (ours, docs/design.md §3 "Proof"). */
export const TURN_PROOF_SCHEMA = "turn_proof.v1";

/** A git tree id: 40 (SHA-1) or 64 (SHA-256 repositories) lowercase hex characters. */
const GitTreeId = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, "a git tree id");

/**
 * Where a turn happened (issue 10 "Proofs that cannot be forged"): the absolute workspace
 * root, and the git tree ids of the source scope at the baseline and at the decision
 * (written with a temporary index, never the user's), so CI can match a proof to a commit.
 * A tree is `null` with `tree_reason` saying why (not a git work tree, git failed, a stored
 * baseline without a tree id); `tree_reason` is `null` when both trees are known.
 */
export const TurnProofWorkspaceSchema = z
  .object({
    root: z.string().min(1),
    baseline_tree: GitTreeId.nullable(),
    final_tree: GitTreeId.nullable(),
    tree_reason: z.string().nullable(),
  })
  .describe("The workspace root and the git tree ids of the baseline and final source scope.");

/**
 * One evidence log a bound report cites (a check's full output log): its `file:` URL as in
 * the check's `evidence_uris` and the lowercase hex SHA-256 of its bytes.
 * `turngate proof verify` re-hashes the file.
 */
export const TurnProofEvidenceLogSchema = z
  .object({
    uri: z.string().min(1),
    sha256: z.string().regex(/^[0-9a-f]{64}$/, "64 lowercase hex characters"),
  })
  .describe("An evidence log cited by a bound report, with its SHA-256 and size.");

/**
 * What stood between the agent and what judges it (docs/design.md §3b, "Trust levels"):
 * `confined` only when turngate itself ran the agent in its sandbox (`turngate run
 * --confine`, `"confine_agent": true`: the agent could not write `.git/`, `.turngate/` or the
 * gate's configuration, nor see turngate's state, keys or cache configuration);
 * also `confined` from a hook whose harness's own sandbox, as `turngate hook install <harness>
 * --confine` wrote it, kept the agent's shell and edits from reading or writing turngate's
 * state and key (docs/hooks.md "Confined hooks"); `confined-writes` from a hook whose
 * harness's sandbox kept the agent from writing turngate's state but not from reading it
 * (Codex's workspace-write: the agent could read the signing key);
 * `sandboxed` when the host said the agent runs as another OS user or in a sandbox
 * (`--sandboxed`, `TURNGATE_SANDBOXED=1`, `SessionOptions.trust`: the host's claim, not
 * checked); otherwise `unsandboxed`, and then a key the agent's user can read does not stop
 * an agent that reads it, and the agent can forge a waiver or a prompt event.
 */
export const TurnProofTrustSchema = z.enum([
  "unsandboxed",
  "sandboxed",
  "confined-writes",
  "confined",
]);

/**
 * Where the turn's checks ran (docs/design.md §3b), recorded from what ran, never a claim:
 * `mode` `clean-room` (a copy of exactly the digest's source-scope bytes, in the check
 * sandbox) or `in-place` (the workspace itself, the sealed-check model of §3a); `requested`
 * what the configuration or flag asked for (`auto`: clean-room where the sandbox starts);
 * `reason` why the sandbox was not used or could not start.
 */
export const TurnProofIsolationSchema = z
  .object({
    mode: z.enum(["clean-room", "in-place"]),
    requested: z.enum(["clean-room", "in-place", "auto"]),
    available: z.boolean(),
    reason: z.string().optional(),
  })
  .strict()
  .describe("Where the turn's checks ran: clean-room or in-place.");

/**
 * The loop control of an agent hook's stop (issue 19 item 3), written into the turn proof
 * by `turngate hook <harness> stop`: which `harness`, what the stop answered (`action`
 * allow/block, `verdict`), the attempt number on this effect digest (turngate's own
 * counter; 0 when the gate allowed the first stop), `max_attempts` in force, `reason`
 * `escalated` (stuck digest, allowed as incomplete: a host waiver is asked for) or `capped`
 * (the harness's block cap), else null, and whether the failing result was `cached` (the
 * checks were not re-run on identical bytes). Absent in proofs not written by a hook.
 */
export const TurnProofLoopSchema = z
  .object({
    harness: z.string().min(1),
    action: z.enum(["allow", "block"]),
    verdict: z.enum(["verified", "waived", "narrative", "distinct", "continue", "incomplete"]),
    reason: z.enum(["escalated", "capped"]).nullable(),
    attempt: z.number().int().nonnegative(),
    max_attempts: z.number().int().min(1),
    cached: z.boolean(),
  })
  .describe("The loop control of an agent hook's stop: attempt, cap, escalation, cache.");

/**
 * What one turn changed and why it was allowed to end (docs/design.md §3 "Proof"): the ledger
 * rows and their effect digest, the reports bound to it, the waivers used, the terminal,
 * the gate outcome, tool versions and ISO-8601 timestamps (with `Z` or an offset).
 * Issue 10 adds, optional so that earlier proofs still read: `workspace` (root and git
 * tree ids), `evidence_logs` (the logs the bound reports cite, with SHA-256) and `trust`;
 * the clean room adds `isolation` (where the checks ran, docs/design.md §3b); issue 19 adds `loop` (an agent hook's stop: attempt, max_attempts, escalated/capped), and a
 * hook writes a proof for every stop, so `terminal` is null when the gate did not allow the
 * turn (the outcome says why): such a proof records an unfinished turn, it never verifies one.
 * A proof on its own proves nothing about who wrote it: a signed envelope does (DSSE).
 */
export const TurnProofSchema = z
  .object({
    schema: z.literal(TURN_PROOF_SCHEMA),
    effect_digest: z.string(),
    records: z.array(MutationRecordSchema),
    reports: z.array(VerificationReportSchema).describe("Reports bound to effect_digest."),
    waivers_used: z.array(CompletionWaiverSchema),
    terminal: CompletionTerminalSchema.nullable().describe(
      "null when the turn did not end verified, waived, narrative or distinct (an agent hook's blocked, escalated or capped stop, issue 19): see outcome and loop.",
    ),
    outcome: GateOutcomeSchema,
    tool_versions: z.record(z.string(), z.string()),
    started_at: z.iso.datetime({ offset: true }),
    finished_at: z.iso.datetime({ offset: true }),
    workspace: TurnProofWorkspaceSchema.optional(),
    evidence_logs: z.array(TurnProofEvidenceLogSchema).optional(),
    trust: TurnProofTrustSchema.optional(),
    isolation: TurnProofIsolationSchema.optional(),
    loop: TurnProofLoopSchema.optional(),
  })
  .describe("turn_proof.v1");

export type TurnProof = z.output<typeof TurnProofSchema>;
export type TurnProofWorkspace = z.output<typeof TurnProofWorkspaceSchema>;
export type TurnProofEvidenceLog = z.output<typeof TurnProofEvidenceLogSchema>;
export type TurnProofTrust = z.output<typeof TurnProofTrustSchema>;
export type TurnProofLoop = z.output<typeof TurnProofLoopSchema>;
export type TurnProofIsolation = z.output<typeof TurnProofIsolationSchema>;
