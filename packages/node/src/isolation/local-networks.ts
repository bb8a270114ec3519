/**
 * What "this machine" is to the confined agent's egress proxy (docs/guarantees.md "Confined
 * agents", `egress-proxy.ts`), read from the kernel when each request comes, and a check
 * after each connection that its other end is not a socket on this machine.
 *
 * The two attack reviews of the proxy found the ways an address list misses this machine:
 * an interface without a carrier (docker0 with no container: `os.networkInterfaces()` leaves
 * it out), a local prefix route (`ip route add local 10.89.0.0/24 dev lo`, IPv6 "AnyIP"),
 * and a DNAT rule that sends a public address to this machine (a kube-proxy ClusterIP whose
 * endpoint is the node). So:
 *
 * - {@link localAddresses} holds every local route the kernel has: each `host LOCAL` prefix
 *   of `/proc/net/fib_trie`, each `RTF_LOCAL` route of `/proc/net/ipv6_route`, each address
 *   of `/proc/net/if_inet6`, and what `os.networkInterfaces()` lists (all there is where
 *   `/proc` has none);
 * - {@link peerOnThisMachine} looks, once connected, for the accepted end of the connection
 *   in this network namespace's TCP tables (`/proc/net/tcp`, `/proc/net/tcp6`): a socket
 *   whose remote end is the proxy's own end. A server in another network namespace (a
 *   container) is another machine here.
 */
import { readFileSync } from "node:fs";
import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { type AddressSet, normalizeAddress } from "./egress-policy.js";

/** A set of addresses and local networks (prefixes), asked with a normalized IP literal. */
class LocalNetworks implements AddressSet {
  readonly #exact = new Set<string>();
  readonly #prefixes = new BlockList();

  addAddress(address: string): void {
    this.#exact.add(normalizeAddress(address));
  }

  addPrefix(prefix: string): void {
    const [address = "", length = ""] = prefix.split("/");
    const family = isIP(address);
    if (family === 0) return;
    this.#prefixes.addSubnet(address, Number(length), family === 4 ? "ipv4" : "ipv6");
  }

  has(address: string): boolean {
    const ip = normalizeAddress(address);
    if (this.#exact.has(ip)) return true;
    const family = isIP(ip);
    return family !== 0 && this.#prefixes.check(ip, family === 4 ? "ipv4" : "ipv6");
  }
}

function readProc(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/**
 * This machine's addresses and local networks, as the kernel has them now (see the file's
 * comment). Never throws.
 */
export function localAddresses(): AddressSet {
  const out = new LocalNetworks();
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) out.addAddress(info.address);
  }
  for (const prefix of fibTrieLocalPrefixes(readProc("/proc/net/fib_trie"))) out.addPrefix(prefix);
  for (const prefix of ipv6LocalPrefixes(readProc("/proc/net/ipv6_route"))) out.addPrefix(prefix);
  for (const address of ifInet6Addresses(readProc("/proc/net/if_inet6"))) out.addAddress(address);
  return out;
}

/**
 * The prefixes `/proc/net/fib_trie`'s text `text` marks `host LOCAL` (each `|-- A.B.C.D`
 * line followed by a `/N host LOCAL` line), as `A.B.C.D/N`, without duplicates. Pure.
 */
export function fibTrieLocalPrefixes(text: string): string[] {
  const out: string[] = [];
  const lines = text.split("\n");
  for (let i = 1; i < lines.length; i++) {
    const local = /^\s*\/([0-9]{1,2}) host LOCAL/.exec(lines[i] as string);
    if (!local) continue;
    const match = /\|-- ([0-9.]+)\s*$/.exec(lines[i - 1] as string);
    const prefix = match ? `${match[1]}/${local[1]}` : undefined;
    if (prefix !== undefined && !out.includes(prefix)) out.push(prefix);
  }
  return out;
}

/** 32 hex digits as a normalized IPv6 address. */
function hexAddress(hex: string): string {
  return normalizeAddress((hex.match(/.{4}/g) as string[]).join(":"));
}

/**
 * The local routes (`RTF_LOCAL`, flag `0x80000000`) of `/proc/net/ipv6_route`'s text
 * `text`, as `address/length` (IPv6 "AnyIP" prefixes and this machine's own addresses).
 * Pure.
 */
export function ipv6LocalPrefixes(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    const [dest = "", length = "", , , , , , , flags = ""] = fields;
    if (!/^[0-9a-f]{32}$/.test(dest) || !/^[0-9a-f]{2}$/.test(length)) continue;
    if (!/^[0-9a-f]{8}$/.test(flags) || (Number.parseInt(flags, 16) & 0x80000000) === 0) continue;
    const prefix = `${hexAddress(dest)}/${Number.parseInt(length, 16)}`;
    if (!out.includes(prefix)) out.push(prefix);
  }
  return out;
}

/** The IPv6 addresses of `/proc/net/if_inet6`'s text `text` (first field, 32 hex digits), normalized. Pure. */
export function ifInet6Addresses(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const hex = line.trim().split(/\s+/)[0] ?? "";
    if (!/^[0-9a-f]{32}$/.test(hex)) continue;
    const address = hexAddress(hex);
    if (!out.includes(address)) out.push(address);
  }
  return out;
}

/**
 * The bytes of a normalized IP literal ({@link normalizeAddress}): 4 for IPv4, 16 for IPv6
 * (written in hex words, as the WHATWG URL parser serializes them: no dotted tail).
 */
function addressBytes(ip: string): number[] {
  if (isIP(ip) === 4) return ip.split(".").map(Number);
  const [head = "", tail] = ip.includes("::") ? ip.split("::") : [ip, undefined];
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const words =
    tail === undefined
      ? left
      : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return words.flatMap((word) => {
    const n = Number.parseInt(word, 16);
    return [n >> 8, n & 255];
  });
}

/**
 * An endpoint as `/proc/net/tcp` (IPv4) or `/proc/net/tcp6` (IPv6) writes it: the address
 * in 32-bit words, each in the machine's little-endian byte order, in upper-case hex, then
 * `:` and the port in 4 upper-case hex digits. `v6` writes an IPv4 address in its
 * IPv4-mapped form (as a dual-stack listener's accepted socket holds it). Pure.
 */
export function procTcpEndpoint(address: string, port: number, v6 = false): string {
  let bytes = addressBytes(normalizeAddress(address));
  if (v6 && bytes.length === 4) bytes = [...Array(10).fill(0), 255, 255, ...bytes];
  let hex = "";
  for (let i = 0; i < bytes.length; i += 4) {
    for (let j = 3; j >= 0; j--) hex += (bytes[i + j] as number).toString(16).padStart(2, "0");
  }
  return `${hex.toUpperCase()}:${port.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Whether the connection whose own end is `localAddress:localPort` was accepted on this
 * machine: a socket in `/proc/net/tcp` or `/proc/net/tcp6` (this network namespace) has that
 * endpoint as its remote end. `tables` replaces the two files' texts (tests). Never throws;
 * false where the files cannot be read.
 */
export function peerOnThisMachine(
  localAddress: string,
  localPort: number,
  tables?: { tcp: string; tcp6: string },
): boolean {
  const ip = normalizeAddress(localAddress);
  if (isIP(ip) === 0) return false;
  const texts = tables ?? { tcp: readProc("/proc/net/tcp"), tcp6: readProc("/proc/net/tcp6") };
  const wanted: Array<[string, string]> = [[texts.tcp6, procTcpEndpoint(ip, localPort, true)]];
  if (isIP(ip) === 4) wanted.push([texts.tcp, procTcpEndpoint(ip, localPort)]);
  for (const [text, endpoint] of wanted) {
    for (const line of text.split("\n")) {
      if (line.trim().split(/\s+/)[2] === endpoint) return true;
    }
  }
  return false;
}
