import { TurngateValidationError } from "../errors.js";
import { sortedUnique } from "../ledger/order.js";
import type { VerificationCheck } from "../schemas/check.js";
import type { VerificationCommandInput } from "../schemas/command.js";
import { parseVerificationCommand } from "../schemas/parse.js";

/**
 * Every string value under a key named `artifact_uri`, anywhere in `metadata` (objects and
 * arrays, any depth — walked iteratively; cycles are visited once), sorted in code-point order, de-duplicated
 * (A3S §1.5).
 */
export function artifactUris(metadata: unknown): string[] {
  const found = new Set<string>();
  const seen = new Set<object>();
  // Iterative: tool metadata can nest any number of levels (issue #11 class 1).
  const pending: unknown[] = [metadata];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== "object" || value === null || seen.has(value)) continue;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const v of value) pending.push(v);
      continue;
    }
    for (const [key, v] of Object.entries(value)) {
      if (key === "artifact_uri" && typeof v === "string") found.add(v);
      else pending.push(v);
    }
  }
  return sortedUnique(found);
}

/**
 * The check one executed verification command yields, A3S §1.5 `check_from_execution`:
 * same id/kind/description/required as the command, `suggested_tools: ["bash"]`, status
 * `passed` iff `exitCode === expect_exit` and there is no `executionError`, else `failed`;
 * `evidence_uris` from `artifactUris(metadata)` when any; `residual_risk`
 * `"verification command could not run: {error}"` when the command could not run, else
 * `"verification command exited with code {exitCode}, expected {expect_exit}: {command}"`
 * when the exit code differs.
 * Throws `TurngateValidationError` for a malformed command (path `command.field`), a
 * non-integer exit code (`exitCode`) or a non-string error (`executionError`).
 */
export function checkFromExecution(
  command: VerificationCommandInput,
  exitCode: number,
  metadata?: unknown,
  executionError?: string | null,
): VerificationCheck {
  const cmd = parseVerificationCommand(command, "command");
  if (!Number.isInteger(exitCode)) {
    throw new TurngateValidationError("command execution", [
      { path: "exitCode", message: "expected an integer" },
    ]);
  }
  if (
    executionError !== undefined &&
    executionError !== null &&
    typeof executionError !== "string"
  ) {
    throw new TurngateValidationError("command execution", [
      { path: "executionError", message: "expected a string" },
    ]);
  }
  const error = executionError ?? undefined;
  const passed = exitCode === cmd.expect_exit && error === undefined;
  const check: VerificationCheck = {
    id: cmd.id,
    kind: cmd.kind,
    description: cmd.description,
    status: passed ? "passed" : "failed",
    required: cmd.required,
    suggested_tools: ["bash"],
  };
  const uris = artifactUris(metadata);
  if (uris.length > 0) check.evidence_uris = uris;
  if (error !== undefined) {
    check.residual_risk = `verification command could not run: ${error}`;
  } else if (exitCode !== cmd.expect_exit) {
    check.residual_risk = `verification command exited with code ${exitCode}, expected ${cmd.expect_exit}: ${cmd.command}`;
  }
  return check;
}
