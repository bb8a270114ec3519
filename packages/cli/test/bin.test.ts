import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { CLI_BUNDLE, cliBundleArgs } from "./cli-bundle.js";
import { ALLOW_FRESH_ENV, gitProject } from "./helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(90_000), hookTimeout: testTimeout(90_000) });

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = join(repoRoot, "packages/cli/src/bin.ts");
const bundle = cliBundleArgs();

/** Run the built bundle (dist/bin.js) as a real process, as a user's `turngate` runs. */
function turngate(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [...bundle, ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: testTimeout(60_000),
    env,
  });
}

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe("turngate bin", () => {
  test("starts with a node shebang, in the source and in the bundle", () => {
    expect(readFileSync(bin, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
    expect(readFileSync(CLI_BUNDLE, "utf8").split("\n")[0]).toBe("#!/usr/bin/env node");
  });

  test("as a process: exit 2 for an incomplete turn, 0 for a verified one, 1 for bad usage", () => {
    const p = gitProject({ "value.txt": "41\n" });
    cleanup = p.cleanup;
    const agent = p.agent("agent.js", `require("node:fs").writeFileSync("value.txt", "42\\n");`);
    const failing = turngate(["run", "--root", p.root, "--check", "exit 1", "--", "node", agent]);
    expect(failing.status).toBe(2);
    expect(failing.stdout).toContain(
      "incomplete (unverified_mutation): the change (effect digest ",
    );
    p.write("value.txt", "41\n");
    // A new first turn (docs/cli.md "Gapless turns": --fresh with the host's consent).
    const verified = turngate(
      ["run", "--fresh", "--root", p.root, "--check", "grep -q 42 value.txt", "--", "node", agent],
      { ...process.env, ...ALLOW_FRESH_ENV },
    );
    expect(verified.status).toBe(0);
    expect(verified.stdout).toMatch(/verified: effect digest [0-9a-f]{64}\n/);
    const usage = turngate(["run", "--no-such-flag"]);
    expect(usage.status).toBe(1);
    expect(usage.stderr).toBe(
      "turngate: error: unknown option '--no-such-flag' (see turngate run --help) [usage]\n",
    );
  });

  test("run --json: stdout is only the outcome JSON; the agent's stdout goes to stderr", () => {
    const p = gitProject({ "value.txt": "41\n" });
    cleanup = p.cleanup;
    const agent = p.agent(
      "agent.js",
      `require("node:fs").writeFileSync("value.txt", "42\\n"); console.log("agent: hello on stdout"); console.error("agent: on stderr");`,
    );
    const run = turngate([
      "run",
      "--json",
      "--root",
      p.root,
      "--check",
      "grep -q 42 value.txt",
      "--",
      "node",
      agent,
    ]);
    expect(run.status).toBe(0);
    const json = JSON.parse(run.stdout);
    expect(run.stdout).toBe(`${JSON.stringify(json, null, 2)}\n`);
    expect(json.schema).toBe("turngate.turn_result.v1");
    expect(json.verdict).toBe("verified");
    expect(run.stderr).toContain("agent: hello on stdout\n");
    expect(run.stderr).toContain("agent: on stderr\n");
  });

  test("SIGTERM to turngate is forwarded to the agent, and the turn is still judged", async () => {
    const p = gitProject({ "value.txt": "41\n" });
    cleanup = p.cleanup;
    const ready = join(p.agents, "ready");
    const agent = p.agent(
      "agent.js",
      `const fs = require("node:fs");
fs.writeFileSync("value.txt", "42\\n");
process.on("SIGTERM", () => { console.log("agent: got SIGTERM"); process.exit(143); });
fs.writeFileSync(${JSON.stringify(ready)}, "");
setInterval(() => {}, 1000);`,
    );
    const child = spawn(
      process.execPath,
      [...bundle, "run", "--root", p.root, "--check", "grep -q 42 value.txt", "--", "node", agent],
      { cwd: repoRoot },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const deadline = Date.now() + testTimeout(30_000);
    while (!existsSync(ready) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stdout).toContain("agent: got SIGTERM\n");
    expect(stderr).toContain("turngate: agent exited with code 143\n");
    expect(stdout).toMatch(/verified: effect digest [0-9a-f]{64}\n/);
    expect(code).toBe(0);
  });
});

describe("turngate bin: a reader that goes away (QA P4)", () => {
  test("turngate run --help | head -1: no EPIPE stack trace, exit 0", async () => {
    // stdout is a pipe closed before turngate writes: the write fails with EPIPE.
    const child = spawn(process.execPath, [...bundle, "run", "--help"], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  });
});
