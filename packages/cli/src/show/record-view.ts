import { resolve } from "node:path";
import { hudText } from "@turngate/core";
import { writeFileAtomic } from "@turngate/node";
import { workspaceHud, workspaceProfileStore } from "../check-profiles.js";
import type { CliContext } from "../context.js";
import { type StatePaths, stateWriteProblem } from "../state-dir.js";
import { displayPath } from "../terminal-text.js";
import type { TurnResult } from "../turn.js";
import { viewOfResult } from "./build-view.js";
import { renderViewHtml } from "./render-view-html.js";
import { storeView } from "./view-store.js";

/**
 * After `run` or `verify` decided a turn (issue 21): build its view (`viewOfResult`, its
 * diffs deferred to `turngate show` unless `html` asks for the page now; with the
 * HUD's text when the profile store has one), store it for `turngate show`
 * (`<state>/views/last.json` and the turn's `<digest>.<key>.json`) and, with `--html FILE`, write its HTML page
 * there. Nothing here changes the verdict or the exit code: a failure is one
 * `turngate: warning:` line on stderr naming what could not be written.
 */
export async function recordTurnView(
  result: TurnResult,
  paths: Pick<StatePaths, "dir">,
  html: string | undefined,
  ctx: CliContext,
): Promise<void> {
  let hud: string | null = null;
  try {
    const model = await workspaceHud(
      result.root,
      workspaceProfileStore(paths.dir),
      ctx.now?.() ?? Date.now(),
    );
    const text = hudText(model);
    if (text !== "") hud = text;
  } catch {
    hud = null;
  }
  let view: Awaited<ReturnType<typeof viewOfResult>>;
  try {
    // The stored view leaves the diffs to `turngate show`; an HTML page written now needs them.
    view = await viewOfResult(result, ctx.env, { deferDiffs: html === undefined });
    if (hud !== null) view = { ...view, hud };
  } catch (error) {
    ctx.stderr.write(
      `turngate: warning: the turn's view could not be built: ${(error as Error).message}\n`,
    );
    return;
  }
  try {
    await storeView(paths.dir, view);
  } catch (error) {
    ctx.stderr.write(
      `turngate: warning: the turn's view was not stored (turngate show last will not show it): ${stateWriteProblem(error, paths.dir)}\n`,
    );
  }
  if (html === undefined) return;
  const file = resolve(ctx.cwd, html);
  try {
    await writeFileAtomic(file, renderViewHtml(view));
    ctx.stderr.write(`turngate: wrote the HTML view to ${displayPath(file)}\n`);
  } catch (error) {
    ctx.stderr.write(
      `turngate: warning: the HTML view could not be written to ${displayPath(file)}: ${(error as Error).message}\n`,
    );
  }
}
