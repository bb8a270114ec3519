import {
  checkWithVanishedTests,
  DELETED_CONTENT_DIGEST,
  type GateOutcome,
  type MutationRecord,
  type ParsedTestResults,
  type TestHistory,
  testHistoryOf,
  type VerificationCheck,
  vanishedTests,
} from "@turngate/core";
import type { TestHistoryStore } from "./store.js";

/**
 * One session's use of the test history (issue #16 §3): each check run with structured
 * results is compared with its last verified run (`judge`), and the runs of the last
 * bound report are stored as the new history only when the gate allows that very digest
 * as `verified` or `waived` (`commit`) — so a flagged turn never becomes the baseline by
 * itself, and one rename does not flag every later turn once the host waived it.
 */
export class TurnTestHistory {
  readonly #store: TestHistoryStore | undefined;
  #runs = new Map<string, TestHistory>();
  #pending: { digest: string; runs: Map<string, TestHistory> } | undefined;

  constructor(store: TestHistoryStore | undefined) {
    this.#store = store;
  }

  /**
   * The check of one run after comparing its tests with the stored history of `checkId`
   * (`vanishedTests` with the ledger's deleted paths, then `checkWithVanishedTests`).
   * Without a store, results or history the check is returned unchanged.
   */
  async judge(
    checkId: string,
    check: VerificationCheck,
    results: ParsedTestResults | undefined,
    records: readonly MutationRecord[],
  ): Promise<VerificationCheck> {
    if (this.#store === undefined || results === undefined) return check;
    this.#runs.set(checkId, testHistoryOf(results));
    const previous = await this.#store.read(checkId);
    if (previous === null) return check;
    const deleted = records
      .filter((r) => r.content_digest === DELETED_CONTENT_DIGEST)
      .map((r) => r.path);
    return checkWithVanishedTests(check, vanishedTests(previous, results.tests, deleted));
  }

  /** The runs judged since the last call belong to a report bound to `digest` (undefined: unbound, never stored). */
  bind(digest: string | undefined): void {
    this.#pending = digest === undefined ? undefined : { digest, runs: this.#runs };
    this.#runs = new Map();
  }

  /** Store the pending runs when `outcome` allows `digest` (verified or waived) and they were bound to it. */
  async commit(outcome: GateOutcome, digest: string): Promise<void> {
    const pending = this.#pending;
    if (this.#store === undefined || pending === undefined || outcome.kind !== "allow") return;
    const terminal = outcome.terminal;
    if (terminal.kind !== "verified" && terminal.kind !== "waived") return;
    if (pending.digest !== digest || terminal.effect_digest !== digest) return;
    for (const [checkId, tests] of pending.runs) await this.#store.write(checkId, tests);
    this.#pending = undefined;
  }
}
