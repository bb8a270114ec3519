/**
 * The check sandbox's plan (docs/design.md §3b, `isolation/sandbox.ts`,
 * `dependency-folders.ts`): the order of bubblewrap's mounts, which toolchain folders are
 * bound, which dependency folders are shown, and the probe's fail-closed answer.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  bwrapArgs,
  dependencyFileMounts,
  dependencyMounts,
  findDependencyFiles,
  findDependencyFolders,
  probeSandbox,
  toolchainBinds,
} from "../../src/isolation/index.js";

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
function temp(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "tg-sandbox-")));
  dirs.push(dir);
  return dir;
}

describe("bwrapArgs", () => {
  test("namespaces first; the room is bound over the workspace after home's tmpfs and toolchains, then the folders inside it, then writable folders; no network by default", () => {
    const args = bwrapArgs({
      room: "/cache/rooms/r/tree",
      workspace: "/home/u/proj",
      cwd: "/home/u/proj/sub",
      home: "/home/u",
      readOnly: [{ src: "/home/u/.rustup", dest: "/home/u/.rustup" }],
      inside: [
        { op: "tmpfs", dest: "/home/u/proj/node_modules" },
        { op: "ro-bind", src: "/home/u/proj/node_modules/a", dest: "/home/u/proj/node_modules/a" },
      ],
      writable: [{ src: "/tmp/turngate-check-x", dest: "/tmp/turngate-check-x" }],
    });
    expect(args.slice(0, 9)).toEqual([
      "--die-with-parent",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--cap-drop",
      "ALL",
      "--new-session",
      "--unshare-net",
    ]);
    const at = (...needle: string[]) =>
      args.findIndex((_, i) => needle.every((n, k) => args[i + k] === n));
    const home = at("--tmpfs", "/home/u");
    const rustup = at("--ro-bind", "/home/u/.rustup", "/home/u/.rustup");
    const room = at("--bind", "/cache/rooms/r/tree", "/home/u/proj");
    const nm = at("--tmpfs", "/home/u/proj/node_modules");
    const dep = at("--ro-bind", "/home/u/proj/node_modules/a");
    const scratch = at("--bind", "/tmp/turngate-check-x", "/tmp/turngate-check-x");
    expect(at("--tmpfs", "/tmp")).toBeLessThan(home);
    expect([home, rustup, room, nm, dep, scratch]).toEqual(
      [home, rustup, room, nm, dep, scratch].slice().sort((a, b) => a - b),
    );
    expect(home).toBeGreaterThan(0);
    expect(args.slice(-2)).toEqual(["--chdir", "/home/u/proj/sub"]);
    expect(
      bwrapArgs({
        room: "/r",
        workspace: "/w",
        cwd: "/w",
        home: undefined,
        readOnly: [],
        writable: [],
        network: true,
      }),
    ).not.toContain("--unshare-net");
  });
});

describe("toolchainBinds", () => {
  test("home toolchains and PATH folders outside the system are bound, never the workspace or turngate's state, nested ones once", () => {
    const home = temp();
    for (const dir of [
      ".rustup/toolchains",
      ".cargo/bin",
      ".cargo/registry",
      ".pyenv/shims",
      "bin",
      "proj/node_modules/.bin",
      "state",
    ]) {
      mkdirSync(join(home, dir), { recursive: true });
    }
    const path = [
      join(home, ".pyenv/shims"),
      join(home, "bin"),
      join(home, "proj/node_modules/.bin"),
      "/usr/bin",
    ].join(":");
    const binds = toolchainBinds(home, path, [join(home, "proj"), join(home, "state")]);
    expect(binds.map((b) => b.dest)).toEqual([
      join(home, ".rustup"),
      join(home, ".cargo/bin"),
      join(home, ".cargo/registry"),
      join(home, ".pyenv"),
      join(home, "bin"),
    ]);
  });
});

describe("dependency folders", () => {
  test("shown only when the turn's ledger has no row below them; shown as a tmpfs of read-only entries and the same symlinks", () => {
    const ws = temp();
    mkdirSync(join(ws, "node_modules/dep"), { recursive: true });
    writeFileSync(join(ws, "node_modules/dep/index.js"), "x");
    symlinkSync("dep", join(ws, "node_modules/alias"));
    mkdirSync(join(ws, "pkg/a/node_modules"), { recursive: true });
    mkdirSync(join(ws, "pkg/a/.venv"), { recursive: true });
    const found = findDependencyFolders(
      ws,
      ["lib.js", "pkg/a/index.js"],
      ["pkg/a/.venv/bin/python"],
    );
    expect(found).toEqual([
      { path: "node_modules", visible: true },
      { path: "pkg/a/.venv", visible: false },
      { path: "pkg/a/node_modules", visible: true },
    ]);
    expect(dependencyMounts(ws, found.slice(0, 1))).toEqual([
      { op: "tmpfs", dest: join(ws, "node_modules") },
      { op: "symlink", target: "dep", dest: join(ws, "node_modules/alias") },
      { op: "ro-bind", src: join(ws, "node_modules/dep"), dest: join(ws, "node_modules/dep") },
    ]);
  });
});

describe("probeSandbox", () => {
  test("TURNGATE_BWRAP=none and a bwrap that is not there are unavailable with a reason that says what to do", async () => {
    expect(await probeSandbox({ TURNGATE_BWRAP: "none" })).toEqual({
      available: false,
      reason: "TURNGATE_BWRAP=none",
    });
    expect(await probeSandbox({ TURNGATE_BWRAP: "/nonexistent/bwrap" })).toEqual({
      available: false,
      reason: "TURNGATE_BWRAP=/nonexistent/bwrap is not an absolute path to bubblewrap",
    });
    expect(await probeSandbox({ PATH: "/nonexistent" })).toEqual({
      available: false,
      reason:
        "bubblewrap (bwrap) is not installed: apt-get install bubblewrap (or set TURNGATE_BWRAP to its absolute path)",
    });
  });

  test("an ignored Cargo.lock is shown read-only unless the agent wrote it; a tracked one or a symlink is not bound", () => {
    const ws = temp();
    writeFileSync(join(ws, "Cargo.lock"), "# root lock\n");
    mkdirSync(join(ws, "crates/a"), { recursive: true });
    writeFileSync(join(ws, "crates/a/Cargo.lock"), "# a\n");
    mkdirSync(join(ws, "crates/b"), { recursive: true });
    writeFileSync(join(ws, "crates/b/Cargo.lock"), "# b\n");
    mkdirSync(join(ws, "crates/c"), { recursive: true });
    symlinkSync("../../Cargo.lock", join(ws, "crates/c/Cargo.lock"));
    const found = findDependencyFiles(
      ws,
      [
        "Cargo.toml",
        "crates/a/Cargo.toml",
        "crates/b/Cargo.toml",
        "crates/b/Cargo.lock",
        "crates/c/Cargo.toml",
      ],
      ["crates/a/Cargo.lock"],
    );
    expect(found).toEqual([
      { path: "Cargo.lock", visible: true },
      { path: "crates/a/Cargo.lock", visible: false },
    ]);
    expect(dependencyFileMounts(ws, found)).toEqual([
      { op: "ro-bind", src: join(ws, "Cargo.lock"), dest: join(ws, "Cargo.lock") },
    ]);
  });
});
