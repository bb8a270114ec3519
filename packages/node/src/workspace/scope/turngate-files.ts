/**
 * The files turngate itself writes under the workspace root's `.turngate/` folder (found in
 * `fs/ensure-dir.ts`, `fs/content-log.ts`, `fs/atomic.ts`, `cli/baseline-store.ts`; issue 10
 * "files under root `.turngate/` that turngate did not write"). Anything else there — an
 * agent's `.turngate/impl.js`, a planted `.turngate/proofs/x/y` — is recorded on the ledger
 * as a harness row. Exact names only: Node's `require` loads a file of any unknown extension
 * as JavaScript, so a loose pattern (`baseline.json.abc`, `proofs/<hex>evil.js`) would be a
 * place to hide code a check loads.
 *
 * - `.gitignore` (written with the folder), `baseline.json` (`turngate baseline`),
 *   `baseline-history.json` (the ids and times of the last baselines, issue #12 item 13),
 *   `code-index.json` (the code index, issue #15: data turngate reads, never code),
 *   `verification-profiles.json` (the check timing profile store `turngate run` / `verify`
 *   record into, issue #14 item 7: data, never code), `turn-chain.json` (the state the last
 *   `turngate run` was judged on, docs/cli.md "Gapless turns": data turngate reads, never code);
 * - `logs/<sha256>.log` (content-addressed check logs): turngate's own only when the SHA-256
 *   of its bytes equals its name — the observer hashes it ({@link turngateLogDigest});
 *   a log whose bytes do not match its name is a harness row;
 * - `proofs/<effect digest>.json`;
 * - `views/<effect digest>.<ms>-<6 hex>.json` (one per turn, issue 34 item 8), the older
 *   `views/<effect digest>.json` and `views/last.json`: the view of a turn `turngate show`
 *   prints (issue 21), written after the turn is decided;
 * - `cache/events.jsonl` (the result cache's event log, appended during the checks; read by
 *   `turngate cache stats` only: display, never trust) and `cache/artifacts/<sha256>.json`
 *   (local result-cache entries, issue #20: each is accepted only when its DSSE signature
 *   verifies against a trusted key, so a planted or edited one is a miss, not a row);
 * - `cargo-target/**`: the checks' `CARGO_TARGET_DIR` (runner/check-env.ts). Not a ledger
 *   row: the environment baseline fingerprints that folder, and an agent write to it ends
 *   the turn `needs_review` (`turngate:cargo-target`).
 *
 * Atomic-write temporaries (`baseline.json.<hex>`, `logs/.tmp-<pid>-<hex>.log`) are not
 * turngate's own here: turngate's writes complete (rename) before it observes, so a
 * temporary left by a crashed run is a file the agent's checks can see and is a row.
 */
export const TURNGATE_OWN_FILES: readonly string[] = Object.freeze([
  ".gitignore",
  "baseline.json",
  "baseline-history.json",
  "code-index.json",
  "verification-profiles.json",
  "turn-chain.json",
  "logs/<sha256 of its bytes>.log",
  "proofs/<sha256>.json",
  "views/<sha256>.json",
  "views/<sha256>.<ms>-<6 hex>.json",
  "views/last.json",
  "cache/events.jsonl",
  "cache/artifacts/<sha256>.json",
  "cargo-target/**",
]);

const TOP =
  /^(?:\.gitignore|baseline(?:-history)?\.json|code-index\.json|verification-profiles\.json|turn-chain\.json)$/;
const LOG = /^([0-9a-f]{64})\.log$/;
const PROOF = /^[0-9a-f]{64}\.json$/;
const VIEW = /^[0-9a-f]{64}(?:\.[0-9]{1,16}-[0-9a-f]{6})?\.json$/;

/**
 * True when `rel` (a `/`-separated path inside `.turngate/`, e.g. `proofs/<sha>.json`) is a
 * file turngate writes whose name alone says so ({@link TURNGATE_OWN_FILES}). A log
 * `logs/<sha256>.log` is false here: whether it is turngate's depends on its bytes
 * ({@link turngateLogDigest}). Pure.
 */
export function isTurngateOwnFile(rel: string): boolean {
  const slash = rel.indexOf("/");
  if (slash < 0) return TOP.test(rel);
  const dir = rel.slice(0, slash);
  if (dir === "cargo-target") return true;
  if (rel.startsWith("cache/artifacts/")) return PROOF.test(rel.slice("cache/artifacts/".length));
  const rest = rel.slice(slash + 1);
  if (rest.includes("/")) return false;
  if (dir === "proofs") return PROOF.test(rest);
  if (dir === "views") return rest === "last.json" || VIEW.test(rest);
  if (dir === "cache") return rest === "events.jsonl";
  return false;
}

/**
 * For `rel` = `logs/<64 hex>.log` (inside `.turngate/`), the hex name: the SHA-256 (lowercase
 * hex) its bytes must have for the file to be turngate's own content-addressed log
 * (`fs/content-log.ts`). `undefined` for any other path. Pure.
 */
export function turngateLogDigest(rel: string): string | undefined {
  if (!rel.startsWith("logs/")) return undefined;
  return LOG.exec(rel.slice("logs/".length))?.[1];
}
