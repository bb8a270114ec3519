import type { SetupProgressEvent, VerifyProgressEvent } from "@turngate/node";
import { failureClassOf, progressOutcome } from "./check-outcome.js";
import { formatSeconds } from "./duration.js";
import { escapeControls } from "./terminal-text.js";

export { formatSeconds } from "./duration.js";

/** Where progress goes: a writable text stream (stderr) and whether it is a terminal. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Milliseconds between redraws of the live line in a terminal. */
export const PROGRESS_REDRAW_MS = 100;

/**
 * Progress of verification checks while they run.
 *
 * - In a terminal (`stream.isTTY`): one live line per check, redrawn every 100 ms with the
 *   elapsed time (`  … demo:test  node test.js  1.3s`), replaced by its result
 *   (`  ✔ demo:test passed in 1.4s`) when the check ends.
 * - Otherwise: one plain line when a check starts (`turngate: check demo:test started: node
 *   test.js`) and one when it ends (`turngate: check demo:test passed in 1.4s`).
 *
 * A check that did not pass is named by its failure class (`progressOutcome`): `timed out
 * after 1000 ms (timeout)`, `cancelled after 0.3s (cancelled)`, `failed in 1.2s: exit code
 * 1, expected 0 (assertion)`, … — never plain `failed` for a timeout or a cancel.
 *
 * Returns the `onProgress` callback for `Session.verifyCommands` and `close()`, which stops
 * the redraw timer.
 */
export function createProgressReporter(stream: ProgressStream): {
  onProgress: (event: VerifyProgressEvent) => void;
  close: () => void;
} {
  const tty = stream.isTTY === true;
  let timer: NodeJS.Timeout | undefined;
  let live: { id: string; command: string; started: number } | undefined;

  const redraw = () => {
    if (!live) return;
    const elapsed = formatSeconds(performance.now() - live.started);
    stream.write(`\r\x1b[2K  … ${live.id}  ${live.command}  ${elapsed}`);
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    live = undefined;
  };

  return {
    onProgress(event) {
      const id = escapeControls(event.command.id);
      if (event.type === "start") {
        if (!tty) {
          stream.write(`turngate: check ${id} started: ${escapeControls(event.command.command)}\n`);
          return;
        }
        live = { id, command: escapeControls(event.command.command), started: performance.now() };
        redraw();
        timer = setInterval(redraw, PROGRESS_REDRAW_MS);
        timer.unref();
        return;
      }
      const outcome = escapeControls(progressOutcome(event, event.durationMs));
      if (!tty) {
        stream.write(`turngate: check ${id} ${outcome}\n`);
        return;
      }
      stop();
      const status = event.check.status;
      const mark =
        status === "passed"
          ? "✔"
          : failureClassOf(event) !== null || status === "failed"
            ? "✖"
            : "!";
      stream.write(`\r\x1b[2K  ${mark} ${id} ${outcome}\n`);
    },
    close: stop,
  };
}

/**
 * The one progress line of the clean room's dependency setup (docs/design.md §3b), for
 * stderr: `turngate: setup: running \`npm ci --no-audit --no-fund\` in the clean room
 * (node_modules changed during the turn; cache miss 0123456789ab)…` before it runs, or
 * `turngate: setup: reusing the result of \`…\` (…; cache hit 0123456789ab)` when the
 * result sealed for the same inputs is reused. No trailing newline.
 */
export function setupProgressLine(event: SetupProgressEvent): string {
  const command = escapeControls(event.command);
  const reason = escapeControls(event.reason);
  return event.cache === "miss"
    ? `turngate: setup: running \`${command}\` in the clean room (${reason}; cache miss ${event.key})…`
    : `turngate: setup: reusing the result of \`${command}\` (${reason}; cache hit ${event.key})`;
}
