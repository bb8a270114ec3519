import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Project, row, turngate } from "./clean-room/helpers.js";
import { gitProject } from "./helpers.js";

// docs/cli.md "Gapless turns" (issue 32 item 3) for `turngate baseline` / `turngate verify`: a new
// baseline continues from the state the last verify judged, on real temporary git
// repositories (in-place checks: what is tested is the chain, not the sandbox).

const LIB_OK = "module.exports = (a, b) => a + b;\n";
const LIB_BROKEN = "module.exports = (a, b) => a - b;\n";
const TEST_JS =
  'const add = require("./lib.js");\nif (add(2, 3) !== 5) { console.error("add(2, 3) is not 5"); process.exit(1); }\n';
const IN_PLACE = ["--isolation", "in-place"];

const projects: Project[] = [];
afterEach(() => {
  for (const p of projects.splice(0)) p.cleanup();
});

function project(): Project {
  const p = gitProject({ "lib.js": LIB_OK, "test.js": TEST_JS });
  projects.push(p);
  return p;
}

const baseline = (p: Project, extra: string[] = [], env: NodeJS.ProcessEnv = {}) =>
  turngate(["baseline", ...extra], p.root, env);
const verify = (p: Project, extra: string[] = []) =>
  turngate(["verify", "--json", ...IN_PLACE, "--check", "node test.js", ...extra], p.root);

interface BaselineJson {
  chain: {
    previous: { verdict: string; reason: string | null } | null;
    unverified_paths: string[];
    changed_between_turns: string[];
  } | null;
}
const changesOf = (json: unknown) =>
  (json as { changes: { path: string; content_digest?: string }[] }).changes.map((c) => [
    c.path,
    c.content_digest,
  ]);
const baselineJson = (stdout: string) => JSON.parse(stdout) as BaselineJson;

describe("gapless turns: turngate baseline / verify", () => {
  it("a verify that finds no change after an unverified one is incomplete (unverified_carry_over), naming the paths; a new baseline does not forget it", async () => {
    const p = project();
    expect((await baseline(p)).code).toBe(0);
    p.write("lib.js", LIB_BROKEN);
    const first = await verify(p);
    expect([first.code, first.json.outcome.reason]).toEqual([2, "unverified_mutation"]);

    // The next turn's baseline is the state verify judged (the broken lib.js), not a fresh start.
    const next = await baseline(p, ["--json"]);
    expect(next.code).toBe(0);
    expect(baselineJson(next.stdout).chain).toEqual({
      previous: {
        verdict: "incomplete",
        reason: "unverified_mutation",
        ended_at: expect.any(String),
      },
      unverified_paths: ["lib.js"],
      changed_between_turns: [],
    });
    // The agent of that turn only says it fixed it.
    const second = await verify(p);
    expect(second.code).toBe(2);
    expect(second.json.verdict).toBe("incomplete");
    expect(second.json.outcome).toMatchObject({
      kind: "incomplete",
      reason: "unverified_carry_over",
      effect_digest: "",
      paths: ["lib.js"],
    });
    expect(second.json.outcome.message).toContain(
      "this turn changed nothing, but an earlier turn's changes are still unverified (lib.js)",
    );
    expect(second.json.outcome.message).toContain(
      "as the host, start over with `turngate baseline --fresh`",
    );
    // Once more, through another baseline: it does not wear off.
    expect((await baseline(p)).code).toBe(0);
    const third = await verify(p);
    expect([third.code, third.json.outcome.reason]).toEqual([2, "unverified_carry_over"]);
    expect(readFileSync(join(p.root, "lib.js"), "utf8")).toBe(LIB_BROKEN);
  }, 120_000);

  it("positive control: fixing the code after an unverified turn ends verified, and the no-op turn after it is narrative", async () => {
    const p = project();
    await baseline(p);
    p.write("lib.js", LIB_BROKEN);
    expect((await verify(p)).code).toBe(2);
    await baseline(p);
    p.write("lib.js", LIB_OK);
    const fixed = await verify(p);
    expect([fixed.code, fixed.json.verdict]).toEqual([0, "verified"]);
    // Judged against the broken state: the fix is the turn's change.
    expect(changesOf(fixed.json)).toEqual([["lib.js", row("lib.js", LIB_OK).content_digest]]);
    await baseline(p);
    const after = await verify(p);
    expect([after.code, after.json.verdict]).toEqual([0, "narrative"]);
  }, 120_000);

  it("a change made between verify and the next baseline joins the next turn's ledger, named as changed between turns", async () => {
    const p = project();
    await baseline(p);
    const first = await verify(p);
    expect([first.code, first.json.verdict]).toEqual([0, "narrative"]);
    // Someone breaks lib.js after the turn was judged and before the next baseline.
    p.write("lib.js", LIB_BROKEN);
    const next = await baseline(p);
    expect(next.code).toBe(0);
    expect(next.stdout).toContain(
      "changed between turns, by you or another process: lib.js (rows of the next turn, checked with it)",
    );
    const text = await turngate(["verify", ...IN_PLACE, "--check", "node test.js"], p.root);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(
      "changed between turns, by you or another process: lib.js (after the previous turn was judged and before this one's agent ran: rows of this turn, checked with it; the host can waive them with --waive DIGEST:REASON)",
    );
    const json = await verify(p);
    expect(changesOf(json.json)).toEqual([["lib.js", row("lib.js", LIB_BROKEN).content_digest]]);
    expect(
      (json.json as unknown as { turn_chain: { changed_between_turns: string[] } }).turn_chain
        .changed_between_turns,
    ).toEqual(["lib.js"]);
  }, 120_000);

  it("baseline --fresh needs the host: refused without a terminal or TURNGATE_ALLOW_FRESH=1, a warning with it", async () => {
    const p = project();
    await baseline(p);
    p.write("lib.js", LIB_BROKEN);
    expect((await verify(p)).code).toBe(2);
    const refused = await baseline(p, ["--fresh"], { TURNGATE_ALLOW_FRESH: "0" });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "--fresh drops the turn chain (what the previous turns were judged on and left unverified), so only the host may ask for it",
    );
    // The refused --fresh kept the chain.
    await baseline(p);
    expect((await verify(p)).json.outcome.reason).toBe("unverified_carry_over");
    const fresh = await baseline(p, ["--fresh", "--json"], { TURNGATE_ALLOW_FRESH: "1" });
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toContain(
      "turngate: warning: --fresh: starting over: this turn's baseline is the workspace as it is now, so changes made before it are not checked by this turn (the previous turn left these unverified: lib.js)",
    );
    expect(baselineJson(fresh.stdout).chain).toBeNull();
    const after = await verify(p);
    expect([after.code, after.json.verdict]).toEqual([0, "narrative"]);
  }, 120_000);
});
