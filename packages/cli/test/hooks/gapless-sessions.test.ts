/**
 * Gapless turns across hook sessions (docs/hooks.md "A new session continues the last one",
 * docs/design.md §3b, issue 32): a new harness session (a new session id) in a workspace
 * continues from the workspace's previous session — the state its last stop judged, or, after
 * a turn no check passed, that session's baseline itself — so an unverified change is never
 * accepted as the new baseline. Each attack runs on a real temporary git repository, driving
 * the real `turngate hook <harness> <event>` binary as the harness (and as an unconfined agent
 * would, payload on stdin), with real check processes: the attack is refused, the honest
 * change is verified, and `turngate hook fresh` (the host's way to start over, which is what
 * every new session did before) shows why the rule is needed.
 */
import { spawnSync } from "node:child_process";
import {
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
import type { Harness } from "../../src/hooks/adapters/index.js";
import type { HookSession } from "../../src/hooks/session-state.js";
import { type CliContext, main } from "../../src/index.js";
import { Collector, gitProject } from "../helpers.js";
import { inPlaceChecks } from "../in-place.js";
import {
  EVENT_NAMES,
  type FixtureEvent,
  payload,
  readStop,
  type StopReading,
  workspaceStateDirs,
} from "./fixtures.js";

vi.setConfig({ testTimeout: testTimeout(180_000), hookTimeout: testTimeout(180_000) });
// What is tested is the chain across sessions, not the clean room: checks run in place.
inPlaceChecks();

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
const bin = join(repoRoot, "packages/cli/dist/bin.js");
const GOOD = "module.exports = 42;\n";
const BROKEN = "module.exports = 43;\n";
const CHECK = `const v = require("./value.js");
if (v !== 42) { console.log("expected 42, got " + v); process.exit(1); }
console.log("ok");
`;
const CONFIG = `${JSON.stringify({ checks: [{ id: "unit", command: "node check.js" }] })}\n`;
const DIGEST = /effect digest ([0-9a-f]{64})/;

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
  if (!spawnSync(process.execPath, [bin, "--version"]).stdout) {
    throw new Error(`build the CLI first: ${bin}`);
  }
});

function project(): Env {
  const outside = realpathSync(mkdtempSync(join(tmpdir(), "turngate-gapless-sessions-")));
  const p = gitProject({
    "value.js": "module.exports = 41;\n",
    "check.js": CHECK,
    "turngate.config.json": CONFIG,
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

function hookEnv(env: Env, more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { TURNGATE_SIGNING_KEY: _k, TURNGATE_ALLOW_FRESH: _f, ...base } = process.env;
  return {
    ...base,
    HOME: env.home,
    XDG_CONFIG_HOME: join(env.home, ".config"),
    TURNGATE_HOOK_STATE_DIR: env.state,
    ...more,
  };
}

/** `turngate hook <harness> <event>` with the payload on stdin: the harness, or the agent forging it. */
function send(
  env: Env,
  harness: Harness,
  session: string,
  kind: FixtureEvent,
  prompt?: string,
): { stdout: string; stderr: string; status: number | null } {
  const body = payload(harness, kind, {
    session,
    root: env.root,
    ...(prompt !== undefined ? { prompt } : {}),
  });
  const r = spawnSync(process.execPath, [bin, "hook", harness, EVENT_NAMES[harness][kind]], {
    cwd: env.root,
    input: JSON.stringify(body),
    encoding: "utf8",
    timeout: testTimeout(120_000),
    env: hookEnv(env),
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

/** A turn start's notice, as the harness shows it (Claude Code: systemMessage or stdout). */
function noticeOf(r: { stdout: string; stderr: string }): string {
  try {
    const json = JSON.parse(r.stdout) as { systemMessage?: string };
    if (typeof json.systemMessage === "string") return json.systemMessage;
  } catch {
    // plain text
  }
  return `${r.stdout}${r.stderr}`;
}

function stop(env: Env, harness: Harness, session: string): StopReading {
  return readStop(harness, send(env, harness, session, "stop"));
}

const reasonOf = (reading: StopReading) => (reading.decision === "block" ? reading.reason : "");
const noticeOfStop = (reading: StopReading) =>
  reading.decision === "allow" ? (reading.notice ?? "") : "";

/** The session files of the workspace, by session id. */
function sessions(env: Env): Map<string, HookSession> {
  const out = new Map<string, HookSession>();
  for (const workspace of workspaceStateDirs(env.state)) {
    for (const name of readdirSync(join(env.state, workspace))) {
      try {
        const s = JSON.parse(
          readFileSync(join(env.state, workspace, name, "session.json"), "utf8"),
        ) as HookSession;
        out.set(s.session_id, s);
      } catch {
        // not a session folder
      }
    }
  }
  return out;
}

/** `turngate <args>` in-process, as a person at a terminal (`tty`) or not. */
async function cli(env: Env, args: string[], tty: boolean, more: NodeJS.ProcessEnv = {}) {
  const stdout = new Collector();
  const stderr = new Collector();
  const ctx: CliContext = {
    stdout,
    stderr,
    cwd: env.root,
    env: hookEnv(env, more),
    stdinIsTTY: tty,
  };
  return { code: await main(args, ctx), stdout: stdout.text, stderr: stderr.text };
}

const CARRIED_NOTICE =
  "turngate: this is a new session; it continues the workspace's previous session (claude-code session s-1), whose last turn did not end verified, waived or narrative";

describe("gapless turns across hook sessions (unconfined)", () => {
  test("a new session after a session whose stop was blocked: the new session's stop on no further change blocks on the earlier change; the host's fresh start (turngate hook fresh) is what used to happen", async () => {
    const env = project();
    // Session 1 (Claude Code): the agent breaks value.js; the stop blocks; the session ends.
    expect(send(env, "claude-code", "s-1", "turn_start").status).toBe(0);
    env.write("value.js", BROKEN);
    const first = stop(env, "claude-code", "s-1");
    expect(first.decision).toBe("block");
    const digest = DIGEST.exec(reasonOf(first))?.[1] as string;

    // Session 2, another harness (Codex) in the same workspace: a new session id.
    const started = send(env, "codex", "s-2", "turn_start", "carry on");
    expect(started.status).toBe(0);
    expect(noticeOf(started)).toContain(
      `${CARRIED_NOTICE} (continue): its changes stay in this session's digest until a passing check or a waiver covers them. To accept them without a passing check, a person runs \`turngate waive DIGEST --reason TEXT\` in a terminal with the digest the next stop names; \`turngate hook fresh\` (host only) starts the workspace over.`,
    );
    // The agent changes nothing and stops: before, the new session's baseline was the broken
    // bytes and this answered narrative.
    const second = stop(env, "codex", "s-2");
    expect(second.decision).toBe("block");
    expect(reasonOf(second)).toContain(
      "turngate blocked the stop: the changes of this turn are not verified",
    );
    expect(reasonOf(second)).toContain("  | expected 42, got 43");
    expect(DIGEST.exec(reasonOf(second))?.[1]).toBe(digest);
    const s2 = sessions(env).get("s-2");
    expect(s2?.continued_from).toEqual({
      harness: "claude-code",
      session_id: "s-1",
      how: "carried",
      verdict: "continue",
    });
    expect(s2?.baseline_id).toBe(sessions(env).get("s-1")?.baseline_id);
    expect(s2?.turn?.carried_over).toBe(true);
    const status = await cli(env, ["status"], false);
    expect(status.stdout).toContain("codex session s-2 (updated ");
    expect(status.stdout).toContain(
      "  continued from claude-code session s-1 (its baseline: its last turn was not verified)\n",
    );

    // Why the rule is needed: starting over (the host's `turngate hook fresh`, what every new
    // session did before) takes the broken bytes as the baseline, and a quiet stop is narrative.
    const refused = await cli(env, ["hook", "fresh"], false);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "turngate hook fresh drops what earlier hook sessions left unverified, so only the host may ask for it",
    );
    const fresh = await cli(env, ["hook", "fresh"], true);
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toContain(
      `turngate: warning: the next turn start of any hook session of ${env.root} takes its baseline from the workspace as it is then, so changes made before it are not checked (the last session, codex session s-2, ended its last turn continue)`,
    );
    const third = send(env, "claude-code", "s-3", "turn_start");
    expect(noticeOf(third)).toContain(
      "turngate: warning: starting over, as the host asked (`turngate hook fresh`,",
    );
    const quiet = stop(env, "claude-code", "s-3");
    expect(quiet.decision, JSON.stringify(quiet)).toBe("allow");
    expect(noticeOfStop(quiet)).toContain("turngate: narrative");
    expect(readFileSync(join(env.root, "value.js"), "utf8")).toBe(BROKEN);
  });

  test("escalated, then the agent forges a new session itself (a SessionStart with a fresh session id piped into the hook, and its stop): both that stop and the next real session's stop block; an honest fix in the new session is verified", () => {
    const env = project();
    expect(send(env, "claude-code", "s-1", "turn_start").status).toBe(0);
    // The agent also writes a configuration whose only check cannot fail.
    env.write(
      "turngate.config.json",
      `${JSON.stringify({ checks: [{ id: "t", command: "true" }] })}\n`,
    );
    env.write("value.js", BROKEN);
    // max_attempts (3) blocked stops on the same bytes: the next is allowed as incomplete /
    // escalated, and the harness ends the turn.
    for (let i = 0; i < 3; i += 1) expect(stop(env, "claude-code", "s-1").decision).toBe("block");
    const escalated = stop(env, "claude-code", "s-1");
    expect(escalated.decision, JSON.stringify(escalated)).toBe("allow");
    expect(noticeOfStop(escalated)).toContain(
      "turngate: the turn ends INCOMPLETE (escalated), not verified",
    );

    // The agent (or a process it left) pipes a new session's events into the hook itself.
    const forged = send(env, "claude-code", "forged-1", "turn_start");
    expect(noticeOf(forged)).toContain(`${CARRIED_NOTICE} (incomplete, escalated)`);
    const forgedStop = stop(env, "claude-code", "forged-1");
    expect(forgedStop.decision).toBe("block");
    // The forged session kept the first session's configuration: `unit` ran, not `true`.
    expect(reasonOf(forgedStop)).toContain("the check `unit` failed (assertion)");

    // The person's next real session: still blocked on the same change.
    const real = send(env, "claude-code", "s-3", "turn_start");
    expect(noticeOf(real)).toContain(
      "turngate: this is a new session; it continues the workspace's previous session (claude-code session forged-1), whose last turn did not end verified, waived or narrative (continue)",
    );
    const blocked = stop(env, "claude-code", "s-3");
    expect(blocked.decision).toBe("block");
    expect(reasonOf(blocked)).toContain("the check `unit` failed (assertion)");

    // Positive control: the honest fix (the value, and the check restored) is verified.
    env.write("value.js", GOOD);
    env.write("turngate.config.json", CONFIG);
    const fixed = stop(env, "claude-code", "s-3");
    expect(fixed.decision, JSON.stringify(fixed)).toBe("allow");
    expect(noticeOfStop(fixed)).toContain("turngate: verified (effect digest");
  });

  test("positive control: after a verified session, a new session starts from the state it judged — a change made between sessions is named and checked, and a quiet session after that is narrative", () => {
    const env = project();
    send(env, "claude-code", "s-1", "turn_start");
    env.write("value.js", GOOD);
    const verified = stop(env, "claude-code", "s-1");
    expect(verified.decision, JSON.stringify(verified)).toBe("allow");
    expect(noticeOfStop(verified)).toContain("turngate: verified");

    // The person edits a file between sessions; it keeps the checks green.
    env.write("notes.md", "# notes\n");
    const started = send(env, "claude-code", "s-2", "turn_start");
    const notice = noticeOf(started);
    expect(notice).toContain(
      "turngate: this is a new session; it continues the workspace's previous session (claude-code session s-1): this turn starts from the state its last stop judged (verified).",
    );
    expect(notice).toContain(
      "turngate: changed between turns, by you or another process: notes.md (after the last stop was judged and before this prompt); these changes are checked with this turn.",
    );
    const second = stop(env, "claude-code", "s-2");
    expect(second.decision, JSON.stringify(second)).toBe("allow");
    expect(noticeOfStop(second)).toContain("turngate: verified");
    expect(sessions(env).get("s-2")?.continued_from).toEqual({
      harness: "claude-code",
      session_id: "s-1",
      how: "judged",
      verdict: "verified",
    });

    send(env, "claude-code", "s-3", "turn_start");
    const quiet = stop(env, "claude-code", "s-3");
    expect(quiet.decision, JSON.stringify(quiet)).toBe("allow");
    expect(noticeOfStop(quiet)).toContain("turngate: narrative");
  });

  test("the host's waiver still ends it: turngate waive of the digest the new session's stop names ends that stop waived, and the session after it starts from the waived state", async () => {
    const env = project();
    send(env, "claude-code", "s-1", "turn_start");
    env.write("value.js", BROKEN);
    const digest = DIGEST.exec(reasonOf(stop(env, "claude-code", "s-1")))?.[1] as string;

    send(env, "claude-code", "s-2", "turn_start");
    expect(DIGEST.exec(reasonOf(stop(env, "claude-code", "s-2")))?.[1]).toBe(digest);
    // The person, at a terminal: the newest session is s-2.
    const waived = await cli(env, ["waive", digest, "--reason", "accepted"], true);
    expect(waived.code).toBe(0);
    expect(waived.stdout).toContain(
      `waiver recorded for claude-code session s-2: effect digest ${digest}`,
    );
    const allowed = stop(env, "claude-code", "s-2");
    expect(allowed.decision, JSON.stringify(allowed)).toBe("allow");
    expect(noticeOfStop(allowed)).toContain(`turngate: waived (effect digest ${digest})`);

    const next = send(env, "claude-code", "s-3", "turn_start");
    expect(noticeOf(next)).toContain(
      "it continues the workspace's previous session (claude-code session s-2): this turn starts from the state its last stop judged (waived).",
    );
    expect(noticeOfStop(stop(env, "claude-code", "s-3"))).toContain("turngate: narrative");
  });

  test("a waiver the person gave the earlier session, against its baseline, still applies in the new session that carries that baseline", async () => {
    const env = project();
    send(env, "claude-code", "s-1", "turn_start");
    env.write("value.js", BROKEN);
    const digest = DIGEST.exec(reasonOf(stop(env, "claude-code", "s-1")))?.[1] as string;
    expect((await cli(env, ["waive", digest, "--reason", "ok"], true)).code).toBe(0);
    // The harness ended session 1 before its next stop; a new session starts.
    send(env, "claude-code", "s-2", "turn_start");
    const allowed = stop(env, "claude-code", "s-2");
    expect(allowed.decision, JSON.stringify(allowed)).toBe("allow");
    expect(noticeOfStop(allowed)).toContain(`turngate: waived (effect digest ${digest})`);
  });

  test("fail closed: a session file of the workspace that cannot be read fails the new session's turn start, and its stop names the file", async () => {
    const env = project();
    send(env, "claude-code", "s-1", "turn_start");
    env.write("value.js", BROKEN);
    expect(stop(env, "claude-code", "s-1").decision).toBe("block");
    const [workspace] = workspaceStateDirs(env.state);
    const [folder] = readdirSync(join(env.state, workspace as string));
    const file = join(env.state, workspace as string, folder as string, "session.json");
    writeFileSync(file, "{");
    const started = send(env, "claude-code", "s-2", "turn_start");
    expect(noticeOf(started)).toContain("turngate: this turn could not start:");
    const blocked = stop(env, "claude-code", "s-2");
    expect(blocked.decision).toBe("block");
    expect(reasonOf(blocked)).toContain(`the hook session file ${file} is not JSON`);
    expect(reasonOf(blocked)).toContain("`turngate hook fresh`");
    // The next prompt of that session does not fall back to the workspace as it is either.
    expect(noticeOf(send(env, "claude-code", "s-2", "turn_start"))).toContain(
      "turngate: this turn could not start:",
    );
    expect(stop(env, "claude-code", "s-2").decision).toBe("block");
    // The host's way out: start over, on purpose.
    expect((await cli(env, ["hook", "fresh"], false, { TURNGATE_ALLOW_FRESH: "1" })).code).toBe(0);
    expect(noticeOf(send(env, "claude-code", "s-2", "turn_start"))).toContain(
      "turngate: warning: starting over, as the host asked",
    );
    expect(noticeOfStop(stop(env, "claude-code", "s-2"))).toContain("turngate: narrative");
  });
});
