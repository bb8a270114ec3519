import { DELETED_CONTENT_DIGEST, isHarnessPath } from "@turngate/core";
import {
  compareCodeUnits,
  type EntryState,
  type OutsideEntry,
  type PathScope,
  type WorkspaceSnapshot,
} from "../snapshot.js";

/** How a path differs between two snapshots. A rename is a `deleted` plus an `added`. */
export type ChangeKind = "added" | "modified" | "deleted";

/**
 * One changed path. `content_digest` is the SHA-256 hex of the current bytes (or link
 * text), or {@link DELETED_CONTENT_DIGEST} for `deleted`. `scope`: where the path lies now
 * (for `deleted`: where it lay), see {@link PathScope}. Maps onto
 * `MutationLedger.observeUnseenPaths([{ path, contentDigest, harness: scope === "harness" }])`
 * (see {@link ledgerPaths}).
 */
export interface WorkspaceChange {
  path: string;
  change: ChangeKind;
  content_digest: string;
  scope: PathScope;
}

/**
 * The difference between a baseline and a later snapshot.
 * - `changes`: sorted by path (UTF-16 code units).
 * - `complete`: false when the later snapshot has unreadable paths; the change list then
 *   may miss changes to those paths (reference §2.5.3: an incomplete delta blocks the gate).
 * - `unreadable`: the later snapshot's unreadable paths.
 * - `unreadable_reasons`: the later snapshot's reasons for some of them, when it has any.
 */
export interface WorkspaceDelta {
  changes: WorkspaceChange[];
  complete: boolean;
  unreadable: string[];
  unreadable_reasons?: Record<string, string>;
}

/**
 * Compares two snapshots (implements the before/after comparison of reference §2.5, with
 * content digests instead of stat stamps).
 *
 * - in `after` only → `added` (or `modified` if `before` listed it as unreadable: it
 *   existed, its old content is unknown, so it is reported rather than assumed unchanged);
 * - in both with a different kind, content digest or mode (chmod) → `modified`;
 * - in `before` (as entry or unreadable) but neither an entry nor unreadable in `after` →
 *   `deleted` with {@link DELETED_CONTENT_DIGEST} (except an unreadable directory whose
 *   files `after` lists: those files are `added`);
 * - a path unreadable in `after` is never reported; it makes the delta incomplete.
 * Timestamps alone (a `touch`) are not a change of a source entry.
 *
 * Outside entries (`outside`, issue 10) are compared the same way, each change carrying the
 * entry's `scope`; where either side is stat-only (`hashed` false) any difference of kind,
 * size, mtime, ctime, inode or mode counts (a `touch` of an ignored file is a change). A path
 * that moved between the source scope and the outside gives one change (`modified`, in its
 * new scope) when its bytes, kind or mode differ, none otherwise. Pure; never throws.
 */
export function diffSnapshots(before: WorkspaceSnapshot, after: WorkspaceSnapshot): WorkspaceDelta {
  const changes: WorkspaceChange[] = [];
  const scope = "source";
  const beforeUnreadable = new Set(before.unreadable);
  const afterUnreadable = new Set(after.unreadable);
  let matched = 0; // after-entries that also exist in before
  // forEach, not for-of: no [key, value] array per entry (20,000 entries per delta).
  after.entries.forEach((now, path) => {
    const then = before.entries.get(path);
    if (then === undefined) {
      const was = before.outside.get(path);
      if (was !== undefined) {
        if (!was.hashed || differs(was, now)) {
          changes.push({ path, change: "modified", content_digest: now.content_digest, scope });
        }
        return;
      }
      const change = beforeUnreadable.has(path) ? "modified" : "added";
      changes.push({ path, change, content_digest: now.content_digest, scope });
      return;
    }
    matched++;
    if (then !== now && differs(then, now)) {
      changes.push({ path, change: "modified", content_digest: now.content_digest, scope });
    }
  });
  diffOutside(before, after, afterUnreadable, changes);
  const gone = (path: string): boolean =>
    !after.entries.has(path) && !after.outside.has(path) && !afterUnreadable.has(path);
  // When every before-entry was matched above, nothing can have been deleted.
  if (matched < before.entries.size) {
    before.entries.forEach((_, path) => {
      if (gone(path)) {
        changes.push({ path, change: "deleted", content_digest: DELETED_CONTENT_DIGEST, scope });
      }
    });
  }
  let afterDirs: Set<string> | undefined;
  for (const path of beforeUnreadable) {
    if (!gone(path) || before.entries.has(path)) continue;
    afterDirs ??= directoriesOf(after.entries.keys());
    // An unreadable directory whose files are now listed was not deleted: its files are
    // already reported as added.
    if (!afterDirs.has(path)) {
      changes.push({ path, change: "deleted", content_digest: DELETED_CONTENT_DIGEST, scope });
    }
  }
  changes.sort((a, b) => compareCodeUnits(a.path, b.path));
  const delta: WorkspaceDelta = {
    changes,
    complete: after.unreadable.length === 0,
    unreadable: [...after.unreadable],
  };
  if (after.unreadable_reasons !== undefined) {
    delta.unreadable_reasons = { ...after.unreadable_reasons };
  }
  return delta;
}

/** The outside-scope half of {@link diffSnapshots}: pushes changes of `after.outside`. */
function diffOutside(
  before: WorkspaceSnapshot,
  after: WorkspaceSnapshot,
  afterUnreadable: ReadonlySet<string>,
  changes: WorkspaceChange[],
): void {
  let matched = 0;
  after.outside.forEach((now, path) => {
    const then = before.outside.get(path);
    if (then === undefined) {
      const was = before.entries.get(path);
      if (was !== undefined) {
        if (!now.hashed || differs(was, now)) {
          changes.push(outsideChange(path, "modified", now, now.scope));
        }
        return;
      }
      changes.push(outsideChange(path, "added", now, now.scope));
      return;
    }
    matched++;
    if (then !== now && outsideDiffers(then, now)) {
      changes.push(outsideChange(path, "modified", now, now.scope));
    }
  });
  if (matched === before.outside.size) return;
  before.outside.forEach((then, path) => {
    if (after.outside.has(path) || after.entries.has(path) || afterUnreadable.has(path)) return;
    changes.push({
      path,
      change: "deleted",
      content_digest: DELETED_CONTENT_DIGEST,
      scope: then.scope,
    });
  });
}

function outsideChange(
  path: string,
  change: ChangeKind,
  now: OutsideEntry,
  scope: PathScope,
): WorkspaceChange {
  return { path, change, content_digest: now.content_digest, scope };
}

/** Stat-only entries compare by identity; two hashed ones like source entries. */
function outsideDiffers(a: OutsideEntry, b: OutsideEntry): boolean {
  if (a.hashed && b.hashed) return differs(a, b);
  return (
    a.kind !== b.kind ||
    a.size !== b.size ||
    a.mtime_ms !== b.mtime_ms ||
    a.ctime_ms !== b.ctime_ms ||
    a.ino !== b.ino ||
    a.mode !== b.mode
  );
}

/**
 * The ledger input of a delta's changes: `{path, contentDigest}` per change, with
 * `harness: true` for harness rows and for any other path the ledger would drop as a
 * harness path (a file inside an ignored folder's `.git/`, scope `ignored`), so the ledger
 * keeps them (see core's `ObservedPath`). Pure; never throws.
 */
export function ledgerPaths(
  changes: readonly WorkspaceChange[],
): { path: string; contentDigest: string; harness?: boolean }[] {
  return changes.map((change) =>
    change.scope === "harness" || (change.scope !== "source" && isHarnessPath(change.path))
      ? { path: change.path, contentDigest: change.content_digest, harness: true }
      : { path: change.path, contentDigest: change.content_digest },
  );
}

function directoriesOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const path of paths) {
    for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) {
      const dir = path.slice(0, i);
      if (dirs.has(dir)) break;
      dirs.add(dir);
    }
  }
  return dirs;
}

function differs(a: EntryState, b: EntryState): boolean {
  return a.kind !== b.kind || a.content_digest !== b.content_digest || a.mode !== b.mode;
}
