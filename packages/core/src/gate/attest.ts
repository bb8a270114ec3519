import type { VerificationReport, VerificationReportInput } from "../schemas/report.js";
import { invalid } from "../validate.js";
import { acceptReport } from "./accept.js";
import { type LedgerInput, toLedger } from "./ledger-input.js";

/** One mutated path handed to an attestor (A3S §1.16 `MutatedPathRecord`). */
export interface AttestedPath {
  /** Workspace-relative path as recorded on the ledger. */
  path: string;
  /** The ledger's content digest for the path (`contentDigestForPath`), `""` if unknown. */
  content_digest: string;
}

/**
 * A host callback that may vouch for the turn's effect (A3S §1.16): called with the effect
 * digest and the mutated paths; returns a report (ideally bound to that digest), or
 * `null`/`undefined` for none — directly or through a Promise. Never model-grantable.
 */
export type CompletionAttestor = (
  effectDigest: string,
  paths: AttestedPath[],
) =>
  | VerificationReportInput
  | null
  | undefined
  | Promise<VerificationReportInput | null | undefined>;

/**
 * A3S §2.11 `merge_attested_report`: resolves to `reports` unchanged (a new array) when
 * there is no attestor, the ledger is empty or its digest is blank, or the attestor returns
 * nothing; otherwise to `reports` plus the attested report, which goes through
 * `acceptReport(report, "host")` (validated; a status that its checks do not derive
 * rejects with `TurngateStatusMismatchError`). The attestor receives each distinct ledger
 * path once, in ledger order, with `contentDigestForPath` (`""` when unknown). The gate
 * still needs `reportBindsPass`: a report for another digest leaves it incomplete.
 * Errors thrown or rejected by the attestor propagate unchanged. Rejects with
 * `TurngateValidationError` when `attestor` is neither a function nor nil (path
 * `attestor`), `reports` is not an array (path `reports`) or the ledger snapshot is
 * malformed (path of the bad field).
 */
export async function mergeAttestedReport(
  attestor: CompletionAttestor | null | undefined,
  ledger: LedgerInput,
  reports: readonly VerificationReport[],
): Promise<VerificationReport[]> {
  if (!Array.isArray(reports)) invalid("attested report merge", "reports", "expected an array");
  const merged = [...reports];
  if (attestor === null || attestor === undefined) return merged;
  if (typeof attestor !== "function") {
    invalid("attested report merge", "attestor", "expected a function or null");
  }
  const live = toLedger(ledger);
  const digest = live.digest;
  if (live.isEmpty || digest.trim() === "") return merged;
  const paths = live.distinctPaths.map((path) => ({
    path,
    content_digest: live.contentDigestForPath(path) ?? "",
  }));
  const attested = await attestor(digest, paths);
  if (attested === null || attested === undefined) return merged;
  merged.push(acceptReport(attested, "host"));
  return merged;
}
