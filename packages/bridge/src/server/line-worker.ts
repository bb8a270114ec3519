/**
 * Entry of a worker of the bridge's pool (issue #11 §3): receives one raw line, answers it
 * with `serveStatelessLine`, posts the outcome back. `workerData.validateResult` mirrors
 * the server's `validateResults`.
 */
import { parentPort, workerData } from "node:worker_threads";
import { serveStatelessLine } from "../rpc/stateless-line.js";
import { nodeSha256Hex } from "./node-sha256.js";

const options = {
  validateResult: (workerData as { validateResult?: boolean })?.validateResult === true,
  sha256Hex: nodeSha256Hex,
};

parentPort?.on("message", (message: { task: number; bytes: Uint8Array }) => {
  const outcome = serveStatelessLine(message.bytes, options);
  if (outcome.kind === "hand_back") {
    // The bytes came by transfer: send them back for the main thread to serve.
    const back = { kind: "hand_back" as const, bytes: message.bytes };
    parentPort?.postMessage({ task: message.task, outcome: back }, [
      message.bytes.buffer as ArrayBuffer,
    ]);
    return;
  }
  parentPort?.postMessage({ task: message.task, outcome });
});
