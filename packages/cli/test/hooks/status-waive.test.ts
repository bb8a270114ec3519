/**
 * `turngate status [--json]` and `turngate waive DIGEST --reason` (issue 19 item 5), after a
 * real blocked stop of the real binary: status shows the session, baseline, attempts, the
 * cached failure and the last verdict; waive refuses without a terminal (no bypass) and,
 * from one, records the waiver that the next stop honours.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { type CliContext, main } from "../../src/index.js";
import { Collector, gitProject } from "../helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(120_000), hookTimeout: testTimeout(120_000) });

const bin = join(dirname(fileURLToPath(import.meta.url)), "../../dist/bin.js");
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe("turngate status and waive", () => {
  test("status lists the session; waive refuses without a terminal, then records a waiver the next stop honours", async () => {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), "turngate-status-")));
    const p = gitProject({
      "value.txt": "1\n",
      "turngate.config.json": `${JSON.stringify({ checks: [{ id: "unit", command: "grep -qx 1 value.txt" }] })}\n`,
    });
    cleanups.push(() => {
      p.cleanup();
      rmSync(outside, { recursive: true, force: true });
    });
    const { TURNGATE_SIGNING_KEY: _k, ...base } = process.env;
    const env = {
      ...base,
      HOME: join(outside, "home"),
      TURNGATE_HOOK_STATE_DIR: join(outside, "state"),
    };
    const hook = (event: string, body: object) =>
      spawnSync(process.execPath, [bin, "hook", "claude-code", event], {
        cwd: p.root,
        env,
        input: JSON.stringify({ session_id: "s-42", cwd: p.root, hook_event_name: event, ...body }),
        encoding: "utf8",
        timeout: testTimeout(120_000),
      });
    const run = async (args: string[], tty: boolean) => {
      const stdout = new Collector();
      const stderr = new Collector();
      const ctx: CliContext = { stdout, stderr, cwd: p.root, env, stdinIsTTY: tty };
      return { code: await main(args, ctx), stdout: stdout.text, stderr: stderr.text };
    };

    expect(hook("UserPromptSubmit", { prompt: "go" }).status).toBe(0);
    p.write("value.txt", "2\n");
    const blocked = hook("Stop", { stop_hook_active: false });
    expect(blocked.status).toBe(2);
    const digest = /effect digest ([0-9a-f]{64})/.exec(blocked.stderr)?.[1] as string;

    const status = await run(["status", "--json"], false);
    expect(status.code).toBe(0);
    const json = JSON.parse(status.stdout);
    expect(json.schema).toBe("turngate.status.v1");
    expect(json.sessions).toHaveLength(1);
    expect(json.sessions[0]).toMatchObject({
      harness: "claude-code",
      session_id: "s-42",
      cached_failures: 1,
      turn: {
        number: 1,
        blocks: 1,
        attempts: { [digest]: { attempts: 1, infrastructure_attempts: 0 } },
      },
      last_verdict: {
        verdict: "continue",
        reason: null,
        effect_digest: digest,
        attempt: 1,
        cached: false,
        trust: "unsandboxed",
      },
      escalations: [],
      waivers: [],
    });
    expect(json.sessions[0].baseline_id).toMatch(/^[0-9a-f]{64}$/);
    const text = await run(["status"], false);
    expect(text.stdout).toContain(`claude-code session s-42 (updated `);
    expect(text.stdout).toContain(`    ${digest}: 1 attempt(s), 0 could not run`);
    // The person's words, not the gate's `continue` (issue 34 item 8).
    expect(text.stdout).toMatch(
      new RegExp(
        `\n {2}last stop: blocked: the agent was told to fix it and stop again \\(attempt 1; effect digest ${digest}; trust: unsandboxed\\), \\d{4}-[^\n]+Z\n`,
      ),
    );
    expect(text.stdout).not.toContain("continue");

    const refused = await run(["waive", digest, "--reason", "looked at it"], false);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "turngate waive is for a person at a terminal, and standard input is not one",
    );
    const waived = await run(["waive", digest, "--reason", "looked at it"], true);
    expect(waived.code).toBe(0);
    expect(waived.stdout).toBe(
      `waiver recorded for claude-code session s-42: effect digest ${digest} (looked at it); the next stop whose changes have exactly this digest ends as waived\n`,
    );
    const allowed = hook("Stop", { stop_hook_active: true });
    expect(allowed.status).toBe(0);
    const notice = JSON.parse(allowed.stdout).systemMessage as string;
    expect(notice.split("\n")[0]).toBe(`turngate: waived (effect digest ${digest})`);
    expect(notice.split("\n")[1]).toMatch(new RegExp(`^proof: .*/proofs/${digest}\\.json$`));

    const bad = await run(["waive", "abc", "--reason", "x"], true);
    expect(bad.stderr).toContain("must be the 64 hex characters of an effect digest");
  });
});
