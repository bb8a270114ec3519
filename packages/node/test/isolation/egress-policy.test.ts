import { describe, expect, test } from "vitest";
import {
  egressAllowProblem,
  egressDecision,
  localDestination,
  normalizeAddress,
  parseAuthority,
  parseEgressAllow,
} from "../../src/isolation/egress-policy.js";

const own = new Set(["10.1.2.3", "fd00::5"]);

describe('the confined agent\'s egress policy (docs/guarantees.md "Confined agents")', () => {
  test("authorities: host:port, [v6]:port; anything else is no destination", () => {
    expect(parseAuthority("Example.COM:443")).toEqual({ host: "example.com", port: 443 });
    expect(parseAuthority("127.0.0.1:8080")).toEqual({ host: "127.0.0.1", port: 8080 });
    expect(parseAuthority("[::1]:3128")).toEqual({ host: "::1", port: 3128 });
    for (const bad of [
      "example.com",
      "example.com:0",
      "example.com:65536",
      "example.com:44x",
      ":443",
      "::1:443",
      "[example.com]:443",
      "[::1]443",
      "http://example.com:443",
      "a b:80",
      "user@host:22",
      "",
    ]) {
      expect(parseAuthority(bad), bad).toBeUndefined();
    }
  });

  test("addresses are judged in one spelling: IPv4-mapped IPv6 as IPv4, zones and brackets dropped", () => {
    expect(normalizeAddress("::FFFF:127.0.0.1")).toBe("127.0.0.1");
    expect(normalizeAddress("::ffff:7f00:1")).toBe("127.0.0.1");
    expect(normalizeAddress("[0:0:0:0:0:0:0:1]")).toBe("::1");
    expect(normalizeAddress("fe80::1%eth0")).toBe("fe80::1");
    expect(normalizeAddress("Example.com")).toBe("example.com");
  });

  test("every destination on this machine is named, the rest is not", () => {
    const cases: Array<[string, string | undefined]> = [
      ["127.0.0.1", "loopback"],
      ["127.9.8.7", "loopback"],
      ["::1", "loopback"],
      ["::ffff:127.0.0.1", "loopback"],
      ["0.0.0.0", "unspecified"],
      ["::", "unspecified"],
      ["169.254.169.254", "link-local"],
      ["fe80::1", "link-local"],
      ["10.1.2.3", "this-machine"],
      ["::ffff:10.1.2.3", "this-machine"],
      ["FD00::5", "this-machine"],
      ["not-an-ip", "unspecified"],
      ["100.100.100.200", "metadata"],
      ["168.63.129.16", "metadata"],
      ["fd00:ec2::254", "metadata"],
      ["FD00:EC2:0:0:0:0:0:254", "metadata"],
      ["10.1.2.4", undefined],
      ["93.184.216.34", undefined],
      ["2606:2800:220:1::1", undefined],
    ];
    for (const [address, why] of cases) expect(localDestination(address, own), address).toBe(why);
  });

  test("decisions: local addresses are refused unless an entry covers that address, or the name asked for, with the port; others connect", () => {
    expect(egressDecision("api.example.com", 443, ["93.184.216.34"], own, [])).toEqual({
      connect: ["93.184.216.34"],
    });
    expect(egressDecision("localhost", 8888, ["127.0.0.1", "::1"], own, [])).toEqual({
      refused: "loopback",
      address: "127.0.0.1",
    });
    // A name that resolves to both: only the address off this machine is used.
    expect(egressDecision("mixed.test", 80, ["127.0.0.1", "93.184.216.34"], own, [])).toEqual({
      connect: ["93.184.216.34"],
    });
    expect(egressDecision("nothing.test", 80, [], own, [])).toEqual({
      refused: "unspecified",
      address: "nothing.test",
    });
    const allow = [{ host: "127.0.0.1", port: 11434 }];
    expect(egressDecision("127.0.0.1", 11434, ["127.0.0.1"], own, allow)).toEqual({
      connect: ["127.0.0.1"],
    });
    // An address entry covers that address only: not the other addresses of a name that
    // resolves to it too (the attack review reached [::1] through 127.0.0.1 and localhost).
    expect(egressDecision("localhost", 11434, ["::1", "127.0.0.1"], own, allow)).toEqual({
      connect: ["127.0.0.1"],
    });
    // A name entry covers every address of that name, asked for by that name.
    const byName = [{ host: "localhost", port: 11434 }];
    expect(egressDecision("localhost", 11434, ["::1", "127.0.0.1"], own, byName)).toEqual({
      connect: ["::1", "127.0.0.1"],
    });
    expect(egressDecision("127.0.0.1", 11434, ["127.0.0.1"], own, byName)).toEqual({
      refused: "loopback",
      address: "127.0.0.1",
    });
    expect(egressDecision("127.0.0.1", 11435, ["127.0.0.1"], own, allow)).toEqual({
      refused: "loopback",
      address: "127.0.0.1",
    });
    expect(egressDecision("::ffff:127.0.0.1", 11434, ["::ffff:127.0.0.1"], own, allow)).toEqual({
      connect: ["::ffff:127.0.0.1"],
    });
  });

  test("agent_network.allow entries: host:port or a sentence that names the entry and the form", () => {
    expect(parseEgressAllow("LOCALHOST:8080")).toEqual({ host: "localhost", port: 8080 });
    expect(egressAllowProblem("[::1]:8080")).toBeUndefined();
    expect(egressAllowProblem("http://127.0.0.1:11434")).toBe(
      '"http://127.0.0.1:11434" is not a host:port destination (write 127.0.0.1:11434, localhost:8080 or [::1]:8080: no scheme, path or spaces; the port from 1 to 65535)',
    );
    expect(egressAllowProblem("127.0.0.1")).toMatch(/^"127\.0\.0\.1" is not a host:port/);
  });
});
