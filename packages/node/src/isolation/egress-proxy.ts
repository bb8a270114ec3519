/**
 * The confined agent's only way out to the network (docs/design.md §3b "Confined agents"):
 * the agent runs in its own network namespace, which has nothing but its own loopback, and
 * an HTTP proxy at {@link EGRESS_PROXY_URL} inside it that turngate serves from outside.
 *
 * How the proxy gets into the namespace without a process of turngate's in the sandbox and
 * without a unix socket (the agent's seccomp filter refuses new ones): before the agent
 * starts, the sandbox's launcher runs a bootstrap that listens on `127.0.0.1:3128` inside
 * the namespace and hands that listening socket to turngate over a channel it inherited
 * (the file descriptor crosses with `SCM_RIGHTS`), then exits; the launcher closes the
 * channel and starts the agent. The bootstrap is the native addon's `turngate-egress`
 * program over a socket pair ({@link nativeEgress}; about a millisecond), or, where the
 * addon is not built, {@link EGRESS_BOOTSTRAP} run with Node over Node's IPC channel
 * (`process.send` with a handle; a Node start, about 80 ms). turngate accepts the agent's
 * connections on that socket in its own process, and for each request asks the policy
 * (`egress-policy.ts`) and opens the connection itself, from the host's namespace.
 *
 * It speaks `CONNECT host:port` (HTTPS and any other TLS: the bytes are tunnelled, never
 * read) and absolute-form plain HTTP requests (`GET http://host/path`). Tools that honour
 * `HTTPS_PROXY`/`HTTP_PROXY` (set by {@link egressProxyEnv}) reach the internet this way;
 * a tool that ignores them has no network in the sandbox.
 */

import { closeSync } from "node:fs";
import type {
  Server as HttpServer,
  IncomingMessage,
  OutgoingHttpHeaders,
  ServerResponse,
} from "node:http";
import { createRequire } from "node:module";
import { connect, isIP, type Server as NetServer, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { type NativeAddon, selectNative } from "../native/select.js";
import {
  type AddressSet,
  EGRESS_REFUSAL_TEXT,
  type EgressAllowEntry,
  type EgressRefusal,
  egressAllowed,
  egressDecision,
  normalizeAddress,
  parseAuthority,
} from "./egress-policy.js";
import { localAddresses, peerOnThisMachine } from "./local-networks.js";

/** Closes `fd`, ignoring a descriptor already closed. */
function closeFd(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // closed already
  }
}

/**
 * `node:http` and `node:dns` are loaded when a proxy is made, not with the module: every
 * turn loads this file, and only a confined turn with the proxy needs them (issue 33: about
 * 5 ms of start-up).
 */
const builtin = createRequire(import.meta.url);
const http = () => builtin("node:http") as typeof import("node:http");
const dns = () => builtin("node:dns/promises") as typeof import("node:dns/promises");

/** The port the proxy listens on inside the agent's network namespace. */
export const EGRESS_PROXY_PORT = 3128;

/** The proxy's URL as the agent's tools see it (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`). */
export const EGRESS_PROXY_URL = `http://127.0.0.1:${EGRESS_PROXY_PORT}`;

/** The IPC message the bootstrap sends with the listening socket. */
export const EGRESS_HANDLE_MESSAGE = "turngate-egress";

/** turngate's answer once it serves the socket; the bootstrap then exits 0. */
export const EGRESS_READY_MESSAGE = "turngate-egress-ok";

/**
 * The bootstrap's source (CommonJS, run with `node -e` inside the sandbox, with the IPC
 * channel on the descriptor `NODE_CHANNEL_FD` names): listen on `127.0.0.1:3128`, send the
 * listening socket with {@link EGRESS_HANDLE_MESSAGE}, exit 0 on
 * {@link EGRESS_READY_MESSAGE}; exit 1 (with a line on stderr) when it cannot listen or
 * send, and 1 when no answer came within 10 s.
 */
export const EGRESS_BOOTSTRAP = [
  'const net = require("node:net");',
  "const fail = (why) => {",
  '  process.stderr.write("turngate: the confined agent\'s network proxy could not start in the sandbox: " + why + "\\n");',
  "  process.exit(1);",
  "};",
  'if (typeof process.send !== "function") fail("no channel to turngate");',
  "const server = net.createServer({ pauseOnConnect: true });",
  'server.on("error", (error) => fail(error.message));',
  `server.listen(${EGRESS_PROXY_PORT}, "127.0.0.1", () => {`,
  `  process.on("message", (message) => { if (message === ${JSON.stringify(EGRESS_READY_MESSAGE)}) process.exit(0); });`,
  `  process.send(${JSON.stringify(EGRESS_HANDLE_MESSAGE)}, server, (error) => { if (error) fail(error.message); });`,
  "});",
  'setTimeout(() => fail("turngate did not answer within 10 s"), 10000).unref();',
].join("\n");

/**
 * The native egress bootstrap (`@turngate/native`'s `turngate-egress` program and its
 * channel): it starts in about a millisecond where the Node bootstrap takes a Node start
 * (about 80 ms, issue 32's cost of a confined turn).
 */
export interface NativeEgress {
  /** The program's absolute path (`turngate-egress CHANNEL_FD PORT`). */
  helper: string;
  /** A unix socket pair `[host, sandbox]`, both close-on-exec. */
  channel(): [number, number];
  /** The descriptor the program sends over the host end `fd`, waited for `timeoutMs` ms. */
  receive(fd: number, timeoutMs: number): Promise<number>;
}

/**
 * The native egress bootstrap when the addon is selected for `env` (`TURNGATE_NATIVE`, as
 * every native use) and its program is built, else undefined (the Node bootstrap is used).
 * Never throws.
 */
export function nativeEgress(env: NodeJS.ProcessEnv): NativeEgress | undefined {
  let addon: NativeAddon | undefined;
  try {
    addon = selectNative(env);
  } catch {
    return undefined;
  }
  const helper = addon?.EGRESS_HELPER;
  const channel = addon?.egressChannel;
  const receive = addon?.egressReceive;
  if (helper == null || channel === undefined || receive === undefined) return undefined;
  return {
    helper,
    channel: () => channel.call(addon),
    receive: (fd, timeoutMs) => receive.call(addon, fd, timeoutMs),
  };
}

/** Variables that name the proxy for the agent's tools (both spellings: tools differ). */
const PROXY_VARIABLES = [
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
] as const;

/** Variables removed: a destination they exempt would be tried inside the namespace, and fail. */
const BYPASS_VARIABLES = ["NO_PROXY", "no_proxy"] as const;

/**
 * The agent's environment with the proxy named: `HTTP_PROXY`, `HTTPS_PROXY` and `ALL_PROXY`
 * (upper and lower case) set to {@link EGRESS_PROXY_URL}, `NODE_USE_ENV_PROXY=1` (Node's
 * own `fetch` honours them from Node 24), and `NO_PROXY`/`no_proxy` removed (everything
 * goes through the proxy; a destination the proxy refuses is refused with a reason, where a
 * direct connection would only fail). Output: a new object.
 */
export function egressProxyEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of BYPASS_VARIABLES) delete out[name];
  for (const name of PROXY_VARIABLES) out[name] = EGRESS_PROXY_URL;
  out.NODE_USE_ENV_PROXY = "1";
  return out;
}

/** A destination the proxy refused: `host:port` as the agent asked, and why. */
export interface EgressRefused {
  destination: string;
  reason: EgressRefusal;
}

/** Options of {@link EgressProxy}. */
export interface EgressProxyOptions {
  /** `agent_network.allow`, parsed (`parseEgressAllow`). Default: none. */
  allow?: readonly EgressAllowEntry[];
  /** This machine's addresses. Default: `localAddresses()`, read for each decision. */
  own?: AddressSet;
  /**
   * Whether a connection's other end is a socket on this machine, from its own end.
   * Default: `peerOnThisMachine` (the TCP tables of `/proc`).
   */
  peerLocal?: (localAddress: string, localPort: number) => boolean;
  /** How long a request waits for its name to resolve, ms. Default 5,000. */
  resolveTimeoutMs?: number;
  /** Resolves a name to its addresses. Default: `dns.lookup` with `all`, as the host does. */
  resolve?: (host: string) => Promise<string[]>;
}

/** How many refusals a proxy keeps (the first ones; the count goes on). */
const REFUSALS_KEPT = 20;

/**
 * The confined agent's egress proxy (see the file's comment): `serve(listener)` serves the
 * listening socket the sandbox's bootstrap handed over; `close()` ends it and every
 * connection it holds; `refused` lists the first destinations it refused (at most 20;
 * `refusedCount` counts them all), for the turn's output.
 */
export class EgressProxy {
  readonly #server: HttpServer;
  readonly #open = new Set<Duplex>();
  readonly #allow: readonly EgressAllowEntry[];
  readonly #own: (() => AddressSet) | AddressSet;
  readonly #peerLocal: (localAddress: string, localPort: number) => boolean;
  readonly #resolveTimeoutMs: number;
  /** Lookups waiting for the one in flight (see `#lookup`), and whether one is. */
  readonly #waiting: Array<() => void> = [];
  #resolving = false;
  #closed = false;
  readonly #resolve: (host: string) => Promise<string[]>;
  readonly refused: EgressRefused[] = [];
  refusedCount = 0;

  constructor(options: EgressProxyOptions = {}) {
    this.#allow = options.allow ?? [];
    this.#own = options.own ?? localAddresses;
    this.#peerLocal = options.peerLocal ?? peerOnThisMachine;
    this.#resolveTimeoutMs = options.resolveTimeoutMs ?? 5_000;
    this.#resolve =
      options.resolve ??
      (async (host) =>
        (await dns().lookup(host, { all: true, verbatim: true })).map((entry) => entry.address));
    // Nothing the agent or an upstream sends may throw in turngate's process (the attack
    // review crashed it with an upstream's invalid status line): every handler ends in a
    // destroyed connection at worst.
    this.#server = http().createServer((req, res) => {
      this.#forward(req, res).catch(() => res.destroy());
    });
    this.#server.on("error", () => undefined);
    this.#server.on("connection", (socket) => this.#track(socket));
    this.#server.on("connect", (req, socket, head) => {
      this.#tunnel(req, socket, head).catch(() => socket.destroy());
    });
    this.#server.on("upgrade", (_req, socket) => {
      this.#answer(socket, 501, "turngate's egress proxy tunnels upgrades with CONNECT only");
    });
    this.#server.on("clientError", (_error, socket) => socket.destroy());
  }

  /**
   * Serve the listening socket `listener`: a `net.Server` received over IPC (the Node
   * bootstrap), or `{fd}` received from the native one. Resolves when the proxy accepts on
   * it. Errors: rejects with the listen error; after `close()`, closes `listener` and
   * rejects (a socket received after the turn ended is never served).
   */
  serve(listener: NetServer | { fd: number }): Promise<void> {
    if (this.#closed) {
      // Received after the turn ended (a late receipt): never served, so nothing holds
      // turngate's exit (found by the third attack review).
      if ("fd" in listener && typeof listener.fd === "number") closeFd(listener.fd);
      else (listener as NetServer).close();
      return Promise.reject(new Error("the egress proxy is closed: the agent's turn has ended"));
    }
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(listener, () => {
        this.#server.off("error", reject);
        resolve();
      });
    });
  }

  /** Stop accepting and end every connection (the agent has ended). Never throws. */
  close(): void {
    this.#closed = true;
    for (const wake of this.#waiting.splice(0)) wake();
    this.#server.close(() => undefined);
    for (const stream of this.#open) stream.destroy();
    this.#open.clear();
  }

  #track(stream: Duplex): void {
    this.#open.add(stream);
    stream.once("close", () => this.#open.delete(stream));
  }

  /** The addresses to connect to for `host:port`, or the refusal (recorded). */
  async #decide(
    host: string,
    port: number,
  ): Promise<{ connect: string[] } | { refused: string; status: number }> {
    let addresses: string[];
    try {
      addresses = isIP(host) !== 0 ? [host] : await this.#lookup(host);
    } catch (error) {
      return {
        refused: `turngate's egress proxy could not resolve ${host}: ${(error as Error).message}`,
        status: 502,
      };
    }
    const own = typeof this.#own === "function" ? this.#own() : this.#own;
    const decision = egressDecision(host, port, addresses, own, this.#allow);
    if ("connect" in decision) return decision;
    return { refused: this.#refuse(host, port, decision.address, decision.refused), status: 403 };
  }

  /**
   * Resolves `host`, one name at a time: a lookup runs on libuv's thread pool and cannot be
   * cancelled, so an agent that asked for many names whose servers never answer would hold
   * turngate's exit (found by the second attack review). The next lookup starts only when
   * the one in flight has settled; a request gives up after `resolveTimeoutMs`, waiting or
   * not, and `close()` ends every wait, so at most one lookup outlives the turn. Errors: the
   * lookup's, a timeout, or the proxy closed.
   */
  #lookup(host: string): Promise<string[]> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (error: Error | undefined, addresses?: string[]) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const queued = this.#waiting.indexOf(start);
        if (queued >= 0) this.#waiting.splice(queued, 1);
        if (error !== undefined) reject(error);
        else resolve(addresses as string[]);
      };
      const timer = setTimeout(
        () => finish(new Error(`no answer within ${this.#resolveTimeoutMs} ms`)),
        this.#resolveTimeoutMs,
      );
      const start = () => {
        if (this.#closed) {
          finish(new Error("the agent's turn has ended"));
          return;
        }
        if (settled) {
          this.#waiting.shift()?.();
          return;
        }
        this.#resolving = true;
        this.#resolve(host)
          .then(
            (addresses) => finish(undefined, addresses),
            (error: Error) => finish(error),
          )
          .finally(() => {
            this.#resolving = false;
            this.#waiting.shift()?.();
          });
      };
      if (this.#resolving) this.#waiting.push(start);
      else start();
    });
  }

  /** Records a refusal of `host:port` (reached at `address`) and returns the answer's text. */
  #refuse(host: string, port: number, address: string, reason: EgressRefusal): string {
    const destination = `${host.includes(":") ? `[${host}]` : host}:${port}`;
    this.refusedCount += 1;
    if (this.refused.length < REFUSALS_KEPT) this.refused.push({ destination, reason });
    return `turngate refused the confined agent's connection to ${destination} (${address}): ${EGRESS_REFUSAL_TEXT[reason]}. To let the agent reach it, list it in turngate.config.json: "agent_network": {"allow": ["${destination}"]}`;
  }

  async #tunnel(req: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on("error", () => undefined);
    const target = parseAuthority(req.url ?? "");
    if (target === undefined) {
      this.#answer(client, 400, "CONNECT needs host:port");
      return;
    }
    const decision = await this.#decide(target.host, target.port);
    if ("refused" in decision) {
      this.#answer(client, decision.status, decision.refused);
      return;
    }
    const upstream = await this.#connectTo(target.host, decision.connect, target.port);
    if ("status" in upstream) {
      this.#answer(client, upstream.status, upstream.text);
      return;
    }
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    upstream.on("close", () => client.destroy());
    client.on("close", () => upstream.destroy());
  }

  /**
   * A TCP connection to the first of `addresses` (judged for `host:port`) that answers, or
   * the answer to give instead. A connection whose local and remote addresses are the same,
   * or whose other end is a socket on this machine (`peerOnThisMachine`: a DNAT rule, a
   * local route the policy did not know), reached this machine however it was addressed,
   * and is closed and refused unless the allow list covers that address (a second check
   * behind the policy; the server sees the connection open and close, no byte).
   */
  #connectTo(
    host: string,
    addresses: readonly string[],
    port: number,
  ): Promise<Socket | { status: number; text: string }> {
    return new Promise((resolve) => {
      const attempt = (index: number, last: string) => {
        const address = addresses[index];
        if (address === undefined) {
          resolve({ status: 502, text: `turngate's egress proxy could not connect: ${last}` });
          return;
        }
        const socket = connect({ host: address, port });
        this.#track(socket);
        socket.once("connect", () => {
          socket.removeAllListeners("error");
          socket.on("error", () => undefined);
          const local = normalizeAddress(socket.localAddress ?? "");
          const remote = normalizeAddress(socket.remoteAddress ?? "");
          if (
            !egressAllowed(host, port, remote, this.#allow) &&
            (local === remote || this.#peerLocal(local, socket.localPort ?? 0))
          ) {
            socket.destroy();
            resolve({ status: 403, text: this.#refuse(host, port, remote, "this-machine") });
            return;
          }
          resolve(socket);
        });
        socket.once("error", (error) => {
          socket.destroy();
          attempt(index + 1, `${address}:${port}: ${error.message}`);
        });
      };
      attempt(0, "no address");
    });
  }

  async #forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      this.#reply(res, 400, "turngate's egress proxy takes proxy requests only (an absolute URL)");
      return;
    }
    if (url.protocol !== "http:") {
      this.#reply(
        res,
        400,
        `turngate's egress proxy forwards http: URLs; use CONNECT for ${url.protocol}`,
      );
      return;
    }
    const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
    const port = url.port === "" ? 80 : Number(url.port);
    const decision = await this.#decide(host, port);
    if ("refused" in decision) {
      this.#reply(res, decision.status, decision.refused);
      return;
    }
    const upstream = await this.#connectTo(host, decision.connect, port);
    if ("status" in upstream) {
      this.#reply(res, upstream.status, upstream.text);
      return;
    }
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (name === "proxy-connection" || name === "proxy-authorization") continue;
      if (value !== undefined) headers[name] = value;
    }
    const out = http().request({
      createConnection: () => upstream,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
    });
    out.on("response", (answer) => {
      answer.on("error", () => res.destroy());
      const status = answer.statusCode ?? 0;
      if (status < 200 || status > 999) {
        answer.destroy();
        this.#reply(res, 502, `turngate's egress proxy: the server answered status ${status}`);
        return;
      }
      try {
        // A reason phrase with a control character is dropped (Node would throw on it).
        const reason = /^[\t\x20-\x7e\x80-\xff]*$/.test(answer.statusMessage ?? "")
          ? answer.statusMessage
          : undefined;
        res.writeHead(status, reason, answer.headers);
      } catch (error) {
        answer.destroy();
        this.#reply(res, 502, `turngate's egress proxy: ${(error as Error).message}`);
        return;
      }
      answer.pipe(res);
    });
    out.on("upgrade", (_answer, socket) => {
      socket.destroy();
      this.#reply(res, 502, "turngate's egress proxy tunnels upgrades with CONNECT only");
    });
    out.on("error", (error) => this.#reply(res, 502, `turngate's egress proxy: ${error.message}`));
    req.on("error", () => out.destroy());
    req.pipe(out);
  }

  #reply(res: ServerResponse, status: number, text: string): void {
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    res.end(`${text}\n`);
  }

  #answer(socket: Duplex, status: number, text: string): void {
    const reason =
      status === 403
        ? "Forbidden"
        : status === 400
          ? "Bad Request"
          : status === 501
            ? "Not Implemented"
            : "Bad Gateway";
    const body = `${text}\n`;
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
}
