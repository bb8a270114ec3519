/**
 * The files turngate itself writes under the workspace root's `.turngate/` folder (found in
 * `fs/ensure-dir.ts`, `fs/content-log.ts`, `fs/atomic.ts`, `cli/baseline-store.ts`; issue 10
 * "files under root `.turngate/` that turngate did not write"). Anything else there — an
 * agent's `.turngate/impl.js`, a planted `.turngate/proofs/x/y` — is recorded on the ledger
 * as a harness row.
 *
 * - `.gitignore` (written with the folder), `baseline.json` (`turngate baseline`),
 *   `baseline-history.json` (the ids and times of the last baselines, issue #12 item 13) and
 *   their atomic-write temporaries `<name>.<hex>`;
 * - `logs/<sha256>.log` (content-addressed check logs) and their temporaries
 *   `logs/.tmp-<pid>-<hex>.log`;
 * - `proofs/<effect digest>…` (a name that starts with 64 hex digits: `<digest>.json`, other
 *   proof formats, atomic-write temporaries);
 * - `cargo-target/**`: the checks' `CARGO_TARGET_DIR` (runner/check-env.ts). Not a ledger
 *   row: the environment baseline fingerprints that folder, and an agent write to it ends
 *   the turn `needs_review` (`turngate:cargo-target`).
 */
export const TURNGATE_OWN_FILES: readonly string[] = Object.freeze([
  ".gitignore",
  "baseline.json",
  "baseline.json.<hex>",
  "baseline-history.json",
  "baseline-history.json.<hex>",
  "logs/<sha256>.log",
  "logs/.tmp-<pid>-<hex>.log",
  "proofs/<sha256>*",
  "cargo-target/**",
]);

const TOP = /^(?:\.gitignore|baseline(?:-history)?\.json(?:\.[0-9a-f]+)?)$/;
const LOG = /^(?:[0-9a-f]{64}\.log|\.tmp-\d+-[0-9a-f]+\.log)$/;
const PROOF = /^[0-9a-f]{64}[A-Za-z0-9._-]*$/;

/**
 * True when `rel` (a `/`-separated path inside `.turngate/`, e.g. `logs/<sha>.log`) is a
 * file turngate writes ({@link TURNGATE_OWN_FILES}). Pure.
 */
export function isTurngateOwnFile(rel: string): boolean {
  const slash = rel.indexOf("/");
  if (slash < 0) return TOP.test(rel);
  const dir = rel.slice(0, slash);
  if (dir === "cargo-target") return true;
  const rest = rel.slice(slash + 1);
  if (rest.includes("/")) return false;
  if (dir === "logs") return LOG.test(rest);
  if (dir === "proofs") return PROOF.test(rest);
  return false;
}
