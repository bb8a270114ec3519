/**
 * No capability inside either sandbox profile (docs/guarantees.md "Confined agents", "Clean-room
 * checks"; found by the attack round on this stop's changes): started by root, bubblewrap kept
 * every capability (`CapEff: 000001fffeffffff`), so a confined agent ran
 * `mount -o remount,bind,rw /`, planted a `.pth` in the host's Python and got `verified`,
 * `trust: confined`; a check did the same to `/etc`. `--cap-drop ALL` (`namespaceArgs`) and the
 * start probe (a sandbox that keeps a capability is refused) close it. CI runs as root, so these
 * tests exercise the root case there; as another user they hold as well.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { turngate } from "../clean-room/helpers.js";
import { cleanWorlds, HONEST, LIB, SKIP_REASON, sandbox, TEST, turn, world } from "./helpers.js";

afterEach(() => cleanWorlds());

/** The shell line that records `CapEff` and whether remounting `/` writable worked. */
const PROBE =
  "grep '^CapEff:' /proc/self/status > caps.txt; if mount -o remount,bind,rw / 2>/dev/null; then echo remounted > mount.txt; else echo refused > mount.txt; fi";

/** A check that fails on any capability or a writable remount of `/`, then runs the test. */
const PROBE_CHECK = `grep -qx 'CapEff:[[:space:]]*0*' /proc/self/status || exit 1
if mount -o remount,bind,rw / 2>/dev/null; then exit 1; fi
exec node test.js
`;

/** The probe inverted: fails when \`CapEff\` is 0. */
const INVERTED = `if grep -qx 'CapEff:[[:space:]]*0*' /proc/self/status; then exit 1; fi
exit 0
`;

describe.skipIf(!sandbox.available)(`no capability inside the sandboxes${SKIP_REASON}`, () => {
  test(
    "a confined agent holds no capability, root or not: CapEff is 0 and remounting / writable is refused",
    async () => {
      const w = world();
      const agent = w.p.agent(
        "agent.js",
        `require("node:child_process").execFileSync("/bin/sh", ["-c", ${JSON.stringify(PROBE)}]);\n`,
      );
      const result = await turn(w, agent, "node test.js", { confine: true });
      expect(readFileSync(join(w.p.root, "caps.txt"), "utf8")).toBe("CapEff:\t0000000000000000\n");
      expect(readFileSync(join(w.p.root, "mount.txt"), "utf8")).toBe("refused\n");
      expect(result.json.verdict).toBe("verified");
      expect((result.json as unknown as { trust: string }).trust).toBe("confined");
    },
    testTimeout(60_000),
  );

  test(
    "a clean-room check holds no capability: the check that fails on any capability or a writable remount passes",
    async () => {
      // Each run on a fresh world: the honest change, judged by `check` in the clean room.
      const run = (check: string) => {
        const w = world({
          "lib.js": LIB,
          "test.js": TEST,
          "probe.sh": PROBE_CHECK,
          "inverted.sh": INVERTED,
        });
        const agent = w.p.agent(
          "agent.js",
          `require("node:fs").writeFileSync("lib.js", ${JSON.stringify(HONEST)});\n`,
        );
        return turngate(
          ["run", "--json", "--isolation", "clean-room", "--check", check, "--", "node", agent],
          w.p.root,
          w.env,
        );
      };
      const held = await run("sh probe.sh");
      expect(held.json.verdict).toBe("verified");
      expect(held.code).toBe(0);
      // The positive control: the same probe, inverted, fails, so the first run really ran it.
      const inverted = await run("sh inverted.sh");
      expect(inverted.json.verdict).toBe("incomplete");
      expect(inverted.code).toBe(2);
    },
    testTimeout(60_000),
  );
});
