/**
 * `./scripts/dev load-suites` / `test --under-load` (issue 35 item 5): one busy loop per
 * requested core runs while the suites run, the test timeouts are scaled, and every loop is
 * reaped by pid when the script ends — normally, on a failing suite and on Ctrl-C.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../test-time.js";

vi.setConfig({ testTimeout: testTimeout(120_000) });

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Runs scripts/dev with `args`; `interrupt` sends SIGINT to its process group once the load is up. */
function dev(args: string[], interrupt = false) {
  const child = spawn(join(ROOT, "scripts/dev"), args, {
    cwd: ROOT,
    detached: true,
    env: { ...process.env, TURNGATE_LOAD_PROCESSES: "2", TURNGATE_TEST_TIME_SCALE: "" },
  });
  let stderr = "";
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
    if (interrupt && /vitest|RUN/.test(stderr) && /busy-loop processes/.test(stderr)) {
      interrupt = false;
      setTimeout(() => process.kill(-(child.pid as number), "SIGINT"), 500);
    }
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string; pids: number[] }>(
    (resolve) =>
      child.on("close", (code) => {
        const pids = (/busy-loop processes \(pids ([\d ]+)\)/.exec(stderr)?.[1] ?? "")
          .split(" ")
          .filter(Boolean)
          .map(Number);
        resolve({ code, stdout, stderr, pids });
      }),
  );
}

describe("scripts/dev under load", () => {
  test("load-suites: two busy loops run with the scale 4 and are gone after a passing run", async () => {
    const r = await dev(["load-suites", "scripts/test/test-time.test.ts"]);
    expect(r.code).toBe(0);
    expect(r.pids).toHaveLength(2);
    expect(r.stderr).toContain("test timeouts x4 (TURNGATE_TEST_TIME_SCALE)");
    expect(r.stdout).toBe("3 passed, 0 failed\n");
    expect(r.pids.filter(alive)).toEqual([]);
    expect(r.stderr).toContain(`[dev] load stopped (pids ${r.pids.join(" ")})`);
  });

  test("a failing run and Ctrl-C also reap every loop; Ctrl-C exits 130", async () => {
    const failed = await dev(["load-suites", "scripts/test/no-such-suite-xyz.test.ts"]);
    expect(failed.code).not.toBe(0);
    expect(failed.pids).toHaveLength(2);
    expect(failed.pids.filter(alive)).toEqual([]);
    const interrupted = await dev(["load-suites", "scripts/test/test-time.test.ts"], true);
    expect(interrupted.pids).toHaveLength(2);
    expect(interrupted.code).toBe(130);
    expect(interrupted.pids.filter(alive)).toEqual([]);
    for (const run of [failed, interrupted]) {
      expect(run.stderr).toContain(`[dev] load stopped (pids ${run.pids.join(" ")})`);
    }
  });

  test("a bad TURNGATE_LOAD_PROCESSES is refused naming it; test takes only --under-load", async () => {
    const child = spawn(join(ROOT, "scripts/dev"), ["test", "--quick"], { cwd: ROOT });
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
    });
    const code = await new Promise((r) => child.on("close", r));
    expect([code, err]).toEqual([1, "usage: scripts/dev test [--under-load]\n"]);
    const bad = spawn(join(ROOT, "scripts/dev"), ["load-suites", "x"], {
      cwd: ROOT,
      env: { ...process.env, TURNGATE_LOAD_PROCESSES: "lots" },
    });
    let badErr = "";
    bad.stderr.on("data", (d) => {
      badErr += d;
    });
    expect(await new Promise((r) => bad.on("close", r))).toBe(1);
    expect(badErr).toContain(
      "[dev] TURNGATE_LOAD_PROCESSES must be a whole number ≥ 1, got 'lots'",
    );
  });
});
