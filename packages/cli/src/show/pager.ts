import { spawn } from "node:child_process";
import type { TextStream } from "../context.js";

/**
 * Write `text` to `stdout`, through a pager when it is long (issue 21 "paged when long"):
 * only when `stdout` is a terminal, `paging` is true and the text has more lines than the
 * terminal's rows (`rows`, default 24). The pager is `$PAGER`, else `less`, run by `sh -c`
 * with `LESS=FRX` unless `LESS` is set (quit when it fits, keep colours, leave the screen as
 * it was); when it cannot start, the text is written directly.
 *
 * Input: the text, the stream, the environment, whether paging is allowed and the rows.
 * Output: resolves once the pager exits (or the text is written). Never rejects.
 */
export async function writePaged(
  text: string,
  stdout: TextStream,
  env: NodeJS.ProcessEnv,
  paging: boolean,
  rows: number | undefined,
): Promise<void> {
  const lineCount = text.split("\n").length - 1;
  const pagerCommand = (env.PAGER ?? "").trim() || "less";
  if (!paging || stdout.isTTY !== true || lineCount <= (rows ?? 24) || pagerCommand === "cat") {
    stdout.write(text);
    return;
  }
  const started = await new Promise<boolean>((resolve) => {
    const child = spawn("sh", ["-c", pagerCommand], {
      stdio: ["pipe", "inherit", "inherit"],
      env: { ...env, LESS: env.LESS ?? "FRX" },
    });
    let spawned = false;
    child.on("spawn", () => {
      spawned = true;
      child.stdin?.on("error", () => undefined); // the user quit the pager early
      child.stdin?.end(text);
    });
    child.on("error", () => resolve(false));
    child.on("close", (code) => resolve(spawned && code !== 127));
  });
  if (!started) stdout.write(text);
}
