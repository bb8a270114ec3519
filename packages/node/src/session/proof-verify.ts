import { lstat, readlink } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import {
  DELETED_CONTENT_DIGEST,
  effectDigest,
  parseTurnProof,
  reportBindsPass,
  type TurnProof,
} from "@turngate/core";
import { TURNGATE_DIR } from "../fs/paths.js";
import { sha256Hex } from "../workspace/hash/digest.js";
import { hashRegularFile } from "../workspace/hash/hash.js";
import { resolveRecordedPath } from "./nfc-path.js";

/**
 * The workspace root a proof file belongs to, read from where it lies: for
 * `<root>/.turngate/proofs/<name>.json` (where turngate writes proofs) → `<root>`;
 * for any other path → `undefined` (the caller picks a root, e.g. the cwd).
 *
 * Input: the proof file's path (absolute, or relative to the process cwd; resolved
 * lexically, symlinks are not followed). Output: an absolute path or `undefined`.
 * Never throws; nothing is read from disk.
 */
export function proofWorkspaceRoot(proofPath: string): string | undefined {
  const file = resolve(proofPath);
  const proofs = dirname(file);
  const turngate = dirname(proofs);
  if (!file.endsWith(".json") || basename(proofs) !== "proofs") return undefined;
  if (basename(turngate) !== TURNGATE_DIR) return undefined;
  return dirname(turngate);
}

/** How one proof row compares with the workspace on disk. */
export interface ProofRowCheck {
  tool: string;
  path: string;
  recorded: string;
  /**
   * The digest computed from disk now; absent when the row cannot be checked from disk
   * (tool rows) or when no file bytes could be hashed (see `found`).
   */
  actual?: string;
  /**
   * For a workspace row whose path holds no hashable file now: what is there instead —
   * `directory`, `special` (FIFO, socket or device: never read) or `unreadable` (a read
   * error such as `EACCES`). Such a row is a `mismatch`.
   */
  found?: "directory" | "special" | "unreadable";
  /** `match`/`mismatch` for workspace rows; `not_checkable` for rows from tool metadata. */
  status: "match" | "mismatch" | "not_checkable";
}

/** Result of `verifyTurnProof`. */
export interface ProofVerification {
  /** True when every check below holds. */
  ok: boolean;
  /** The effect digest recomputed from the proof's rows. */
  recomputedDigest: string;
  rows: ProofRowCheck[];
  /** Human-readable problems, empty when `ok`. */
  problems: string[];
}

/**
 * Check a `turn_proof.v1` against the workspace at `root` (docs/design.md §3 "`turngate proof
 * verify`"):
 * 1. the effect digest recomputed from the proof's rows equals `effect_digest`;
 * 2. every `workspace` row's content digest equals the SHA-256 of the file's bytes now
 *    (of the link text for a symlink; the deleted marker for a missing path; a recorded NFC
 *    path is also found under a name in another normalization form, see
 *    `resolveRecordedPath`) — a path that
 *    is now a directory, a special file or unreadable is a mismatch naming the path and
 *    what is there (`found`); rows from tool metadata are reported `not_checkable`;
 * 3. the terminal is backed: `verified` needs a listed report that binds a pass to the
 *    digest (core `reportBindsPass`), `waived` a listed waiver of the digest; a null
 *    terminal (an agent hook's refused stop, issue 19) never holds.
 * Input: the parsed JSON of a proof file. Errors: `TurngateValidationError` when it is not
 * a valid `turn_proof.v1`.
 */
export async function verifyTurnProof(value: unknown, root: string): Promise<ProofVerification> {
  const proof: TurnProof = parseTurnProof(value);
  const problems: string[] = [];
  const recomputedDigest = effectDigest(proof.records);
  if (recomputedDigest !== proof.effect_digest) {
    problems.push(
      `effect digest ${proof.effect_digest} does not match the digest of its rows ${recomputedDigest}`,
    );
  }
  const rows: ProofRowCheck[] = [];
  for (const record of proof.records) {
    if (record.tool !== "workspace") {
      rows.push({ ...baseRow(record), status: "not_checkable" });
      continue;
    }
    const disk = await diskDigest(await resolveRecordedPath(root, record.path));
    if ("found" in disk) {
      problems.push(`${record.path}: recorded ${record.content_digest}, on disk ${disk.detail}`);
      rows.push({ ...baseRow(record), found: disk.found, status: "mismatch" });
      continue;
    }
    const actual = disk.digest;
    const status = actual === record.content_digest ? "match" : "mismatch";
    if (status === "mismatch") {
      problems.push(`${record.path}: recorded ${record.content_digest}, on disk ${actual}`);
    }
    rows.push({ ...baseRow(record), actual, status });
  }
  const terminal = proof.terminal;
  if (terminal === null) {
    // An agent hook's stop that the gate refused (issue 19): authentic, but it proves an
    // unfinished turn, so it never "holds" (a CI reading exit 0 must not take it as done).
    const reason = proof.outcome.kind === "allow" ? "" : ` (${proof.outcome.reason})`;
    const loop = proof.loop?.reason
      ? `, ${proof.loop.reason} after attempt ${proof.loop.attempt}`
      : "";
    problems.push(
      `the turn did not end: the gate outcome is ${proof.outcome.kind}${reason}${loop}; this proof records an unfinished turn, not a verified or waived one`,
    );
  } else if (terminal.kind === "verified" || terminal.kind === "waived") {
    if (terminal.effect_digest !== proof.effect_digest) {
      problems.push(`terminal digest ${terminal.effect_digest} is not the effect digest`);
    }
  }
  if (
    terminal?.kind === "verified" &&
    !proof.reports.some((report) => reportBindsPass(report, proof.effect_digest))
  ) {
    problems.push("terminal is verified but no listed report binds a pass to the effect digest");
  }
  if (
    terminal?.kind === "waived" &&
    !proof.waivers_used.some((waiver) => waiver.effect_digest === proof.effect_digest)
  ) {
    problems.push("terminal is waived but no listed waiver is for the effect digest");
  }
  return { ok: problems.length === 0, recomputedDigest, rows, problems };
}

function baseRow(record: { tool: string; path: string; content_digest: string }) {
  return { tool: record.tool, path: record.path, recorded: record.content_digest };
}

type DiskState =
  | { digest: string }
  | { found: "directory" | "special" | "unreadable"; detail: string };

/**
 * What a workspace row's path holds now: the SHA-256 of a file's bytes or a symlink's
 * text; the deleted marker when nothing is there (`ENOENT`, or `ENOTDIR`: a parent is no
 * longer a folder); otherwise what is there instead. A file is hashed by streaming it in
 * 256 KiB chunks (`hashRegularFile`), so files over 2 GiB hash too. Never throws; never
 * opens a FIFO, socket or device for reading (reading one could block forever).
 */
async function diskDigest(path: string): Promise<DiskState> {
  try {
    const stat = await lstat(path);
    if (stat.isSymbolicLink()) {
      return { digest: sha256Hex(await readlink(path, { encoding: "buffer" })) };
    }
    if (stat.isDirectory()) return { found: "directory", detail: "a directory" };
    if (!stat.isFile()) {
      return { found: "special", detail: "a special file (FIFO, socket or device), not read" };
    }
    return { digest: (await hashRegularFile(path)).digest };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTREGULAR") {
      return { found: "special", detail: "a special file (FIFO, socket or device), not read" };
    }
    if (code === "ENOENT" || code === "ENOTDIR") return { digest: DELETED_CONTENT_DIGEST };
    return { found: "unreadable", detail: `unreadable (${code ?? (error as Error).message})` };
  }
}
