import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseTurnProof, TURN_VIEW_SCHEMA, TurngateError, type TurnView } from "@turngate/core";
import { authenticateProofFile, trustedPublicKey, writeFileAtomic } from "@turngate/node";
import { EXIT_OK } from "../context.js";
import { fillDeferredDiffs, viewOfProof } from "../show/build-view.js";
import { writePaged } from "../show/pager.js";
import { renderViewHtml } from "../show/render-view-html.js";
import { renderViewText, useColor } from "../show/render-view-text.js";
import {
  digestsWithPrefix,
  parseViewJson,
  readStoredView,
  viewFilesOf,
  viewsDir,
} from "../show/view-store.js";
import { resolveStatePaths } from "../state-dir.js";
import { displayPath, escapeControls } from "../terminal-text.js";
import { addLocationOptions, resolveWorkspaceRoot } from "./options.js";
import type { CliCommand } from "./types.js";

interface ShowFlags {
  root?: string;
  stateDir?: string;
  json?: boolean;
  html?: string;
  pager?: boolean;
  publicKey?: string;
}

/** A view and what `show` says about where it came from (a proof's signature). */
interface Shown {
  view: TurnView;
  note?: string;
}

/**
 * `turngate show [last | DIGEST | FILE]` (issue 21): the view of a turn — the last one
 * (`last`, the default: `<state>/views/last.json`), the one with that effect digest (a
 * unique prefix of 4 hex characters or more: the stored view, else the proof
 * `<state>/proofs/<digest>.json`), or a file (a proof in any form `proof verify` reads, or a
 * `turngate.turn_view.v1` JSON file). Prints the terminal view (`renderViewText`; coloured on
 * a terminal without `NO_COLOR`, paged when longer than the terminal), `--json` the view
 * model, `--html FILE` writes the page (`renderViewHtml`).
 */
export const showCommand: CliCommand = {
  name: "show",
  register(program, ctx, state) {
    addLocationOptions(
      program
        .command("show")
        .summary("show a turn: verdict, checks and the diff of every changed file")
        .description(
          "Show what a turn did, for a person: the summary first (verdict, effect digest, counts), then each check with its output, then each changed file with its diff against the baseline's git tree. TARGET is `last` (default: the last turn `turngate run` or `verify` decided here), an effect digest or a unique prefix of one (its stored view, else its proof), or a file: a proof (signed or not) or a turngate.turn_view.v1 JSON file. Colour only on a terminal and without NO_COLOR; long output goes through $PAGER (default less). A proof carries no check output: its view shows statuses and the logs' SHA-256 only.",
        )
        .argument(
          "[target]",
          "last, an effect digest (or a unique prefix), or a proof or view file",
          "last",
        )
        .option("--json", "print the turngate.turn_view.v1 view model as JSON")
        .option("--html <file>", "write the view as one self-contained HTML page to FILE")
        .option("--no-pager", "never page the terminal view")
        .option(
          "--public-key <file>",
          "the key a signed proof's signature is checked with (as proof verify)",
        ),
    ).action(async (target: string, flags: ShowFlags) => {
      const root = resolveWorkspaceRoot(ctx.cwd, flags.root);
      const paths = resolveStatePaths(root, flags.stateDir, ctx.cwd);
      const shown = await resolveTarget(
        target,
        root,
        paths.dir,
        paths.proofs,
        flags,
        ctx.env,
        ctx.cwd,
      );
      if (shown.note !== undefined) ctx.stderr.write(`turngate: ${shown.note}\n`);
      // A stored view leaves its diffs to now (issue 33): made from its kept trees.
      shown.view = await fillDeferredDiffs(shown.view, ctx.env);
      if (flags.html !== undefined) {
        const file = resolve(ctx.cwd, flags.html);
        await writeFileAtomic(file, renderViewHtml(shown.view, ctx.now?.() ?? Date.now()));
        ctx.stderr.write(`turngate: wrote the HTML view to ${displayPath(file)}\n`);
      }
      if (flags.json) ctx.stdout.write(`${JSON.stringify(shown.view, null, 2)}\n`);
      else if (flags.html === undefined) {
        const text = renderViewText(shown.view, {
          color: useColor(ctx.stdout, ctx.env),
          nowMs: ctx.now?.() ?? Date.now(),
        });
        const rows = (ctx.stdout as { rows?: number }).rows;
        await writePaged(text, ctx.stdout, ctx.env, flags.pager !== false, rows);
      }
      state.exitCode = EXIT_OK;
    });
  },
};

const HEX_PREFIX = /^[0-9a-f]{4,64}$/;

async function resolveTarget(
  target: string,
  root: string,
  stateDir: string,
  proofsDir: string,
  flags: ShowFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<Shown> {
  if (target === "last") {
    const view = readStoredView(stateDir, "last");
    if (view === undefined) {
      throw new TurngateError(
        "no_turn",
        `no turn recorded in ${displayPath(viewsDir(stateDir))} yet: run one (turngate run --check CMD -- AGENT, or turngate baseline then turngate verify), or name a proof file`,
      );
    }
    return { view };
  }
  const file = resolve(cwd, target);
  if (HEX_PREFIX.test(target) && !existsSync(file)) {
    const views = digestsWithPrefix(viewsDir(stateDir), target);
    const proofs = digestsWithPrefix(proofsDir, target);
    const all = [...new Set([...views, ...proofs])];
    if (all.length > 1) {
      throw new TurngateError(
        "ambiguous_digest",
        `${target} is the start of ${all.length} effect digests (${all.map((d) => d.slice(0, 16)).join(", ")}): give more characters`,
      );
    }
    const digest = all[0];
    if (digest === undefined) {
      throw new TurngateError(
        "no_turn",
        `no turn with an effect digest starting ${target} in ${displayPath(stateDir)} (no stored view, no proof): run turngate show last, or name a proof file`,
      );
    }
    const files = viewFilesOf(stateDir, digest);
    const newest = files[0];
    if (newest !== undefined) {
      const stored = readStoredView(stateDir, newest.replace(/\.json$/, ""));
      if (stored !== undefined) {
        return files.length > 1
          ? {
              view: stored,
              note: `${files.length} turns had effect digest ${digest.slice(0, 16)}…: this is the newest; the others are ${files
                .slice(1)
                .map((f) => displayPath(join(viewsDir(stateDir), f)))
                .join(", ")}`,
            }
          : { view: stored };
      }
    }
    return fromFile(join(proofsDir, `${digest}.json`), root, flags, env, cwd);
  }
  return fromFile(file, flags.root !== undefined ? root : undefined, flags, env, cwd);
}

async function fromFile(
  file: string,
  root: string | undefined,
  flags: ShowFlags,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<Shown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TurngateError(
      "show_target_unreadable",
      `cannot read ${displayPath(file)}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : (error as Error).message}; give last, an effect digest, or a proof or view file`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TurngateError(
      "invalid_json",
      `${displayPath(file)} is not JSON (${(error as Error).message}): give a proof or a turngate.turn_view.v1 file`,
    );
  }
  if (
    typeof value === "object" &&
    value !== null &&
    (value as { schema?: unknown }).schema === TURN_VIEW_SCHEMA
  ) {
    return {
      view: parseViewJson(value, file),
      note: `${displayPath(file)} is a stored view: a display, not a proof`,
    };
  }
  const trusted = trustedPublicKey({
    ...(flags.publicKey !== undefined ? { publicKeyFile: flags.publicKey } : {}),
    env,
    cwd,
  });
  const opened = authenticateProofFile(text, trusted);
  if (opened.proof === undefined) {
    const auth = opened.authentication;
    throw new TurngateError(
      "invalid_proof",
      `${displayPath(file)} is neither a turn proof nor a view: ${escapeControls(auth.message)}`,
    );
  }
  const proof = parseTurnProof(opened.proof);
  const auth = opened.authentication;
  const note =
    auth.status === "authenticated"
      ? `proof ${displayPath(file)}: signature holds (keyid ${auth.keyid}); turngate proof verify checks it against the disk`
      : `proof ${displayPath(file)}: ${auth.status} (${escapeControls(auth.message)}); run turngate proof verify to check it`;
  return { view: await viewOfProof(proof, root, env), note };
}
