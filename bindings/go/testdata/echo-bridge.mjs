// The benchmark floor: a trivial JSON-RPC child that answers every request with its own
// params, with the same framing as the bridge (one JSON object per line on stdio). It does
// just enough of initialize and shutdown for turngate.Client to talk to it.
import { createInterface } from "node:readline";

const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on("line", (line) => {
  const request = JSON.parse(line);
  let result = request.params ?? {};
  if (request.method === "initialize") {
    result = { protocol: "turngate.bridge.v1", version: "echo", methods: [] };
  }
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: request.id, result })}\n`);
  if (request.method === "shutdown") lines.close();
});
lines.on("close", () => process.exit(0));
