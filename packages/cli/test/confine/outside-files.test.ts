/**
 * Confined agents (docs/guarantees.md "Confined agents", issue 32 item 1) against the third attack
 * round's "files outside the workspace that checks read": with `--confine --isolation
 * in-place` (in place, so the clean room's private home is not what defends) each attack
 * is refused, because the agent cannot write outside the workspace. Each test has three
 * runs on fresh worlds (outside-attacks.ts: real git repository, temporary HOME and tools
 * folder; real agent and check processes):
 * - the positive control: the honest agent, confined, ends `verified` with `trust: confined`;
 * - the attack, confined: the planted file is not written, the check fails on the broken
 *   code, the turn is incomplete (exit 2);
 * - the same attack without `--confine`: the write lands and the turn ends `verified` — the
 *   hole confinement closes, so each test fails on the unconfined path (the PATH tool over
 *   1 MiB is the exception: the observer now fingerprints it, so unconfined it ends
 *   incomplete with an environment row; confined, the rewrite never happens).
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { cleanWorlds, SKIP_REASON, sandbox, turn, type World } from "./helpers.js";
import {
  GLOBAL_NPMRC,
  GO_BIN,
  GO_MODULE_CACHE,
  HOME_PATH_TOOL,
  landed,
  NODE_MODULES_2001,
  type OutsideAttack,
  PREFIX_LIB_NODE,
  PTH_IN_VENV,
  plantJs,
} from "./outside-attacks.js";

afterEach(cleanWorlds);

/**
 * An agent that writes `lib` (the workspace change) and then tries `attack` (JavaScript run
 * with `fs` in scope), printing the refusal instead of failing.
 */
function agent(w: World, lib: [string, string], attack = ""): string {
  return w.p.agent(
    "agent.js",
    `const fs = require("node:fs"); const path = require("node:path");
fs.writeFileSync(${JSON.stringify(lib[0])}, ${JSON.stringify(lib[1])});
try { ${attack} } catch (error) { console.error("attack refused: " + error.code); process.exitCode = 3; }
`,
  );
}

/**
 * The three runs of an attack `s` (outside-attacks.ts). `unconfined` checks what the
 * unconfined run ends as, when it is not the `verified` of an open hole (the observer already
 * catches the write: confinement then stops it before it lands).
 */
async function expectConfineRefuses(
  s: OutsideAttack,
  unconfined?: (json: Record<string, unknown>) => void,
): Promise<void> {
  const honest = s.make();
  const ok = await turn(honest, agent(honest, [s.file, s.honest]), s.check, { confine: true });
  expect(ok.json.verdict).toBe("verified");
  expect((ok.json as unknown as { trust: string }).trust).toBe("confined");

  const confined = s.make();
  const refused = await turn(
    confined,
    agent(confined, [s.file, s.cheat], plantJs(s, confined)),
    s.check,
    {
      confine: true,
    },
  );
  expect(landed(s, confined)).toBe(false);
  expect(refused.code).toBe(2);
  expect(refused.json.verdict).toBe("incomplete");
  expect(refused.json.outcome.reason).toBe("unverified_mutation");
  expect(refused.json.checks.map((c) => c.status)).toEqual(["failed"]);
  expect(readFileSync(refused.json.checks[0]?.log_path as string, "utf8")).toContain(s.because);

  const open = s.make();
  const cheated = await turn(open, agent(open, [s.file, s.cheat], plantJs(s, open)), s.check, {
    confine: false,
  });
  expect(landed(s, open)).toBe(true);
  if (unconfined) unconfined(cheated.json as unknown as Record<string, unknown>);
  else expect(cheated.json.verdict).toBe("verified");
}

describe.skipIf(!sandbox.available)(
  `a confined agent cannot plant what checks read outside the workspace${SKIP_REASON}`,
  () => {
    test(
      "a .pth in a virtualenv on PATH (every python start exits 0)",
      () => expectConfineRefuses(PTH_IN_VENV),
      testTimeout(60_000),
    );

    test(
      "npm's global etc/npmrc (script-shell=/bin/true under NPM_CONFIG_PREFIX)",
      () => expectConfineRefuses(GLOBAL_NPMRC),
      testTimeout(60_000),
    );

    test(
      "$PREFIX/lib/node of the node on PATH (a module the workspace requires, kept outside it)",
      () => expectConfineRefuses(PREFIX_LIB_NODE),
      testTimeout(60_000),
    );

    test(
      "a PATH tool over 1 MiB in the home folder rewritten in place, size, mtime and inode kept",
      () =>
        // Since round 3 the home folder's PATH tools are fingerprinted past 1 MiB too: the
        // unconfined rewrite lands, and the observer names it (an environment row).
        expectConfineRefuses(HOME_PATH_TOOL, (json) => {
          expect(json.verdict).toBe("incomplete");
          expect(json.environment_changes).toEqual([
            { path: "~/bin/runtests", content_digest: expect.stringMatching(/^[0-9a-f]{64}$/) },
          ]);
        }),
      testTimeout(60_000),
    );

    test(
      "the 2,001st file of ~/.node_modules (past the fingerprint's 2,000-file budget)",
      () => expectConfineRefuses(NODE_MODULES_2001),
      testTimeout(60_000),
    );

    test.skipIf(GO_BIN === "")(
      `the Go module cache (a module's source rewritten in place, size and mtime kept)${GO_BIN === "" ? " — SKIPPED: go is not on PATH" : ""}`,
      () => expectConfineRefuses(GO_MODULE_CACHE),
      testTimeout(120_000),
    );
  },
);
