/**
 * The stop's time budget (docs/hooks.md "Time budget of a stop"): a harness treats a stop hook
 * that outlives its timeout as not blocking, so the whole stop — the clean room's dependency
 * setup and every check — draws from one budget below the installed hook's timeout. The real
 * `turngate hook claude-code Stop` binary is run as Claude Code runs it (payload on stdin,
 * exit code and stderr read back with `readStop`) on a real temporary git repository with
 * real check processes, under `TURNGATE_STOP_BUDGET_MS`: a check that outlives the budget is
 * killed and the stop blocks naming the budget, counted like any check that could not run;
 * a quick check under the same budget is verified.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { STOP_HOOK_TIMEOUT_S } from "../../src/hooks/install.js";
import type { HookSession } from "../../src/hooks/session-state.js";
import {
  budgetSeconds,
  STOP_BUDGET_ENV,
  STOP_BUDGET_MS,
  startStopBudget,
  stopBudgetMs,
  withinBudget,
} from "../../src/hooks/stop-budget.js";
import { SKIP_REASON, sandbox } from "../clean-room/helpers.js";
import { gitProject } from "../helpers.js";
import { inPlaceChecks } from "../in-place.js";
import { EVENT_NAMES, type FixtureEvent, payload, readStop } from "./fixtures.js";

vi.setConfig({ testTimeout: testTimeout(120_000), hookTimeout: testTimeout(120_000) });

// The checks run in place (docs/design.md §3a): the budget applies to both models alike.
inPlaceChecks();

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
const bin = join(repoRoot, "packages/cli/dist/bin.js");

interface Env {
  root: string;
  state: string;
  home: string;
  write: (path: string, text: string) => void;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`build the CLI first: ${bin} is missing`);
});

/**
 * A repository whose one check `id` runs `command`, with `extra` configuration and `files`
 * (path → text) committed with it.
 */
function project(
  id: string,
  command: string,
  extra: Record<string, unknown> = {},
  files: Record<string, string> = {},
): Env {
  const outside = realpathSync(mkdtempSync(join(tmpdir(), "turngate-budget-")));
  const p = gitProject({
    "value.js": "module.exports = 41;\n",
    "turngate.config.json": `${JSON.stringify({ checks: [{ id, command }], ...extra })}\n`,
    ...files,
  });
  cleanups.push(() => {
    p.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });
  return {
    root: p.root,
    state: join(outside, "state"),
    home: join(outside, "home"),
    write: p.write,
  };
}

/** `turngate hook claude-code <event>` as Claude Code runs it, with the stop budget `budgetMs`. */
function send(
  env: Env,
  kind: FixtureEvent,
  budgetMs: string,
  extraEnv: Record<string, string> = {},
) {
  const body = payload("claude-code", kind, { session: "sess-1", root: env.root });
  const { TURNGATE_SIGNING_KEY: _k, ...base } = process.env;
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    [bin, "hook", "claude-code", EVENT_NAMES["claude-code"][kind]],
    {
      cwd: env.root,
      input: JSON.stringify(body),
      encoding: "utf8",
      timeout: testTimeout(60_000),
      env: {
        ...base,
        HOME: env.home,
        XDG_CONFIG_HOME: join(env.home, ".config"),
        TURNGATE_HOOK_STATE_DIR: env.state,
        [STOP_BUDGET_ENV]: budgetMs,
        ...extraEnv,
      },
    },
  );
  const raw = { stdout: r.stdout, stderr: r.stderr, status: r.status };
  return { raw, reading: readStop("claude-code", raw), ms: Date.now() - started };
}

/** The one session file under the state folder. */
function sessionFile(env: Env): HookSession & { turn: NonNullable<HookSession["turn"]> } {
  const [workspace] = readdirSync(env.state);
  const [session] = readdirSync(join(env.state, workspace as string));
  return JSON.parse(
    readFileSync(join(env.state, workspace as string, session as string, "session.json"), "utf8"),
  );
}

/** The command lines of the processes whose command line contains `marker`. */
function processesWith(marker: string): string[] {
  const r = spawnSync("pgrep", ["-af", marker], { encoding: "utf8" });
  return r.stdout.split("\n").filter((line) => line !== "" && !line.includes("pgrep"));
}

const DIGEST = /effect digest ([0-9a-f]{64})/;

describe("stop time budget (claude-code)", () => {
  test("a check that outlives the budget is killed; the stop blocks in time, naming the budget and the check, counted as could-not-run", () => {
    const marker = `tg-budget-${process.pid}-${Date.now()}`;
    // A shell with a child: both carry the marker, so neither may survive the budget.
    const env = project("slow", `node -e "setTimeout(() => {}, 30000)" ${marker}; echo ${marker}`, {
      max_infrastructure_attempts: 1,
    });
    expect(send(env, "turn_start", "3000").raw.status).toBe(0);
    env.write("value.js", "module.exports = 42;\n");

    const first = send(env, "stop", "3000");
    expect(first.ms).toBeLessThan(testTimeout(10_000));
    expect(first.raw.status).toBe(2);
    expect(first.reading.decision).toBe("block");
    const reason = first.reading.decision === "block" ? first.reading.reason : "";
    expect(reason).toContain(
      `the checks did not finish within the stop's time budget (3 s, below the hook's 600 s timeout): the check \`slow\` (\`node -e "setTimeout(() => {}, 30000)" ${marker}; echo ${marker}\`) was still running and was stopped.`,
    );
    expect(reason).toContain("attempt 1 of 3 on these exact changes");
    expect(reason).toContain("Make the check able to run");
    expect(processesWith(marker)).toEqual([]);
    const digest = DIGEST.exec(reason)?.[1] as string;
    expect(sessionFile(env).turn.attempts[digest]).toEqual({
      attempts: 1,
      infrastructure_attempts: 1,
    });

    // Counted like any check that could not run: past max_infrastructure_attempts it escalates.
    const second = send(env, "stop", "3000");
    expect(second.raw.status).toBe(0);
    expect(second.reading.decision).toBe("allow");
    const notice = second.reading.decision === "allow" ? (second.reading.notice ?? "") : "";
    expect(notice).toContain("turngate: the turn ends INCOMPLETE (escalated), not verified");
    expect(notice).toContain("the stop's time budget (3 s, below the hook's 600 s timeout)");
    expect(processesWith(marker)).toEqual([]);
  });

  test("a quick passing check under the same budget ends verified", () => {
    const env = project("quick", `node -e "process.exit(require('./value.js') === 42 ? 0 : 1)"`);
    expect(send(env, "turn_start", "3000").raw.status).toBe(0);
    env.write("value.js", "module.exports = 42;\n");
    const r = send(env, "stop", "3000");
    expect(r.raw.status).toBe(0);
    expect(r.reading.decision).toBe("allow");
    const notice = r.reading.decision === "allow" ? (r.reading.notice ?? "") : "";
    expect(notice).toMatch(/^turngate: verified \(effect digest [0-9a-f]{64}\)/);
    expect(notice).not.toContain("time budget");
  });
});

// The host's choice (docs/design.md §3b), over this file's in-place default.
const CLEAN_ROOM = { TURNGATE_ISOLATION: "clean-room" };

describe.skipIf(!sandbox.available)(`stop time budget in the clean room${SKIP_REASON}`, () => {
  test("a dependency whose postinstall hangs: the setup is stopped at the budget and the stop blocks naming it", () => {
    const marker = `tg-budget-setup-${process.pid}-${Date.now()}`;
    // The attack: a local dependency whose install script never ends; node_modules changed
    // during the turn, so the room's setup (npm install) runs it.
    const env = project(
      "quick",
      "true",
      {},
      {
        ".gitignore": "node_modules/\n",
        "evil/package.json": `${JSON.stringify({ name: "evil", version: "1.0.0", scripts: { postinstall: `sleep 3600 # ${marker}` } })}\n`,
        "package.json": `${JSON.stringify({ name: "app", version: "1.0.0", private: true, dependencies: { evil: "file:./evil" } })}\n`,
        "node_modules/x.js": "x\n",
      },
    );
    expect(send(env, "turn_start", "5000", CLEAN_ROOM).raw.status).toBe(0);
    env.write("value.js", "module.exports = 42;\n");
    env.write("node_modules/x.js", "changed by the agent\n");
    const r = send(env, "stop", "5000", CLEAN_ROOM);
    expect(r.ms).toBeLessThan(testTimeout(12_000));
    expect(r.raw.status).toBe(2);
    const reason = r.reading.decision === "block" ? r.reading.reason : "";
    expect(reason).toContain(
      "the checks did not finish within the stop's time budget (5 s, below the hook's 600 s timeout): the dependency setup `npm install --no-package-lock --no-audit --no-fund` was still running and was stopped.",
    );
    expect(processesWith(marker)).toEqual([]);
  });
});

describe("stopBudgetMs", () => {
  test("the default is the installed hook timeout less a minute: 540 000 ms below 600 s", () => {
    expect([STOP_HOOK_TIMEOUT_S, STOP_BUDGET_MS, stopBudgetMs({})]).toEqual([
      600, 540_000, 540_000,
    ]);
    expect(budgetSeconds(STOP_BUDGET_MS)).toBe("540 s");
  });

  test("TURNGATE_STOP_BUDGET_MS only lowers the budget; a larger or malformed value keeps the default", () => {
    expect(stopBudgetMs({ [STOP_BUDGET_ENV]: "3000" })).toBe(3000);
    expect(stopBudgetMs({ [STOP_BUDGET_ENV]: "539999" })).toBe(539_999);
    for (const raised of ["540001", "600000", "3600000", "9999999999"]) {
      expect([raised, stopBudgetMs({ [STOP_BUDGET_ENV]: raised })]).toEqual([raised, 540_000]);
    }
    for (const bad of ["0", "-5", "", "3e3", "1.5", " 3000", "abc", "00"]) {
      expect([bad, stopBudgetMs({ [STOP_BUDGET_ENV]: bad })]).toEqual([bad, 540_000]);
    }
  });
});

describe("withinBudget", () => {
  test("work that ends in time is the answer; abandon is never called and the budget's signal stays unaborted", async () => {
    const budget = startStopBudget(1_000);
    const abandoned: string[] = [];
    const out = await withinBudget(
      budget,
      Promise.resolve("judged"),
      () => "late",
      50,
      () => abandoned.push("abandon"),
    );
    budget.release();
    expect([out, abandoned, budget.signal.aborted]).toEqual(["judged", [], false]);
  });

  test("work still pending the grace after the budget: the signal aborted, abandon called once, the late answer given", async () => {
    const budget = startStopBudget(30);
    const abandoned: string[] = [];
    const started = Date.now();
    const out = await withinBudget(
      budget,
      new Promise<string>(() => {}),
      () => "late",
      40,
      () => abandoned.push("abandon"),
    );
    expect([out, abandoned, budget.signal.aborted]).toEqual(["late", ["abandon"], true]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(65);
  });
});
