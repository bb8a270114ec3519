/**
 * The confined agent's egress proxy (docs/guarantees.md "Confined agents"), served here on a
 * listening socket made in this process (in a confined turn the sandbox's bootstrap makes it
 * inside the agent's network namespace: test/confine/network.test.ts runs that). Real
 * sockets and HTTP servers on 127.0.0.1; names resolve through an injected resolver so no
 * test needs DNS.
 */
import { createServer as createHttpServer, request, type Server } from "node:http";
import { type AddressInfo, createServer, connect as tcpConnect } from "node:net";
import { networkInterfaces } from "node:os";
import { afterEach, describe, expect, test } from "vitest";
import {
  EGRESS_BOOTSTRAP,
  EGRESS_HANDLE_MESSAGE,
  EGRESS_PROXY_URL,
  EGRESS_READY_MESSAGE,
  EgressProxy,
  egressProxyEnv,
} from "../../src/isolation/egress-proxy.js";
import {
  fibTrieLocalPrefixes,
  ifInet6Addresses,
  ipv6LocalPrefixes,
  localAddresses,
  peerOnThisMachine,
  procTcpEndpoint,
} from "../../src/isolation/local-networks.js";

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** An HTTP server on 127.0.0.1 answering `<name> <method> <url>`; its port. */
async function origin(name: string): Promise<number> {
  const server: Server = createHttpServer((req, res) =>
    res.end(`${name} ${req.method} ${req.url}`),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stops.push(() => server.close());
  return (server.address() as AddressInfo).port;
}

/** A proxy served on a fresh listening socket; its port. */
async function proxy(options: ConstructorParameters<typeof EgressProxy>[0]): Promise<{
  port: number;
  proxy: EgressProxy;
}> {
  const listener = createServer({ pauseOnConnect: true });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const served = new EgressProxy(options);
  await served.serve(listener);
  stops.push(() => served.close());
  return { port: (listener.address() as AddressInfo).port, proxy: served };
}

/** `CONNECT target` through the proxy, then `GET /` in the tunnel: status line and body. */
function tunnel(proxyPort: number, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect(proxyPort, "127.0.0.1", () => {
      socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
    });
    let text = "";
    let tunnelled = false;
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      if (!tunnelled && text.startsWith("HTTP/1.1 200") && text.includes("\r\n\r\n")) {
        tunnelled = true;
        socket.write("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      }
    });
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

/** An absolute-form `GET url` through the proxy: status and body. */
function get(proxyPort: number, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port: proxyPort, path: url, headers: { host: new URL(url).host } },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString("utf8");
        });
        res.on("end", () => resolve(`${res.statusCode} ${body.trim()}`));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("the confined agent's egress proxy", () => {
  test("CONNECT and plain HTTP to this machine are refused with the reason and the fix; an allowed destination is tunnelled and forwarded", async () => {
    const model = await origin("model");
    const other = await origin("other");
    const { port, proxy: served } = await proxy({
      allow: [{ host: "127.0.0.1", port: model }],
      own: new Set(),
    });

    const refused = await tunnel(port, `127.0.0.1:${other}`);
    expect(refused).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(refused).toContain(
      `turngate refused the confined agent's connection to 127.0.0.1:${other} (127.0.0.1): a loopback address: a server of yours on this machine, outside the sandbox. To let the agent reach it, list it in turngate.config.json: "agent_network": {"allow": ["127.0.0.1:${other}"]}\n`,
    );
    expect(await get(port, `http://127.0.0.1:${other}/x?y=1`)).toBe(
      `403 turngate refused the confined agent's connection to 127.0.0.1:${other} (127.0.0.1): a loopback address: a server of yours on this machine, outside the sandbox. To let the agent reach it, list it in turngate.config.json: "agent_network": {"allow": ["127.0.0.1:${other}"]}`,
    );

    const tunnelled = await tunnel(port, `127.0.0.1:${model}`);
    expect(tunnelled.startsWith("HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200 OK")).toBe(
      true,
    );
    expect(tunnelled.endsWith("model GET /")).toBe(true);
    expect(await get(port, `http://127.0.0.1:${model}/x?y=1`)).toBe("200 model GET /x?y=1");

    expect(served.refused).toEqual([
      { destination: `127.0.0.1:${other}`, reason: "loopback" },
      { destination: `127.0.0.1:${other}`, reason: "loopback" },
    ]);
    expect(served.refusedCount).toBe(2);
  });

  test("names resolve on the host and the connection goes to the judged address: a name for loopback is refused, an allowed name is reached", async () => {
    const model = await origin("model");
    const resolved: string[] = [];
    const { port } = await proxy({
      allow: [{ host: "model.internal", port: model }],
      own: new Set(),
      resolve: async (host) => {
        resolved.push(host);
        return host === "rebind.test" || host === "model.internal" ? ["127.0.0.1"] : [];
      },
    });
    expect(await get(port, `http://rebind.test:${model}/`)).toBe(
      `403 turngate refused the confined agent's connection to rebind.test:${model} (127.0.0.1): a loopback address: a server of yours on this machine, outside the sandbox. To let the agent reach it, list it in turngate.config.json: "agent_network": {"allow": ["rebind.test:${model}"]}`,
    );
    expect(await get(port, `http://model.internal:${model}/v1`)).toBe("200 model GET /v1");
    expect(await tunnel(port, `nowhere.test:80`)).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(resolved).toEqual(["rebind.test", "model.internal", "nowhere.test"]);
  });

  test("what is not a proxy request is refused: an origin-form request, a CONNECT without a port, an https: URL in plain HTTP", async () => {
    const { port } = await proxy({ own: new Set() });
    const origin400 = await new Promise<string>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: "/" }, (res) => {
        let body = "";
        res.on("data", (c: Buffer) => {
          body += c.toString("utf8");
        });
        res.on("end", () => resolve(`${res.statusCode} ${body.trim()}`));
      });
      req.on("error", reject);
      req.end();
    });
    expect(origin400).toBe(
      "400 turngate's egress proxy takes proxy requests only (an absolute URL)",
    );
    expect(await tunnel(port, "example.com")).toMatch(
      /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*CONNECT needs host:port\n$/,
    );
    expect(await get(port, "https://example.com/")).toBe(
      "400 turngate's egress proxy forwards http: URLs; use CONNECT for https:",
    );
  });

  test("an upstream's status line or reason the HTTP layer refuses never throws in turngate: an invalid reason is dropped, a status below 200 or a 101 is a 502", async () => {
    const raw = async (answer: string) => {
      const server = createServer((socket) => {
        socket.once("data", () => socket.end(answer));
        socket.on("error", () => undefined);
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      stops.push(() => server.close());
      return (server.address() as AddressInfo).port;
    };
    const badReason = await raw("HTTP/1.1 200 O\u0001K\r\ncontent-length: 2\r\n\r\nhi");
    const lowStatus = await raw("HTTP/1.1 099 X\r\ncontent-length: 0\r\n\r\n");
    const upgrade = await raw(
      "HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\nconnection: upgrade\r\n\r\n",
    );
    const { port } = await proxy({
      allow: [badReason, lowStatus, upgrade].map((p) => ({ host: "127.0.0.1", port: p })),
      own: new Set(),
    });
    expect(await get(port, `http://127.0.0.1:${badReason}/`)).toBe("200 hi");
    expect(await get(port, `http://127.0.0.1:${lowStatus}/`)).toMatch(
      /^502 turngate's egress proxy: /,
    );
    expect(await get(port, `http://127.0.0.1:${upgrade}/`)).toBe(
      "502 turngate's egress proxy tunnels upgrades with CONNECT only",
    );
    // The proxy still serves after them.
    const model = await origin("model");
    const { port: second } = await proxy({
      allow: [{ host: "127.0.0.1", port: model }],
      own: new Set(),
    });
    expect(await get(second, `http://127.0.0.1:${model}/ok`)).toBe("200 model GET /ok");
  });

  test("this machine's addresses come from the kernel: every host LOCAL prefix of /proc/net/fib_trie, every RTF_LOCAL route of /proc/net/ipv6_route, every address of /proc/net/if_inet6, whatever the interface's state", () => {
    const fib = [
      "Local:",
      "  +-- 0.0.0.0/0 3 0 5",
      "     +-- 127.0.0.0/8 2 0 2",
      "        +-- 127.0.0.0/31 1 0 0",
      "           |-- 127.0.0.0",
      "              /8 host LOCAL",
      "           |-- 127.0.0.1",
      "              /32 host LOCAL",
      "     +-- 10.89.0.0/24 2 0 2",
      "        |-- 10.89.0.0",
      "           /24 host LOCAL",
      "     +-- 172.17.0.0/16 2 0 2",
      "        |-- 172.17.0.1",
      "           /32 host LOCAL",
      "        |-- 172.17.255.255",
      "           /32 link BROADCAST",
      "        |-- 10.0.0.0",
      "           /24 link UNICAST",
    ].join("\n");
    expect(fibTrieLocalPrefixes(fib)).toEqual([
      "127.0.0.0/8",
      "127.0.0.1/32",
      "10.89.0.0/24",
      "172.17.0.1/32",
    ]);
    const routes = [
      "fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0",
      "00000000000000000000000000000001 80 00000000000000000000000000000000 00 00000000000000000000000000000000 00000000 00000004 00000000 80200001       lo",
      "20010db8007700000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000400 00000001 00000000 80000001       lo",
    ].join("\n");
    expect(ipv6LocalPrefixes(routes)).toEqual(["::1/128", "2001:db8:77::/64"]);
    const inet6 = [
      "fd000000000000000000000000000002 04 40 00 82     eth0",
      "00000000000000000000000000000001 01 80 10 80       lo",
      "fe8000000000000000fc00fffe000001 04 40 20 80     eth0",
      "",
    ].join("\n");
    expect(ifInet6Addresses(inet6)).toEqual(["fd00::2", "::1", "fe80::fc:ff:fe00:1"]);
    // On this machine: every address Node lists is among them, and 127.0.0.0/8 is a prefix.
    const kernel = localAddresses();
    for (const list of Object.values(networkInterfaces())) {
      for (const info of list ?? []) expect(kernel.has(info.address.toLowerCase())).toBe(true);
    }
    expect(kernel.has("127.45.6.7")).toBe(true);
    expect(kernel.has("93.184.216.34")).toBe(false);
  });

  test("the TCP tables' endpoint spelling, and a connection accepted on this machine found from its own end (a DNAT rule's, a local route's), not a connection elsewhere", async () => {
    expect(procTcpEndpoint("127.0.0.1", 8080)).toBe("0100007F:1F90");
    expect(procTcpEndpoint("127.0.0.1", 8080, true)).toBe("0000000000000000FFFF00000100007F:1F90");
    expect(procTcpEndpoint("fd00::2", 443)).toBe("000000FD000000000000000002000000:01BB");
    const tcp = [
      "  sl  local_address rem_address   st",
      "   0: 0100007F:1F90 0200007F:D431 01 00000000:00000000",
    ].join("\n");
    expect(peerOnThisMachine("127.0.0.2", 0xd431, { tcp, tcp6: "" })).toBe(true);
    expect(peerOnThisMachine("127.0.0.2", 0xd432, { tcp, tcp6: "" })).toBe(false);
    const tcp6 =
      "   0: 00000000000000000000000000000000:1F90 0000000000000000FFFF00000200A8C0:D431 01";
    expect(peerOnThisMachine("192.168.0.2", 0xd431, { tcp: "", tcp6 })).toBe(true);
    // On this machine, through the real tables: a connection to a server here is found.
    const server = createServer((socket) => socket.on("error", () => undefined));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    stops.push(() => server.close());
    const client = tcpConnect((server.address() as AddressInfo).port, "127.0.0.1");
    await new Promise<void>((resolve) => client.once("connect", () => resolve()));
    stops.push(() => client.destroy());
    expect(peerOnThisMachine(client.localAddress as string, client.localPort as number)).toBe(true);
    expect(peerOnThisMachine("127.0.0.1", 1)).toBe(false);
  });

  test("a connection the policy let through is refused when its other end is found on this machine", async () => {
    const model = await origin("model");
    const { port, proxy: served } = await proxy({
      own: new Set(),
      allow: [],
      resolve: async () => ["127.0.0.1"],
      peerLocal: () => true,
    });
    // A name for a public address, sent elsewhere by a rule: stands in for a DNAT.
    const decided = await get(port, `http://public.test:${model}/`);
    expect(decided).toMatch(
      /^403 turngate refused the confined agent's connection to public\.test:/,
    );
    expect(served.refused.map((r) => r.reason)).toEqual(["loopback"]);
    const through = await proxy({
      own: new Set(),
      resolve: async () => ["127.0.0.1"],
      allow: [{ host: "public.test", port: model }],
      peerLocal: () => true,
    });
    expect(await get(through.port, `http://public.test:${model}/x`)).toBe("200 model GET /x");
  });

  test("names resolve one at a time, each wait is bounded, and closing the proxy ends every wait: an agent's many slow names cannot hold turngate", async () => {
    let inFlight = 0;
    let most = 0;
    const started: string[] = [];
    const { port, proxy: served } = await proxy({
      own: new Set(),
      resolveTimeoutMs: 300,
      resolve: (host) => {
        started.push(host);
        inFlight += 1;
        most = Math.max(most, inFlight);
        return new Promise<string[]>(() => undefined); // never answers
      },
    });
    const answers = await Promise.all([
      get(port, "http://a.slow.test/"),
      get(port, "http://b.slow.test/"),
    ]);
    expect(answers).toEqual([
      "502 turngate's egress proxy could not resolve a.slow.test: no answer within 300 ms",
      "502 turngate's egress proxy could not resolve b.slow.test: no answer within 300 ms",
    ]);
    expect(most).toBe(1);
    // Waiting behind one that never answers, then the proxy closes: the wait ends at once.
    const late = get(port, "http://c.slow.test/").catch((error: Error) => `error ${error.message}`);
    const later = get(port, "http://d.slow.test/").catch(
      (error: Error) => `error ${error.message}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    served.close();
    expect(await Promise.all([late, later])).toHaveLength(2);
    // Only the first lookup ever started: it never settled, so none other took a thread.
    expect(started).toEqual(["a.slow.test"]);
  });

  const ownAddress = Object.values(networkInterfaces())
    .flat()
    .find((info) => info !== undefined && info.family === "IPv4" && !info.internal)?.address;
  test.runIf(ownAddress !== undefined)(
    "a second check behind the policy: a connection whose local and remote addresses are the same reached this machine and is refused, even when the policy's address list misses it",
    async () => {
      const server = createHttpServer((_req, res) => res.end("reached"));
      await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
      stops.push(() => server.close());
      const target = (server.address() as AddressInfo).port;
      // The policy is told this machine has no addresses: only the second check stands.
      const { port, proxy: served } = await proxy({ own: new Set() });
      expect(await get(port, `http://${ownAddress}:${target}/`)).toBe(
        `403 turngate refused the confined agent's connection to ${ownAddress}:${target} (${ownAddress}): one of this machine's own addresses: a server of yours, outside the sandbox. To let the agent reach it, list it in turngate.config.json: "agent_network": {"allow": ["${ownAddress}:${target}"]}`,
      );
      expect(served.refused).toEqual([
        { destination: `${ownAddress}:${target}`, reason: "this-machine" },
      ]);
      const { port: allowed } = await proxy({
        own: new Set(),
        allow: [{ host: ownAddress as string, port: target }],
      });
      expect(await get(allowed, `http://${ownAddress}:${target}/`)).toBe("200 reached");
    },
  );

  test("a socket received after the proxy closed (a late receipt, the turn over) is closed, never served, so nothing holds turngate's exit", async () => {
    const served = new EgressProxy({ own: new Set() });
    served.close();
    const listener = createServer();
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    await expect(served.serve(listener)).rejects.toThrow(
      "the egress proxy is closed: the agent's turn has ended",
    );
    expect(listener.listening).toBe(false);
    const { openSync, fstatSync } = await import("node:fs");
    const fd = openSync("/dev/null", "r");
    await expect(served.serve({ fd })).rejects.toThrow("the egress proxy is closed");
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
  });

  test("the agent's environment names the proxy in both spellings and drops NO_PROXY", () => {
    const env = egressProxyEnv({
      PATH: "/bin",
      NO_PROXY: "localhost",
      no_proxy: "127.0.0.1",
      HTTPS_PROXY: "http://corp:8080",
    });
    expect(env).toEqual({
      PATH: "/bin",
      HTTP_PROXY: EGRESS_PROXY_URL,
      HTTPS_PROXY: EGRESS_PROXY_URL,
      ALL_PROXY: EGRESS_PROXY_URL,
      http_proxy: EGRESS_PROXY_URL,
      https_proxy: EGRESS_PROXY_URL,
      all_proxy: EGRESS_PROXY_URL,
      NODE_USE_ENV_PROXY: "1",
    });
    expect(EGRESS_PROXY_URL).toBe("http://127.0.0.1:3128");
  });

  test("the bootstrap hands its listening socket over the IPC channel and exits 0 on the answer", async () => {
    const { fork } = await import("node:child_process");
    const { writeFileSync, mkdtempSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "turngate-egress-boot-"));
    stops.push(() => rmSync(dir, { recursive: true, force: true }));
    // Port 3128 may be taken on the host: the same source, listening on a free port.
    const file = join(dir, "boot.cjs");
    writeFileSync(file, EGRESS_BOOTSTRAP.replace("server.listen(3128,", "server.listen(0,"));
    const model = await origin("model");
    const child = fork(file, [], { stdio: ["ignore", "ignore", "pipe", "ipc"] });
    const served = new EgressProxy({ allow: [{ host: "127.0.0.1", port: model }], own: new Set() });
    stops.push(() => served.close());
    const listenerPort = await new Promise<number>((resolve, reject) => {
      child.on("message", (message, handle) => {
        if (message !== EGRESS_HANDLE_MESSAGE || handle === undefined) return;
        const listener = handle as unknown as import("node:net").Server;
        served.serve(listener).then(() => {
          child.send(EGRESS_READY_MESSAGE);
          resolve((listener.address() as AddressInfo).port);
        }, reject);
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).toBe(0);
    // The bootstrap is gone; the socket it made is served here.
    expect(await get(listenerPort, `http://127.0.0.1:${model}/after`)).toBe("200 model GET /after");
  });
});
