import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findOnPath } from "@turngate/node";
import { afterAll, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { SKIP_REASON, sandbox, turngate } from "../clean-room/helpers.js";
import { PROJECTS } from "./projects.js";
import { agentScript, checkout, git } from "./workspace.js";

vi.setConfig({ testTimeout: testTimeout(900_000), hookTimeout: testTimeout(60_000) });

const enabled = process.env.TURNGATE_REAL_PROJECTS === "1";
const OFF_REASON = enabled
  ? SKIP_REASON
  : " (skipped: slow and needs the registries; set TURNGATE_REAL_PROJECTS=1 or run ./scripts/dev real-projects)";
if (!enabled || !sandbox.available) console.log(`real projects${OFF_REASON}`);

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
