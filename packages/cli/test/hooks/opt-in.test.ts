/**
 * Issue 34 items 4 and 5, through the real `turngate` binary as a harness runs it:
 * - a user-level hook (`hook <harness> <event> --user`) gates only projects that opted in
 *   (a `turngate.config.json`, or a folder listed in the user config); every other project's
 *   stop passes with one line saying why; opt-in is decided at the turn start, so an agent
 *   that deletes the config during the turn is still judged;
 * - a turn whose start could not take a baseline (a malformed `turngate.config.json`) is
 *   blocked at its stop with that cause, not "no baseline … install the hooks".
 */
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeAll, describe, expect, test } from "vitest";
import type { Harness } from "../../src/hooks/adapters/index.js";
import { gitProject } from "../helpers.js";
import { EVENT_NAMES, type FixtureEvent, payload, readStop } from "./fixtures.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
const bin = join(repoRoot, "packages/cli/dist/bin.js");

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
beforeAll(() => {
  if (!existsSync(bin)) throw new Error(`build the CLI first: ${bin} is missing`);
});

function outsideDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "turngate-optin-")));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Send one event as the harness would, with `--user` when `user`. */
function send(
  root: string,
  outside: string,
  harness: Harness,
  kind: FixtureEvent,
  user: boolean,
  path?: string,
  session = "s-1",
) {
  const { TURNGATE_SIGNING_KEY: _k, ...base } = process.env;
  const body = payload(harness, kind, { session, root, ...(path ? { path } : {}) });
  const r = spawnSync(
    process.execPath,
    [bin, "hook", harness, EVENT_NAMES[harness][kind], ...(user ? ["--user"] : [])],
    {
      cwd: root,
      input: JSON.stringify(body),
      encoding: "utf8",
      timeout: 120_000,
      env: {
        ...base,
        HOME: join(outside, "home"),
        XDG_CONFIG_HOME: join(outside, "home", ".config"),
        TURNGATE_HOOK_STATE_DIR: join(outside, "state"),
      },
    },
  );
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

/**
 * One turn of session `session` in `root`. A session's workspace is pinned by its first turn
 * start (docs/hooks.md "Where the workspace is"): another project is another session.
 */
function turn(
  root: string,
  outside: string,
  harness: Harness,
  user: boolean,
  edit: () => void,
  session = "s-1",
) {
  send(root, outside, harness, "turn_start", user, undefined, session);
  edit();
  return readStop(harness, send(root, outside, harness, "stop", user, undefined, session));
}

const CONFIG = `${JSON.stringify({ checks: [{ id: "unit", command: 'node -e "process.exit(1)"' }] })}\n`;

describe("a user-level hook gates only projects that opted in (issue 34 item 4)", () => {
  test.each(["claude-code", "codex"] as const)(
    "%s: a folder with no config and not listed passes with one line; a project-level hook blocks it",
    (harness) => {
      const outside = outsideDir();
      // Not a git repository at all, and no checks: the case that used to be blocked.
      const root = realpathSync(mkdtempSync(join(tmpdir(), "turngate-plain-")));
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));
      writeFileSync(join(root, "notes.txt"), "a\n");
      const reading = turn(root, outside, harness, true, () =>
        writeFileSync(join(root, "notes.txt"), "b\n"),
      );
      const userConfig = join(outside, "home", ".config", "turngate", "hooks.json");
      expect(reading).toEqual({
        decision: "allow",
        notice: `turngate: this project is not gated (no turngate.config.json in ${root} and no user config ${userConfig} listing it); the user-level hook gates only projects that opted in.`,
      });
      // The same folder under a project-level hook is judged (and blocked: no check ran).
      const project = turn(root, outsideDir(), harness, false, () =>
        writeFileSync(join(root, "notes.txt"), "c\n"),
      );
      expect(project.decision).toBe("block");
    },
  );

  test("a project with turngate.config.json is gated, even when the agent deletes the config during the turn", () => {
    const outside = outsideDir();
    const p = gitProject({ "value.js": "1\n", "turngate.config.json": CONFIG });
    cleanups.push(p.cleanup);
    const reading = turn(p.root, outside, "claude-code", true, () => {
      unlinkSync(join(p.root, "turngate.config.json"));
      writeFileSync(join(p.root, "value.js"), "2\n");
    });
    expect(reading.decision).toBe("block");
    expect(reading.decision === "block" && reading.reason).toContain(
      "turngate blocked the stop: the changes of this turn are not verified",
    );
    // Its next turn still carries the unverified changes, so it stays gated.
    const next = turn(p.root, outside, "claude-code", true, () => {});
    expect(next.decision).toBe("block");
  });

  test("a project listed in the user config is gated; one outside the listed folder is not", () => {
    const outside = outsideDir();
    const listed = gitProject({ "a.txt": "a\n" });
    const other = gitProject({ "a.txt": "a\n" });
    cleanups.push(listed.cleanup, other.cleanup);
    const userConfig = join(outside, "home", ".config", "turngate", "hooks.json");
    mkdirSync(dirname(userConfig), { recursive: true });
    writeFileSync(userConfig, JSON.stringify({ projects: [listed.root] }));
    const gated = turn(listed.root, outside, "claude-code", true, () =>
      writeFileSync(join(listed.root, "a.txt"), "b\n"),
    );
    expect(gated.decision).toBe("block");
    expect(gated.decision === "block" && gated.reason).toContain(
      "turngate has no checks to run for this workspace",
    );
    const passed = turn(
      other.root,
      outside,
      "claude-code",
      true,
      () => writeFileSync(join(other.root, "a.txt"), "b\n"),
      "s-2",
    );
    expect(passed).toEqual({
      decision: "allow",
      notice: `turngate: this project is not gated (no turngate.config.json in ${other.root} and ${userConfig} does not list it); the user-level hook gates only projects that opted in.`,
    });
  });

  test("a user config that is not JSON fails closed: the stop names the file", () => {
    const outside = outsideDir();
    const p = gitProject({ "a.txt": "a\n" });
    cleanups.push(p.cleanup);
    const userConfig = join(outside, "home", ".config", "turngate", "hooks.json");
    mkdirSync(dirname(userConfig), { recursive: true });
    writeFileSync(userConfig, "{ projects");
    const reading = turn(p.root, outside, "claude-code", true, () =>
      writeFileSync(join(p.root, "a.txt"), "b\n"),
    );
    expect(reading.decision).toBe("block");
    expect(reading.decision === "block" && reading.reason).toContain(
      `turngate could not start this turn, so it cannot tell what the turn changed: the user config ${userConfig} is not JSON`,
    );
  });
});

describe("a turn whose start failed is blocked with the cause (issue 34 item 5)", () => {
  test.each(["claude-code", "codex", "cursor", "goose"] as const)(
    "%s: a malformed turngate.config.json is named at the stop, not 'no baseline'",
    (harness) => {
      const outside = outsideDir();
      const p = gitProject({ "value.js": "1\n", "turngate.config.json": "{ checks: [" });
      cleanups.push(p.cleanup);
      const start = send(p.root, outside, harness, "turn_start", false);
      expect(start.status).toBe(0);
      writeFileSync(join(p.root, "value.js"), "2\n");
      const reading = readStop(harness, send(p.root, outside, harness, "stop", false));
      expect(reading.decision).toBe("block");
      const reason = reading.decision === "block" ? reading.reason : "";
      expect(reason).toContain(
        `turngate could not start this turn, so it cannot tell what the turn changed: invalid ${join(p.root, "turngate.config.json")}: not JSON`,
      );
      expect(reason).toContain("not JSON");
      expect(reason).not.toContain("no baseline");
    },
  );
});
