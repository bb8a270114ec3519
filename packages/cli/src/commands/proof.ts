import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { proofWorkspaceRoot, verifyTurnProof } from "@turngate/node";
import { EXIT_INCOMPLETE, EXIT_OK } from "../context.js";
import { displayPath, escapeControls } from "../terminal-text.js";
import type { CliCommand } from "./types.js";

/**
 * `turngate proof verify <file> [--root DIR] [--json]`: re-check a turn proof against the
 * workspace on disk. The root is `--root`, else the `<root>` of a file at
 * `<root>/.turngate/proofs/<digest>.json`, else the cwd; the "does not hold" text and the
 * JSON (`{ok, root, recomputed_digest, rows, problems}`) name it. Exit 0 holds, 2 does not.
 */
export const proofCommand: CliCommand = {
  name: "proof",
  register(program, ctx, state) {
    const proof = program
      .command("proof")
      .summary("work with turn proofs (.turngate/proofs/*.json)");
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
        const value: unknown = JSON.parse(await readFile(path, "utf8"));
        const result = await verifyTurnProof(value, root);
        if (flags.json) {
          ctx.stdout.write(
            `${JSON.stringify(
              {
                ok: result.ok,
                root,
                recomputed_digest: result.recomputedDigest,
                rows: result.rows,
                problems: result.problems,
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
            `proof does not hold against ${displayPath(root)}:\n${result.problems.map((p) => `  ${escapeControls(p)}`).join("\n")}\n`,
          );
        }
        state.exitCode = result.ok ? EXIT_OK : EXIT_INCOMPLETE;
      });
  },
};
