/**
 * The slice of `@turngate/node`'s `Session` the bridge drives (its documented API:
 * observeTool, observeWorkspace, recordVerificationReports, verificationReports,
 * verificationSummary, verificationSummaryText, verificationPresets, verifyCommands,
 * effectDigest, decide, proof, close). Every method may be sync or async; the bridge awaits.
 */
import type {
  GateOutcome,
  TurnProof,
  VerificationCommand,
  VerificationPreset,
  VerificationReport,
  VerificationReportInput,
  VerificationSummary,
} from "@turngate/core/schemas";

/** One progress event of `verifyCommands` (check started / finished). */
export interface HostProgressEvent {
  type: "check_started" | "check_finished";
  index: number;
  id: string;
  command: string;
  status?: string;
  exit_code?: number | null;
  duration_ms?: number;
}

type MaybePromise<T> = T | Promise<T>;

/** A host session as the bridge uses it. */
export interface HostSession {
  observeTool(
    tool: string,
    exitCode: number,
    metadata?: Record<string, unknown>,
  ): MaybePromise<unknown>;
  observeWorkspace(): MaybePromise<unknown>;
  recordVerificationReports(reports: VerificationReportInput[]): MaybePromise<unknown>;
  verificationReports(): MaybePromise<VerificationReport[]>;
  verificationSummary(): MaybePromise<VerificationSummary>;
  verificationSummaryText(): MaybePromise<string>;
  verificationPresets(): MaybePromise<VerificationPreset[]>;
  verifyCommands(
    subject: string,
    commands: VerificationCommand[],
    options: {
      bind: boolean;
      onProgress?: (event: HostProgressEvent) => void;
      signal?: AbortSignal;
    },
  ): Promise<VerificationReport>;
  readonly effectDigest: string;
  decide(options?: { allowContinuation?: boolean }): MaybePromise<GateOutcome>;
  proof(): MaybePromise<TurnProof>;
  close(): MaybePromise<void>;
}
