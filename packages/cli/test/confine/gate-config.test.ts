/**
 * A gate configuration the agent wrote never takes effect without the host's action
 * (docs/cli.md "Configuration the agent wrote", issue 32 hole 2 of the attack round): a
 * `turngate.config.json` the agent created, changed or deleted (unconfined; confined, an absent
 * one gets a read-only placeholder and cannot be created: gate-files-absent.test.ts) is not
 * adopted by the next turns of the chain,
 * which keep the configuration in effect before and say so in one line; an honest fix is still
 * verified; the host adopts the file with `--fresh`, a waiver of the turn that wrote it, or an
 * edit of its own. And a confined agent cannot rename or remove the folder holding a read-only
 * harness settings file to put another in its place. Real temporary git repositories, real
 * agent and check processes (`npm test`), `--isolation in-place`.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { turngate } from "../clean-room/helpers.js";
import {
  BROKEN,
  cleanWorlds,
  HONEST,
  LIB,
  SKIP_REASON,
  sandbox,
  TEST,
  type World,
  world,
} from "./helpers.js";

afterEach(cleanWorlds);

/** The project: `npm test` runs `node test.js` (the preset check when there is no configuration). */
const PACKAGE = `${JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: "node test.js" } })}\n`;
/** What the cheating agent writes as the gate's configuration: a check that cannot fail. */
const FORGED = '{"checks":[{"id":"t","command":"true"}]}\n';

/** The JSON fields these tests read. */
interface Turn {
  verdict: string;
  exit_code: number;
  effect_digest: string;
  outcome: { kind: string; reason?: string };
  reports: { checks: { id: string; status: string }[] }[];
  unmatched_waivers: string[];
  turn_chain: {
    unverified_paths: string[];
    config_kept: { path: string; written_in: string } | null;
    config_adopted_by: string | null;
  };
}

/** An agent (node) that writes `files` (relative to the workspace) and removes `remove`. */
function agent(w: World, name: string, files: Record<string, string>, remove: string[] = []) {
  return w.p.agent(
    name,
    `const fs = require("node:fs");
for (const [f, t] of Object.entries(${JSON.stringify(files)})) fs.writeFileSync(f, t);
for (const f of ${JSON.stringify(remove)}) fs.rmSync(f);
console.log("I fixed it");
`,
  );
}

/** `turngate run --json --isolation in-place [--confine] [flags] -- node AGENT` (no --check). */
async function run(w: World, confine: boolean, agentPath: string, flags: string[] = [], env = {}) {
  const out = await turngate(
    [
      "run",
      "--json",
      "--isolation",
      "in-place",
      ...(confine ? ["--confine"] : []),
      ...flags,
      "--",
      "node",
      agentPath,
    ],
    w.p.root,
    { ...w.env, ...env },
  );
  return { ...out, turn: out.json as unknown as Turn };
}

/** The checks of the turn's report (the commands, then turngate's review items): `[id, status]`. */
const checks = (turn: Turn) => (turn.reports[0]?.checks ?? []).map((c) => [c.id, c.status]);

/** The line a turn prints on stderr when it keeps the earlier configuration. */
const keptLine = (since: string, earlier: string) =>
  `turngate: turngate.config.json was written by the agent in a turn you have not accepted (effect digest ${since}); this turn uses ${earlier}. Review it, then adopt it with \`turngate run --fresh\` or \`turngate run --waive ${since}:REASON\`, or edit it yourself\n`;

// Confined, the agent cannot create the file at all (a read-only placeholder is bound where it
// is absent: gate-files-absent.test.ts); the rule below is what holds the line unconfined.
const MODES = [{ name: "unconfined", confine: false, skip: false }];

for (const mode of MODES) {
  describe.skipIf(mode.skip)(
    `a gate configuration the agent created, ${mode.name}${mode.confine ? SKIP_REASON : ""}`,
    () => {
      test(
        'turngate.config.json created with a check "true" over broken code: no later turn adopts it, an honest fix is verified',
        async () => {
          const w = world({ "package.json": PACKAGE, "lib.js": LIB, "test.js": TEST });
          const config = join(w.p.root, "turngate.config.json");
          const cheat = await run(
            w,
            mode.confine,
            agent(w, "cheat.js", { "turngate.config.json": FORGED, "lib.js": BROKEN }),
          );
          expect(cheat.code).toBe(2);
          expect([cheat.turn.verdict, cheat.turn.outcome.reason]).toEqual([
            "incomplete",
            "unverified_mutation",
          ]);
          expect(checks(cheat.turn)).toEqual([
            ["node:test", "failed"],
            ["turngate:config", "needs_review"],
          ]);
          expect(readFileSync(config, "utf8")).toBe(FORGED);
          const since = cheat.turn.effect_digest;

          // "I fixed it", changing nothing: the earlier change is still unverified.
          const nothing = await run(w, mode.confine, agent(w, "nothing.js", {}));
          expect(nothing.code).toBe(2);
          expect([nothing.turn.verdict, nothing.turn.outcome.reason]).toEqual([
            "incomplete",
            "unverified_carry_over",
          ]);
          expect(nothing.stderr).toContain(keptLine(since, "no configuration file, as before"));
          expect(nothing.turn.turn_chain.config_kept).toEqual({ path: config, written_in: since });

          // "I fixed it", touching something else: the checks are still the earlier ones
          // (the preset's npm test), which fail on the broken code. Before the fix, the
          // forged "true" ran here and the turn ended verified, exit 0.
          const touch = await run(
            w,
            mode.confine,
            agent(w, "touch.js", { "test.js": `${TEST}// fixed\n` }),
          );
          expect(touch.code).toBe(2);
          expect([touch.turn.verdict, touch.turn.outcome.reason]).toEqual([
            "incomplete",
            "unverified_mutation",
          ]);
          expect(checks(touch.turn)).toEqual([["node:test", "failed"]]);
          expect(touch.stderr).toContain(keptLine(since, "no configuration file, as before"));

          // The positive control: an honest fix is verified by the earlier checks.
          const fix = await run(w, mode.confine, agent(w, "fix.js", { "lib.js": HONEST }));
          expect(fix.code).toBe(0);
          expect(fix.turn.verdict).toBe("verified");
          expect(checks(fix.turn)).toEqual([["node:test", "passed"]]);
          expect(fix.turn.turn_chain.config_kept).toEqual({ path: config, written_in: since });

          // A verified turn is no host action: the file is still not adopted.
          const again = await run(w, mode.confine, agent(w, "again.js", { "lib.js": BROKEN }));
          expect(again.code).toBe(2);
          expect(checks(again.turn)).toEqual([["node:test", "failed"]]);
          expect(again.stderr).toContain(keptLine(since, "no configuration file, as before"));
        },
        testTimeout(120_000),
      );

      test(
        "the host adopts it: --fresh, a waiver of the turn that wrote it, or an edit of its own between turns",
        async () => {
          const cheated = async () => {
            const w = world({ "package.json": PACKAGE, "lib.js": LIB, "test.js": TEST });
            const cheat = await run(
              w,
              mode.confine,
              agent(w, "cheat.js", { "turngate.config.json": FORGED, "lib.js": BROKEN }),
            );
            expect(cheat.code).toBe(2);
            return { w, since: cheat.turn.effect_digest };
          };

          // --fresh (the host: TURNGATE_ALLOW_FRESH=1 in turngate's environment).
          const a = await cheated();
          const fresh = await run(
            a.w,
            mode.confine,
            agent(a.w, "touch.js", { "test.js": `${TEST}// fixed\n` }),
            ["--fresh"],
            { TURNGATE_ALLOW_FRESH: "1" },
          );
          expect(fresh.code).toBe(0);
          expect(fresh.turn.verdict).toBe("verified");
          expect(checks(fresh.turn)).toEqual([["t", "passed"]]);
          expect(fresh.stderr).toContain(
            `turngate: warning: --fresh: starting over: this turn's baseline is the workspace as it is now, so changes made before it are not checked by this turn (the previous turn left these unverified: lib.js, turngate.config.json); it adopts turngate.config.json, which the agent wrote in the turn with effect digest ${a.since}: review it first\n`,
          );
          expect(fresh.stderr).not.toContain("was written by the agent in a turn");
          expect(fresh.turn.turn_chain.config_kept).toBeNull();

          // A waiver naming the turn that wrote it: adopted in that very turn.
          const b = await cheated();
          const waived = await run(
            b.w,
            mode.confine,
            agent(b.w, "touch.js", { "test.js": `${TEST}// fixed\n` }),
            ["--waive", `${b.since}:reviewed the configuration`],
          );
          expect(waived.code).toBe(0);
          expect(waived.turn.verdict).toBe("verified");
          expect(checks(waived.turn)).toEqual([["t", "passed"]]);
          expect(waived.stderr).toContain(
            `turngate: turngate.config.json, written by the agent in the turn with effect digest ${b.since}, is adopted: your --waive names that turn\n`,
          );
          expect(waived.turn.turn_chain.config_adopted_by).toBe(b.since);
          expect(waived.turn.turn_chain.config_kept).toBeNull();
          expect(waived.turn.unmatched_waivers).toEqual([]);

          // The host edits the file between turns: its bytes are the host's.
          const c = await cheated();
          writeFileSync(join(c.w.p.root, "turngate.config.json"), '{"checks":["node test.js"]}\n');
          const edited = await run(c.w, mode.confine, agent(c.w, "fix.js", { "lib.js": HONEST }));
          expect(edited.code).toBe(0);
          expect(edited.turn.verdict).toBe("verified");
          expect(checks(edited.turn)).toEqual([["check:1", "passed"]]);
          expect(edited.stderr).not.toContain("was written by the agent");
        },
        testTimeout(120_000),
      );
    },
  );
}

describe("a gate configuration the agent deleted, unconfined", () => {
  test(
    "the next turns keep the deleted configuration's checks, not the weaker preset",
    async () => {
      // The host's configuration runs node test.js; the package's own test script is weaker.
      const weak = `${JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: "echo ok" } })}\n`;
      const w = world({
        "package.json": weak,
        "lib.js": LIB,
        "test.js": TEST,
        "turngate.config.json": '{"checks":["node test.js"]}\n',
      });
      const cheat = await run(
        w,
        false,
        agent(w, "cheat.js", { "lib.js": BROKEN }, ["turngate.config.json"]),
      );
      expect(cheat.code).toBe(2);
      expect(checks(cheat.turn)).toEqual([
        ["check:1", "failed"],
        ["turngate:config", "needs_review"],
      ]);
      const touch = await run(w, false, agent(w, "touch.js", { "test.js": `${TEST}// fixed\n` }));
      expect(touch.code).toBe(2);
      expect(checks(touch.turn)).toEqual([["check:1", "failed"]]);
      expect(touch.stderr).toContain(
        keptLine(cheat.turn.effect_digest, "the earlier configuration"),
      );
      expect(existsSync(join(w.p.root, "turngate.config.json"))).toBe(false);
    },
    testTimeout(60_000),
  );
});

describe("a gate configuration the agent changed, unconfined", () => {
  test(
    'the next turns keep the checks of the configuration before the edit to "true"',
    async () => {
      const w = world({
        "lib.js": LIB,
        "test.js": TEST,
        "turngate.config.json": '{"checks":["node test.js"]}\n',
      });
      const cheat = await run(
        w,
        false,
        agent(w, "cheat.js", { "turngate.config.json": FORGED, "lib.js": BROKEN }),
      );
      expect(cheat.code).toBe(2);
      expect(checks(cheat.turn)).toEqual([
        ["check:1", "failed"],
        ["turngate:config", "needs_review"],
      ]);
      const touch = await run(w, false, agent(w, "touch.js", { "test.js": `${TEST}// fixed\n` }));
      expect(touch.code).toBe(2);
      expect(checks(touch.turn)).toEqual([["check:1", "failed"]]);
      expect(touch.stderr).toContain(
        keptLine(cheat.turn.effect_digest, "the earlier configuration"),
      );
      const fix = await run(w, false, agent(w, "fix.js", { "lib.js": HONEST }));
      expect([fix.code, fix.turn.verdict]).toEqual([0, "verified"]);
      expect(checks(fix.turn)).toEqual([["check:1", "passed"]]);
    },
    testTimeout(60_000),
  );
});

describe("a gate configuration the agent wrote, baseline and verify", () => {
  test(
    "the next baseline keeps the earlier configuration and says so; verify --waive of that turn adopts it at the baseline after",
    async () => {
      const w = world({ "package.json": PACKAGE, "lib.js": LIB, "test.js": TEST });
      const cli = (args: string[]) => turngate(args, w.p.root, { ...w.env });
      const write = (path: string, text: string) => writeFileSync(join(w.p.root, path), text);
      expect((await cli(["baseline"])).code).toBe(0);
      write("turngate.config.json", FORGED);
      write("lib.js", BROKEN);
      const first = await cli(["verify", "--json", "--isolation", "in-place"]);
      expect(first.code).toBe(2);
      const since = first.json.effect_digest;

      const kept = await cli(["baseline"]);
      expect(kept.code).toBe(0);
      expect(kept.stderr).toContain(
        `turngate: turngate.config.json was written by the agent in a turn you have not accepted (effect digest ${since}); this turn uses no configuration file, as before. Review it, then adopt it with \`turngate baseline --fresh\` or \`turngate verify --waive ${since}:REASON\`, or edit it yourself\n`,
      );
      write("test.js", `${TEST}// fixed\n`);
      const touch = await cli(["verify", "--json", "--isolation", "in-place"]);
      expect(touch.code).toBe(2);
      expect(checks(touch.json as unknown as Turn)).toEqual([["node:test", "failed"]]);

      // The host waives the turn that wrote it at a verify: the next baseline adopts it.
      write("lib.js", HONEST);
      const fixed = await cli([
        "verify",
        "--json",
        "--isolation",
        "in-place",
        "--waive",
        `${since}:reviewed the configuration`,
      ]);
      expect(fixed.code).toBe(0);
      expect(checks(fixed.json as unknown as Turn)).toEqual([["node:test", "passed"]]);
      const adopted = await cli(["baseline"]);
      expect(adopted.stderr).not.toContain("was written by the agent");
      write("lib.js", BROKEN);
      const forged = await cli(["verify", "--json", "--isolation", "in-place"]);
      expect(checks(forged.json as unknown as Turn)).toEqual([["t", "passed"]]);
    },
    testTimeout(90_000),
  );
});

describe.skipIf(!sandbox.available)(
  `a confined agent cannot move a read-only harness settings file's folder${SKIP_REASON}`,
  () => {
    test("renaming or removing .claude/ or .cursor/ is refused (EBUSY); files beside the settings stay writable", async () => {
      const w = world({
        "lib.js": LIB,
        "test.js": TEST,
        ".claude/settings.json": '{"hooks":{}}\n',
        ".cursor/hooks.json": '{"hooks":{}}\n',
      });
      const probe = w.p.agent(
        "probe.js",
        `const fs = require("node:fs");
const tried = {};
const attempt = (label, fn) => { try { fn(); tried[label] = "done"; } catch (error) { tried[label] = "refused: " + (error.code ?? error.message); } };
attempt("rename .claude", () => fs.renameSync(".claude", ".claude-old"));
attempt("remove .claude", () => fs.rmSync(".claude", { recursive: true }));
attempt("rename .cursor", () => fs.renameSync(".cursor", ".cursor-old"));
attempt("write .claude/settings.json", () => fs.writeFileSync(".claude/settings.json", "{}"));
attempt("write .claude/notes.md", () => fs.writeFileSync(".claude/notes.md", "notes"));
fs.writeFileSync("probe.json", JSON.stringify(tried));
`,
      );
      const out = await turngate(
        [
          "run",
          "--json",
          "--isolation",
          "in-place",
          "--confine",
          "--check",
          "true",
          "--",
          "node",
          probe,
        ],
        w.p.root,
        { ...w.env },
      );
      expect(JSON.parse(readFileSync(join(w.p.root, "probe.json"), "utf8"))).toEqual({
        "rename .claude": "refused: EBUSY",
        "remove .claude": "refused: EBUSY",
        "rename .cursor": "refused: EBUSY",
        "write .claude/settings.json": "refused: EROFS",
        "write .claude/notes.md": "done",
      });
      expect(readFileSync(join(w.p.root, ".claude/settings.json"), "utf8")).toBe('{"hooks":{}}\n');
      expect(existsSync(join(w.p.root, ".claude-old"))).toBe(false);
      expect(out.json.verdict).toBe("verified");
      rmSync(join(w.p.root, "probe.json"));
    });
  },
);
