/**
 * Creates the `@turngate/node` session behind `session.create`.
 */
import type { CompletionWaiver } from "@turngate/core";
import { Session, type WorkspaceSnapshot } from "@turngate/node";

/** What `session.create` passes on (wire names already mapped to the Node API). */
export interface OpenSessionInput {
  root: string;
  waivers: CompletionWaiver[];
  ignores?: string[];
  useGit?: boolean;
  /** The host's sandbox claim (`options.sandboxed`): the proof's `trust`. */
  sandboxed?: boolean;
  /** Lockfiles a passing check may rewrite (wire `options.rewrite_paths`, issue 10). */
  rewritePaths?: string[];
  /** Existence checks may bind (wire `options.existence_evidence`, issue 13). */
  existenceEvidence?: boolean;
  /** The read-only verifier command (wire `options.verifier_command`, issue 13). */
  verifierCommand?: { command: string; timeoutMs?: number };
  /** One gate continuation per turn for open observations (`options.allow_continuation`). */
  allowContinuation?: boolean;
  /** Where bound checks run (`options.isolation`, docs/design.md §3b); default in-place. */
  isolation?: "clean-room" | "in-place" | "auto";
  /** Clean-room checks may reach the network (`options.network`). */
  network?: boolean;
  /** The clean room's dependency setup (`options.setup`): a command, or false (never). */
  setup?: string | false;
  /** The baseline to continue from (`options.continue_from`, docs/cli.md "Gapless turns"). */
  baseline?: WorkspaceSnapshot;
}

/**
 * Starts a host session on `root`: waivers validated, workspace baseline taken (or, with
 * `baseline`, restored: docs/cli.md "Gapless turns").
 * @throws `TurngateValidationError` (a waiver, path `waivers.N.field`) or
 *   `WorkspaceObserverError` (`invalid_root`, `invalid_option`, `git_failed`).
 */
export async function openHostSession(input: OpenSessionInput): Promise<Session> {
  return Session.start({
    root: input.root,
    waivers: input.waivers,
    ...(input.ignores ? { ignores: input.ignores } : {}),
    ...(input.useGit !== undefined ? { useGit: input.useGit } : {}),
    trust: input.sandboxed === true ? "sandboxed" : "unsandboxed",
    ...(input.rewritePaths ? { rewritePaths: input.rewritePaths } : {}),
    ...(input.existenceEvidence !== undefined
      ? { existenceEvidence: input.existenceEvidence }
      : {}),
    ...(input.verifierCommand ? { verifier: input.verifierCommand } : {}),
    ...(input.allowContinuation !== undefined
      ? { allowContinuation: input.allowContinuation }
      : {}),
    ...(input.isolation !== undefined ? { isolation: input.isolation } : {}),
    ...(input.network !== undefined ? { network: input.network } : {}),
    ...(input.setup !== undefined ? { setup: input.setup } : {}),
    ...(input.baseline !== undefined ? { baseline: input.baseline } : {}),
  });
}
