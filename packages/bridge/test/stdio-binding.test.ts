/**
 * What the checks changed, over the bridge (issue 10): `session.verify_commands` binds with
 * `check_outputs`, an unbound binding carries `hint`, and `session.create` takes
 * `options.rewrite_paths` (lockfile names only, checked at `options.rewrite_paths.N`).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { BridgeProcess } from "./helpers/bridge-process.js";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const command = (id: string, cmd: string) => ({
  id,
  kind: "test",
  description: id,
  command: cmd,
  required: true,
});

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});
/** A committed git repository holding `files`, and a bridge. */
function setup(files: Record<string, string>): { root: string; bridge: BridgeProcess } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "turngate-bridge-binding-")));
  for (const [path, text] of Object.entries(files)) writeFileSync(join(root, path), text);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
      cwd: root,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "--no-gpg-sign", "-m", "base");
  const bridge = new BridgeProcess();
  cleanups.push(() => {
    bridge.kill();
    rmSync(root, { recursive: true, force: true });
  });
  return { root, bridge };
}

describe("bridge: what the checks changed", () => {
  test("verify_commands lists check outputs in a bound binding, and an unbound one has a hint", async () => {
    const { root, bridge } = setup({ "a.txt": "old\n" });
    const { session_id } = await bridge.call<{ session_id: string }>("session.create", { root });
    writeFileSync(join(root, "a.txt"), "new\n");
    await bridge.call("session.observe_workspace", { session_id });
    const bound = await bridge.call<{ binding: unknown }>("session.verify_commands", {
      session_id,
      subject: "unit",
      commands: [command("cov", "mkdir -p coverage && echo x > coverage/lcov.info")],
      bind: true,
    });
    expect(bound.binding).toEqual({
      bound: true,
      effect_digest: sha256(`workspace|a.txt|${sha256("new\n")}`),
      check_outputs: {
        count: 1,
        paths: [{ path: "coverage/lcov.info", change: "added", scope: "output" }],
      },
    });
    const unbound = await bridge.call<{ binding: unknown }>("session.verify_commands", {
      session_id,
      subject: "unit",
      commands: [command("gen", "echo x > gen.txt")],
      bind: true,
    });
    expect(unbound.binding).toEqual({
      bound: false,
      reason: "workspace_changed_during_check",
      changed_paths: ["gen.txt"],
      unreadable: [],
      created: ["gen.txt"],
      hint: 'the checks created gen.txt: add "gen.txt" to "outputs" in turngate.config.json, or to .gitignore',
    });
  });

  test("session.create options.rewrite_paths: a lockfile re-run binds with rewrites; a non-lockfile is invalid_params at its path", async () => {
    const { root, bridge } = setup({ "a.txt": "old\n", "go.sum": "v1\n" });
    const bad = await bridge.request("session.create", {
      root,
      options: { rewrite_paths: ["go.sum", "main.go"] },
    });
    expect(bad.error?.data).toMatchObject({
      code: "invalid_params",
      path: "options.rewrite_paths.1",
    });
    const { session_id } = await bridge.call<{ session_id: string }>("session.create", {
      root,
      options: { rewrite_paths: ["go.sum"] },
    });
    writeFileSync(join(root, "a.txt"), "new\n");
    await bridge.call("session.observe_workspace", { session_id });
    const settle = join(root, "..", `settle-${process.pid}-${Date.now()}.js`);
    writeFileSync(
      settle,
      `const fs = require("node:fs"); if (fs.readFileSync("go.sum", "utf8") !== "v2\\n") fs.writeFileSync("go.sum", "v2\\n");`,
    );
    cleanups.push(() => rmSync(settle, { force: true }));
    const result = await bridge.call<{ binding: { bound: boolean; rewrites: unknown } }>(
      "session.verify_commands",
      { session_id, subject: "unit", commands: [command("sum", `node ${settle}`)], bind: true },
    );
    expect(result.binding.bound).toBe(true);
    expect(result.binding.rewrites).toEqual([{ path: "go.sum", check_id: "sum" }]);
  });
});
