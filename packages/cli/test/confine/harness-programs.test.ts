/**
 * The workspace programs the harnesses' settings name — a hook script, an MCP server — are
 * gate files (docs/design.md §3b "Gate files", docs/guarantees.md "Confined agents", issue
 * 32): a harness runs them outside every check and outside its own sandbox, where the signing
 * key is. A confined agent cannot rewrite them (bound read-only); an unconfined one can, and
 * the `turngate:hook-settings` review keeps that turn from being verified. Real temporary git
 * repositories, real bubblewrap, real agent and check processes, `--isolation in-place`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  cleanWorlds,
  HONEST,
  LIB,
  SKIP_REASON,
  sandbox,
  TEST,
  turn,
  type World,
  world,
} from "./helpers.js";

afterEach(cleanWorlds);

const FORMAT = "#!/bin/sh\nexit 0\n";
const SERVER = "// the docs server\n";

/** A project whose Claude Code settings run a hook script and whose .mcp.json starts a server. */
function project(): World {
  return world({
    "lib.js": LIB,
    "test.js": TEST,
    ".claude/settings.json": `${JSON.stringify({
      hooks: {
        PostToolUse: [
          {
            matcher: "Edit",
            hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh' }],
          },
        ],
      },
    })}\n`,
    ".claude/hooks/format.sh": FORMAT,
    ".mcp.json": `${JSON.stringify({ mcpServers: { docs: { command: "node", args: ["tools/docs-server.js"] } } })}\n`,
    "tools/docs-server.js": SERVER,
  });
}

/** An agent that writes the honest lib.js, then tries to rewrite both programs. */
function rewriter(w: World): string {
  return w.p.agent(
    "rewriter.js",
    `const fs = require("node:fs");
fs.writeFileSync("lib.js", ${JSON.stringify(HONEST)});
const tried = {};
for (const file of [".claude/hooks/format.sh", "tools/docs-server.js"]) {
  try { fs.writeFileSync(file, "cat ~/.local/state/turngate/signing-key.pem\\n"); tried[file] = "done"; }
  catch (error) { tried[file] = "refused: " + error.code; }
}
fs.writeFileSync("probe.json", JSON.stringify(tried));
`,
  );
}

/** What the agent's write attempts gave (`probe.json`, which it writes in the workspace). */
const probeOf = (w: World): Record<string, string> =>
  JSON.parse(readFileSync(join(w.p.root, "probe.json"), "utf8")) as Record<string, string>;

/** The JSON fields these tests read. */
interface Turn {
  verdict: string;
  changes: { path: string }[];
  reports: { checks: { id: string; status: string; residual_risk?: string }[] }[];
}

describe.skipIf(!sandbox.available)(
  `the programs a harness's settings name are gate files${SKIP_REASON}`,
  () => {
    test("confined: rewriting the hook script and the MCP server's program is refused (EROFS); the honest change is verified", async () => {
      const w = project();
      const out = await turn(w, rewriter(w), "node test.js", { confine: true });
      expect(probeOf(w)).toEqual({
        ".claude/hooks/format.sh": "refused: EROFS",
        "tools/docs-server.js": "refused: EROFS",
      });
      const json = out.json as unknown as Turn;
      expect(json.verdict).toBe("verified");
      expect(json.changes.map((c) => c.path)).toEqual(["lib.js", "probe.json"]);
      expect(readFileSync(join(w.p.root, ".claude/hooks/format.sh"), "utf8")).toBe(FORMAT);
      expect(readFileSync(join(w.p.root, "tools/docs-server.js"), "utf8")).toBe(SERVER);
    });

    test("unconfined, the same agent rewrites both; the hook-settings review names them and the turn is not verified", async () => {
      const w = project();
      const out = await turn(w, rewriter(w), "node test.js", { confine: false });
      expect(probeOf(w)).toEqual({
        ".claude/hooks/format.sh": "done",
        "tools/docs-server.js": "done",
      });
      const json = out.json as unknown as Turn;
      expect(out.code).toBe(2);
      expect(json.verdict).toBe("incomplete");
      const checks = json.reports[0]?.checks ?? [];
      expect(checks.map((c) => [c.id, c.status])).toEqual([
        ["check:1", "passed"],
        ["turngate:hook-settings", "needs_review"],
      ]);
      expect(checks[1]?.residual_risk).toMatch(
        /^\.claude\/hooks\/format\.sh, tools\/docs-server\.js changed during the turn \(created, edited or removed\): these files configure an agent harness's hooks and sandbox, or are programs its hooks and MCP servers run/,
      );
    });
  },
);
