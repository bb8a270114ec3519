/**
 * Entry of a worker of the bridge's pool (issue #11 §3): receives one raw line (whole, or
 * streamed as pieces then `end`), answers it with `serveStatelessLine`, posts the outcome
 * back. `workerData.validateResult` mirrors
 * the server's `validateResults`.
 */
import { parentPort, workerData } from "node:worker_threads";
import { serveStatelessLine } from "../rpc/stateless-line.js";
import { nodeSha256Hex } from "./node-sha256.js";

const options = {
  validateResult: (workerData as { validateResult?: boolean })?.validateResult === true,
  sha256Hex: nodeSha256Hex,
};

/** The pieces received so far of each streamed line, by task. */
const streams = new Map<number, Uint8Array[]>();

/** Joins a streamed line's pieces into one buffer of its own (transferable). */
function join(pieces: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const piece of pieces) size += piece.byteLength;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const piece of pieces) {
    bytes.set(piece, at);
    at += piece.byteLength;
  }
  return bytes;
}

/** Answers one whole line (its bytes are this thread's: sent back on a hand-back). */
function answer(task: number, bytes: Uint8Array): void {
  const outcome = serveStatelessLine(bytes, options);
  if (outcome.kind === "hand_back") {
    const back = { kind: "hand_back" as const, bytes };
    parentPort?.postMessage({ task, outcome: back }, [bytes.buffer as ArrayBuffer]);
    return;
  }
  parentPort?.postMessage({ task, outcome });
}

parentPort?.on(
  "message",
  (message: { task: number; bytes?: Uint8Array; piece?: Uint8Array; end?: true; abort?: true }) => {
    const { task } = message;
    if (message.bytes !== undefined) {
      // A whole line, by transfer.
      answer(task, message.bytes);
    } else if (message.piece !== undefined) {
      const pieces = streams.get(task);
      if (pieces) pieces.push(message.piece);
      else streams.set(task, [message.piece]);
    } else if (message.end) {
      const pieces = streams.get(task) ?? [];
      streams.delete(task);
      answer(task, join(pieces));
    } else if (message.abort) {
      streams.delete(task);
      parentPort?.postMessage({
        task,
        outcome: { kind: "reply", line: null, id: null, idJson: null },
      });
    }
  },
);
