import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findOnPath } from "@turngate/node";
import { afterAll, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { SKIP_REASON, sandbox, turngate } from "../clean-room/helpers.js";
import { EVENT_NAMES, type FixtureEvent, payload, readStop } from "../hooks/fixtures.js";
import { PROJECTS } from "./projects.js";
import { agentScript, checkout, git } from "./workspace.js";

vi.setConfig({ testTimeout: testTimeout(900_000), hookTimeout: testTimeout(60_000) });

const enabled = process.env.TURNGATE_REAL_PROJECTS === "1";
const OFF_REASON = enabled
  ? SKIP_REASON
  : " (skipped: slow and needs the registries; set TURNGATE_REAL_PROJECTS=1 or run ./scripts/dev real-projects)";
if (!enabled || !sandbox.available) console.log(`real projects${OFF_REASON}`);

const bin = join(dirname(fileURLToPath(import.meta.url)), "../../dist/bin.js");

/** One Claude Code hook event for `root`, as the harness sends it (project-level hook). */
function claudeCode(root: string, state: string, kind: FixtureEvent) {
  const r = spawnSync(
    process.execPath,
    [bin, "hook", "claude-code", EVENT_NAMES["claude-code"][kind]],
    {
      cwd: root,
      input: JSON.stringify(payload("claude-code", kind, { session: "real", root })),
      encoding: "utf8",
      env: { ...process.env, TURNGATE_HOOK_STATE_DIR: state },
    },
  );
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

const timings: string[] = [];
const started = performance.now();
afterAll(() => {
  if (timings.length === 0) return;
  const loadavg = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(
    `real projects: ${timings.length} in ${((performance.now() - started) / 1000).toFixed(0)} s (load average ${loadavg}):\n  ${timings.join("\n  ")}`,
  );
});

describe.skipIf(!enabled || !sandbox.available)(`real projects, clean room${OFF_REASON}`, () => {
  for (const project of PROJECTS) {
    const missing = project.needs.filter(
      (tool) => findOnPath(tool, process.env.PATH ?? "") === undefined,
    );
    const title =
      missing.length > 0
        ? `${project.name} (skipped: ${missing.join(", ")} not on PATH)`
        : project.name;
    test.skipIf(missing.length > 0)(title, async () => {
      const agents = realpathSync(mkdtempSync(join(tmpdir(), "turngate-real-agents-")));
      const t0 = performance.now();
      let root: string | undefined;
      try {
        root = await checkout(project);
        expect(git(root, "status", "--porcelain")).toBe("");
        const prepared = performance.now();
        for (const [i, edits] of project.turns.entries()) {
          const agent = agentScript(agents, `turn${i + 1}.js`, edits);
          const turn = await turngate(["run", "--json", "--", "node", agent], root);
          const failed = turn.json.checks.filter((c) => c.status !== "passed");
          expect(
            { turn: i + 1, verdict: turn.json.verdict, failed },
            `turn ${i + 1} of ${project.name}: ${turn.stderr}`,
          ).toEqual({ turn: i + 1, verdict: "verified", failed: [] });
          expect(turn.code).toBe(0);
          expect(turn.json.isolation.mode).toBe("clean-room");
          expect(turn.json.checks.length).toBeGreaterThan(0);
        }
        const bug = agentScript(agents, "bug.js", project.bug);
        const broken = await turngate(["run", "--", "node", bug], root);
        expect(broken.code, broken.stdout).not.toBe(0);
        expect(broken.stdout).toMatch(/^incomplete \(unverified_mutation\)/m);
        expect(broken.stdout).toContain(project.failing);
        expect(broken.stdout).toContain(project.assertion);
        // The same bug under the Claude Code hook (issue 34 item 1): the block text the model
        // reads names the failing test and its assertion too. The bug is undone first (its
        // edits reversed), so the hook turn starts from the last verified turn's bytes.
        const undo = project.bug.map((e) => {
          if (!("find" in e)) throw new Error(`${project.name}: a bug edit must be find/replace`);
          return { file: e.file, find: e.replace, replace: e.find };
        });
        const unbug = agentScript(agents, "unbug.js", undo);
        expect(spawnSync(process.execPath, [unbug], { cwd: root }).status).toBe(0);
        const hookState = join(agents, "hook-state");
        claudeCode(root, hookState, "turn_start");
        expect(spawnSync(process.execPath, [bug], { cwd: root }).status).toBe(0);
        const stop = readStop("claude-code", claudeCode(root, hookState, "stop"));
        expect(stop.decision, JSON.stringify(stop)).toBe("block");
        const reason = stop.decision === "block" ? stop.reason : "";
        expect(reason).toContain(project.failing);
        expect(reason).toContain(project.assertion);
        for (const path of project.absent) {
          expect(existsSync(join(root, path)), `${path} in the workspace`).toBe(false);
        }
        timings.push(
          `${project.name}: ${((performance.now() - t0) / 1000).toFixed(1)} s (set-up ${((prepared - t0) / 1000).toFixed(1)} s, 3 turns ${((performance.now() - prepared) / 1000).toFixed(1)} s)`,
        );
      } finally {
        if (root !== undefined) rmSync(root, { recursive: true, force: true });
        rmSync(agents, { recursive: true, force: true });
      }
    });
  }
});
