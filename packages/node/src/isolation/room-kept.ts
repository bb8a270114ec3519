import { createHash, type Hash } from "node:crypto";
import { type BigIntStats, type Dirent, lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { EntryState } from "../workspace/snapshot.js";
import { isKeptCacheDir } from "./room-files.js";

/**
 * What the clean room keeps between checks besides the snapshot's entries: its `.git` and
 * the build caches ({@link isKeptCacheDir}). docs/design.md §3b: where the agent could have
 * written the room (an unconfined agent runs as the same user), a kept folder is used only
 * when it is proven to be what the room's last check (or turngate itself) left; otherwise
 * it is dropped.
 *
 * The proof is a fingerprint: SHA-256 over every object below the kept folders, one line
 * each `path\0type\0size\0mtime_ns\0ctime_ns\0ino\0mode` in walk order (names sorted).
 * ctime cannot be set by a process (only the clock moves it), so a rewrite that restores
 * size and mtime still changes the fingerprint.
 */

/** The kept folders of the room, relative (`.git` first when present), sorted. */
export function keptDirs(room: string, entries: ReadonlyMap<string, EntryState>): string[] {
  const found: string[] = [];
  const prefixes = new Set<string>();
  for (const path of entries.keys()) {
    let slash = path.indexOf("/");
    while (slash >= 0) {
      prefixes.add(path.slice(0, slash));
      slash = path.indexOf("/", slash + 1);
    }
  }
  const visit = (rel: string): void => {
    let children: Dirent[];
    try {
      children = readdirSync(rel === "" ? room : join(room, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const dirent of children) {
      if (!dirent.isDirectory()) continue;
      const child = rel === "" ? dirent.name : `${rel}/${dirent.name}`;
      if (child === ".git" || isKeptCacheDir(child, entries)) found.push(child);
      else if (prefixes.has(child)) visit(child);
    }
  };
  visit("");
  return found.sort((a, b) => (a === ".git" ? -1 : b === ".git" ? 1 : a < b ? -1 : 1));
}

/** A fingerprint and the latest ctime (ns) of the objects it covers. */
export interface KeptFingerprint {
  /** Lowercase hex SHA-256 (of nothing, for no objects). */
  digest: string;
  /** The greatest ctime seen, ns; 0 for no objects. */
  maxCtimeNs: bigint;
  /** Objects covered (files, links and folders). */
  objects: number;
  /** The objects whose ctime is at or after `newerThanNs`, when asked (relative paths). */
  newer: string[];
}

/**
 * The fingerprint of `dirs` (relative folders of `room`; one that is a link is covered as
 * the link, never followed), with the objects whose ctime is at or after `newerThanNs` when
 * given. Never throws (a folder that vanished mid-walk contributes what was seen).
 */
export function keptFingerprint(
  room: string,
  dirs: readonly string[],
  newerThanNs?: bigint,
): KeptFingerprint {
  const hash = createHash("sha256");
  const max = { ns: 0n, objects: 0, newerThanNs, newer: [] as string[] };
  for (const dir of dirs) walkInto(hash, max, room, dir);
  return { digest: hash.digest("hex"), maxCtimeNs: max.ns, objects: max.objects, newer: max.newer };
}

function walkInto(
  hash: Hash,
  max: { ns: bigint; objects: number; newerThanNs: bigint | undefined; newer: string[] },
  room: string,
  rel: string,
): void {
  const stat = lstatOrUndefined(join(room, rel));
  if (stat === undefined) return;
  max.objects += 1;
  if (stat.ctimeNs > max.ns) max.ns = stat.ctimeNs;
  if (max.newerThanNs !== undefined && stat.ctimeNs >= max.newerThanNs) max.newer.push(rel);
  hash.update(
    `${rel}\0${stat.mode}\0${stat.size}\0${stat.mtimeNs}\0${stat.ctimeNs}\0${stat.ino}\n`,
  );
  if (!stat.isDirectory()) return;
  let names: string[];
  try {
    names = readdirSync(join(room, rel)).sort();
  } catch {
    return;
  }
  for (const name of names) walkInto(hash, max, room, `${rel}/${name}`);
}

/** Remove the kept folders `dirs` of `room` (a fingerprint that does not match). */
export function dropKept(room: string, dirs: readonly string[]): void {
  for (const dir of dirs) rmSync(join(room, dir), { recursive: true, force: true });
}

function lstatOrUndefined(abs: string): BigIntStats | undefined {
  try {
    return lstatSync(abs, { bigint: true });
  } catch {
    return undefined;
  }
}
