/**
 * The clean room's rules (docs/design.md §3b, `isolation/room-files.ts`, `room-kept.ts`,
 * `clean-room.ts`): exactly the snapshot's entries, proven by lstat with ctime and inode,
 * racy entries re-hashed, check outputs pruned, kept caches proven, turngate's own mtimes,
 * the workspace re-hashed on copy, and a `.git` cloned at the baseline commit whose index
 * holds the room's files.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  CleanRoom,
  RoomSourceChangedError,
  readBaselineHead,
  syncRoomFiles,
} from "../../src/isolation/index.js";
import type { EntryState } from "../../src/workspace/snapshot.js";

const sha = (data: string) => createHash("sha256").update(data).digest("hex");
let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}
function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
function fileEntry(text: string, mode = 0o100644): EntryState {
  return {
    kind: "file",
    content_digest: sha(text),
    size: text.length,
    mtime_ms: 0,
    ctime_ms: 0,
    ino: 0,
    mode,
  };
}
/** Entries of `files` as a snapshot would name them (stat fields unused by the room). */
function entries(files: Record<string, string>): Map<string, EntryState> {
  return new Map(Object.entries(files).map(([p, t]) => [p, fileEntry(t)]));
}

describe("syncRoomFiles", () => {
  test("the room holds exactly the named entries: check outputs and stray folders are pruned, caches kept", () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    const files = { "a.js": "a\n", "src/b.js": "b\n", "Cargo.toml": "[package]\n" };
    for (const [p, t] of Object.entries(files)) write(ws, p, t);
    const first = syncRoomFiles({
      room,
      workspace: ws,
      entries: entries(files),
      recorded: {},
      stampNs: 0n,
      lastMtimeS: 0,
    });
    expect(first.written).toEqual(["Cargo.toml", "a.js", "src/b.js"]);
    write(room, "coverage/impl.js", "planted");
    write(room, "src/__pycache__/b.pyc", "bytecode");
    write(room, "target/debug/x", "build");
    write(room, "stray.txt", "x");
    const second = syncRoomFiles({
      room,
      workspace: ws,
      entries: entries(files),
      recorded: first.recorded,
      stampNs: BigInt(Date.now() + 60_000) * 1_000_000n,
      lastMtimeS: first.mtimeS,
    });
    expect(second.removed).toEqual(["coverage", "stray.txt"]);
    expect(second.written).toEqual([]);
    expect(existsSync(join(room, "src/__pycache__/b.pyc"))).toBe(true);
    expect(existsSync(join(room, "target/debug/x"))).toBe(true);
  });

  test("a room file rewritten with the same size and mtime is found by its ctime and copied again", () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "a.js", "good\n");
    const first = syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.js": "good\n" }),
      recorded: {},
      stampNs: 0n,
      lastMtimeS: 0,
    });
    const before = lstatSync(join(room, "a.js"));
    writeFileSync(join(room, "a.js"), "evil\n");
    utimesSync(join(room, "a.js"), before.atime, before.mtime);
    const far = BigInt(Date.now() + 60_000) * 1_000_000n;
    const second = syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.js": "good\n" }),
      recorded: first.recorded,
      stampNs: far,
      lastMtimeS: first.mtimeS,
    });
    expect(second.written).toEqual(["a.js"]);
    expect(readFileSync(join(room, "a.js"), "utf8")).toBe("good\n");
  });

  test("a racily clean entry (ctime at or after the stamp) is re-hashed, and kept when its bytes are right", () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "a.js", "good\n");
    const first = syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.js": "good\n" }),
      recorded: {},
      stampNs: 0n,
      lastMtimeS: 0,
    });
    const second = syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.js": "good\n" }),
      recorded: first.recorded,
      stampNs: 0n,
      lastMtimeS: first.mtimeS,
    });
    expect(second.rehashed).toBe(1);
    expect(second.written).toEqual([]);
  });

  test("every sync that writes gives its files one mtime, whole seconds, later than any earlier sync's", () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "a.py", "x = 1\n");
    const one = syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.py": "x = 1\n" }),
      recorded: {},
      stampNs: 0n,
      lastMtimeS: 0,
    });
    write(ws, "a.py", "x = 2\n");
    const two = syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.py": "x = 2\n" }),
      recorded: one.recorded,
      stampNs: 0n,
      lastMtimeS: one.mtimeS,
    });
    expect(two.mtimeS).toBeGreaterThan(one.mtimeS);
    expect(lstatSync(join(room, "a.py")).mtimeMs).toBe(two.mtimeS * 1000);
    // Python's bytecode keeps the source's mtime in whole seconds: it always differs now.
    expect(Math.floor(lstatSync(join(room, "a.py")).mtimeMs / 1000)).not.toBe(one.mtimeS);
  });

  test("bytes that changed in the workspace after the snapshot are refused, naming the path", () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "a.js", "later\n");
    expect(() =>
      syncRoomFiles({
        room,
        workspace: ws,
        entries: entries({ "a.js": "observed\n" }),
        recorded: {},
        stampNs: 0n,
        lastMtimeS: 0,
      }),
    ).toThrow(new RoomSourceChangedError("a.js"));
  });

  test("symlinks are copied as links, never followed; executable bits are kept", () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "run.sh", "#!/bin/sh\n");
    execFileSync("chmod", ["755", join(ws, "run.sh")]);
    symlinkSync("/etc/passwd", join(ws, "link"));
    const named = new Map<string, EntryState>([
      ["run.sh", fileEntry("#!/bin/sh\n", 0o100755)],
      ["link", { ...fileEntry("/etc/passwd"), kind: "symlink" }],
    ]);
    syncRoomFiles({
      room,
      workspace: ws,
      entries: named,
      recorded: {},
      stampNs: 0n,
      lastMtimeS: 0,
    });
    expect(readlinkSync(join(room, "link"))).toBe("/etc/passwd");
    expect(lstatSync(join(room, "run.sh")).mode & 0o777).toBe(0o755);
  });
});

describe("CleanRoom", () => {
  function repo(files: Record<string, string>): string {
    const ws = temp("tg-ws-");
    for (const [p, t] of Object.entries(files)) write(ws, p, t);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
        cwd: ws,
        stdio: "pipe",
      });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "--no-gpg-sign", "-m", "base");
    git("tag", "v1.2.3");
    return ws;
  }
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, {
      cwd,
      encoding: "utf8",
      env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
    });

  test("the room's .git is a clone at the baseline commit with its tags, none of the workspace's own files, and an index of the digest's files", async () => {
    const ws = repo({ "a.js": "a\n", "tests/t.sh": "true\n" });
    const head = await readBaselineHead(ws);
    expect(head?.ref).toBe(git(ws, "symbolic-ref", "HEAD").trim());
    // The agent's turn: a changed file, a test dropped from the index, code in .git/logs.
    write(ws, "a.js", "b\n");
    git(ws, "rm", "-q", "--cached", "tests/t.sh");
    write(ws, ".git/logs/impl.js", "planted\n");
    const room = await CleanRoom.open(ws, join(temp("tg-rooms-"), "r"));
    try {
      const prepared = await room.prepare(entries({ "a.js": "b\n", "tests/t.sh": "true\n" }), head);
      expect(prepared.cloned).toBe(true);
      expect(git(room.tree, "rev-parse", "HEAD").trim()).toBe(head?.commit);
      expect(git(room.tree, "describe", "--tags").trim()).toBe("v1.2.3");
      expect(git(room.tree, "ls-files").split("\n").filter(Boolean)).toEqual([
        "a.js",
        "tests/t.sh",
      ]);
      expect(git(room.tree, "status", "--porcelain")).toBe("M  a.js\n");
      expect(existsSync(join(room.tree, ".git/logs/impl.js"))).toBe(false);
    } finally {
      await room.close();
    }
  });

  test("a room .git written between turns is cloned again; build caches live for one turn and are dropped when not what the last check left", async () => {
    const ws = repo({ "a.py": "x = 1\n" });
    const head = await readBaselineHead(ws);
    const roomDir = join(temp("tg-rooms-"), "r");
    const named = entries({ "a.py": "x = 1\n" });
    let room = await CleanRoom.open(ws, roomDir);
    await room.prepare(named, head);
    write(room.tree, "__pycache__/a.cpython-311.pyc", "left by the check");
    await room.afterCheck();
    // The next check of the same turn keeps what the last check left...
    const same = await room.prepare(named, head);
    expect(same.dropped).toEqual([]);
    expect(readFileSync(join(room.tree, "__pycache__/a.cpython-311.pyc"), "utf8")).toBe(
      "left by the check",
    );
    // ...and drops what someone else wrote since.
    write(room.tree, "__pycache__/a.cpython-311.pyc", "planted between checks");
    const planted = await room.prepare(named, head);
    expect(planted.dropped).toEqual(["__pycache__"]);
    write(room.tree, "__pycache__/a.cpython-311.pyc", "left by the check");
    await room.afterCheck();
    await room.close();
    // Between turns, something plants a hook in the room's .git.
    write(room.tree, ".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n");
    await new Promise((resolve) => setTimeout(resolve, 100));
    room = await CleanRoom.open(ws, roomDir);
    try {
      const next = await room.prepare(named, head);
      expect(next.dropped).toEqual([".git", "__pycache__"]);
      expect(next.cloned).toBe(true);
      expect(existsSync(join(room.tree, ".git/hooks/pre-commit"))).toBe(false);
      expect(existsSync(join(room.tree, "__pycache__"))).toBe(false);
    } finally {
      await room.close();
    }
  });

  test("a manifest forged during the turn proves nothing: the room's files are re-hashed against the snapshot", async () => {
    const ws = repo({ "lib.js": "good\n" });
    const head = await readBaselineHead(ws);
    const roomDir = join(temp("tg-rooms-"), "r");
    let room = await CleanRoom.open(ws, roomDir);
    await room.prepare(entries({ "lib.js": "good\n" }), head);
    await room.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const turnStart = Date.now();
    // The agent's turn: broken bytes in the workspace, and a manifest claiming the room's
    // good lib.js holds them (with its exact stat and a stamp far in the future).
    write(ws, "lib.js", "broken\n");
    const stat = lstatSync(join(roomDir, "tree/lib.js"), { bigint: true });
    const manifest = JSON.parse(readFileSync(join(roomDir, "manifest.json"), "utf8"));
    manifest.stamp_ns = "99999999999999999999";
    manifest.entries["lib.js"] = {
      kind: "file",
      digest: sha("broken\n"),
      size: String(stat.size),
      mtime_ns: String(stat.mtimeNs),
      ctime_ns: String(stat.ctimeNs),
      ino: String(stat.ino),
      mode: String(stat.mode),
    };
    writeFileSync(join(roomDir, "manifest.json"), JSON.stringify(manifest));
    room = await CleanRoom.open(ws, roomDir, process.env, turnStart);
    try {
      const prepared = await room.prepare(entries({ "lib.js": "broken\n" }), head);
      expect(prepared.written).toEqual(["lib.js"]);
      expect(readFileSync(join(room.tree, "lib.js"), "utf8")).toBe("broken\n");
    } finally {
      await room.close();
    }
  });

  test("a workspace that is not a repository's top level gets a room without .git", async () => {
    const ws = repo({ "sub/a.js": "a\n" });
    expect(await readBaselineHead(join(ws, "sub"))).toBeNull();
    const plain = temp("tg-plain-");
    expect(await readBaselineHead(plain)).toBeNull();
  });
});
