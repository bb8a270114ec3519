/**
 * Issue 10 (shellenv) at the Session API (what bridge hosts get): user-level file changes
 * are `environment` ledger rows in the effect digest, the checks run with the controlled
 * environment, and a changed review file (the configuration) makes the report
 * needs_review. Real temporary git repositories, a temporary HOME, real check processes.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { effectDigest } from "@turngate/core";
import { afterEach, describe, expect, test } from "vitest";
import { Session } from "../../src/index.js";
import { useGitRepos } from "./git-repo.js";

const sha256 = (data: string) => createHash("sha256").update(data).digest("hex");
const repo = useGitRepos();
let homes: string[] = [];
afterEach(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
  homes = [];
});
function tempHome(): string {
  const home = realpathSync(mkdtempSync(join(tmpdir(), "turngate-session-home-")));
  homes.push(home);
  return home;
}
const command = (cmd: string) => ({
  id: "c",
  kind: "test",
  description: cmd,
  command: cmd,
  required: true,
});

describe("Session: the checks' environment (issue 10)", () => {
  test("a ~/.npmrc written during the turn is an environment row in the digest", async () => {
    const r = await repo({ "a.txt": "1\n" });
    const home = tempHome();
    const env = { PATH: process.env.PATH, HOME: home, NPM_TOKEN: "secret" };
    const session = await Session.start({ root: r.root, env, useGit: true });
    writeFileSync(join(home, ".npmrc"), "registry=https://example.invalid/\n");
    r.write("a.txt", "2\n");
    await session.observeWorkspace();
    expect(session.environmentChanges).toEqual([
      { path: "~/.npmrc", contentDigest: sha256("registry=https://example.invalid/\n") },
    ]);
    // Ledger order is by path in code points: "~" sorts after every letter.
    expect(session.records).toEqual([
      { tool: "workspace", path: "a.txt", content_digest: sha256("2\n") },
      {
        tool: "environment",
        path: "~/.npmrc",
        content_digest: sha256("registry=https://example.invalid/\n"),
      },
    ]);
    expect(session.effectDigest).toBe(effectDigest(session.records));
    const result = await session.verifyCommands(
      "checks",
      [command('test -z "$NPM_TOKEN" && test "$PYTHONNOUSERSITE" = 1')],
      { bind: true },
    );
    expect(result.report.status).toBe("passed");
    expect(result.binding).toEqual({ bound: true, effectDigest: session.effectDigest });
    expect((await session.decide()).kind).toBe("allow");
  });

  test("observeWorkspace({userFiles: false}) keeps the latest environment rows without fingerprinting again; the next default observation finds the change", async () => {
    const r = await repo({ "a.txt": "1\n" });
    const home = tempHome();
    const env = { PATH: process.env.PATH, HOME: home };
    const session = await Session.start({ root: r.root, env, useGit: true });
    writeFileSync(join(home, ".npmrc"), "registry=https://example.invalid/\n");
    r.write("a.txt", "2\n");
    const between = await session.observeWorkspace({ userFiles: false });
    expect(between.changes.map((c) => c.path)).toEqual(["a.txt"]);
    expect(session.environmentChanges).toEqual([]);
    expect(session.records).toEqual([
      { tool: "workspace", path: "a.txt", content_digest: sha256("2\n") },
    ]);
    await session.observeWorkspace();
    const row = {
      tool: "environment",
      path: "~/.npmrc",
      content_digest: sha256("registry=https://example.invalid/\n"),
    };
    expect(session.records).toEqual([
      { tool: "workspace", path: "a.txt", content_digest: sha256("2\n") },
      row,
    ]);
    // Without fingerprinting again, the rows of that latest comparison stay.
    await session.observeWorkspace({ userFiles: false });
    expect(session.records.at(-1)).toEqual(row);
  });

  test("a changed review file adds a needs_review check and the report does not bind a pass", async () => {
    const r = await repo({ "turngate.config.json": "{}\n" });
    const config = join(r.root, "turngate.config.json");
    const session = await Session.start({
      root: r.root,
      env: { PATH: process.env.PATH, HOME: tempHome() },
      checkEnvironment: { reviewFiles: [config] },
    });
    r.write("turngate.config.json", '{"checks": ["true"]}\n');
    await session.observeWorkspace();
    const result = await session.verifyCommands("checks", [command("true")], { bind: true });
    expect(result.report.status).toBe("needs_review");
    expect(result.report.checks.map((c) => [c.id, c.status])).toEqual([
      ["c", "passed"],
      ["turngate:config", "needs_review"],
    ]);
    expect((await session.decide()).kind).toBe("incomplete");
  });

  test("a configured shell that cannot be found fails Session.start naming shell", async () => {
    const r = await repo({ "a.txt": "1\n" });
    await expect(
      Session.start({ root: r.root, checkEnvironment: { shell: "no-such-shell-y" } }),
    ).rejects.toThrow("at shell: no-such-shell-y was not found on PATH");
  });
});
