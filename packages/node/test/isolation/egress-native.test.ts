/**
 * The native egress bootstrap (`@turngate/native`'s `turngate-egress` program, `egressChannel`,
 * `egressReceive`; docs/design.md §3b "Confined agents"): the program listens and sends the
 * socket over the channel it inherited, then exits; the host serves it. Real processes and
 * sockets, outside a sandbox (test/confine/network.test.ts runs it inside one).
 */
import { spawn } from "node:child_process";
import { closeSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { describe, expect, test } from "vitest";
import { nativeEgress } from "../../src/isolation/egress-proxy.js";

const native = nativeEgress({ ...process.env, TURNGATE_NATIVE: "1" });

describe.skipIf(native === undefined)("the native egress bootstrap", () => {
  test("the program sends its listening socket over the inherited channel and exits 0; the host accepts on it after the program is gone", async () => {
    const egress = native as NonNullable<typeof native>;
    const [host, sandbox] = egress.channel();
    const child = spawn(egress.helper, ["5", "0"], {
      stdio: ["ignore", "ignore", "pipe", "ignore", "ignore", sandbox],
    });
    closeSync(sandbox);
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(0);
    const fd = await egress.receive(host, 5_000);
    closeSync(host);
    const server: Server = createServer((socket) => socket.end("served by the host"));
    await new Promise<void>((resolve) => server.listen({ fd }, resolve));
    const address = server.address();
    expect(typeof address === "object" && address?.address).toBe("127.0.0.1");
    const port = (address as { port: number }).port;
    const { connect } = await import("node:net");
    const text = await new Promise<string>((resolve, reject) => {
      let got = "";
      const socket = connect(port, "127.0.0.1");
      socket.on("data", (chunk: Buffer) => {
        got += chunk.toString("utf8");
      });
      socket.on("end", () => resolve(got));
      socket.on("error", reject);
    });
    server.close();
    expect(text).toBe("served by the host");
  });

  test("nothing sent: the receipt ends with why, when the other end closes or the time runs out", async () => {
    const egress = native as NonNullable<typeof native>;
    const [host, sandbox] = egress.channel();
    closeSync(sandbox);
    await expect(egress.receive(host, 5_000)).rejects.toMatchObject({
      code: "ERR_TURNGATE_EGRESS",
      message: "the sandbox closed the channel without sending a socket",
    });
    closeSync(host);
    const [host2, sandbox2] = egress.channel();
    await expect(egress.receive(host2, 50)).rejects.toMatchObject({
      code: "ERR_TURNGATE_EGRESS",
      message: "no socket from the sandbox within 50 ms",
    });
    closeSync(host2);
    closeSync(sandbox2);
  });

  test("the program refuses bad arguments with exit 2 and a port it cannot listen on with exit 1", async () => {
    const egress = native as NonNullable<typeof native>;
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(egress.helper, args, { stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr.on("data", (c: Buffer) => {
          stderr += c.toString("utf8");
        });
        child.on("exit", (code) => resolve({ code, stderr }));
      });
    expect(await run([])).toEqual({ code: 2, stderr: "usage: turngate-egress CHANNEL_FD PORT\n" });
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as { port: number }).port;
    const taken = await run(["5", String(port)]);
    busy.close();
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(
      new RegExp(
        `^turngate: the confined agent's network proxy could not start in the sandbox: listen on 127\\.0\\.0\\.1:${port}: `,
      ),
    );
  });
});
