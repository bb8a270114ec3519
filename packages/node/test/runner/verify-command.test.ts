import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runVerificationCommand } from "../../src/runner/verify-command.js";
import { runningGroupMembers, tempDir } from "./helpers.js";

let dir: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  dir = await tempDir("verify-command");
});
afterEach(async () => {
  await dir.cleanup();
});

const command = (text: string, extra: { expect_exit?: number; timeout_ms?: number } = {}) => ({
  id: "t:1",
  kind: "test",
  description: "a check",
  command: text,
  required: true,
  expect_exit: extra.expect_exit ?? 0,
  ...(extra.timeout_ms !== undefined ? { timeout_ms: extra.timeout_ms } : {}),
});

const base = {
  id: "t:1",
  kind: "test",
  description: "a check",
  required: true,
  suggested_tools: ["bash"],
};

describe("runVerificationCommand", () => {
  test("failure_class on failed checks: missing program → infrastructure, timeout → timeout, exit 1 → assertion", async () => {
    const missing = await runVerificationCommand(command("turngate-no-such-program-xyz --run"), {
      root: dir.path,
    });
    expect(missing.check.status).toBe("failed");
    expect(missing.check.failure_class).toBe("infrastructure");
    const slow = await runVerificationCommand(command("sleep 30", { timeout_ms: 300 }), {
      root: dir.path,
    });
    expect(slow.check.status).toBe("failed");
    expect(slow.check.failure_class).toBe("timeout");
    const failing = await runVerificationCommand(command("exit 1"), { root: dir.path });
    expect(failing.check).toEqual({
      ...base,
      status: "failed",
      residual_risk: "verification command exited with code 1, expected 0: exit 1",
      failure_class: "assertion",
    });
    const passing = await runVerificationCommand(command("true"), { root: dir.path });
    expect(passing.check.status).toBe("passed");
    expect("failure_class" in passing.check).toBe(false);
  });

  test("a passing command gives a passed check whose evidence is the full log", async () => {
    const logDir = join(dir.path, ".turngate", "logs");
    const run = await runVerificationCommand(command("echo ok"), { root: dir.path, logDir });
    // sha256 of the 3 bytes "ok\n" (sha256sum)
    const logPath = join(
      logDir,
      "dc51b8c96c2d745df3bd5590d990230a482fd247123599548e0632fdbf97fc22.log",
    );
    expect(run.check).toEqual({
      ...base,
      status: "passed",
      evidence_uris: [pathToFileURL(logPath).href],
    });
    expect(readFileSync(logPath, "utf8")).toBe("ok\n");
    expect(run.metadata).toEqual({
      exit_code: 0,
      duration_ms: run.execution.durationMs,
      timeout_ms: 120_000,
      output: { total_bytes: 3, captured_bytes: 3, truncated: false, timed_out: false },
      artifact_uri: pathToFileURL(logPath).href,
      log_sha256: "dc51b8c96c2d745df3bd5590d990230a482fd247123599548e0632fdbf97fc22",
    });
  });

  test("a failing command gives a failed check naming the exit code", async () => {
    const run = await runVerificationCommand(command("exit 3"), { root: dir.path });
    expect(run.check).toEqual({
      ...base,
      status: "failed",
      residual_risk: "verification command exited with code 3, expected 0: exit 3",
      failure_class: "assertion",
    });
  });

  test("expect_exit: a command exiting with the expected non-zero code passes", async () => {
    const run = await runVerificationCommand(command("exit 3", { expect_exit: 3 }), {
      root: dir.path,
    });
    expect(run.check.status).toBe("passed");
  });

  test("a timed-out command fails as 'could not run' and leaves no process of its group", async () => {
    const run = await runVerificationCommand(
      command("echo $$ > group.pid; sleep 30 & sleep 30", { timeout_ms: 1_000 }),
      { root: dir.path },
    );
    const pgid = Number(readFileSync(join(dir.path, "group.pid"), "utf8"));
    expect(run.check).toEqual({
      ...base,
      status: "failed",
      residual_risk: "verification command could not run: command timed out after 1000ms",
      failure_class: "timeout",
    });
    expect(run.metadata.output).toEqual({
      total_bytes: 0,
      captured_bytes: 0,
      truncated: false,
      timed_out: true,
    });
    expect(runningGroupMembers(pgid)).toEqual([]);
  });

  test("a command that cannot start fails as 'could not run'", async () => {
    const root = join(dir.path, "gone");
    const run = await runVerificationCommand(command("true"), { root });
    expect(run.check).toEqual({
      ...base,
      status: "failed",
      residual_risk: `verification command could not run: working directory does not exist: ${root}`,
      failure_class: "infrastructure",
    });
  });

  test("a masked exit status never counts as passed: needs_review, 'exit status masked'", async () => {
    for (const text of ["false || true", "false | cat", "false; true"]) {
      const run = await runVerificationCommand(command(text), { root: dir.path });
      expect(run.execution.exitCode).toBe(0);
      expect(run.check).toEqual({
        ...base,
        status: "needs_review",
        residual_risk: "exit status masked",
      });
    }
    const chained = await runVerificationCommand(command("cd . && false"), { root: dir.path });
    expect(chained.check.status).toBe("failed");
    // Masked, but the command still exits with an unexpected code: that stays a failure.
    const visible = await runVerificationCommand(command("false; exit 3"), { root: dir.path });
    expect(visible.check).toEqual({
      ...base,
      status: "failed",
      residual_risk: "verification command exited with code 3, expected 0: false; exit 3",
      failure_class: "assertion",
    });
  });
});
