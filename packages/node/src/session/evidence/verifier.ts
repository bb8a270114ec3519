/**
 * The read-only verifier (issue 13 item 5; A3S §2.18), off by default: a host callback or
 * command that runs once per turn, before the gate, when the turn mutated the workspace.
 * **Change from A3S:** the workspace is snapshotted around it and any change voids its
 * report (`verifier_changed_workspace`); the change is then observed like any other.
 */
import {
  type AttestedPath,
  createReport,
  type VerificationReport,
  type VerificationReportInput,
  type VerifierPolicyDecision,
  verifierToolPolicy,
} from "@turngate/core";

/** Default time a verifier may take, ms. */
export const VERIFIER_TIMEOUT_MS = 120_000;

/** What a verifier callback is given. */
export interface VerifierInput {
  /** The turn's effect digest: bind the report to it (`effect_digest`) for it to count. */
  effectDigest: string;
  /** Ledger paths with their content digests (as for the attestor). */
  paths: AttestedPath[];
  /** Workspace root. */
  root: string;
  /** The tool policy the verifier's own tool calls must obey (`verifierToolPolicy`). */
  toolPolicy: (tool: string, args?: unknown) => VerifierPolicyDecision;
  /** Aborted when the verifier's time is up. */
  signal: AbortSignal;
}

/** A host verifier: a callback returning a report (or null), or a read-only command. */
export type SessionVerifier =
  | ((
      input: VerifierInput,
    ) => VerificationReportInput | null | Promise<VerificationReportInput | null>)
  | { command: string; timeoutMs?: number };

/** How the turn's verifier run went (`Session.verifierRun`). */
export interface VerifierRun {
  /**
   * `reported`: a report was accepted as a verifier report (it must still bind);
   * `no_report`: the callback returned null; `refused`: the command broke the tool policy
   * and did not run; `crashed`: the callback threw or its report was refused; `timed_out`;
   * `verifier_changed_workspace`: the workspace changed while it ran — its report is void.
   */
  status:
    | "reported"
    | "no_report"
    | "refused"
    | "crashed"
    | "timed_out"
    | "verifier_changed_workspace";
  /** The effect digest it was run for. */
  effectDigest: string;
  message?: string;
  /** Paths that changed while it ran (`verifier_changed_workspace`). */
  changedPaths?: string[];
  /** The report recorded for the run (accepted, or A3S's failed `verifier` report). */
  report?: VerificationReport;
}

/**
 * A3S §2.18 `failed_report(D)`: subject `verifier`, one required check `review` (kind
 * `verifier`, description `rejected`) with status `failed`, bound to `digest`; the check's
 * residual risk says why.
 */
export function failedVerifierReport(digest: string, why: string): VerificationReport {
  return createReport(
    "verifier",
    [
      {
        id: "review",
        kind: "verifier",
        description: "rejected",
        required: true,
        status: "failed",
        residual_risk: why,
      },
    ],
    { effectDigest: digest },
  );
}

/** The policy check of a command verifier (`verifierToolPolicy("bash", {command})`). */
export function commandPolicy(command: string): VerifierPolicyDecision {
  return verifierToolPolicy("bash", { command });
}

/**
 * Runs a verifier callback with a deadline: resolves to its result, or rejects with
 * `VerifierTimeout` after `timeoutMs` (the signal is aborted first).
 */
export async function callWithDeadline<T>(
  run: (signal: AbortSignal) => T | Promise<T>,
  timeoutMs: number,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new VerifierTimeout(timeoutMs));
    }, timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => run(controller.signal)), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The verifier took longer than its deadline. */
export class VerifierTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`the verifier did not finish within ${timeoutMs} ms`);
    this.name = "VerifierTimeout";
  }
}
