/**
 * The clean rooms nobody will use again (`turngate gc --rooms`; docs/cli.md "turngate gc"):
 * a room lives outside its workspace, in the user's cache folder, so removing a workspace
 * leaves its room (and the room's dependency-setup cache) behind. A room is stale when its
 * manifest cannot be read (an interrupted first build) or names a workspace that no longer
 * exists at that path. A room whose lock is held (a turn is using it) is never stale.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { cleanRoomId, cleanRoomsBase, ROOM_MANIFEST_FILE } from "./clean-room.js";
import { decodeRoomManifest } from "./room-manifest.js";

/** A clean room `findStaleRooms` found. */
export interface StaleRoom {
  /** The room's folder (absolute). */
  dir: string;
  /** The workspace its manifest names, or null when it has no readable manifest. */
  workspace: string | null;
  /** Bytes of its regular files (`lstat` sizes; symlinks not followed). */
  bytes: number;
  /** Why it is stale, in words. */
  why: string;
}

const ROOM_NAME = /^[0-9a-f]{16}$/;

/**
 * The stale clean rooms under {@link cleanRoomsBase} (`env`'s `TURNGATE_ROOM_DIR` or the
 * user's cache folder): each folder named like a room whose manifest is unreadable, or whose
 * workspace is gone or is no longer the folder the room was made for (its real path hashes
 * to another room). Rooms whose manifest lock is held are skipped. Output: sorted by folder.
 * A missing base lists nothing. Never throws.
 */
export function findStaleRooms(env: NodeJS.ProcessEnv = process.env): StaleRoom[] {
  const base = cleanRoomsBase(env);
  let names: string[];
  try {
    names = readdirSync(base).filter((name) => ROOM_NAME.test(name));
  } catch {
    return [];
  }
  const stale: StaleRoom[] = [];
  for (const name of names.sort()) {
    const dir = join(base, name);
    const manifest = join(dir, ROOM_MANIFEST_FILE);
    let locked = false;
    try {
      locked = lockfile.checkSync(manifest, { realpath: false, stale: 60_000 });
    } catch {
      locked = false; // no manifest: nothing holds it
    }
    if (locked) continue;
    const workspace = manifestWorkspace(manifest);
    let why: string | null;
    if (workspace === null) why = "no readable manifest (an interrupted first build)";
    else if (!existsSync(workspace)) why = `the workspace ${workspace} no longer exists`;
    else why = roomIdOf(workspace) === name ? null : `${workspace} is now another folder`;
    if (why !== null) stale.push({ dir, workspace, bytes: treeBytes(dir), why });
  }
  return stale;
}

/**
 * Remove the rooms `findStaleRooms` listed (whole folders: the room, its `.git`, its setup
 * cache). Output: the folders removed. Errors: `fs` errors other than `ENOENT`.
 */
export function removeRooms(rooms: readonly StaleRoom[]): string[] {
  for (const room of rooms) rmSync(room.dir, { recursive: true, force: true });
  return rooms.map((room) => room.dir);
}

function manifestWorkspace(path: string): string | null {
  try {
    return decodeRoomManifest(readFileSync(path))?.header.workspace ?? null;
  } catch {
    return null;
  }
}

function roomIdOf(workspace: string): string | null {
  try {
    return cleanRoomId(realpathSync(workspace));
  } catch {
    return null;
  }
}

/** Bytes of the regular files below `dir`; folders that cannot be read count nothing. */
function treeBytes(dir: string): number {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    let names: string[];
    try {
      names = readdirSync(current);
    } catch {
      continue;
    }
    for (const name of names) {
      const path = join(current, name);
      try {
        const info = lstatSync(path);
        if (info.isDirectory()) stack.push(path);
        else if (info.isFile()) total += info.size;
      } catch {
        // gone meanwhile
      }
    }
  }
  return total;
}
