import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  DELETED_CONTENT_DIGEST,
  parseTurnProof,
  TurngateError,
  TurngateValidationError,
} from "@turngate/core";
import {
  type ProofFileVerification,
  type ProofVerification,
  proofWorkspaceRoot,
  publicKeyPem,
  resolveSigningKey,
  trustedPublicKey,
  verifyProofFile,
} from "@turngate/node";
import { EXIT_INCOMPLETE, EXIT_OK } from "../context.js";
import { displayPath, escapeControls } from "../terminal-text.js";
import type { CliCommand } from "./types.js";

/** Flags of `turngate proof verify`. */
interface ProofVerifyFlags {
  root?: string;
  json?: boolean;
  publicKey?: string;
  allowUnsigned?: boolean;
  commit?: string;
}

/**
 * `turngate proof verify <file> [--root DIR] [--public-key FILE] [--allow-unsigned]
 * [--commit REV] [--json]`: authenticate a proof file (DSSE signature by the trusted key:
 * `--public-key`, else `TURNGATE_SIGNING_KEY`'s, else the local user's key), then re-check
 * it against the workspace on disk, re-hash the evidence logs it cites and, with
 * `--commit`, match its final git tree to that commit. The root is `--root`, else the
 * `<root>` of a file at `<root>/.turngate/proofs/<digest>.json`, else the cwd. Exit 0
 * holds; 2 unauthenticated, rejected or does not hold; 1 unreadable file or invalid proof.
 * The "does not hold" text and the JSON (`hint`, else null) say to pass `--root` when every
 * file of the proof is missing under the root (issue #12 item 8); a file that is not JSON or
 * not a `turn_proof.v1` is an `invalid_proof` error saying what is wrong in words.
 *
 * `turngate proof public-key [--key FILE]`: print the signing key's public half (PEM) on
 * stdout and its keyid on stderr, generating the user's key on first use.
 */
export const proofCommand: CliCommand = {
  name: "proof",
  register(program, ctx, state) {
    const proof = program
      .command("proof")
      .summary("work with turn proofs (.turngate/proofs/*.json)")
      .description(
        "Work with turn proofs: the turn_proof.v1 files `turngate run` and `turngate verify` write to .turngate/proofs/<effect digest>.json (or <state-dir>/proofs/) when a turn ends verified or waived. `turngate proof verify FILE` checks that a proof still holds against the files on disk.",
      );
    proof
      .command("verify")
      .summary(
        "authenticate a proof, recompute its effect digest from disk and re-check its binding",
      )
      .description(
        "Check the proof's DSSE signature (Ed25519) against the trusted public key, recompute the effect digest from the proof's rows, re-hash every workspace row's file on disk and every evidence log it cites, and check that the terminal is backed by a bound passing report (verified) or a waiver (waived). An unsigned proof, or one signed by another key, is unauthenticated (exit 2) unless --allow-unsigned.",
      )
      .argument(
        "<file>",
        "a proof file: a DSSE envelope (dsse or in-toto format) or a bare turn_proof.v1",
      )
      .option(
        "--root <dir>",
        "workspace root the proof's paths are relative to (default: <root> when the file is <root>/.turngate/proofs/<digest>.json, else the current directory)",
      )
      .option(
        "--public-key <file>",
        "the signer's Ed25519 public key (PEM; a private key's public half is used); default: TURNGATE_SIGNING_KEY's, else the local user's key in $XDG_STATE_HOME/turngate or ~/.local/state/turngate",
      )
      .option(
        "--allow-unsigned",
        "check an unsigned or foreign-signed proof anyway (it then proves nothing about who wrote it)",
      )
      .option(
        "--commit <rev>",
        "also require that the proof's final git tree is the tree of this commit",
      )
      .option("--json", "print the verification result as JSON")
      .addHelpText(
        "after",
        "\nExit codes: 0 the proof holds; 2 it is unauthenticated, rejected (a bad signature, a wrong keyid, a cut envelope) or does not hold (the workspace, an evidence log or the commit differs); 1 unreadable file or invalid proof.\n",
      )
      .action(async (file: string, flags: ProofVerifyFlags) => {
        const path = resolve(ctx.cwd, file);
        const root =
          flags.root !== undefined
            ? resolve(ctx.cwd, flags.root)
            : (proofWorkspaceRoot(path) ?? resolve(ctx.cwd));
        const text = await readProofText(path);
        let value: unknown;
        let json = true;
        try {
          value = JSON.parse(text);
        } catch (error) {
          // A cut-off object is a damaged envelope: authentication rejects it by name
          // (malformed_envelope, exit 2); anything else is not a proof file at all.
          if (!text.trimStart().startsWith("{")) {
            throw new TurngateError(
              "invalid_proof",
              `${displayPath(path)} is not a turn proof: it is not JSON (${(error as Error).message})`,
            );
          }
          json = false;
        }
        // A bare proof must at least be a valid turn_proof.v1 before it is authenticated
        // (it then fails as unsigned); an envelope's payload is checked after its signature.
        const envelope = typeof value === "object" && value !== null && "payloadType" in value;
        if (json && !envelope) {
          try {
            parseTurnProof(value);
          } catch (error) {
            if (error instanceof TurngateValidationError) throw notAProof(path, value, error);
            throw error;
          }
        }
        const trusted = trustedPublicKey({
          ...(flags.publicKey !== undefined ? { publicKeyFile: flags.publicKey } : {}),
          env: ctx.env,
          cwd: ctx.cwd,
        });
        let result: ProofFileVerification;
        try {
          result = await verifyProofFile(text, {
            root,
            trusted,
            allowUnsigned: flags.allowUnsigned === true,
            ...(flags.commit !== undefined ? { commit: flags.commit } : {}),
            env: ctx.env,
          });
        } catch (error) {
          if (error instanceof TurngateValidationError) throw notAProof(path, undefined, error);
          throw error;
        }
        const hint = result.verification ? wrongRootHint(result.verification, root) : null;
        if (flags.json) {
          ctx.stdout.write(
            `${JSON.stringify({ ...verificationJson(result, root), hint }, null, 2)}\n`,
          );
        } else {
          ctx.stdout.write(
            `${verificationText(result, root)}${hint === null ? "" : `${escapeControls(hint)}\n`}`,
          );
        }
        state.exitCode = result.ok ? EXIT_OK : EXIT_INCOMPLETE;
      });
    proof
      .command("public-key")
      .summary("print the public key that verifies this user's proofs")
      .description(
        "Print the public half (PEM, SPKI) of the signing key on stdout and its keyid (SHA-256 of the DER public key) on stderr: give it to CI as `turngate proof verify --public-key FILE`. The key is --key, else TURNGATE_SIGNING_KEY, else the user's key (generated on first use).",
      )
      .option("--key <file>", "an Ed25519 private key (PEM) instead of the default key")
      .action((flags: { key?: string }) => {
        const key = resolveSigningKey({
          ...(flags.key !== undefined ? { keyFile: flags.key } : {}),
          env: ctx.env,
          cwd: ctx.cwd,
        });
        ctx.stdout.write(publicKeyPem(key.publicKey));
        ctx.stderr.write(`keyid: ${key.keyid}\n`);
        state.exitCode = EXIT_OK;
      });
  },
};

/**
 * Read a proof file's text. Errors (`TurngateError` `proof_unreadable`, naming the file):
 * no such file, a directory, no permission.
 */
async function readProofText(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "it is a directory"
          : code === "EACCES"
            ? "permission denied"
            : (error as Error).message;
    throw new TurngateError(
      "proof_unreadable",
      `cannot read the proof ${displayPath(path)}: ${why}; turngate writes proofs to .turngate/proofs/<effect digest>.json (or <state-dir>/proofs/)`,
    );
  }
}

/**
 * What is wrong with a file that is not a valid `turn_proof.v1`, in words (issue #12 item 8):
 * not a JSON object; another or no `schema`; else the missing fields and the fields of the
 * wrong type (`value` undefined: an envelope's payload, only the fields). Output: a
 * `TurngateError` `invalid_proof` naming the file.
 */
function notAProof(path: string, value: unknown, error: TurngateValidationError): TurngateError {
  const shown = displayPath(path);
  const fail = (why: string) =>
    new TurngateError("invalid_proof", `${shown} is not a turn proof: ${why}`);
  if (value === undefined) {
    // an envelope's payload: its signature held, its content is not a turn proof
  } else if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    return fail(`it holds ${kind}, not a JSON object with "schema": "turn_proof.v1"`);
  }
  const schema = value === undefined ? "turn_proof.v1" : (value as Record<string, unknown>).schema;
  if (schema !== "turn_proof.v1") {
    return fail(
      schema === undefined
        ? 'it has no "schema" field (a turn proof has "schema": "turn_proof.v1")'
        : `its "schema" is ${escapeControls(JSON.stringify(schema))}, not "turn_proof.v1"`,
    );
  }
  const missing = error.issues
    .filter((i) => /received undefined$/.test(i.message))
    .map((i) => i.path);
  const wrong = error.issues
    .filter((i) => !/received undefined$/.test(i.message))
    .map((i) => `${i.path || "(top level)"} (${i.message.replace(/^Invalid input: /, "")})`);
  const parts: string[] = [];
  if (missing.length > 0) parts.push(`missing ${missing.join(", ")}`);
  if (wrong.length > 0)
    parts.push(
      `wrong ${wrong.slice(0, 5).join(", ")}${wrong.length > 5 ? ` and ${wrong.length - 5} more` : ""}`,
    );
  return new TurngateError(
    "invalid_proof",
    `${shown} is not a valid turn_proof.v1: ${escapeControls(parts.join("; "))}`,
  );
}

/**
 * When every workspace row of the proof names a file that is missing under `root`, the
 * proof was most likely checked against the wrong folder (issue #12 item 8): the hint names
 * the root and `--root`. Null otherwise.
 */
function wrongRootHint(result: ProofVerification, root: string): string | null {
  const workspace = result.rows.filter((row) => row.tool === "workspace");
  const gone = workspace.filter(
    (row) => row.actual === DELETED_CONTENT_DIGEST && row.recorded !== DELETED_CONTENT_DIGEST,
  );
  if (workspace.length === 0 || gone.length !== workspace.length) return null;
  const what =
    workspace.length === 1
      ? "the proof's one file does not exist"
      : `none of the proof's ${workspace.length} files exist`;
  return `${what} under ${displayPath(root)}: if this is not the workspace the proof was written for, pass --root DIR`;
}

/** The human text of a proof verification: the verdict line, then problems or what held. */
function verificationText(result: ProofFileVerification, root: string): string {
  const auth = result.authentication;
  const lines: string[] = [];
  if (auth.status === "invalid") {
    lines.push(`proof rejected (${auth.reason}): ${escapeControls(auth.message)}`);
    lines.push(
      "  the file is not a proof turngate signed as it is now: do not trust it; re-run the turn to get a new proof",
    );
    return `${lines.join("\n")}\n`;
  }
  if (auth.status === "unauthenticated" && result.verification === undefined) {
    lines.push(`proof unauthenticated (${auth.reason}): ${escapeControls(auth.message)}`);
    lines.push(
      "  pass --public-key FILE with the signer's public key (`turngate proof public-key --key SIGNER.pem` prints it on the signing machine), or --allow-unsigned to check the content anyway",
    );
    return `${lines.join("\n")}\n`;
  }
  const verification = result.verification;
  if (result.ok && verification) {
    const checked = verification.rows.filter((row) => row.status === "match").length;
    lines.push(
      `proof holds: effect digest ${verification.recomputedDigest}; ${checked} of ${verification.rows.length} rows re-hashed from disk`,
    );
  } else {
    lines.push(`proof does not hold against ${displayPath(root)}:`);
    for (const problem of result.problems) lines.push(`  ${escapeControls(problem)}`);
  }
  lines.push(
    auth.status === "authenticated"
      ? `signature: ${result.format}, ${auth.message}`
      : `signature: none trusted (${auth.reason}), checked anyway (--allow-unsigned)`,
  );
  const logs = result.evidence?.logs ?? [];
  if (logs.length > 0) {
    const matched = logs.filter((log) => log.status === "match").length;
    lines.push(`evidence logs: ${matched} of ${logs.length} re-hashed`);
  }
  if (result.commit?.matches) {
    lines.push(`commit: the final tree ${result.commit.finalTree} is the commit's tree`);
  }
  for (const note of result.notes) {
    if (!note.startsWith("unauthenticated")) lines.push(`note: ${escapeControls(note)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** The `--json` form (snake_case) of a proof verification. */
function verificationJson(result: ProofFileVerification, root: string): Record<string, unknown> {
  const auth = result.authentication;
  return {
    ok: result.ok,
    root,
    format: result.format,
    authentication: {
      status: auth.status,
      reason: auth.status === "authenticated" ? null : auth.reason,
      keyid: auth.status === "authenticated" ? auth.keyid : null,
      keyids: auth.status === "unauthenticated" ? auth.keyids : null,
      message: auth.message,
    },
    recomputed_digest: result.verification?.recomputedDigest ?? null,
    rows: result.verification?.rows ?? [],
    evidence_logs: result.evidence?.logs ?? [],
    commit: result.commit
      ? {
          matches: result.commit.matches,
          commit_tree: result.commit.commitTree,
          final_tree: result.commit.finalTree,
          reason: result.commit.reason ?? null,
        }
      : null,
    problems: result.problems,
    notes: result.notes,
  };
}
