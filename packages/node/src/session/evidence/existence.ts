/**
 * Existence evidence (issue 13 item 4; A3S seed 002 "existence checks"), **off unless the
 * host opts in** (`SessionOptions.existenceEvidence: true`): "the file exists with the
 * recorded bytes" proves the write landed, not that the code works.
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { isAbsolute, join, posix, relative, sep } from "node:path";
import {
  createReport,
  existenceCheckPaths,
  type MutationLedger,
  type VerificationReport,
} from "@turngate/core";

/** Residual risk on a synthesised existence report: honest in the summary, still binding. */
export const EXISTENCE_ONLY_RISK =
  "existence check only: the file holds the recorded bytes; this does not show the code works";

/** What one existence check in a bash command found. */
export interface ExistenceCheck {
  /** The path as written in the command. */
  path: string;
  /** The workspace-relative path it names, or null when it is outside the root (ignored). */
  ledgerPath: string | null;
  /**
   * `match`: on the ledger, and the file's SHA-256 equals the ledger's content digest;
   * `mismatch`: on the ledger, bytes differ (or not a regular file); `no_recorded_content`:
   * on the ledger with content digest `""`; `not_mutated`: not on the ledger; `outside`:
   * outside the root (`../`, an absolute path elsewhere, a symlink out).
   */
  status: "match" | "mismatch" | "no_recorded_content" | "not_mutated" | "outside";
}

/** The result of `existenceEvidence`. */
export interface ExistenceEvidence {
  checks: ExistenceCheck[];
  /** Reports of the turn now bound to the ledger digest (the same objects, updated). */
  bound: VerificationReport[];
  /** `shell:mutation_path_verify:<path>` reports made (bound to the ledger digest). */
  synthesized: VerificationReport[];
}

/** Whether a report would pass once bound (A3S §2.8 without the digest). */
function requiredPass(report: VerificationReport): boolean {
  const required = report.checks.filter((c) => c.required);
  return (
    required.length > 0 &&
    required.every((c) => c.status === "passed") &&
    report.status !== "failed" &&
    report.status !== "needs_review"
  );
}

/** The workspace-relative '/' path `path` names inside `root`, or null when outside it. */
function insideRoot(root: string, path: string): string | null {
  const rel = isAbsolute(path) ? relative(root, path).split(sep).join("/") : path;
  const normal = posix.normalize(rel);
  if (normal === "." || normal === ".." || normal.startsWith("../") || posix.isAbsolute(normal)) {
    return null;
  }
  try {
    const realRoot = realpathSync(root);
    const real = realpathSync(join(root, normal));
    const back = relative(realRoot, real);
    if (back === "" || back === ".." || back.startsWith(`..${sep}`) || isAbsolute(back))
      return null;
  } catch {
    // Not there (yet): the lexical check decides; the hash comparison will not match.
  }
  return normal;
}

function fileSha256(full: string): string | null {
  try {
    if (!lstatSync(full).isFile()) return null;
    return createHash("sha256").update(readFileSync(full)).digest("hex");
  } catch {
    return null;
  }
}

/**
 * The existence evidence of one `bash` command (`existenceCheckPaths`), when it exited 0:
 * each checked path is resolved inside `root` (`../` and symlinks out are ignored) and
 * looked up on the ledger (exact path, `./` stripped). When at least one checked path is a
 * `match` (its current on-disk SHA-256 equals the ledger's content digest for it) or has
 * no recorded content (`""`), every not-yet-bound report of the turn that would pass
 * (`requiredPass`) **and was recorded while the ledger had the current digest**
 * (`digestAtRecord`) is bound to `ledger.digest`. When nothing was bound, each `match` path
 * yields a synthesised report `shell:mutation_path_verify:<path>` with one required passed
 * check `mutation_path_verify:<path>` (kind `existence`) carrying `EXISTENCE_ONLY_RISK`,
 * bound to the digest; a path without recorded content never synthesises one. An empty
 * ledger or a non-zero exit does nothing. **Changes from A3S:** a failed test binds nothing;
 * reports recorded before the latest ledger change are not bound (they ran on other bytes).
 * Never throws.
 */
export function existenceEvidence(input: {
  root: string;
  command: string;
  exitCode: number;
  ledger: MutationLedger;
  reports: readonly VerificationReport[];
  digestAtRecord: (report: VerificationReport) => string | undefined;
}): ExistenceEvidence {
  const out: ExistenceEvidence = { checks: [], bound: [], synthesized: [] };
  const digest = input.ledger.digest;
  for (const path of existenceCheckPaths(input.command)) {
    const ledgerPath = insideRoot(input.root, path);
    if (ledgerPath === null) {
      out.checks.push({ path, ledgerPath, status: "outside" });
      continue;
    }
    const recorded =
      input.ledger.contentDigestForPath(ledgerPath) ??
      input.ledger.contentDigestForPath(`./${ledgerPath}`);
    let status: ExistenceCheck["status"];
    if (recorded === undefined) status = "not_mutated";
    else if (recorded === "") status = "no_recorded_content";
    else status = fileSha256(join(input.root, ledgerPath)) === recorded ? "match" : "mismatch";
    out.checks.push({ path, ledgerPath, status });
  }
  if (input.exitCode !== 0 || digest === "") return out;
  const usable = out.checks.filter(
    (c) => c.status === "match" || c.status === "no_recorded_content",
  );
  if (usable.length === 0) return out;
  for (const report of input.reports) {
    if (report.effect_digest !== undefined || !requiredPass(report)) continue;
    if (input.digestAtRecord(report) !== digest) continue;
    report.effect_digest = digest;
    out.bound.push(report);
  }
  if (out.bound.length > 0) return out;
  for (const check of usable) {
    if (check.status !== "match" || check.ledgerPath === null) continue;
    const id = `mutation_path_verify:${check.ledgerPath}`;
    out.synthesized.push(
      createReport(
        `shell:${id}`,
        [
          {
            id,
            kind: "existence",
            description: `${check.ledgerPath} exists with the bytes the ledger recorded`,
            required: true,
            status: "passed",
            suggested_tools: ["bash"],
            residual_risk: EXISTENCE_ONLY_RISK,
          },
        ],
        { effectDigest: digest },
      ),
    );
  }
  return out;
}
