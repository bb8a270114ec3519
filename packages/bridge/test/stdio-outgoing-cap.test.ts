/**
 * The outgoing half of the 32 MiB message cap (docs/design.md §5; issue #11 §5: it could be
 * disabled with no test noticing). In process, on streams, with the cap lowered: a
 * response one byte over the cap becomes too_large with the request's id (exact line), one
 * at the cap goes out as is, and the server keeps serving.
 */
import { PassThrough } from "node:stream";
import { describe, expect, test } from "vitest";
import { runStdioServer } from "../src/server/stdio.js";

async function serve(lines: string[], maxMessageBytes: number): Promise<string[]> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  const done = runStdioServer({ stdin, stdout, stderr, maxMessageBytes });
  stdin.end(lines.map((l) => `${l}\n`).join(""));
  expect(await done).toBe(0);
  return out.split("\n").filter((l) => l !== "");
}

// A short request with a long reply (the cap applies to both directions).
const initLine = '{"jsonrpc":"2.0","id":1,"method":"initialize"}';

describe("bridge outgoing message cap", () => {
  test("a response over the cap is too_large with its id; one at the cap is sent", async () => {
    const [reply] = await serve([initLine], 1 << 20);
    expect(JSON.parse(reply as string).result.protocol).toBe("turngate.bridge.v1");
    const cap = Buffer.byteLength(reply as string);
    expect(await serve([initLine], cap)).toEqual([reply]);
    const over = await serve([initLine, '{"jsonrpc":"2.0","id":2,"method":"no.such"}'], cap - 1);
    expect(over[0]).toBe(
      `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"response exceeds ${cap - 1} bytes","data":{"code":"too_large","message":"response exceeds ${cap - 1} bytes"}}}`,
    );
    expect(JSON.parse(over[1] as string)).toMatchObject({
      id: 2,
      error: { data: { code: "method_not_found" } },
    });
  });

  test("the cap counts UTF-8 bytes, not UTF-16 units", async () => {
    const line = '{"jsonrpc":"2.0","id":"ééééé","method":"initialize"}';
    const [reply] = (await serve([line], 1 << 20)) as [string];
    const bytes = Buffer.byteLength(reply);
    expect(bytes).toBe(reply.length + 5);
    expect(await serve([line], bytes)).toEqual([reply]);
    const [refused] = await serve([line], bytes - 1);
    expect(JSON.parse(refused as string)).toMatchObject({
      id: "ééééé",
      error: { data: { code: "too_large" } },
    });
  });
});
