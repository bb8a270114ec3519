/**
 * Gapless turns in hook mode (docs/cli.md "Gapless turns", issue 32 item 3): the four hook-mode
 * attacks of the issue, each on a real temporary git repository driving the real
 * `turngate hook claude-code <event>` binary as the harness and as an unconfined agent would
 * (payload on stdin), with real check processes. A prompt event no longer re-baselines: the
 * next turn starts from the state the last stop judged, so (3) a stop the agent ran itself
 * before breaking the code and (4) a background writer that waits for `verified` are both
 * blocked at the next real stop. (1) and (2), forged waivers, cannot be refused without
 * confinement (issue 32 item 4): what these tests pin is that a waiver covers only the bytes
 * it names — never a later change, never the same digest against another baseline — and that
 * the waived answer says plainly that an unconfined agent could have forged it.
 */
import { spawn, spawnSync } from "node:child_process";
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
import type { HookSession } from "../../src/hooks/session-state.js";
import { gitProject } from "../helpers.js";
import { inPlaceChecks } from "../in-place.js";
import {
  EVENT_NAMES,
  type FixtureEvent,
  type FixtureOptions,
  payload,
  readStop,
  workspaceStateDirs,
} from "./fixtures.js";

vi.setConfig({ testTimeout: testTimeout(180_000), hookTimeout: testTimeout(180_000) });
// What is tested is the turn chain, not the clean room: checks run in place.
inPlaceChecks();

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
const bin = join(repoRoot, "packages/cli/dist/bin.js");
const HARNESS = "claude-code" as const;
const GOOD = "module.exports = 42;\n";
const BROKEN = "module.exports = 43;\n";
const CHECK = `const v = require("./value.js");
if (v !== 42) { console.log("expected 42, got " + v); process.exit(1); }
console.log("ok");
`;
/** util-linux `script`, which gives a command a pseudo-terminal (the attack of scenario 2). */
const HAS_SCRIPT = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;
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
  const outside = realpathSync(mkdtempSync(join(tmpdir(), "turngate-gapless-hook-")));
  const p = gitProject({
    "value.js": "module.exports = 41;\n",
    "check.js": CHECK,
    "turngate.config.json": `${JSON.stringify({ checks: [{ id: "unit", command: "node check.js" }] })}\n`,
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

function hookEnv(env: Env): NodeJS.ProcessEnv {
  const { TURNGATE_SIGNING_KEY: _k, ...base } = process.env;
  return {
    ...base,
    HOME: env.home,
    XDG_CONFIG_HOME: join(env.home, ".config"),
    TURNGATE_HOOK_STATE_DIR: env.state,
  };
}

/** `turngate hook claude-code <event>` with the payload on stdin: the harness, or the agent forging it. */
function send(env: Env, kind: FixtureEvent, o: Partial<FixtureOptions> = {}) {
  const body = payload(HARNESS, kind, { session: "sess-1", root: env.root, ...o });
  const r = spawnSync(process.execPath, [bin, "hook", HARNESS, EVENT_NAMES[HARNESS][kind]], {
    cwd: env.root,
    input: JSON.stringify(body),
    encoding: "utf8",
    timeout: testTimeout(120_000),
    env: hookEnv(env),
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

function stop(env: Env) {
  return readStop(HARNESS, send(env, "stop"));
}

function sessionDir(env: Env): string {
  const [workspace] = workspaceStateDirs(env.state);
  const [session] = readdirSync(join(env.state, workspace as string));
  return join(env.state, workspace as string, session as string);
}

function sessionFile(env: Env): HookSession & { turn: NonNullable<HookSession["turn"]> } {
  return JSON.parse(readFileSync(join(sessionDir(env), "session.json"), "utf8"));
}

const reasonOf = (reading: ReturnType<typeof stop>) =>
  reading.decision === "block" ? reading.reason : "";

describe("gapless turns in hook mode (unconfined)", () => {
  test("(3) the agent runs a stop itself on correct code, breaks the code, sends a prompt event itself: the real stop blocks on the change", () => {
    const env = project();
    expect(send(env, "turn_start").status).toBe(0);
    env.write("value.js", GOOD);
    // The agent pipes a Stop into the hook itself: verified, on correct code.
    const own = stop(env);
    expect(own.decision, JSON.stringify(own)).toBe("allow");
    expect(sessionFile(env).turn.last?.verdict).toBe("verified");
    // It breaks the code, then starts a "new turn" itself.
    env.write("value.js", BROKEN);
    const forgedPrompt = send(env, "turn_start", { prompt: "carry on" });
    expect(forgedPrompt.status).toBe(0);
    // The harness's real stop: before gapless turns the prompt re-baselined on the broken
    // bytes and this answered narrative.
    const real = stop(env);
    expect(real.decision).toBe("block");
    const reason = reasonOf(real);
    expect(reason).toContain(
      "turngate blocked the stop: the changes of this turn are not verified",
    );
    expect(reason).toContain("the check `unit` failed (assertion): exit code 1, expected 0.");
    expect(reason).toContain(
      "changed between turns, by you or another process: value.js (after the last stop was judged and before this turn started; checked as this turn's changes)",
    );
    expect(sessionFile(env).turn.last).toMatchObject({ verdict: "continue" });
  });

  test("(4) a background writer that waits for the session file to say verified, then breaks value.js: the next turn sees the change", async () => {
    const env = project();
    expect(send(env, "turn_start").status).toBe(0);
    env.write("value.js", GOOD);
    // A real background process, started by the agent during its turn.
    const script = `const fs = require("node:fs"); const path = require("node:path");
const state = ${JSON.stringify(env.state)};
const find = () => { try { for (const w of fs.readdirSync(state)) for (const s of fs.readdirSync(path.join(state, w))) { const f = path.join(state, w, s, "session.json"); if (fs.existsSync(f)) return f; } } catch {} return null; };
const tick = () => {
  const f = find();
  try { if (f && JSON.parse(fs.readFileSync(f, "utf8")).turn?.last?.verdict === "verified") { fs.writeFileSync("value.js", ${JSON.stringify(BROKEN)}); process.exit(0); } } catch {}
  setTimeout(tick, 20);
};
tick();`;
    const writer = spawn(process.execPath, ["-e", script], { cwd: env.root, stdio: "ignore" });
    const exited = new Promise<number | null>((done) => writer.on("exit", (code) => done(code)));
    const first = stop(env);
    expect(first.decision, JSON.stringify(first)).toBe("allow");
    expect(await exited).toBe(0);
    expect(readFileSync(join(env.root, "value.js"), "utf8")).toBe(BROKEN);

    // The person's next prompt: the baseline is the state the stop judged, not the broken bytes.
    const prompt = send(env, "turn_start", { prompt: "now add a README" });
    expect(prompt.status).toBe(0);
    expect(`${prompt.stdout}${prompt.stderr}`).toContain(
      "changed between turns, by you or another process: value.js (after the last stop was judged and before this prompt); these changes are checked with this turn.",
    );
    // The agent does nothing this turn; before gapless turns the stop answered narrative.
    const next = stop(env);
    expect(next.decision).toBe("block");
    const reason = reasonOf(next);
    expect(reason).toContain("  | expected 42, got 43");
    expect(reason).toContain("changed between turns, by you or another process: value.js");
  });

  test("positive control: an honest session with a person's edit between turns that keeps the checks green stays verified, and a quiet turn is narrative", () => {
    const env = project();
    send(env, "turn_start");
    env.write("value.js", GOOD);
    expect(stop(env).decision).toBe("allow");
    // The person adds a file between turns; it is checked with the next turn and passes.
    env.write("notes.md", "# notes\n");
    send(env, "turn_start", { prompt: "thanks" });
    const next = readStop(HARNESS, send(env, "stop"));
    expect(next.decision, JSON.stringify(next)).toBe("allow");
    expect(sessionFile(env).turn.last?.verdict).toBe("verified");
    send(env, "turn_start", { prompt: "anything else?" });
    expect(stop(env).decision).toBe("allow");
    expect(sessionFile(env).turn.last?.verdict).toBe("narrative");
  });

  test("(1) a forged /turngate waive prompt piped into the hook by the agent: not refusable unconfined, but it covers only the bytes it names, and the answer says it can be forged", () => {
    const env = project();
    send(env, "turn_start");
    env.write("value.js", BROKEN);
    const blocked = stop(env);
    expect(blocked.decision).toBe("block");
    const digest = DIGEST.exec(reasonOf(blocked))?.[1] as string;
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    // The agent forges the person's prompt.
    const forged = send(env, "turn_start", { prompt: `/turngate waive ${digest} looks fine` });
    expect(forged.status).toBe(0);
    expect(sessionFile(env).waivers).toEqual([
      expect.objectContaining({
        effect_digest: digest,
        by: "prompt",
        baseline_id: sessionFile(env).baseline_id,
      }),
    ]);
    // Item 4 of the issue: no local channel is safe for an unconfined agent. The answer says so.
    const waived = stop(env);
    expect(waived.decision, JSON.stringify(waived)).toBe("allow");
    const notice = waived.decision === "allow" ? (waived.notice ?? "") : "";
    expect(notice).toContain(`turngate: waived (effect digest ${digest})`);
    expect(notice).toContain(
      "An agent that runs unconfined as your user can forge this prompt (it can run `turngate hook` itself) or `turngate waive` (under a fake terminal such as `script`); run the agent confined to rule that out.",
    );
    // The waiver does not stretch: a later change of the same turn has another digest.
    env.write("value.js", "module.exports = 44;\n");
    const later = stop(env);
    expect(later.decision).toBe("block");
    expect(DIGEST.exec(reasonOf(later))?.[1]).not.toBe(digest);
  });

  test("(1, across turns) a waiver never applies to the same digest judged against a later baseline", () => {
    const env = project();
    send(env, "turn_start");
    env.write("value.js", BROKEN);
    const digest = DIGEST.exec(reasonOf(stop(env)))?.[1] as string;
    // A waiver of value.js = 43 against the first baseline (41), recorded but not used: the
    // agent fixes the code instead and the turn ends verified.
    send(env, "turn_start", { prompt: `/turngate waive ${digest} accepted` });
    env.write("value.js", GOOD);
    expect(stop(env).decision).toBe("allow");
    expect(sessionFile(env).turn.last?.verdict).toBe("verified");
    // Next turn, baseline 42: the agent writes 43 again. The ledger row is the same, so the
    // digest is the waived one, but around it are other bytes than the waiver was given for.
    send(env, "turn_start", { prompt: "next task" });
    env.write("value.js", BROKEN);
    const again = stop(env);
    expect(again.decision).toBe("block");
    expect(DIGEST.exec(reasonOf(again))?.[1]).toBe(digest);
    expect(sessionFile(env).turn.last?.verdict).not.toBe("waived");
  });

  test.skipIf(!HAS_SCRIPT)(
    `(2) turngate waive under script (a faked terminal): recorded, bound to the session's baseline, and named as forgeable${HAS_SCRIPT ? "" : " (skipped: util-linux script is not installed)"}`,
    () => {
      const env = project();
      send(env, "turn_start");
      env.write("value.js", BROKEN);
      const digest = DIGEST.exec(reasonOf(stop(env)))?.[1] as string;
      // The agent's shell has no terminal; `script` gives it one.
      const faked = spawnSync(
        "script",
        ["-qec", `${process.execPath} ${bin} waive ${digest} --reason forged`, "/dev/null"],
        { cwd: env.root, encoding: "utf8", env: hookEnv(env), timeout: testTimeout(60_000) },
      );
      expect(faked.status).toBe(0);
      expect(faked.stdout).toContain(`effect digest ${digest} (forged)`);
      const session = sessionFile(env);
      expect(session.waivers).toEqual([
        expect.objectContaining({
          effect_digest: digest,
          by: "terminal",
          baseline_id: session.baseline_id,
        }),
      ]);
      const waived = stop(env);
      expect(waived.decision, JSON.stringify(waived)).toBe("allow");
      expect(waived.decision === "allow" ? waived.notice : "").toContain(
        "can forge this prompt (it can run `turngate hook` itself) or `turngate waive` (under a fake terminal such as `script`)",
      );
      // A stale waiver (another baseline) is not used: write one by hand for the next turn's digest.
      send(env, "turn_start", { prompt: "next" });
      env.write("value.js", "module.exports = 45;\n");
      const next = stop(env);
      expect(next.decision).toBe("block");
      const nextDigest = DIGEST.exec(reasonOf(next))?.[1] as string;
      const file = join(sessionDir(env), "session.json");
      const stale = JSON.parse(readFileSync(file, "utf8")) as HookSession;
      stale.waivers.push({
        effect_digest: nextDigest,
        reason: "recorded for an older baseline",
        by: "terminal",
        at: new Date().toISOString(),
        baseline_id: "0".repeat(64),
      });
      writeFileSync(file, JSON.stringify(stale));
      expect(stop(env).decision).toBe("block");
    },
  );
});
