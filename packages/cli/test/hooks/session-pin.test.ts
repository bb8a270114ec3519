/**
 * A session's workspace is pinned by its first turn start (docs/hooks.md "Where the
 * workspace is"), through the real `turngate` binary as Claude Code runs it (payload on
 * stdin, the hook process started in the shell's current directory), on a real temporary
 * git repository with a real check. The attack: the agent makes `sub/.git` a file pointing
 * back at the repository and `cd`s into `sub`, so `git rev-parse --show-toplevel` from the
 * payload's `cwd` answers `sub` — a workspace with no baseline, no changes and no opt-in.
 * The pinned session keeps judging the project: its stop blocks on the broken file, the next
 * turn sent from `sub` carries the change over, and only the honest fix ends verified.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { SESSION_ROOTS_DIR } from "../../src/hooks/session-pin.js";
import type { HookSession } from "../../src/hooks/session-state.js";
import { gitProject } from "../helpers.js";
import { inPlaceChecks } from "../in-place.js";
import {
  EVENT_NAMES,
  type FixtureEvent,
  payload,
  readStop,
  workspaceStateDirs,
} from "./fixtures.js";

vi.setConfig({ testTimeout: testTimeout(180_000), hookTimeout: testTimeout(180_000) });
inPlaceChecks();

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
const bin = join(repoRoot, "packages/cli/dist/bin.js");

const CHECK = `const v = require("./value.js");
if (v !== 42) { console.log("value.js: expected 42, got " + v); process.exit(1); }
`;
const CONFIG = `${JSON.stringify({ checks: [{ id: "unit", command: "node check.js" }] })}\n`;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`build the CLI first: ${bin} is missing`);
});

interface Setup {
  root: string;
  sub: string;
  outside: string;
  /** `--user` on every hook command (a user-level install). */
  user: boolean;
  /** `CLAUDE_PROJECT_DIR` given to the hook, or undefined. */
  projectDir?: string;
}

function setup(user: boolean, projectDir: boolean): Setup {
  const outside = realpathSync(mkdtempSync(join(tmpdir(), "turngate-pin-")));
  const p = gitProject({
    "value.js": "module.exports = 41;\n",
    "check.js": CHECK,
    "turngate.config.json": CONFIG,
  });
  cleanups.push(p.cleanup, () => rmSync(outside, { recursive: true, force: true }));
  return {
    root: p.root,
    sub: join(p.root, "sub"),
    outside,
    user,
    ...(projectDir ? { projectDir: p.root } : {}),
  };
}

/** Send a Claude Code event of session `session` from `dir` (payload `cwd` and process cwd). */
function send(s: Setup, kind: FixtureEvent, dir: string, session = "s-pin", prompt?: string) {
  const { TURNGATE_SIGNING_KEY: _k, CLAUDE_PROJECT_DIR: _p, ...base } = process.env;
  const body = payload("claude-code", kind, {
    session,
    root: dir,
    ...(prompt ? { prompt } : {}),
    ...(kind === "tool" ? { path: join(s.root, "value.js") } : {}),
  });
  const r = spawnSync(
    process.execPath,
    [bin, "hook", "claude-code", EVENT_NAMES["claude-code"][kind], ...(s.user ? ["--user"] : [])],
    {
      cwd: dir,
      input: JSON.stringify(body),
      encoding: "utf8",
      timeout: testTimeout(120_000),
      env: {
        ...base,
        HOME: join(s.outside, "home"),
        XDG_CONFIG_HOME: join(s.outside, "home", ".config"),
        TURNGATE_HOOK_STATE_DIR: join(s.outside, "state"),
        ...(s.projectDir ? { CLAUDE_PROJECT_DIR: s.projectDir } : {}),
      },
    },
  );
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

function stop(s: Setup, dir: string, session = "s-pin") {
  return readStop("claude-code", send(s, "stop", dir, session));
}

/** The agent's pivot: `mkdir sub && printf 'gitdir: ../.git\n' > sub/.git && cd sub`. */
function pivot(s: Setup): void {
  mkdirSync(s.sub);
  writeFileSync(join(s.sub, ".git"), "gitdir: ../.git\n");
  const top = spawnSync("git", ["rev-parse", "--show-toplevel"], { cwd: s.sub, encoding: "utf8" });
  // The precondition of the attack: git itself now names `sub` as the top level.
  expect(top.stdout.trim()).toBe(s.sub);
}

/** The session files under the hook state folder, by workspace root. */
function sessions(s: Setup): HookSession[] {
  const state = join(s.outside, "state");
  return workspaceStateDirs(state).flatMap((w) =>
    readdirSync(join(state, w)).map(
      (d) => JSON.parse(readFileSync(join(state, w, d, "session.json"), "utf8")) as HookSession,
    ),
  );
}

function note(s: Setup): string {
  return `turngate: this session's workspace is ${s.root} (where it started); the event came from ${s.sub}, which is judged as part of it.`;
}

describe("a session's workspace is pinned by its first turn start", () => {
  test.each([
    ["a project-level install", false, false],
    ["a --user install with turngate.config.json and CLAUDE_PROJECT_DIR", true, true],
  ])(
    "%s: a cd into a folder whose .git points back at the repository still judges the project; the next turn from there is not narrative; the honest fix from there ends verified",
    (_name, user, projectDir) => {
      const s = setup(user, projectDir);
      expect(send(s, "turn_start", s.root)).toEqual({ stdout: "", stderr: "", status: 0 });
      writeFileSync(join(s.root, "value.js"), "module.exports = 43;\n");
      expect(send(s, "tool", s.root).status).toBe(0);
      pivot(s);

      // Turn 1 stops from sub: blocked on the project's broken value.js, with the note first.
      const first = stop(s, s.sub);
      expect(first.decision).toBe("block");
      const reason = first.decision === "block" ? first.reason : "";
      expect(reason.split("\n")[0]).toBe(note(s));
      expect(reason).toContain(
        "turngate blocked the stop: the changes of this turn are not verified",
      );
      expect(reason).toContain("the check `unit` failed (assertion): exit code 1, expected 0.");
      expect(reason).toContain("  | value.js: expected 42, got 43");
      // One session, of the project; none was started for sub.
      expect(sessions(s).map((x) => x.root)).toEqual([s.root]);

      // Turn 2's prompt comes from sub: the unverified change is carried over, not dropped.
      const prompt = send(s, "turn_start", s.sub);
      expect(prompt.status).toBe(0);
      const message = JSON.parse(prompt.stdout).systemMessage as string;
      expect(message.split("\n")[0]).toBe(note(s));
      expect(message.split("\n")[1]).toBe(
        "turngate: the last turn did not end verified, waived or narrative (continue); its changes stay in this turn's digest until a passing check or a waiver covers them.",
      );
      const second = stop(s, s.sub);
      expect(second.decision).toBe("block");
      expect(second.decision === "block" && second.reason).toContain(
        "  | value.js: expected 42, got 43",
      );
      const [session] = sessions(s);
      expect(session?.turn?.number).toBe(2);
      expect(session?.turn?.carried_over).toBe(true);
      expect(session?.turn?.last?.verdict).not.toBe("narrative");

      // Positive control: the honest fix, sent from sub, ends verified.
      writeFileSync(join(s.root, "value.js"), "module.exports = 42;\n");
      const fixed = stop(s, s.sub);
      expect(fixed).toEqual({ decision: "allow", notice: expect.stringContaining(note(s)) });
      expect(sessions(s)).toEqual([
        expect.objectContaining({
          root: s.root,
          turn: expect.objectContaining({
            number: 2,
            last: expect.objectContaining({ verdict: "verified", reason: null }),
          }),
        }),
      ]);
    },
  );

  test("CLAUDE_PROJECT_DIR is preferred for the first workspace; a new session id starts fresh from its own first turn", () => {
    const s = setup(false, true);
    pivot(s);
    // The first prompt already comes from sub: the project folder Claude Code names wins.
    const started = send(s, "turn_start", s.sub);
    expect(started.status).toBe(0);
    expect(JSON.parse(started.stdout)).toEqual({ systemMessage: note(s) });
    writeFileSync(join(s.root, "value.js"), "module.exports = 43;\n");
    expect(stop(s, s.sub).decision).toBe("block");

    // Another session with no CLAUDE_PROJECT_DIR whose first prompt comes from sub is pinned
    // to sub (its own first workspace) and never to the project's pin.
    const other: Setup = { ...s, projectDir: undefined };
    expect(send(other, "turn_start", s.sub, "s-other")).toEqual({
      stdout: "",
      stderr: "",
      status: 0,
    });
    expect(send(other, "turn_start", s.root, "s-other").stdout).toContain(
      `turngate: this session's workspace is ${s.sub} (where it started); the event came from ${s.root}, outside it: ${s.sub} is judged, not ${s.root}.`,
    );
    expect(
      sessions(s)
        .map((x) => `${x.session_id} ${x.root}`)
        .sort(),
    ).toEqual([`s-other ${s.sub}`, `s-pin ${s.root}`]);
  });
  test("a session's workspace record turngate cannot read blocks the stop, naming the file (fail closed)", () => {
    const s = setup(false, false);
    expect(send(s, "turn_start", s.root).status).toBe(0);
    const record = join(
      s.outside,
      "state",
      SESSION_ROOTS_DIR,
      `claude-code-${createHash("sha256").update("s-pin").digest("hex")}.json`,
    );
    expect(JSON.parse(readFileSync(record, "utf8"))).toMatchObject({
      schema: "turngate.hook_session_root.v1",
      harness: "claude-code",
      session_id: "s-pin",
      root: s.root,
    });
    writeFileSync(record, "{");
    const blocked = stop(s, s.root);
    expect(blocked.decision).toBe("block");
    expect(blocked.decision === "block" && blocked.reason).toContain(
      `turngate blocked the stop because it could not judge it (fail closed): internal error: the session's workspace record ${record} is not JSON (`,
    );
  });
});
