import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { DELETED_CONTENT_DIGEST, TurngateError, TurngateValidationError } from "@turngate/core";
import { type ProofVerification, proofWorkspaceRoot, verifyTurnProof } from "@turngate/node";
import { EXIT_INCOMPLETE, EXIT_OK } from "../context.js";
import { displayPath, escapeControls } from "../terminal-text.js";
import type { CliCommand } from "./types.js";

/**
 * `turngate proof verify <file> [--root DIR] [--json]`: re-check a turn proof against the
 * workspace on disk. The root is `--root`, else the `<root>` of a file at
 * `<root>/.turngate/proofs/<digest>.json`, else the cwd; the "does not hold" text and the
 * JSON (`{ok, root, recomputed_digest, rows, problems, hint}`) name it; `hint` (else null)
 * says to pass `--root` when every file of the proof is missing under the root. Exit 0
 * holds, 2 does not, 1 when the file cannot be read or is not a turn proof.
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
      .summary("recompute a proof's effect digest from disk and re-check its binding")
      .description(
        "Recompute the effect digest from the proof's rows, re-hash every workspace row's file on disk, and check that the terminal is backed by a bound passing report (verified) or a waiver (waived).",
      )
      .argument("<file>", "a turn_proof.v1 JSON file")
      .option(
        "--root <dir>",
        "workspace root the proof's paths are relative to (default: <root> when the file is <root>/.turngate/proofs/<digest>.json, else the current directory)",
      )
      .option("--json", "print the verification result as JSON")
      .addHelpText(
        "after",
        "\nExit codes: 0 the proof holds; 2 it does not (the workspace changed or the proof is inconsistent); 1 unreadable or invalid file.\n",
      )
      .action(async (file: string, flags: { root?: string; json?: boolean }) => {
        const path = resolve(ctx.cwd, file);
        const root =
          flags.root !== undefined
            ? resolve(ctx.cwd, flags.root)
            : (proofWorkspaceRoot(path) ?? resolve(ctx.cwd));
        const value = await readProofJson(path);
        let result: ProofVerification;
        try {
          result = await verifyTurnProof(value, root);
        } catch (error) {
          if (error instanceof TurngateValidationError) throw notAProof(path, value, error);
          throw error;
        }
        const hint = wrongRootHint(result, root);
        if (flags.json) {
          ctx.stdout.write(
            `${JSON.stringify(
              {
                ok: result.ok,
                root,
                recomputed_digest: result.recomputedDigest,
                rows: result.rows,
                problems: result.problems,
                hint,
              },
              null,
              2,
            )}\n`,
          );
        } else if (result.ok) {
          const checked = result.rows.filter((row) => row.status === "match").length;
          ctx.stdout.write(
            `proof holds: effect digest ${result.recomputedDigest}; ${checked} of ${result.rows.length} rows re-hashed from disk\n`,
          );
        } else {
          ctx.stdout.write(
            `proof does not hold against ${displayPath(root)}:\n${result.problems.map((p) => `  ${escapeControls(p)}`).join("\n")}\n${hint === null ? "" : `${escapeControls(hint)}\n`}`,
          );
        }
        state.exitCode = result.ok ? EXIT_OK : EXIT_INCOMPLETE;
      });
  },
};

/**
 * Read and parse a proof file. Errors (`TurngateError`, naming the file): `proof_unreadable`
 * when it cannot be read (no such file, a directory, no permission), `invalid_proof` when
 * it is not JSON.
 */
async function readProofJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
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
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new TurngateError(
      "invalid_proof",
      `${displayPath(path)} is not a turn proof: it is not JSON (${(error as Error).message})`,
    );
  }
}

/**
 * What is wrong with a file that is not a valid `turn_proof.v1`, in words (issue #12 item 8):
 * not a JSON object; another or no `schema`; else the missing fields and the fields of the
 * wrong type. Output: a `TurngateError` `invalid_proof` naming the file.
 */
function notAProof(path: string, value: unknown, error: TurngateValidationError): TurngateError {
  const shown = displayPath(path);
  const fail = (why: string) =>
    new TurngateError("invalid_proof", `${shown} is not a turn proof: ${why}`);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const kind = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    return fail(`it holds ${kind}, not a JSON object with "schema": "turn_proof.v1"`);
  }
  const schema = (value as Record<string, unknown>).schema;
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
