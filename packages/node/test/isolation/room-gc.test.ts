/**
 * `turngate gc --rooms` (docs/cli.md "turngate gc"): the clean rooms of workspaces that are
 * gone are found and removed; the room of a workspace that exists, and a room a turn holds
 * locked, are never. Real folders, real manifests (the room's own encoder), a real lock.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { afterEach, describe, expect, test } from "vitest";
import {
  CLEAN_ROOM_SCHEMA,
  cleanRoomId,
  findStaleRooms,
  ROOM_MANIFEST_FILE,
  removeRooms,
} from "../../src/isolation/index.js";
import { encodeRoomManifest, NO_RECORDS } from "../../src/isolation/room-manifest.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}

/** A room for `workspace` under `base`, with a manifest naming it and `bytes` of tree: its folder and total bytes. */
function room(
  base: string,
  workspace: string,
  bytes = 10,
  id = cleanRoomId(workspace),
): { dir: string; bytes: number } {
  const dir = join(base, id);
  mkdirSync(join(dir, "tree"), { recursive: true });
  writeFileSync(join(dir, "tree", "lib.js"), "x".repeat(bytes));
  const header = {
    schema: CLEAN_ROOM_SCHEMA,
    workspace,
    mtime_s: 0,
    stamp_ns: "0",
    git: null,
    head: null,
  };
  const manifest = encodeRoomManifest(header, NO_RECORDS);
  writeFileSync(join(dir, ROOM_MANIFEST_FILE), manifest);
  return { dir, bytes: bytes + manifest.length };
}

describe("stale clean rooms", () => {
  test("a room whose workspace is gone, one whose workspace is another folder now, and one without a readable manifest are stale; the room of an existing workspace is not", () => {
    const base = temp("turngate-rooms-gc-");
    const env = { TURNGATE_ROOM_DIR: base };
    const alive = temp("turngate-alive-");
    const gone = join(tmpdir(), "turngate-gone-workspace-never-made");
    const aliveRoom = room(base, alive);
    const goneRoom = room(base, gone, 100);
    const movedRoom = room(base, alive, 5, "0123456789abcdef");
    const broken = join(base, "fedcba9876543210");
    mkdirSync(broken);
    writeFileSync(join(broken, ROOM_MANIFEST_FILE), "not a manifest");
    mkdirSync(join(base, "not-a-room"));
    const stale = findStaleRooms(env);
    expect(stale).toEqual(
      [
        {
          dir: goneRoom.dir,
          workspace: gone,
          bytes: goneRoom.bytes,
          why: `the workspace ${gone} no longer exists`,
        },
        {
          dir: movedRoom.dir,
          workspace: alive,
          bytes: movedRoom.bytes,
          why: `${alive} is now another folder`,
        },
        {
          dir: broken,
          workspace: null,
          bytes: 14,
          why: "no readable manifest (an interrupted first build)",
        },
      ].sort((a, b) => (a.dir < b.dir ? -1 : 1)),
    );
    // The tree's file and the manifest both count.
    expect(goneRoom.bytes).toBeGreaterThan(100);
    expect(removeRooms(stale)).toEqual(stale.map((r) => r.dir));
    expect(findStaleRooms(env)).toEqual([]);
    // The living workspace's room is still there.
    expect(existsSync(aliveRoom.dir)).toBe(true);
  });

  test("a room a turn holds (its manifest locked) is never stale, even when its workspace is gone", async () => {
    const base = temp("turngate-rooms-gc-");
    const gone = join(tmpdir(), "turngate-gone-workspace-locked");
    const { dir } = room(base, gone);
    const release = await lockfile.lock(join(dir, ROOM_MANIFEST_FILE), { realpath: false });
    try {
      expect(findStaleRooms({ TURNGATE_ROOM_DIR: base })).toEqual([]);
    } finally {
      await release();
    }
    expect(findStaleRooms({ TURNGATE_ROOM_DIR: base }).map((r) => r.dir)).toEqual([dir]);
  });

  test("no rooms folder: nothing", () => {
    expect(findStaleRooms({ TURNGATE_ROOM_DIR: join(tmpdir(), "turngate-no-rooms-here") })).toEqual(
      [],
    );
  });
});
