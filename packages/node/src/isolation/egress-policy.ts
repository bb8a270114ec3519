/**
 * Where a confined agent's network traffic may go (docs/design.md §3b "Confined agents",
 * docs/guarantees.md "Confined agents"): the agent runs in its own network namespace, and
 * its only way out is turngate's egress proxy (`egress-proxy.ts`), which asks this policy
 * before it opens any connection for it.
 *
 * A server of yours on this machine runs outside the sandbox, as you: a notebook server, a
 * dev server with an exec endpoint, docker's TCP socket. Reached from inside, it would act
 * for the agent unconfined. So the proxy refuses every destination on this machine: the
 * loopback networks (`127.0.0.0/8`, `::1`), the unspecified address (`0.0.0.0`, `::`, which
 * connect to this machine), this machine's own addresses (a server bound to `0.0.0.0`
 * answers there too; the kernel's list, interfaces without a carrier included:
 * `egress-proxy.ts` `localAddresses`), the link-local networks (`169.254.0.0/16`,
 * `fe80::/10`: cloud metadata services hand out credentials there) and the metadata
 * services outside them ({@link METADATA_ADDRESSES}). IPv4-mapped IPv6 addresses
 * (`::ffff:127.0.0.1`) are judged as the IPv4 address they map. Names are resolved by the
 * proxy, on the host, and the connection goes to an address that was judged, never to the
 * name again (no DNS rebinding).
 *
 * `agent_network.allow` lists `host:port` destinations the agent may still reach on this
 * machine (a local model server: `127.0.0.1:11434`): an address entry covers that address,
 * a name entry every address the name resolves to when the agent asks for that name
 * ({@link egressAllowed}).
 */
import { isIP } from "node:net";

/** Why a destination is refused: it is on this machine, or a cloud metadata service. */
export type EgressRefusal = "loopback" | "unspecified" | "link-local" | "this-machine" | "metadata";

/**
 * Cloud metadata services outside the link-local networks (they hand out the machine's
 * credentials): Alibaba Cloud's `100.100.100.200`, Azure's WireServer `168.63.129.16`, AWS's
 * IPv6 instance metadata `fd00:ec2::254` (found by the attack review).
 */
export const METADATA_ADDRESSES: ReadonlySet<string> = new Set([
  "100.100.100.200",
  "168.63.129.16",
  "fd00:ec2::254",
]);

/**
 * This machine's addresses as the policy asks about them: `has(address)` for a normalized
 * IP literal ({@link normalizeAddress}). A `Set` of addresses is one; `localAddresses` in
 * `egress-proxy.ts` gives the kernel's local networks.
 */
export interface AddressSet {
  has(address: string): boolean;
}

/** One `agent_network.allow` entry, parsed: a host (lowercase, no brackets) and a port. */
export interface EgressAllowEntry {
  host: string;
  port: number;
}

/**
 * The problem with one `agent_network.allow` entry, or undefined when it is valid: a
 * `host:port` with a port from 1 to 65535 (an IPv6 address in brackets: `[::1]:8080`), no
 * scheme, path or spaces.
 */
export function egressAllowProblem(entry: string): string | undefined {
  const parsed = parseEgressAllow(entry);
  return typeof parsed === "string" ? parsed : undefined;
}

/**
 * Parses one `agent_network.allow` entry (`host:port`, `[v6]:port`). Output: the entry, or
 * a sentence saying what is wrong with it (for the configuration's error).
 */
export function parseEgressAllow(entry: string): EgressAllowEntry | string {
  const target = parseAuthority(entry);
  if (target === undefined) {
    return `${JSON.stringify(entry)} is not a host:port destination (write 127.0.0.1:11434, localhost:8080 or [::1]:8080: no scheme, path or spaces; the port from 1 to 65535)`;
  }
  return target;
}

/**
 * Parses a `host:port` authority, as in a proxy's `CONNECT` line or an allow entry:
 * `example.com:443`, `127.0.0.1:80`, `[::1]:8080`. Output: the host in lowercase without
 * brackets and the port, or undefined for anything else (no port, port 0 or above 65535,
 * spaces, `/`, `@`, an empty host, a bracketed host that is not an IPv6 address).
 */
export function parseAuthority(text: string): EgressAllowEntry | undefined {
  if (text.length === 0 || text.length > 300 || /[\s/@?#\\]/.test(text)) return undefined;
  let host: string;
  let portText: string;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close < 0 || text[close + 1] !== ":") return undefined;
    host = text.slice(1, close);
    if (isIP(host) !== 6) return undefined;
    portText = text.slice(close + 2);
  } else {
    const colon = text.lastIndexOf(":");
    if (colon <= 0 || text.indexOf(":") !== colon) return undefined;
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
  }
  if (!/^[0-9]{1,5}$/.test(portText)) return undefined;
  const port = Number(portText);
  if (port < 1 || port > 65535) return undefined;
  return { host: host.toLowerCase(), port };
}

/**
 * Why `address` (an IP address literal) is on this machine, or undefined when it is not.
 * `own`: this machine's addresses and local networks (`localAddresses`). IPv4-mapped IPv6 addresses
 * are judged as their IPv4 address; an address that is not an IP literal is `unspecified`
 * (refused: nothing to judge).
 */
export function localDestination(address: string, own: AddressSet): EgressRefusal | undefined {
  const ip = normalizeAddress(address);
  const family = isIP(ip);
  if (family === 0) return "unspecified";
  if (family === 4) {
    const [a = 0, b = 0] = ip.split(".").map(Number);
    if (a === 127) return "loopback";
    if (a === 0) return "unspecified";
    if (a === 169 && b === 254) return "link-local";
  } else {
    if (ip === "::1") return "loopback";
    if (ip === "::") return "unspecified";
    if (/^fe[89ab][0-9a-f]:/.test(ip)) return "link-local";
  }
  if (METADATA_ADDRESSES.has(ip)) return "metadata";
  return own.has(ip) ? "this-machine" : undefined;
}

/**
 * An IP literal in one canonical spelling: lowercase, IPv6 zone and brackets removed, an
 * IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`) as its IPv4 address, and
 * IPv6 addresses compressed as Node's URL parser writes them. Anything else comes back
 * lowercase, unchanged.
 */
export function normalizeAddress(address: string): string {
  let ip = address.toLowerCase();
  if (ip.startsWith("[") && ip.endsWith("]")) ip = ip.slice(1, -1);
  const zone = ip.indexOf("%");
  if (zone >= 0) ip = ip.slice(0, zone);
  if (isIP(ip) !== 6) return ip;
  let canonical: string;
  try {
    canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  } catch {
    return ip;
  }
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped) {
    const high = Number.parseInt(mapped[1] as string, 16);
    const low = Number.parseInt(mapped[2] as string, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return canonical;
}

/**
 * Whether `address`, one address the request for `host:port` (as the agent wrote it)
 * resolved to, is on the allow list `allow`: an entry with that port whose host is the
 * address itself, or is the name `host` as written (a name entry covers every address the
 * name resolves to; an address entry covers only that address — the attack review reached
 * `[::1]` through an entry for `127.0.0.1` and the name `localhost`).
 */
export function egressAllowed(
  host: string,
  port: number,
  address: string,
  allow: readonly EgressAllowEntry[],
): boolean {
  const name = normalizeAddress(host);
  const byName = isIP(name) === 0;
  const ip = normalizeAddress(address);
  return allow.some((entry) => {
    if (entry.port !== port) return false;
    const allowed = normalizeAddress(entry.host);
    return allowed === ip || (byName && allowed === name);
  });
}

/**
 * The proxy's decision for `host:port` resolved to `addresses`: the addresses it may
 * connect to — those not on this machine, and those the allow list covers
 * ({@link egressAllowed}) —, or the refusal of the first address when none remains. Pure.
 */
export function egressDecision(
  host: string,
  port: number,
  addresses: readonly string[],
  own: AddressSet,
  allow: readonly EgressAllowEntry[],
): { connect: string[] } | { refused: EgressRefusal; address: string } {
  if (addresses.length === 0) return { refused: "unspecified", address: host };
  const connect = addresses.filter(
    (address) =>
      localDestination(address, own) === undefined || egressAllowed(host, port, address, allow),
  );
  if (connect.length > 0) return { connect };
  const first = addresses[0] as string;
  return { refused: localDestination(first, own) ?? "unspecified", address: first };
}

/** What each refusal means, for the proxy's answer. */
export const EGRESS_REFUSAL_TEXT: Readonly<Record<EgressRefusal, string>> = Object.freeze({
  loopback: "a loopback address: a server of yours on this machine, outside the sandbox",
  unspecified: "the unspecified address, which reaches this machine",
  "link-local": "a link-local address (a cloud metadata service hands out credentials there)",
  "this-machine": "one of this machine's own addresses: a server of yours, outside the sandbox",
  metadata: "a cloud metadata service, which hands out this machine's credentials",
});
