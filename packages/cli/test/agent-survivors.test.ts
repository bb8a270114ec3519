/**
 * Attacks by processes the agent leaves running (issue 10, "Processes the agent left
 * running"), against the real CLI process on real temporary git repositories: a background
 * watcher swapping a file's bytes, a `setsid` daemon that breaks the file two seconds after
 * the agent exited, a double-forked daemon with a cleared environment; and where the agent
 * runs (own session and group without a terminal, turngate's group on a terminal).
 * Pids are read back from files the processes write; waits poll with a bound.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { loadConfig } from "../src/config.js";
import { cliBundleArgs } from "./cli-bundle.js";
import { gitProject } from "./helpers.js";
import { processRunning } from "./process-groups.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(60_000), hookTimeout: testTimeout(60_000) });

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const nodeArgs = cliBundleArgs();
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
});

/** A project with `value.txt` = 41 and a config whose grace is `graceMs`. */
function project(graceMs: number) {
  const p = gitProject({
    "value.txt": "41\n",
    "turngate.config.json": `${JSON.stringify({ checks: ["grep -qx 42 value.txt"], agent_grace_ms: graceMs })}\n`,
  });
  cleanups.push(p.cleanup);
  return p;
}

/** Kill `pid` at the end of the test whatever happened (a leaked daemon must not stay). */
function killLater(pid: number): void {
  cleanups.unshift(() => {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  });
}

/** The pid written to `file` (the agent waits for it before exiting); killed after the test. */
function pidIn(file: string): number {
  const pid = Number(readFileSync(file, "utf8"));
  killLater(pid);
  return pid;
}

/** Run `turngate run … -- sh AGENT` (text output) as a real process; resolves with code and stdout. */
function runText(
  root: string,
  agentScript: string,
): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, "run", "--root", root, "--", "sh", agentScript],
    {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout })));
}

/** Run `turngate run --json … -- sh AGENT` as a real process; resolves with code and JSON. */
function runJson(
  root: string,
  agentScript: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number | null; json: Record<string, unknown>; stderr: string }> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, "run", "--json", "--root", root, "--", "sh", agentScript],
    { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  return new Promise((resolve, reject) => {
    child.on("close", (code) => {
      try {
        resolve({ code, json: JSON.parse(stdout) as Record<string, unknown>, stderr });
      } catch (error) {
        reject(new Error(`no JSON (exit ${code}): ${stdout}\n${stderr}: ${String(error)}`));
      }
    });
  });
}

type Survivor = { pid: number; command_line: string; found_by: string; outcome: string };
const survivorsOf = (json: Record<string, unknown>) =>
  (json.agent as { survivors: Survivor[] }).survivors;

/**
 * Shell that waits until the process `pid` (a shell expression) has exec'd its `sleep`: its
 * command line is read by turngate, and a process caught inside exec has none yet.
 */
const EXECD = (pid: string) =>
  `p=${pid}; while ! grep -q sleep /proc/$p/cmdline 2>/dev/null; do :; done\n`;

describe("turngate run: processes the agent left running", () => {
  test("a background watcher swapping value.txt's bytes is killed before the observation: the verdict matches the bytes that stay", async () => {
    const p = project(300);
    const pidFile = join(p.agents, "watcher.pid");
    const watcher = p.agent(
      "watcher.sh",
      `echo $$ > ${pidFile}\nwhile true; do printf '42\\n' > value.txt; printf 'XX\\n' > value.txt; done\n`,
    );
    const agent = p.agent(
      "agent.sh",
      `printf '42\\n' > value.txt\nsh ${watcher} &\nwhile [ ! -s ${pidFile} ]; do :; done\n`,
    );
    const { code, json } = await runJson(p.root, agent);
    const pid = pidIn(pidFile);
    expect(survivorsOf(json)).toEqual([
      { pid, command_line: `sh ${watcher}`, found_by: "process_group", outcome: "killed" },
    ]);
    expect(processRunning(pid)).toBe(false);
    // The bytes no longer move; the turn is judged on exactly them.
    const final = readFileSync(join(p.root, "value.txt"), "utf8");
    expect(json.changes).toEqual([
      { path: "value.txt", change: "modified", content_digest: sha256(final), scope: "source" },
    ]);
    expect(json.verdict).toBe(final === "42\n" ? "verified" : "incomplete");
    expect(code).toBe(final === "42\n" ? 0 : 2);
    expect(readFileSync(join(p.root, "value.txt"), "utf8")).toBe(final);
  });

  test("a setsid daemon that breaks value.txt two seconds after the agent exits is found by its environment marker and killed", async () => {
    const p = project(300);
    const pidFile = join(p.agents, "breaker.pid");
    const exitedAt = join(p.agents, "exited-at");
    const breaker = p.agent(
      "breaker.sh",
      `echo $$ > ${pidFile}\nsleep 2\nprintf 'broken\\n' > value.txt\n`,
    );
    const agent = p.agent(
      "agent.sh",
      `printf '42\\n' > value.txt\nsetsid sh ${breaker} </dev/null >/dev/null 2>&1 &\nwhile [ ! -s ${pidFile} ]; do :; done\nnode -e 'console.log(Date.now())' > ${exitedAt}\n`,
    );
    const { code, json } = await runJson(p.root, agent);
    const pid = pidIn(pidFile);
    const survivors = survivorsOf(json);
    expect(survivors.find((s) => s.pid === pid)).toEqual({
      pid,
      command_line: `sh ${breaker}`,
      found_by: "environment_marker",
      outcome: "killed",
    });
    // Its `sleep 2` child carries the marker too.
    expect(survivors.filter((s) => s.pid !== pid)).toEqual([
      {
        pid: expect.any(Number),
        command_line: "sleep 2",
        found_by: "environment_marker",
        outcome: "killed",
      },
    ]);
    expect(json.verdict).toBe("verified");
    expect(code).toBe(0);
    expect(processRunning(pid)).toBe(false);
    // Past the moment the daemon would have struck, the verified bytes are still there.
    const strike = Number(readFileSync(exitedAt, "utf8")) + 2500;
    while (Date.now() < strike) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(readFileSync(join(p.root, "value.txt"), "utf8")).toBe("42\n");
  });

  test("a double-forked setsid daemon with a cleared environment is found by the subreaper and killed", async () => {
    const p = project(200);
    const pidFile = join(p.agents, "daemon.pid");
    const daemon = p.agent("daemon.sh", `echo $$ > ${pidFile}\nexec /bin/sleep 306\n`);
    const agent = p.agent(
      "agent.sh",
      `printf '42\\n' > value.txt\nsetsid env -i /bin/sh -c '(/bin/sh ${daemon} &) &' </dev/null >/dev/null 2>&1\nwhile [ ! -s ${pidFile} ]; do :; done\n${EXECD("$(cat " + pidFile + ")")}`,
    );
    const { json } = await runJson(p.root, agent);
    const pid = pidIn(pidFile);
    expect(json.agent).toMatchObject({ subreaper: "active", detached: true });
    expect(survivorsOf(json)).toEqual([
      { pid, command_line: "/bin/sleep 306", found_by: "subreaper", outcome: "killed" },
    ]);
    expect(processRunning(pid)).toBe(false);
    expect(json.verdict).toBe("verified");
  });

  test("without the native addon the subreaper is reported unavailable and the double-forked daemon is not found", async () => {
    const p = project(200);
    const pidFile = join(p.agents, "daemon.pid");
    const daemon = p.agent("daemon.sh", `echo $$ > ${pidFile}\nexec /bin/sleep 307\n`);
    const agent = p.agent(
      "agent.sh",
      `printf '42\\n' > value.txt\nsetsid env -i /bin/sh -c '(/bin/sh ${daemon} &) &' </dev/null >/dev/null 2>&1\nwhile [ ! -s ${pidFile} ]; do :; done\n${EXECD("$(cat " + pidFile + ")")}`,
    );
    const { json } = await runJson(p.root, agent, {
      ...process.env,
      TURNGATE_NATIVE_DISABLE: "1",
      TURNGATE_NATIVE: "",
    });
    const pid = pidIn(pidFile);
    expect(json.agent).toMatchObject({
      subreaper: "unavailable (disabled by TURNGATE_NATIVE_DISABLE=1)",
      survivors: [],
    });
    // The documented degradation: this daemon escapes (docs/guarantees.md "Processes", per-OS
    // table).
    expect(processRunning(pid)).toBe(true);
  });

  test("without a terminal the agent leads its own session and process group", async () => {
    const p = project(100);
    const stat = join(p.agents, "stat");
    const agent = p.agent("agent.sh", `printf '42\\n' > value.txt\ncat /proc/$$/stat > ${stat}\n`);
    const { json } = await runJson(p.root, agent);
    const fields = readFileSync(stat, "utf8").split(") ")[1]?.split(" ") ?? [];
    const pid = Number(readFileSync(stat, "utf8").split(" ")[0]);
    expect([Number(fields[2]), Number(fields[3])]).toEqual([pid, pid]); // pgrp, session
    expect(json.agent).toMatchObject({ detached: true, survivors: [] });
  });

  test("on a terminal the agent stays in turngate's group and session; its leftover is found by the marker", async () => {
    const p = project(100);
    const out = join(p.agents, "out");
    const pidFile = join(p.agents, "bg.pid");
    const agent = p.agent(
      "agent.sh",
      `printf '42\\n' > value.txt\n[ -t 0 ] && echo tty > ${out}.tty\ncat /proc/$$/stat > ${out}.agent\ncat /proc/$PPID/stat > ${out}.turngate\nsleep 308 &\nbg=$!; while [ "$(cat /proc/$bg/comm 2>/dev/null)" != sleep ]; do :; done\necho $! > ${pidFile}\n`,
    );
    const json = join(p.agents, "result.json");
    const command = [
      process.execPath,
      ...nodeArgs,
      "run",
      "--json",
      "--root",
      p.root,
      "--",
      "sh",
      agent,
    ]
      .map((arg) => `'${arg.replaceAll("'", "'\\''")}'`)
      .join(" ");
    writeFileSync(join(p.agents, "run.sh"), `exec ${command} > ${json} 2>/dev/null\n`);
    // `script` gives the CLI a pseudo-terminal as stdin, stdout and stderr.
    const child = spawn(
      "script",
      ["-q", "-e", "-c", `exec sh ${join(p.agents, "run.sh")}`, "/dev/null"],
      {
        cwd: repoRoot,
        stdio: ["pipe", "ignore", "ignore"],
      },
    );
    cleanups.push(() => child.kill("SIGKILL"));
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(existsSync(`${out}.tty`)).toBe(true);
    const group = (file: string) =>
      readFileSync(file, "utf8").split(") ")[1]?.split(" ").slice(2, 4);
    expect(group(`${out}.agent`)).toEqual(group(`${out}.turngate`));
    const pid = pidIn(pidFile);
    const result = JSON.parse(readFileSync(json, "utf8")) as Record<string, unknown>;
    expect(result.agent).toMatchObject({ detached: false });
    expect(survivorsOf(result)).toEqual([
      { pid, command_line: "sleep 308", found_by: "environment_marker", outcome: "killed" },
    ]);
    expect(processRunning(pid)).toBe(false);
  });

  test("the text output lists each survivor with its outcome, how it was found and its command line", async () => {
    const p = project(100);
    const pidFile = join(p.agents, "bg.pid");
    const agent = p.agent(
      "agent.sh",
      `printf '42\\n' > value.txt\nsleep 309 &\nbg=$!; while [ "$(cat /proc/$bg/comm 2>/dev/null)" != sleep ]; do :; done\necho $! > ${pidFile}\n`,
    );
    const { code, stdout } = await runText(p.root, agent);
    const pid = pidIn(pidFile);
    expect(stdout.split("\n").slice(0, 2)).toEqual([
      "agent left 1 process running after it exited (grace 100 ms, then SIGKILL):",
      `  pid ${pid} killed (process_group): sleep 309`,
    ]);
    expect(stdout).toMatch(/\nverified: effect digest [0-9a-f]{64}\n/);
    expect(code).toBe(0);
  });
});

/**
 * Stop a re-forking chain whatever the test did: create `stop` (each generation exits when
 * it sees it), then SIGKILL every pid in `log` that still runs `hop.sh`, until two checks
 * in a row find none (≤ 5 s; the chain also ends by itself at its deadline).
 */
async function stopChain(log: string, stop: string): Promise<void> {
  writeFileSync(stop, "");
  const deadline = Date.now() + testTimeout(5000);
  let quiet = 0;
  while (quiet < 2 && Date.now() < deadline) {
    const pids = existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : [];
    const live = pids.map(Number).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("hop.sh");
      } catch {
        return false;
      }
    });
    for (const pid of live) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
    quiet = live.length === 0 ? quiet + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("turngate run: a re-forking chain (security finding F1)", () => {
  let chain: { log: string; stop: string } | undefined;
  afterEach(async () => {
    if (chain) await stopChain(chain.log, chain.stop);
    chain = undefined;
  });

  test("a chain that re-forks every 10 ms with env -i + setsid is killed in the rounds: value.txt is unchanged 3 s after turngate returns and the verdict matches its bytes", async () => {
    const p = project(300);
    const log = join(p.agents, "hops.log");
    const stop = join(p.agents, "stop");
    chain = { log, stop };
    // Each generation logs its pid, sleeps 10 ms, starts the next one with a cleared
    // environment (no marker) in a new session (not the agent's group) and exits; once
    // 1.5 s have passed since the agent ran, the generation alive breaks value.txt.
    const hop = p.agent(
      "hop.sh",
      [
        `echo $$ >> ${log}`,
        `[ -e ${stop} ] && exit 0`,
        'if [ "$(/bin/date +%s%3N)" -ge "$1" ]; then printf \'broken\\n\' > value.txt; exit 0; fi',
        "/bin/sleep 0.01",
        `/usr/bin/env -i /usr/bin/setsid /bin/sh ${join(p.agents, "hop.sh")} "$1" </dev/null >/dev/null 2>&1 &`,
        "exit 0",
        "",
      ].join("\n"),
    );
    const agent = p.agent(
      "agent.sh",
      `printf '42\\n' > value.txt\n/usr/bin/env -i /usr/bin/setsid /bin/sh ${hop} $(( $(/bin/date +%s%3N) + 1500 )) </dev/null >/dev/null 2>&1 &\nwhile [ ! -s ${log} ]; do :; done\n`,
    );
    const { code, json } = await runJson(p.root, agent);
    const returned = Date.now();
    expect(json.agent).toMatchObject({ subreaper: "active", detached: true });
    const survivors = survivorsOf(json);
    // Every generation seen ran hop.sh; the ones alive in the rounds were killed, none escaped.
    expect(survivors.length).toBeGreaterThan(0);
    for (const survivor of survivors) {
      // A generation is caught before or after its exec's: a forked `[sh]`, env, setsid, sh;
      // or one of its commands as a zombie (exited, no cmdline left: `[sleep]`, `[date]`).
      expect(survivor.command_line).toMatch(
        /^(\[(sh|env|setsid|sleep|date)\]|(\/usr\/bin\/env -i )?(\/usr\/bin\/setsid )?\/bin\/sh \S+hop\.sh \d+|\/bin\/sleep 0\.01|\/bin\/date \+%s%3N)$/,
      );
      expect(["exited", "killed"]).toContain(survivor.outcome);
    }
    expect(survivors.filter((s) => s.outcome === "killed").length).toBeGreaterThan(0);
    // Past the moment the chain would have struck, the verified bytes are still there.
    while (Date.now() < returned + 3000) await new Promise((resolve) => setTimeout(resolve, 50));
    const final = readFileSync(join(p.root, "value.txt"), "utf8");
    expect(final).toBe("42\n");
    expect(json.changes).toEqual([
      { path: "value.txt", change: "modified", content_digest: sha256(final), scope: "source" },
    ]);
    expect(json.verdict).toBe("verified");
    expect(code).toBe(0);
    // No generation runs any more.
    const logged = readFileSync(log, "utf8").split("\n").filter(Boolean).map(Number);
    expect(logged.filter((pid) => processRunning(pid))).toEqual([]);
  });
});

describe("turngate run: signals to a detached agent and Ctrl-C on a terminal", () => {
  test("without a terminal, SIGINT to turngate reaches the agent's whole group; the job it left is then killed", async () => {
    const p = project(100);
    const ready = join(p.agents, "ready");
    const pidFile = join(p.agents, "bg.pid");
    const agent = p.agent(
      "agent.sh",
      `printf '42\\n' > value.txt\ntrap 'exit 5' INT\nsleep 311 &\nbg=$!; while [ "$(cat /proc/$bg/comm 2>/dev/null)" != sleep ]; do :; done\necho $! > ${pidFile}\ntouch ${ready}\nwhile :; do sleep 0.05; done\n`,
    );
    const child = spawn(
      process.execPath,
      [...nodeArgs, "run", "--json", "--root", p.root, "--", "sh", agent],
      {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    cleanups.push(() => child.kill("SIGKILL"));
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const closed = new Promise((resolve) => child.on("close", resolve));
    const deadline = Date.now() + testTimeout(30_000);
    while (!existsSync(ready) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const pid = pidIn(pidFile);
    // The background job has set SIGINT to ignored once it runs `sleep`.
    while (
      !existsSync(`/proc/${pid}`) ||
      !readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith("sleep\0")
    ) {
      if (Date.now() > deadline) throw new Error(`sleep 311 never started: ${stderr}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill("SIGINT");
    const code = await Promise.race([
      closed,
      new Promise((r) => setTimeout(() => r("hung"), 30_000)),
    ]);
    expect({ code, stderr }).toMatchObject({ code: 0 });
    const json = JSON.parse(stdout) as Record<string, unknown>;
    expect(json.agent).toMatchObject({ exit_code: 5, detached: true });
    // A non-interactive shell's background job ignores SIGINT: it survives the agent.
    expect(survivorsOf(json)).toEqual([
      { pid, command_line: "sleep 311", found_by: "process_group", outcome: "killed" },
    ]);
    expect(json.verdict).toBe("verified");
  });

  test("SIGTERM during the survivors' grace kills them at once; turngate lives on and judges the turn", async () => {
    const p = project(600_000);
    const pidFile = join(p.agents, "bg.pid");
    const agent = p.agent(
      "agent.sh",
      `printf '42\\n' > value.txt\nsleep 315 &\nbg=$!; while [ "$(cat /proc/$bg/comm 2>/dev/null)" != sleep ]; do :; done\necho $! > ${pidFile}\n`,
    );
    const child = spawn(
      process.execPath,
      [...nodeArgs, "run", "--json", "--root", p.root, "--", "sh", agent],
      { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
    );
    cleanups.push(() => child.kill("SIGKILL"));
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const closed = new Promise((resolve) => child.on("close", resolve));
    const deadline = Date.now() + testTimeout(30_000);
    while (!stderr.includes("turngate: agent exited with code 0\n") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const pid = pidIn(pidFile);
    child.kill("SIGTERM");
    // The grace is 600 s: only the signal can end it within the test.
    const code = await Promise.race([
      closed,
      new Promise((r) => setTimeout(() => r("hung"), 30_000)),
    ]);
    expect({ code, stderr }).toMatchObject({ code: 0 });
    const json = JSON.parse(stdout) as Record<string, unknown>;
    expect(survivorsOf(json)).toEqual([
      { pid, command_line: "sleep 315", found_by: "process_group", outcome: "killed" },
    ]);
    expect(json.verdict).toBe("verified");
  });

  test("on a terminal, Ctrl-C reaches the agent, turngate keeps running and judges the turn", async () => {
    const p = project(100);
    const ready = join(p.agents, "ready");
    const agent = p.agent(
      "agent.sh",
      `printf '42\\n' > value.txt\ntrap 'exit 6' INT\ntouch ${ready}\nwhile :; do sleep 0.05; done\n`,
    );
    const json = join(p.agents, "result.json");
    const command = [
      process.execPath,
      ...nodeArgs,
      "run",
      "--json",
      "--root",
      p.root,
      "--",
      "sh",
      agent,
    ]
      .map((arg) => `'${arg.replaceAll("'", "'\\''")}'`)
      .join(" ");
    writeFileSync(join(p.agents, "run.sh"), `exec ${command} > ${json} 2>/dev/null\n`);
    const child = spawn(
      "script",
      ["-q", "-e", "-c", `exec sh ${join(p.agents, "run.sh")}`, "/dev/null"],
      {
        cwd: repoRoot,
        stdio: ["pipe", "ignore", "ignore"],
      },
    );
    cleanups.push(() => child.kill("SIGKILL"));
    const closed = new Promise((resolve) => child.on("close", resolve));
    const deadline = Date.now() + testTimeout(30_000);
    while (!existsSync(ready) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.stdin.write("\u0003"); // Ctrl-C on the pseudo-terminal: SIGINT to its foreground group
    expect(await closed).toBe(0);
    const result = JSON.parse(readFileSync(json, "utf8")) as Record<string, unknown>;
    expect(result.agent).toMatchObject({ exit_code: 6, detached: false, survivors: [] });
    expect(result.verdict).toBe("verified");
  });
});

describe("config agent_grace_ms", () => {
  test("is read in ms and must be a non-negative integer (the error names the field)", () => {
    const p = project(1500);
    expect(loadConfig(p.root).agentGraceMs).toBe(1500);
    p.write("turngate.config.json", `${JSON.stringify({ agent_grace_ms: -1 })}\n`);
    expect(() => loadConfig(p.root)).toThrow(
      `invalid ${join(p.root, "turngate.config.json")} at agent_grace_ms: Too small: expected number to be >=0`,
    );
  });
});
