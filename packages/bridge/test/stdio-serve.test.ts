/**
 * The stdio server's serving order, in-process (no child process): synchronous methods are
 * answered at once in line order, an asynchronous one does not hold back later lines,
 * `shutdown` stops reading within the chunk it arrives in, a result JSON cannot carry is
 * answered `internal_error`; and the line splitter hands over lines across chunk borders.
 */
import { PassThrough, Writable } from "node:stream";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import { defineMethod, type MethodTable } from "../src/method.js";
import { LineSplitter } from "../src/server/line-splitter.js";
import { runStdioServer } from "../src/server/stdio.js";
import { bridgeTable, type ServerContext } from "../src/table.js";

/** A server on in-memory streams; `lines` collects every stdout line, `log` the stderr. */
function startServer(table: MethodTable<ServerContext> = bridgeTable) {
  const stdin = new PassThrough();
  const lines: string[] = [];
  let log = "";
  let pending = "";
  const stdout = new Writable({
    write(chunk, _encoding, done) {
      pending += String(chunk);
      const parts = pending.split("\n");
      pending = parts.pop() ?? "";
      lines.push(...parts);
      done();
    },
  });
  const stderr = new Writable({
    write(chunk, _encoding, done) {
      log += String(chunk);
      done();
    },
  });
  const exit = runStdioServer({ stdin, stdout, stderr, table });
  return { stdin, lines, exit, log: () => log };
}

const request = (id: number | string, method: string, params: object = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });

const empty = z.strictObject({});

const testTable: MethodTable<ServerContext> = {
  ...bridgeTable,
  "test.later": defineMethod({
    description: "answers {done: true} after 30 ms",
    params: empty,
    result: z.strictObject({ done: z.boolean() }),
    handler: () =>
      new Promise<{ done: boolean }>((resolve) => setTimeout(() => resolve({ done: true }), 30)),
  }),
  "test.bigint": defineMethod({
    description: "returns a value JSON cannot carry",
    params: empty,
    result: z.unknown(),
    handler: () => ({ n: 1n }),
  }),
};

describe("stdio server serving order", () => {
  test("synchronous answers come in line order; an async method does not hold back later lines", async () => {
    const server = startServer(testTable);
    server.stdin.write(
      `${[
        request(1, "test.later"),
        request(2, "ledger.digest", { records: [] }),
        request(3, "waiver.validate", { waiver: { effect_digest: "d", reason: "r" } }),
      ].join("\n")}\n`,
    );
    // No fixed sleep: EOF answers what is still in flight before the server exits.
    server.stdin.end();
    expect(await server.exit).toBe(0);
    expect(server.lines).toEqual([
      '{"jsonrpc":"2.0","id":2,"result":{"effect_digest":""}}',
      '{"jsonrpc":"2.0","id":3,"result":{"valid":true,"waiver":{"effect_digest":"d","reason":"r"}}}',
      '{"jsonrpc":"2.0","id":1,"result":{"done":true}}',
    ]);
  });

  test("lines after shutdown in the same chunk are not served", async () => {
    const server = startServer();
    server.stdin.write(
      `${request("s", "shutdown")}\n${request("after", "ledger.digest", { records: [] })}\n`,
    );
    expect(await server.exit).toBe(0);
    expect(server.lines).toEqual(['{"jsonrpc":"2.0","id":"s","result":{}}']);
  });

  test("a result JSON cannot carry is answered internal_error and the next line is served", async () => {
    const server = startServer(testTable);
    server.stdin.write(
      `${request(7, "test.bigint")}\n${request(8, "ledger.digest", { records: [] })}\n`,
    );
    server.stdin.end();
    expect(await server.exit).toBe(0);
    expect(server.lines.map((line) => JSON.parse(line))).toEqual([
      {
        jsonrpc: "2.0",
        id: 7,
        error: {
          code: -32603,
          message: "internal error: Do not know how to serialize a BigInt",
          data: {
            code: "internal_error",
            message: "internal error: Do not know how to serialize a BigInt",
          },
        },
      },
      { jsonrpc: "2.0", id: 8, result: { effect_digest: "" } },
    ]);
    expect(server.log()).toBe(
      "[turngate bridge] test.bigint: internal error: Do not know how to serialize a BigInt\n",
    );
  });
});

describe("line splitter", () => {
  test("hands over whole lines, lines split across chunks, and drops an oversized line", () => {
    const got: string[] = [];
    const splitter = new LineSplitter(8, {
      onLine: (line) => got.push(line.toString()),
      onTooLarge: () => got.push("<too large>"),
    });
    splitter.push(Buffer.from("one\ntwo\nthr"));
    splitter.push(Buffer.from("ee\n\nnine-long\nfour"));
    splitter.push(Buffer.from("-ok\n123456789\nfive"));
    splitter.end();
    expect(got).toEqual([
      "one",
      "two",
      "three",
      "",
      "<too large>",
      "four-ok",
      "<too large>",
      "five",
    ]);
  });

  test("streams a line that reaches the threshold while arriving: pieces as they come, never joined", () => {
    const got: string[] = [];
    const streamOf = (name: string) => ({
      push: (piece: Uint8Array) => got.push(`${name}+${Buffer.from(piece).toString()}`),
      end: () => got.push(`${name} end`),
      abort: () => got.push(`${name} abort`),
    });
    let streams = 0;
    let refuse = false;
    const splitter = new LineSplitter(
      12,
      {
        onLine: (line) => got.push(line.toString()),
        onTooLarge: () => got.push("<too large>"),
        onLongLine: () => (refuse ? null : streamOf(`s${++streams}`)),
      },
      4,
    );
    // "abcdefgh": 2 bytes (collected), then 4 more reach the threshold: both go to the
    // stream at once, the rest as it arrives. "whole" arrives in one chunk: onLine.
    splitter.push(Buffer.from("ab"));
    splitter.push(Buffer.from("cdef"));
    splitter.push(Buffer.from("gh\nwhole\nxy"));
    // "xy" + "zz" reach the threshold (streamed); 9 more cross the cap of 12: the stream is
    // aborted, then the line is reported too large and dropped up to its newline.
    splitter.push(Buffer.from("zz"));
    splitter.push(Buffer.from("zzzzzzzzz"));
    splitter.push(Buffer.from("dropped\nlast"));
    splitter.push(Buffer.from("-one"));
    splitter.end();
    expect(got).toEqual([
      "s1+ab",
      "s1+cdef",
      "s1+gh",
      "s1 end",
      "whole",
      "s2+xy",
      "s2+zz",
      "s2 abort",
      "<too large>",
      "s3+last",
      "s3+-one",
      "s3 end",
    ]);
    // A sink that declines keeps getting asked; the line is then emitted whole.
    got.length = 0;
    refuse = true;
    splitter.push(Buffer.from("12"));
    splitter.push(Buffer.from("345"));
    splitter.push(Buffer.from("6\n"));
    expect(got).toEqual(["123456"]);
  });
});
