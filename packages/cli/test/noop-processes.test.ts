/**
 * Issue 33 deliverable 5: a turn that changes nothing starts at most 2 processes besides the
 * agent and the checks (no sandbox probe, shell probe or HOME allow-list git until checks
 * need them). Counted in a real repository through logging `git`, `bwrap` and `bash` first
 * on PATH; a turn that changes a file still probes the sandbox and checks in the clean room.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { afterEach, describe, expect, test } from "vitest";

const BIN = resolve(__dirname, "../dist/bin.js");
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function which(name: string): string | undefined {
  const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

/** A repository with one empty commit, and a bin folder of logging wrappers. */
function setup(): { repo: string; log: string; env: NodeJS.ProcessEnv; bwrap: boolean } {
  const base = mkdtempSync(join(tmpdir(), "turngate-noop-"));
  made.push(base);
  const repo = join(base, "repo");
  const bin = join(base, "bin");
  const log = join(base, "calls.log");
  spawnSync("mkdir", ["-p", repo, bin]);
  writeFileSync(log, "");
  const realBwrap = which("bwrap");
  for (const name of ["git", "bash", ...(realBwrap !== undefined ? ["bwrap"] : [])]) {
    const real = which(name);
    if (real === undefined) throw new Error(`${name} not found on PATH`);
    writeFileSync(
      join(bin, name),
      `#!/bin/sh\necho "${name} $*" >> '${log}' 2>/dev/null\nexec '${real}' "$@"\n`,
    );
    chmodSync(join(bin, name), 0o755);
  }
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
    TURNGATE_NATIVE: "1",
    GIT_AUTHOR_NAME: "t",
    GIT_AUTHOR_EMAIL: "t@example.com",
    GIT_COMMITTER_NAME: "t",
    GIT_COMMITTER_EMAIL: "t@example.com",
  };
  // The defaults are what is counted: the sandbox where it starts (auto), whatever isolation
  // the test command's own pass forces (./scripts/dev test's second pass sets in-place).
  delete env.TURNGATE_BWRAP;
  delete env.TURNGATE_ISOLATION;
  spawnSync("git", ["init", "-q"], { cwd: repo, env });
  spawnSync("git", ["commit", "-q", "--allow-empty", "-m", "i"], { cwd: repo, env });
  return { repo, log, env, bwrap: realBwrap !== undefined };
}

function run(repo: string, env: NodeJS.ProcessEnv, agent: string[]) {
  const result = spawnSync(
    process.execPath,
    [BIN, "run", "--json", "--check", "true", "--", ...agent],
    { cwd: repo, env, encoding: "utf8", timeout: 60_000 },
  );
  return { ...result, json: JSON.parse(result.stdout) };
}

/** The logged calls, the safety `-c` options dropped. */
function calls(log: string): string[] {
  return readFileSync(log, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) =>
      line.replace(
        / -c core\.fsmonitor=false -c core\.hooksPath=\/dev\/null -c core\.untrackedCache=false/g,
        "",
      ),
    );
}

describe("a no-op turn's processes", () => {
  test("a turn that changes nothing starts two git rev-parse and nothing else (no bwrap, no shell probe, no git config)", () => {
    const { repo, log, env } = setup();
    // The first turn in a repository records its baseline tree (git add -A & co.): not counted.
    expect(run(repo, env, ["true"]).status).toBe(0);
    writeFileSync(log, "");
    const plain = spawnSync(process.execPath, [BIN, "run", "--check", "true", "--", "true"], {
      cwd: repo,
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(plain.status).toBe(0);
    expect(calls(log)).toEqual([
      "git rev-parse --show-toplevel",
      "git rev-parse --show-toplevel HEAD --symbolic-full-name HEAD",
    ]);
    // --json reports the checks' shell with its pipefail answer: that one read probes it.
    writeFileSync(log, "");
    const result = run(repo, env, ["true"]);
    expect(result.status).toBe(0);
    expect(result.json.verdict).toBe("narrative");
    expect(calls(log)).toEqual([
      "git rev-parse --show-toplevel",
      "git rev-parse --show-toplevel HEAD --symbolic-full-name HEAD",
      "bash -c set -o pipefail",
    ]);
    expect(result.json.isolation).toEqual({
      mode: "clean-room",
      requested: "auto",
      available: true,
      reason: "no check ran, so the check sandbox was not started",
    });
  });

  test("a turn that changes a file still probes the sandbox and runs its check (clean room where bubblewrap starts)", () => {
    const { repo, log, env, bwrap } = setup();
    expect(run(repo, env, ["true"]).status).toBe(0);
    writeFileSync(log, "");
    const result = run(repo, env, ["sh", "-c", "echo x > f.txt"]);
    expect(result.json.verdict).toBe("verified");
    const logged = calls(log);
    expect(logged).toContain("bash -c set -o pipefail");
    expect(logged.some((line) => line.startsWith("git config --global -z --get-regexp"))).toBe(
      result.json.isolation.mode === "clean-room",
    );
    if (bwrap) {
      expect(logged.filter((line) => line.startsWith("bwrap ")).length).toBeGreaterThan(0);
      // The probe is the sandbox running the capability check.
      expect(logged.some((line) => line.includes("CapEff"))).toBe(true);
    }
    const probe = spawnSync(process.execPath, [BIN, "--version"], { env, encoding: "utf8" });
    expect(probe.status).toBe(0);
    if (bwrap && result.json.isolation.reason === undefined) {
      expect(result.json.isolation).toEqual({
        mode: "clean-room",
        requested: "auto",
        available: true,
      });
    }
  });
});
