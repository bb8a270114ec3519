/**
 * The confined agent's plan (docs/design.md §3b, `isolation/confine.ts`): the user's runtime
 * socket folders are hidden when they exist, and bubblewrap is always given the seccomp filter's
 * file descriptor. The real sandbox is in packages/cli/test/confine/.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { confineArgs, confinePlan, userSocketPaths } from "../../src/isolation/index.js";

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
function temp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "tg-confine-")));
  dirs.push(dir);
  return dir;
}

describe("userSocketPaths", () => {
  test("XDG_RUNTIME_DIR, /run/user/<uid>, /tmp/tmux-<uid>, TMUX_TMPDIR's tmux folder and the TMUX socket, once each", () => {
    expect(
      userSocketPaths(
        {
          XDG_RUNTIME_DIR: "/run/user/1000",
          TMUX_TMPDIR: "/var/tmp/t",
          TMUX: "/var/tmp/t/tmux-1000/default,4242,0",
        },
        1000,
      ),
    ).toEqual([
      "/run/user/1000",
      "/tmp/tmux-1000",
      "/var/tmp/t/tmux-1000",
      "/var/tmp/t/tmux-1000/default",
    ]);
    expect(userSocketPaths({ XDG_RUNTIME_DIR: "relative", TMUX: "" }, undefined)).toEqual([]);
    expect(userSocketPaths({}, 0)).toEqual(["/run/user/0", "/tmp/tmux-0"]);
  });
});

describe("confinePlan and confineArgs", () => {
  test("an existing runtime folder and tmux socket folder are hidden (empty read-only tmpfs), a missing one is not mounted; --seccomp FD comes after the mounts", () => {
    const workspace = temp();
    const runtime = join(temp(), "run-user");
    const tmuxTmp = temp();
    const agentTmp = temp();
    mkdirSync(runtime);
    // tmux's folder under TMUX_TMPDIR for a uid no other test uses; /tmp/tmux-<uid> and
    // /run/user/<uid> of that uid do not exist, so they are not mounted.
    const uid = 4_000_000_001;
    mkdirSync(join(tmuxTmp, `tmux-${uid}`));
    const plan = confinePlan({
      workspace,
      cwd: workspace,
      tmpdir: agentTmp,
      env: { HOME: workspace, XDG_RUNTIME_DIR: runtime, TMUX_TMPDIR: tmuxTmp },
      newSession: true,
      uid,
    });
    const socketFolders = plan.hidden.filter(
      (h) => h.path === runtime || h.path.startsWith(tmuxTmp),
    );
    expect(socketFolders).toEqual([
      { path: runtime, kind: "folder" },
      { path: join(tmuxTmp, `tmux-${uid}`), kind: "folder" },
    ]);
    expect(
      plan.hidden.some((h) => h.path === `/run/user/${uid}` || h.path === `/tmp/tmux-${uid}`),
    ).toBe(false);
    const args = confineArgs(plan, 4);
    const at = (...needle: string[]) =>
      args.findIndex((_, i) => needle.every((n, k) => args[i + k] === n));
    expect(at("--tmpfs", runtime, "--remount-ro", runtime)).toBeGreaterThan(0);
    expect(args.slice(-4)).toEqual(["--seccomp", "4", "--chdir", workspace]);
  });

  test("a runtime folder that holds the workspace stays visible (hiding it would hide the workspace)", () => {
    const runtime = temp();
    const workspace = join(runtime, "ws");
    mkdirSync(workspace);
    const plan = confinePlan({
      workspace,
      cwd: workspace,
      tmpdir: temp(),
      env: { HOME: workspace, XDG_RUNTIME_DIR: runtime },
      newSession: true,
      uid: 4_000_000_001,
    });
    expect(plan.hidden.filter((h) => h.path === runtime)).toEqual([]);
  });
});
