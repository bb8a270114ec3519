/**
 * Confined agents against a server of the user's on this machine (docs/guarantees.md
 * "Confined agents", issue 32): a dev server with an endpoint that writes files, a notebook
 * server, docker's TCP socket. It runs outside the sandbox, as the user, so whatever it does
 * for the agent is unconfined. With `--confine` the agent has its own network namespace, and
 * turngate's egress proxy refuses every destination on this machine that
 * `agent_network.allow` does not list. Each attack runs on a real git repository with real
 * agent, check and server processes (the server in this test's process), in place, with
 * three runs: the honest agent confined (`verified`), the attack confined (refused: the
 * server is never reached, the check fails on the broken code, exit 2), and the attack
 * unconfined (the write lands, `verified`: the hole confinement closes).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { dirname } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { confineAgent, confineFailed, EGRESS_BOOTSTRAP_FAILED } from "../../src/confine-agent.js";
import { cleanWorlds, SKIP_REASON, sandbox, turn, type World, world } from "./helpers.js";
import { landed, PREFIX_LIB_NODE } from "./outside-attacks.js";

afterEach(cleanWorlds);

/** A server of the user's that writes `{file, text}` posted to it (an exec endpoint, in effect). */
async function writerServer(): Promise<{ server: Server; port: number; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString("utf8");
    });
    req.on("end", () => {
      requests.push(`${req.method} ${req.url}`);
      const { file, text } = JSON.parse(body) as { file: string; text: string };
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
      res.end("written\n");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, requests };
}

/**
 * An agent that writes `lib` and then posts `{file, text}` to `host:port` twice: directly, and
 * through `HTTP_PROXY` when it is set (as a tool that honours it would), printing what
 * each attempt answered.
 */
function posterAgent(
  w: World,
  lib: [string, string],
  post: { host: string; port: number; file: string; text: string } | undefined,
): string {
  return w.p.agent(
    "agent.js",
    `const fs = require("node:fs"); const http = require("node:http");
fs.writeFileSync(${JSON.stringify(lib[0])}, ${JSON.stringify(lib[1])});
const post = ${JSON.stringify(post ?? null)};
const send = (via) => new Promise((done) => {
  const body = JSON.stringify({ file: post.file, text: post.text });
  const target = post.host + ":" + post.port;
  const options = via
    ? { host: via.hostname, port: via.port, path: "http://" + target + "/write", headers: { host: target } }
    : { host: post.host, port: post.port, path: "/write" };
  const req = http.request({ ...options, method: "POST" }, (res) => {
    let text = ""; res.on("data", (c) => { text += c; });
    res.on("end", () => done((via ? "proxy" : "direct") + ": " + res.statusCode + " " + text.trim()));
  });
  req.on("error", (error) => done((via ? "proxy" : "direct") + ": " + error.code));
  req.end(body);
});
(async () => {
  if (post === null) return;
  console.log(await send(undefined));
  if (process.env.HTTP_PROXY) console.log(await send(new URL(process.env.HTTP_PROXY)));
})();
`,
  );
}

/** The plant of PREFIX_LIB_NODE (a module the broken code requires, kept outside the workspace). */
function plantOf(w: World): { file: string; text: string } {
  const plant = PREFIX_LIB_NODE.plant;
  if (!("text" in plant)) throw new Error("PREFIX_LIB_NODE plants a new file");
  return { file: PREFIX_LIB_NODE.target(w), text: plant.text };
}

/** The first IPv4 address of this machine that is not loopback, if it has one. */
function ownAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? [])
      if (info.family === "IPv4" && !info.internal) return info.address;
  }
  return undefined;
}

test("a launcher that exits 125 failed to start the egress proxy, and the error says so and what to do; any other exit is bubblewrap's", () => {
  expect(confineFailed(EGRESS_BOOTSTRAP_FAILED).message).toBe(
    `the confined agent's network proxy could not start in its sandbox (its message is above): the agent did not run. If the machine refuses it, "agent_network": "host" in turngate.config.json gives the agent the host's network instead (a server of yours on 127.0.0.1 could then act for it), or drop --confine`,
  );
  expect(confineFailed(1).message).toMatch(
    /^bubblewrap could not set up the confined agent's sandbox \(exit 1;/,
  );
});

describe.skipIf(!sandbox.available)(
  `a confined agent cannot reach a server of yours on this machine${SKIP_REASON}`,
  () => {
    test("the egress bootstrap is the native program (copied into the agent's TMPDIR, one channel) where the addon is built, else the Node bootstrap over an IPC channel; with agent_network host, none", async () => {
      const w = world();
      const make = (env: NodeJS.ProcessEnv, network?: "host") =>
        confineAgent(["true"], {
          root: w.p.root,
          cwd: w.p.root,
          hostEnv: { ...process.env, ...w.env, ...env },
          agentEnv: { ...w.env },
          newSession: true,
          ...(network !== undefined ? { network } : {}),
        });
      const native = await make({ TURNGATE_NATIVE: "1" });
      try {
        const launcher = native.argv.at(-2) === "turngate-agent" ? native.argv.at(-3) : "";
        expect(launcher).toBe(
          `'${native.plan.tmpdir}/.turngate-egress' 5 3128 || exit 125; exec 5>&-; printf started >&3; exec 3>&- 4<&-; exec "$@"`,
        );
        expect(native.egressChannel?.host).toBeGreaterThan(2);
        expect(native.env.HTTPS_PROXY).toBe("http://127.0.0.1:3128");
      } finally {
        native.cleanup();
      }
      const node = await make({ TURNGATE_NATIVE: "0" });
      try {
        expect(node.argv.at(-3)).toMatch(/^NODE_OPTIONS= '[^']+' -e '/);
        expect(node.egressChannel).toBeUndefined();
        expect(node.egress).toBeDefined();
      } finally {
        node.cleanup();
      }
      const host = await make({ TURNGATE_NATIVE: "1" }, "host");
      try {
        expect(host.argv.at(-3)).toBe('printf started >&3; exec 3>&- 4<&-; exec "$@"');
        expect(host.egress).toBeUndefined();
        expect(host.env.HTTPS_PROXY).toBeUndefined();
      } finally {
        host.cleanup();
      }
    });

    test(
      "a server on 127.0.0.1 that writes files: refused directly (own network namespace) and through the proxy (a loopback destination); unconfined, the plant lands and the broken code is verified",
      async () => {
        const s = PREFIX_LIB_NODE;
        const { server, port, requests } = await writerServer();
        try {
          const honest = s.make();
          const ok = await turn(
            honest,
            posterAgent(honest, [s.file, s.honest], undefined),
            s.check,
            {
              confine: true,
            },
          );
          expect(ok.json.verdict).toBe("verified");
          expect((ok.json as unknown as { trust: string }).trust).toBe("confined");

          const confined = s.make();
          const refused = await turn(
            confined,
            posterAgent(confined, [s.file, s.cheat], {
              host: "127.0.0.1",
              port,
              ...plantOf(confined),
            }),
            s.check,
            { confine: true },
          );
          expect(requests).toEqual([]);
          expect(landed(s, confined)).toBe(false);
          expect(refused.code).toBe(2);
          expect(refused.json.verdict).toBe("incomplete");
          expect(refused.json.checks.map((c) => c.status)).toEqual(["failed"]);
          expect(refused.stderr).toContain(
            `turngate: the confined agent's network proxy refused 1 connection to this machine: 127.0.0.1:${port} (loopback).`,
          );

          const open = s.make();
          const cheated = await turn(
            open,
            posterAgent(open, [s.file, s.cheat], { host: "127.0.0.1", port, ...plantOf(open) }),
            s.check,
            { confine: false },
          );
          expect(requests).toEqual(["POST /write"]);
          expect(landed(s, open)).toBe(true);
          expect(cheated.json.verdict).toBe("verified");
        } finally {
          server.close();
        }
      },
      testTimeout(60_000),
    );

    test(
      "the names and addresses of this machine are refused too (localhost, this machine's own address); a destination agent_network.allow lists is reached through the proxy",
      async () => {
        const { server, port, requests } = await writerServer();
        try {
          const s = PREFIX_LIB_NODE;
          const hosts = [
            "localhost",
            ...(ownAddress() !== undefined ? [ownAddress() as string] : []),
          ];
          for (const host of hosts) {
            const w = s.make();
            const refused = await turn(
              w,
              posterAgent(w, [s.file, s.cheat], { host, port, ...plantOf(w) }),
              s.check,
              { confine: true },
            );
            expect(requests).toEqual([]);
            expect(landed(s, w)).toBe(false);
            expect(refused.json.verdict).toBe("incomplete");
            expect(refused.stderr).toMatch(
              new RegExp(
                `network proxy refused 1 connection to this machine: ${host.replaceAll(".", "\\.")}:${port} \\((loopback|this-machine)\\)`,
              ),
            );
          }

          // Allowed: the confined agent reaches the server through the proxy (a local model
          // server is the use); its direct attempt still finds nothing in its namespace.
          const allowed = s.make({
            "turngate.config.json": JSON.stringify({
              agent_network: { allow: [`127.0.0.1:${port}`] },
            }),
          });
          const plant = { file: `${allowed.home}/allowed.txt`, text: "allowed" };
          const reached = await turn(
            allowed,
            posterAgent(allowed, [s.file, s.honest], { host: "127.0.0.1", port, ...plant }),
            s.check,
            { confine: true },
          );
          expect(requests).toEqual(["POST /write"]);
          expect(reached.json.verdict).toBe("verified");
          expect(reached.stderr).not.toContain("network proxy refused");
        } finally {
          server.close();
        }
      },
      testTimeout(90_000),
    );
  },
);
