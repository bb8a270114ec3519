import { MutationLedger } from "../ledger/ledger.js";
import type { LedgerSnapshot } from "../schemas/ledger.js";

/** A live ledger or its snapshot (loaded with `MutationLedger.fromJSON`, which validates). */
export type LedgerInput = MutationLedger | LedgerSnapshot;

/** Returns the ledger itself, or loads a snapshot (throws `TurngateValidationError`). */
export function toLedger(ledger: LedgerInput): MutationLedger {
  return ledger instanceof MutationLedger ? ledger : MutationLedger.fromJSON(ledger);
}
