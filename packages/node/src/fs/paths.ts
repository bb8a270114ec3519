import { join } from "node:path";

/** Name of the folder turngate keeps inside a workspace (never recorded on the ledger). */
export const TURNGATE_DIR = ".turngate";

/**
 * Paths of the files turngate keeps under `<root>/.turngate/`.
 *
 * Input: the workspace root (absolute or relative to the process cwd).
 * Output: absolute-or-relative paths joined onto `root`; nothing is created.
 * - `dir`: `<root>/.turngate`
 * - `logs`: `<root>/.turngate/logs` — full verification command logs, `<sha256>.log`
 * - `proofs`: `<root>/.turngate/proofs` — `turn_proof.v1` files, `<effect digest>.json`
 * - `baseline`: `<root>/.turngate/baseline.json` — the stored workspace baseline of
 *   `turngate baseline`
 */
export function turngatePaths(root: string): {
  dir: string;
  logs: string;
  proofs: string;
  baseline: string;
} {
  const dir = join(root, TURNGATE_DIR);
  return {
    dir,
    logs: join(dir, "logs"),
    proofs: join(dir, "proofs"),
    baseline: join(dir, "baseline.json"),
  };
}
