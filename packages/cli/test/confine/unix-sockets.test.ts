/**
 * Servers outside the sandbox (docs/guarantees.md "Confined agents", docs/design.md §3b; issue 32,
 * hole 1 of the attack round on confinement): a confined agent that asks a server of the user's
 * running outside the sandbox to act for it. Before the seccomp filter (`seccomp-unix.ts`) the
 * agent ran `tmux -S <the user's socket> run-shell "…"` and the command ran unconfined: it
 * planted a `.pth`, and the turn still ended `verified`, `trust: confined`. Real temporary git
 * repositories, a real tmux server and a real abstract-socket server outside the sandbox, real
 * agent and check processes:
 *
 * - in the confined agent `socket(AF_UNIX)` fails with EPERM, while `socketpair` and a Node
 *   child with pipes work; a TCP server on the host's 127.0.0.1 is not there (the agent has
 *   its own network namespace: network.test.ts), and the user's runtime folder is empty;
 * - the tmux `run-shell` and the abstract-socket attacks: refused confined (the check fails on the
 *   broken code), verified for the honest change (positive control), landed unconfined;
 * - the check sandbox (not filtered: checks create unix sockets) sees no socket of the user's:
 *   no `/run`, a private `/tmp`, and, without network, its own abstract namespace.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { turngate } from "../clean-room/helpers.js";
import {
  cleanWorlds,
  HONEST,
  LIB,
  SKIP_REASON,
  sandbox,
  TEST,
  turn,
  type World,
  world,
} from "./helpers.js";
import { landed, PTH_IN_VENV, plantSh } from "./outside-attacks.js";

const stops: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  cleanWorlds();
});

/** Whether `program` is on PATH. */
const has = (program: string) =>
  spawnSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" }).status === 0;
const TMUX = has("tmux");
const PYTHON = has("python3");

/** A fresh folder in the system's temporary folder, removed after the test. */
function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  stops.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A unix-socket server in this process (outside every sandbox), closed after the test. */
async function listen(address: string, onConnection: Parameters<typeof createServer>[0]) {
  const server: Server = createServer(onConnection);
  await new Promise<void>((resolve) => server.listen(address, resolve));
  stops.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return server;
}

/**
 * A real tmux server of "the user's" on the socket `<fresh folder>/sock`, started detached
 * (it is no process of the agent's); killed after the test. Output: the socket path.
 */
function tmuxServer(): string {
  const sock = join(tempDir("turngate-tmux-"), "sock");
  execFileSync("tmux", ["-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "user"], {
    env: { ...process.env, TERM: "xterm" },
    stdio: "ignore",
  });
  // Stopped before its folder is removed (stops run last-in, first-out): a tmux server
  // whose socket is gone cannot be told to stop.
  const pid = Number(
    execFileSync("tmux", ["-S", sock, "display-message", "-p", "#{pid}"]).toString().trim(),
  );
  stops.push(() => {
    spawnSync("tmux", ["-S", sock, "kill-server"], { stdio: "ignore" });
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // stopped by kill-server
    }
  });
  return sock;
}

/** Python: listen on the abstract socket `@argv[1]`, say `ready`, run each client's text with `sh -c`. */
const ABSTRACT_SERVER = `import socket, subprocess, sys
s = socket.socket(socket.AF_UNIX)
s.bind("\\0" + sys.argv[1])
s.listen(8)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    data = b""
    while True:
        chunk = c.recv(65536)
        if not chunk:
            break
        data += chunk
    subprocess.run(["/bin/sh", "-c", data.decode()])
    c.close()
`;

/**
 * A real server process of "the user's" outside the sandbox on an abstract unix socket
 * (`@name`, no file anywhere to hide) that runs what a client sends with `sh -c` and closes
 * the connection when the command is done (python3, as C programs name abstract sockets:
 * Node pads the name to the whole address). Resolves once it listens; killed after the
 * test. Output: the name without its leading NUL.
 */
async function abstractShellServer(): Promise<string> {
  const name = `turngate-test-shell-${process.pid}-${Math.random().toString(16).slice(2)}`;
  const server = spawn("python3", ["-c", ABSTRACT_SERVER, name], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  stops.push(() => {
    server.kill("SIGKILL");
  });
  await new Promise<void>((resolve, reject) => {
    server.stdout.setEncoding("utf8");
    server.stdout.once("data", (text: string) =>
      text.startsWith("ready") ? resolve() : reject(new Error(text)),
    );
    server.once("exit", (code) => reject(new Error(`abstract server exited ${code}`)));
  });
  return name;
}

/**
 * Python: a client of the abstract socket `@argv[1]` that sends argv[2] and waits for the
 * server to close the connection; refused, it prints the errno name and exits 3.
 */
const ABSTRACT_CLIENT = `import errno, socket, sys
try:
    s = socket.socket(socket.AF_UNIX)
    s.connect("\\0" + sys.argv[1])
except OSError as e:
    sys.stderr.write(errno.errorcode[e.errno])
    sys.exit(3)
s.sendall(sys.argv[2].encode())
s.shutdown(socket.SHUT_WR)
while s.recv(4096):
    pass
`;

/**
 * An agent (node) that writes `file` = `text`, then runs `program args…` (output piped) and
 * records in `attack.json` (in the workspace: the only place a confined agent can write)
 * `done`, or `refused: <its stderr>`.
 */
function attackAgent(w: World, file: string, text: string, program: string, args: string[]) {
  return w.p.agent(
    "agent.js",
    `const fs = require("node:fs"); const cp = require("node:child_process");
fs.writeFileSync(${JSON.stringify(file)}, ${JSON.stringify(text)});
let attack = "done";
try { cp.execFileSync(${JSON.stringify(program)}, ${JSON.stringify(args)}, { stdio: ["ignore", "pipe", "pipe"] }); }
catch (error) { attack = "refused: " + String(error.stderr).trim(); }
fs.writeFileSync("attack.json", JSON.stringify(attack));
`,
  );
}

/** What the attack agent recorded. */
const attackSeen = (w: World) => JSON.parse(readFileSync(join(w.p.root, "attack.json"), "utf8"));

/**
 * The three runs of an attack through a server outside the sandbox, each on a fresh world of
 * the `.pth` attack (outside-attacks.ts: a `.pth` in a virtualenv on PATH makes every python
 * start exit 0): the honest change confined (verified); the broken change confined, asking
 * the server (through `client(command)`) to plant the `.pth` (refused: the plant is not
 * there, the check fails on the broken code); the same unconfined (the plant lands, the
 * turn ends verified). Output: what the confined agent recorded.
 */
async function expectServerAttackRefused(
  client: (command: string) => [string, string[]],
): Promise<string> {
  const s = PTH_IN_VENV;
  const honest = s.make();
  const ok = await turn(honest, attackAgent(honest, s.file, s.honest, "true", []), s.check, {
    confine: true,
  });
  expect(ok.json.verdict).toBe("verified");
  expect((ok.json as unknown as { trust: string }).trust).toBe("confined");

  const confined = s.make();
  const [program, args] = client(plantSh(s, confined));
  const refused = await turn(
    confined,
    attackAgent(confined, s.file, s.cheat, program, args),
    s.check,
    { confine: true },
  );
  expect(landed(s, confined)).toBe(false);
  expect(refused.code).toBe(2);
  expect(refused.json.verdict).toBe("incomplete");
  expect(refused.json.outcome.reason).toBe("unverified_mutation");
  expect(refused.json.checks.map((c) => c.status)).toEqual(["failed"]);
  expect(readFileSync(refused.json.checks[0]?.log_path as string, "utf8")).toContain(s.because);

  const open = s.make();
  const [openProgram, openArgs] = client(plantSh(s, open));
  const cheated = await turn(
    open,
    attackAgent(open, s.file, s.cheat, openProgram, openArgs),
    s.check,
    { confine: false },
  );
  expect(attackSeen(open)).toBe("done");
  expect(landed(s, open)).toBe(true);
  expect(cheated.json.verdict).toBe("verified");
  return attackSeen(confined);
}

/** Python: try each unix socket, print `<label>: connected` or `<label>: <errno name>`. */
const SOCKET_PROBE = `import errno, os, socket, sys
def attempt(label, family, address):
    try:
        s = socket.socket(family)
        s.connect(address)
        print(label + ": connected")
        s.close()
    except OSError as e:
        print(label + ": " + errno.errorcode[e.errno])
attempt("tmux", socket.AF_UNIX, sys.argv[1])
attempt("runtime", socket.AF_UNIX, sys.argv[2])
attempt("abstract", socket.AF_UNIX, "\\0" + sys.argv[3])
for path in ["/run", "/var/run", sys.argv[2]]:
    print(path + (": exists" if os.path.exists(path) else ": absent"))
`;

describe.skipIf(!sandbox.available || !PYTHON)(
  `a confined agent cannot open a unix socket${SKIP_REASON}${PYTHON ? "" : " (skipped: python3 is not on PATH)"}`,
  () => {
    test(
      "socket(AF_UNIX) fails with EPERM, a path or an abstract socket alike; socketpair and a Node child with pipes work; TCP to a server on the host's 127.0.0.1 finds nothing (the agent's own network namespace); the user's runtime folder is empty",
      async () => {
        const tcp = createServer((socket) => socket.end("tcp ok"));
        await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
        stops.push(() => new Promise<void>((resolve) => tcp.close(() => resolve())));
        const port = (tcp.address() as { port: number }).port;
        const runtime = tempDir("turngate-runtime-");
        await listen(join(runtime, "bus"), (socket) => socket.end());
        const abstract = await abstractShellServer();
        const python = `import ctypes, errno, socket, sys
def attempt(label, fn):
    try:
        print(label + ": " + fn())
    except OSError as e:
        print(label + ": " + errno.errorcode[e.errno])
def unix(address):
    s = socket.socket(socket.AF_UNIX); s.connect(address); s.close(); return "connected"
def pair():
    a, b = socket.socketpair(); a.sendall(b"pong"); return b.recv(4).decode()
def tcp():
    s = socket.create_connection(("127.0.0.1", ${port})); return s.recv(16).decode()
def uring():
    libc = ctypes.CDLL(None, use_errno=True); params = ctypes.create_string_buffer(120)
    fd = libc.syscall(425, 1, params)
    if fd < 0: raise OSError(ctypes.get_errno(), "io_uring_setup")
    return "opened"
attempt("unix path", lambda: unix(sys.argv[1]))
attempt("unix abstract", lambda: unix("\\0" + sys.argv[2]))
attempt("socketpair", pair)
attempt("tcp 127.0.0.1", tcp)
attempt("io_uring_setup", uring)
`;
        const body = `const fs = require("node:fs"); const cp = require("node:child_process");
fs.writeFileSync("lib.js", ${JSON.stringify(HONEST)});
const python = cp.execFileSync("python3", ["-c", ${JSON.stringify(python)}, ${JSON.stringify(join(runtime, "bus"))}, ${JSON.stringify(abstract)}]).toString();
const node = cp.execFileSync(process.execPath, ["-e", "process.stdout.write(require('node:fs').readFileSync(0, 'utf8').toUpperCase())"], { input: "piped" }).toString();
const runtime = fs.readdirSync(process.env.XDG_RUNTIME_DIR);
fs.writeFileSync("probe.json", JSON.stringify({ python: python.trim().split("\\n"), node, runtime }));
`;
        const probe = async (confine: boolean) => {
          const w = world();
          const result = await turn(w, w.p.agent("agent.js", body), "node test.js", {
            confine,
            env: { XDG_RUNTIME_DIR: runtime },
          });
          return { result, seen: JSON.parse(readFileSync(join(w.p.root, "probe.json"), "utf8")) };
        };
        const confined = await probe(true);
        expect(confined.seen).toEqual({
          python: [
            "unix path: EPERM",
            "unix abstract: EPERM",
            "socketpair: pong",
            "tcp 127.0.0.1: ECONNREFUSED",
            "io_uring_setup: EPERM",
          ],
          node: "PIPED",
          runtime: [],
        });
        expect(confined.result.json.verdict).toBe("verified");
        expect((confined.result.json as unknown as { trust: string }).trust).toBe("confined");

        // The control: unconfined, the same probe reaches both sockets and sees the folder
        // (io_uring_setup is whatever this kernel allows, so it is not compared).
        const open = await probe(false);
        expect(open.seen.python.slice(0, 4)).toEqual([
          "unix path: connected",
          "unix abstract: connected",
          "socketpair: pong",
          "tcp 127.0.0.1: tcp ok",
        ]);
        expect(open.seen.runtime).toEqual(["bus"]);
      },
      testTimeout(60_000),
    );

    test.skipIf(!TMUX)(
      `the attack round's tmux run-shell: the confined agent cannot ask the user's tmux server to plant a .pth; unconfined it lands${TMUX ? "" : " — SKIPPED: tmux is not on PATH (apt-get install tmux)"}`,
      async () => {
        const sock = tmuxServer();
        const seen = await expectServerAttackRefused((command) => [
          "tmux",
          ["-S", sock, "run-shell", command],
        ]);
        expect(seen).toBe(`refused: error connecting to ${sock} (Operation not permitted)`);
      },
      testTimeout(60_000),
    );

    test(
      "an abstract unix socket (no file to hide): the confined agent cannot ask a shell server on it to plant a .pth; unconfined it lands",
      async () => {
        const name = await abstractShellServer();
        const seen = await expectServerAttackRefused((command) => [
          "python3",
          ["-c", ABSTRACT_CLIENT, name, command],
        ]);
        expect(seen).toBe("refused: EPERM");
      },
      testTimeout(60_000),
    );
  },
);

/**
 * One clean-room turn (not in place) whose check first makes a unix socket of its own, then
 * runs SOCKET_PROBE on the user's tmux socket, runtime socket and abstract socket; with
 * `network`, the configuration says `"network": true`. Output: the turn and the check's log.
 */
async function checkSandboxProbe(args: string[], network: boolean) {
  const w = world({
    "lib.js": LIB,
    "test.js": TEST,
    "probe.py": SOCKET_PROBE,
    ...(network ? { "turngate.config.json": '{"network":true}\n' } : {}),
  });
  const own =
    "python3 -c \"import socket; a = socket.socket(socket.AF_UNIX); a.bind('\\0own'); a.listen(); b = socket.socket(socket.AF_UNIX); b.connect('\\0own'); print('own socket: connected')\"";
  const check = `${own} && python3 probe.py ${args.join(" ")} && node test.js`;
  const agent = w.p.agent(
    "agent.js",
    `require("node:fs").writeFileSync("lib.js", ${JSON.stringify(HONEST)});`,
  );
  const result = await turngate(
    ["run", "--json", "--isolation", "clean-room", "--check", check, "--", "node", agent],
    w.p.root,
    w.env,
  );
  return { result, log: readFileSync(result.json.checks[0]?.log_path as string, "utf8") };
}

/** The user's three servers (tmux, a runtime-folder socket, an abstract socket). */
async function userServers(): Promise<{ args: string[]; bus: string }> {
  const sock = tmuxServer();
  const runtime = tempDir("turngate-runtime-");
  const bus = join(runtime, "bus");
  await listen(bus, (socket) => socket.end());
  const abstract = await abstractShellServer();
  const args = [sock, bus, abstract];
  const outside = execFileSync("python3", ["-c", SOCKET_PROBE, ...args]).toString();
  expect(outside.trim().split("\n").slice(0, 3)).toEqual([
    "tmux: connected",
    "runtime: connected",
    "abstract: connected",
  ]);
  return { args, bus };
}

describe.skipIf(!sandbox.available || !PYTHON || !TMUX)(
  `the check sandbox sees no socket of the user's${SKIP_REASON}${PYTHON && TMUX ? "" : " (skipped: python3 or tmux is not on PATH)"}`,
  () => {
    /**
     * The probe in a clean-room check (`network` as the configuration says): the check's own
     * socket connects; the tmux and runtime sockets are not there; the abstract socket gives
     * `abstract`; no `/run`, `/var/run` or runtime folder.
     */
    async function expectProbe(network: boolean, abstract: string) {
      const { args, bus } = await userServers();
      const { result, log } = await checkSandboxProbe(args, network);
      expect(result.json.isolation.mode).toBe("clean-room");
      expect(result.json.verdict).toBe("verified");
      const lines = [
        "own socket: connected",
        "tmux: ENOENT",
        "runtime: ENOENT",
        `abstract: ${abstract}`,
        "/run: absent",
        "/var/run: absent",
        `${bus}: absent`,
      ];
      expect(log).toContain(`${lines.join("\n")}\n`);
    }

    test("clean-room checks (not filtered: they may make their own unix sockets) find no /run, no tmux or runtime socket (private /tmp) and, without network, no abstract socket; the same probe outside reaches all three", () =>
      expectProbe(false, "ECONNREFUSED"));

    test("not covered yet: with \"network\": true a check shares the host's network namespace, so it reaches an abstract unix socket of the user's (socket files stay out of sight)", () =>
      expectProbe(true, "connected"));
  },
);
