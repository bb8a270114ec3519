import { MutationLedger } from "../ledger/ledger.js";
import type { LedgerSnapshot } from "../schemas/ledger.js";

/** A live ledger or its snapshot (loaded with `MutationLedger.fromJSON`, which validates). */
export type LedgerInput = MutationLedger | LedgerSnapshot;

/**
 * Returns the ledger itself, or loads a snapshot (throws `TurngateValidationError`). An
 * object with a `toJSON` method (e.g. a ledger from another copy of this package) is
 * loaded from its snapshot, so open children and the incomplete flag are never lost.
 */
export function toLedger(ledger: LedgerInput): MutationLedger {
  if (ledger instanceof MutationLedger) return ledger;
  const toJSON = (ledger as { toJSON?: unknown } | null)?.toJSON;
  return MutationLedger.fromJSON(typeof toJSON === "function" ? toJSON.call(ledger) : ledger);
}
