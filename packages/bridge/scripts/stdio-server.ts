/**
 * Development entry of the stdio server (tests spawn it through tsx; the shipped entry is
 * `turngate bridge --stdio`). Set TURNGATE_BRIDGE_VALIDATE_RESULTS=1 to check every result
 * against its schema; TURNGATE_BRIDGE_WORKER_THRESHOLD=N serves lines of N bytes or more in
 * worker threads (default 256 KiB; "off" serves every line on the main thread).
 */
import { runStdioServer } from "../src/server/stdio.js";

const code = await runStdioServer({
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  validateResults: process.env.TURNGATE_BRIDGE_VALIDATE_RESULTS === "1",
  ...workerThreshold(process.env.TURNGATE_BRIDGE_WORKER_THRESHOLD),
});

function workerThreshold(raw: string | undefined): { workerThresholdBytes?: number } {
  if (raw === undefined || raw === "") return {};
  if (raw === "off") return { workerThresholdBytes: Number.POSITIVE_INFINITY };
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new Error(`TURNGATE_BRIDGE_WORKER_THRESHOLD: ${raw}`);
  return { workerThresholdBytes: n };
}
process.exit(code);
