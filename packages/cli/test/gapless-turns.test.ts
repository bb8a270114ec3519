import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { snapshotStoreDir } from "@turngate/node";
import { afterEach, describe, expect, it } from "vitest";
import { type Project, row, SKIP_REASON, sandbox, turngate } from "./clean-room/helpers.js";
import { cli, gitProject } from "./helpers.js";

// docs/cli.md "Gapless turns" (issue 32 item 3): each `turngate run` starts from the state the
// previous run was judged on, on real temporary git repositories with real agent processes.

const LIB_OK = "module.exports = (a, b) => a + b;\n";
const LIB_BROKEN = "module.exports = (a, b) => a - b;\n";
const TEST_JS =
  'const add = require("./lib.js");\nif (add(2, 3) !== 5) { console.error("add(2, 3) is not 5"); process.exit(1); }\n';

const projects: Project[] = [];
afterEach(() => {
  for (const p of projects.splice(0)) p.cleanup();
});

function project(): Project {
  const p = gitProject({ "lib.js": LIB_OK, "test.js": TEST_JS });
  projects.push(p);
  return p;
}

/** An agent that writes `lib.js`; one that changes nothing and says it fixed it. */
function agents(p: Project): { breaker: string; liar: string; fixer: string } {
  return {
    breaker: p.agent(
      "breaker.js",
      `require("node:fs").writeFileSync("lib.js", ${JSON.stringify(LIB_BROKEN)});`,
    ),
    liar: p.agent("liar.js", 'console.log("I fixed it");'),
    fixer: p.agent(
      "fixer.js",
      `require("node:fs").writeFileSync("lib.js", ${JSON.stringify(LIB_OK)});`,
    ),
  };
}

const run = (p: Project, isolation: string[], agent: string, env: NodeJS.ProcessEnv = {}) =>
  turngate(
    ["run", "--json", ...isolation, "--check", "node test.js", "--", process.execPath, agent],
    p.root,
    env,
  );

const MODES: { name: string; flags: string[]; skip: boolean }[] = [
  { name: "in-place", flags: ["--isolation", "in-place"], skip: false },
  { name: `clean-room (default)${SKIP_REASON}`, flags: [], skip: !sandbox.available },
];

describe("gapless turns: turngate run", () => {
  for (const mode of MODES) {
    it.skipIf(mode.skip)(
      `${mode.name}: a turn that changes nothing after an incomplete one is incomplete (unverified_carry_over), never narrative`,
      async () => {
        const p = project();
        const { breaker, liar } = agents(p);
        const first = await run(p, mode.flags, breaker);
        expect(first.code).toBe(2);
        expect(first.json.outcome.reason).toBe("unverified_mutation");

        const second = await run(p, mode.flags, liar);
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
        expect(readFileSync(join(p.root, "lib.js"), "utf8")).toBe(LIB_BROKEN);
        // And again: the carry-over does not wear off.
        const third = await run(p, mode.flags, liar);
        expect([third.code, third.json.outcome.reason]).toEqual([2, "unverified_carry_over"]);
        // The text names it too.
        const text = await turngate(
          ["run", ...mode.flags, "--check", "node test.js", "--", process.execPath, liar],
          p.root,
        );
        expect(text.code).toBe(2);
        expect(text.stdout).toContain(
          "incomplete (unverified_carry_over): completion gate: this turn changed nothing, but an earlier turn's changes are still unverified (lib.js)",
        );
      },
      120_000,
    );

    it.skipIf(mode.skip)(
      `${mode.name}: positive control: an honest turn that fixes the code after a broken one ends verified, and the next no-op turn is narrative`,
      async () => {
        const p = project();
        const { breaker, liar, fixer } = agents(p);
        expect((await run(p, mode.flags, breaker)).code).toBe(2);
        const carried = await run(p, mode.flags, liar);
        expect([carried.code, carried.json.outcome.reason]).toEqual([2, "unverified_carry_over"]);
        const fixed = await run(p, mode.flags, fixer);
        expect(fixed.code).toBe(0);
        expect(fixed.json.verdict).toBe("verified");
        expect(
          (fixed.json as unknown as { turn_chain: Record<string, unknown> }).turn_chain,
        ).toMatchObject({
          previous: { verdict: "incomplete", reason: "unverified_carry_over" },
          changed_between_turns: [],
          unverified_paths: [],
        });
        // Judged against the broken state: the fix is the turn's change.
        expect(
          (fixed.json as unknown as { changes: { path: string }[] }).changes.map((c) => c.path),
        ).toEqual(["lib.js"]);
        const after = await run(p, mode.flags, liar);
        expect([after.code, after.json.verdict]).toEqual([0, "narrative"]);
      },
      120_000,
    );
  }

  it("a change made between turns (by the user) joins the next turn's ledger and is named as such; the host can waive it", async () => {
    const p = project();
    const { fixer, liar } = agents(p);
    const flags = ["--isolation", "in-place"];
    // Turn 1 rewrites lib.js with the bytes it had: nothing changed, narrative.
    const first = await run(p, flags, fixer);
    expect([first.code, first.json.verdict]).toEqual([0, "narrative"]);
    // The user breaks lib.js by hand between the turns: the text says whose change it was.
    p.write("lib.js", LIB_BROKEN);
    const text = await turngate(
      ["run", ...flags, "--check", "node test.js", "--", process.execPath, liar],
      p.root,
    );
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(
      "changed between turns, by you or another process: lib.js (after the previous turn was judged and before this one's agent ran: rows of this turn, checked with it; the host can waive them with --waive DIGEST:REASON)",
    );
    expect(text.stdout).toContain("incomplete (unverified_mutation)");
    // Another edit between turns, seen in --json.
    const edited = "module.exports = (a, b) => a * b;\n";
    p.write("lib.js", edited);
    const second = await run(p, flags, liar);
    expect(second.code).toBe(2);
    expect(second.json.outcome.reason).toBe("unverified_mutation");
    const json = second.json as unknown as {
      turn_chain: {
        previous: { verdict: string; reason: string | null };
        changed_between_turns: string[];
        changed_between_turns_note: string | null;
        unverified_paths: string[];
      };
      changes: { path: string; content_digest?: string }[];
    };
    expect(json.turn_chain.previous).toMatchObject({
      verdict: "incomplete",
      reason: "unverified_mutation",
    });
    expect(json.turn_chain.changed_between_turns).toEqual(["lib.js"]);
    expect(json.turn_chain.changed_between_turns_note).toBe(
      "changed between turns, by you or another process",
    );
    expect(json.turn_chain.unverified_paths).toEqual(["lib.js"]);
    expect(json.changes.map((c) => [c.path, c.content_digest])).toEqual([
      ["lib.js", row("lib.js", edited).content_digest],
    ]);
    const digest = second.json.effect_digest;
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    // The host waives the unverified changes: the earlier turns' digests, both of them.
    const partly = await turngate(
      [
        "run",
        "--json",
        ...flags,
        "--check",
        "node test.js",
        "--waive",
        `${digest}:my own experiment`,
        "--",
        process.execPath,
        liar,
      ],
      p.root,
    );
    expect([partly.code, partly.json.outcome.reason]).toEqual([2, "unverified_carry_over"]);
    const textDigest = /--waive ([0-9a-f]{64}):REASON --waive/.exec(
      partly.json.outcome.message ?? "",
    )?.[1];
    expect(textDigest).toMatch(/^[0-9a-f]{64}$/);
    const waived = await turngate(
      [
        "run",
        "--json",
        ...flags,
        "--check",
        "node test.js",
        "--waive",
        `${textDigest}:my own experiment`,
        "--waive",
        `${digest}:my own experiment`,
        "--",
        process.execPath,
        liar,
      ],
      p.root,
    );
    expect([waived.code, waived.json.verdict, waived.json.outcome]).toEqual([
      0,
      "waived",
      { kind: "allow", terminal: { kind: "waived", effect_digest: digest } },
    ]);
    // After the waiver the chain starts from the waived state: nothing is carried over.
    const next = await run(p, flags, liar);
    expect([next.code, next.json.verdict]).toEqual([0, "narrative"]);
  }, 120_000);

  it("--fresh without the host's consent is refused and keeps the chain", async () => {
    const p = project();
    const { breaker, liar } = agents(p);
    const flags = ["--isolation", "in-place"];
    expect((await run(p, flags, breaker)).code).toBe(2);
    const refused = await turngate(
      ["run", "--fresh", ...flags, "--check", "node test.js", "--", process.execPath, liar],
      p.root,
      { TURNGATE_ALLOW_FRESH: "0" },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      "--fresh drops the turn chain (what the previous turns were judged on and left unverified), so only the host may ask for it: run turngate from an interactive terminal, or set TURNGATE_ALLOW_FRESH=1 in turngate's environment (turngate removes it from the agent's)",
    );
    expect(refused.stdout).toBe("");
    const still = await run(p, flags, liar);
    expect([still.code, still.json.outcome.reason]).toEqual([2, "unverified_carry_over"]);
  }, 120_000);

  it("--fresh with TURNGATE_ALLOW_FRESH=1 starts over with a warning, and the agent does not see the variable", async () => {
    const p = project();
    const { breaker } = agents(p);
    const flags = ["--isolation", "in-place"];
    expect((await run(p, flags, breaker)).code).toBe(2);
    const envAgent = p.agent(
      "env-agent.js",
      `require("node:fs").writeFileSync(${JSON.stringify(join(p.agents, "seen.txt"))}, String(process.env.TURNGATE_ALLOW_FRESH));`,
    );
    const fresh = await turngate(
      [
        "run",
        "--json",
        "--fresh",
        ...flags,
        "--check",
        "node test.js",
        "--",
        process.execPath,
        envAgent,
      ],
      p.root,
      { TURNGATE_ALLOW_FRESH: "1" },
    );
    expect(fresh.stderr).toContain(
      "turngate: warning: --fresh: starting over: this turn's baseline is the workspace as it is now, so changes made before it are not checked by this turn (the previous turn left these unverified: lib.js)",
    );
    expect([fresh.code, fresh.json.verdict]).toEqual([0, "narrative"]);
    expect(readFileSync(join(p.agents, "seen.txt"), "utf8")).toBe("undefined");
    expect(existsSync(join(p.root, ".turngate", "turn-chain.json"))).toBe(true);
  }, 120_000);

  it("a chain removed after an incomplete turn (the agent's rm -rf .turngate, turngate killed before it wrote another) is refused by the record outside the workspace: the next turn that changes nothing fails (turn_chain_missing), never narrative; the host's --fresh starts over", async () => {
    const p = project();
    const { breaker, liar } = agents(p);
    const flags = ["--isolation", "in-place"];
    expect((await run(p, flags, breaker)).code).toBe(2);
    const chainPath = join(p.root, ".turngate", "turn-chain.json");
    rmSync(join(p.root, ".turngate"), { recursive: true, force: true });
    const refused = await cli(
      ["run", ...flags, "--check", "node test.js", "--", process.execPath, liar],
      p.root,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `turngate: error: the turn chain ${chainPath} is gone, but turngate wrote one (its turn ended at `,
    );
    expect(refused.stderr).toContain(
      "starting over would drop what the earlier turns left unverified; as the host, start over with `turngate run --fresh` (it takes the workspace as it is now as the baseline) [turn_chain_missing]",
    );
    expect(refused.stdout).not.toContain("narrative");
    const fresh = await turngate(
      [
        "run",
        "--json",
        "--fresh",
        ...flags,
        "--check",
        "node test.js",
        "--",
        process.execPath,
        liar,
      ],
      p.root,
      { TURNGATE_ALLOW_FRESH: "1" },
    );
    expect([fresh.code, fresh.json.verdict]).toEqual([0, "narrative"]);
  }, 120_000);

  it("a chain replaced by one a nested turngate wrote for another state folder (copied in with its entries file) is refused: it is not the chain turngate last wrote", async () => {
    const p = project();
    const { breaker, liar } = agents(p);
    const flags = ["--isolation", "in-place"];
    expect((await run(p, flags, breaker)).code).toBe(2);
    const other = mkdtempSync(join(tmpdir(), "turngate-nested-state-"));
    try {
      const nested = await cli(
        ["run", "--state-dir", other, ...flags, "--check", "true", "--", "true"],
        p.root,
      );
      expect(nested.code).toBe(0);
      const state = join(p.root, ".turngate");
      copyFileSync(join(other, "turn-chain.json"), join(state, "turn-chain.json"));
      const from = snapshotStoreDir(other, "chain");
      for (const name of readdirSync(from).filter((n) => n.endsWith(".bin"))) {
        copyFileSync(join(from, name), join(snapshotStoreDir(state, "chain"), name));
      }
      const refused = await cli(
        ["run", ...flags, "--check", "node test.js", "--", process.execPath, liar],
        p.root,
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(
        "it is not the chain turngate last wrote (its SHA-256 differs from the one recorded in ",
      );
      expect(refused.stderr).toContain("[turn_chain_invalid]");
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  }, 120_000);
});
