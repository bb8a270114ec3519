import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  type ProofFileVerification,
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
 *
 * `turngate proof public-key [--key FILE]`: print the signing key's public half (PEM) on
 * stdout and its keyid on stderr, generating the user's key on first use.
 */
export const proofCommand: CliCommand = {
  name: "proof",
  register(program, ctx, state) {
    const proof = program
      .command("proof")
      .summary("work with turn proofs (.turngate/proofs/*.json)");
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
        const text = await readFile(path, "utf8");
        const trusted = trustedPublicKey({
          ...(flags.publicKey !== undefined ? { publicKeyFile: flags.publicKey } : {}),
          env: ctx.env,
          cwd: ctx.cwd,
        });
        const result = await verifyProofFile(text, {
          root,
          trusted,
          allowUnsigned: flags.allowUnsigned === true,
          ...(flags.commit !== undefined ? { commit: flags.commit } : {}),
          env: ctx.env,
        });
        if (flags.json)
          ctx.stdout.write(`${JSON.stringify(verificationJson(result, root), null, 2)}\n`);
        else ctx.stdout.write(verificationText(result, root));
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
      "  pass --public-key FILE with the signer's public key (`turngate proof public-key` prints it), or --allow-unsigned to check the content anyway",
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
