import { stat } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { TurnProof } from "@turngate/core";
import { hashRegularFile } from "../workspace/hash/hash.js";

/** How one evidence log a proof cites compares with the file on this machine. */
export interface EvidenceLogCheck {
  uri: string;
  /** The local path of a `file:` URL; absent for another scheme. */
  path?: string;
  /** The SHA-256 the proof records. */
  recorded: string;
  /** The SHA-256 of the file now (streamed), when it could be read. */
  actual?: string;
  /**
   * - `match`: the file's bytes hash to the recorded SHA-256;
   * - `mismatch`: they do not (the log was edited), or the path is not a readable file;
   * - `missing`: the log's folder is here but the log is not (it was deleted);
   * - `unavailable`: the log's folder is not on this machine (the proof was copied from
   *   another one, or the URI is not a `file:` URL): not checked, and not a failure.
   */
  status: "match" | "mismatch" | "missing" | "unavailable";
  /** What is wrong, for `mismatch` and `missing`. */
  problem?: string;
}

/** Result of {@link checkEvidenceLogs}. */
export interface EvidenceLogsResult {
  /** True when no log is `mismatch` or `missing`. */
  ok: boolean;
  logs: EvidenceLogCheck[];
  /** `logs_unavailable: …` when some logs could not be checked here; else empty. */
  notes: string[];
}

/**
 * Re-hash every evidence log the proof cites (`evidence_logs`, issue 10) by streaming its
 * bytes, so a log edited after the turn is found and named. A log whose folder is absent
 * from this machine is `unavailable` (a note, `logs_unavailable`, not a failure); a log
 * absent from a folder that is here is `missing` (a failure). A proof without
 * `evidence_logs` (an older proof) has nothing to check.
 *
 * Input: a parsed proof. Output: {@link EvidenceLogsResult}. Never throws.
 */
export async function checkEvidenceLogs(proof: TurnProof): Promise<EvidenceLogsResult> {
  const logs: EvidenceLogCheck[] = [];
  for (const entry of proof.evidence_logs ?? []) {
    logs.push(await checkOne(entry.uri, entry.sha256));
  }
  const unavailable = logs.filter((log) => log.status === "unavailable");
  const notes: string[] = [];
  if (unavailable.length > 0) {
    const where = [...new Set(unavailable.map((log) => (log.path ? dirname(log.path) : log.uri)))];
    notes.push(
      `logs_unavailable: ${unavailable.length} of ${logs.length} evidence ${logs.length === 1 ? "log is" : "logs are"} not on this machine (${where.join(", ")}); their SHA-256 was not checked`,
    );
  }
  const ok = logs.every((log) => log.status === "match" || log.status === "unavailable");
  return { ok, logs, notes };
}

async function checkOne(uri: string, recorded: string): Promise<EvidenceLogCheck> {
  let path: string;
  try {
    path = fileURLToPath(uri);
  } catch {
    return { uri, recorded, status: "unavailable" };
  }
  try {
    const { digest } = await hashRegularFile(path);
    if (digest === recorded) return { uri, path, recorded, actual: digest, status: "match" };
    return {
      uri,
      path,
      recorded,
      actual: digest,
      status: "mismatch",
      problem: `evidence log ${path}: recorded sha256 ${recorded}, on disk ${digest} (the log was changed after the turn)`,
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      const folderHere = await stat(dirname(path)).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (!folderHere) return { uri, path, recorded, status: "unavailable" };
      return {
        uri,
        path,
        recorded,
        status: "missing",
        problem: `evidence log ${path}: missing (recorded sha256 ${recorded}); its folder is here, so it was deleted or moved`,
      };
    }
    return {
      uri,
      path,
      recorded,
      status: "mismatch",
      problem: `evidence log ${path}: cannot be read as a file (${code ?? (error as Error).message})`,
    };
  }
}
