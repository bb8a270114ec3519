/**
 * What counts as a change while the checks run (issue 10, "What the checks changed";
 * docs/design.md §3a): the one place that compares the snapshot taken before the checks with the
 * one taken after them and sorts every difference into what unbinds a report and what is
 * a check output.
 */
import type { EntryState, OutsideEntry, OutsideScope, WorkspaceSnapshot } from "../snapshot.js";
import { compareCodeUnits } from "../snapshot.js";
import type { WorkspaceChange } from "./diff.js";
import { lockfileTool } from "./rewrite-paths.js";

/** How a pre-existing source-scope file changed during the checks. `metadata`: same
 * bytes and mode, but its size, mtime, ctime or inode differs (a file swapped and swapped
 * back). */
export type SourceChangeKind = "modified" | "deleted" | "metadata";

/** One pre-existing source-scope file the checks changed. */
export interface SourceChange {
  path: string;
  change: SourceChangeKind;
}

/** One change to an ignored file or an output location: a check output. */
export interface CheckOutput {
  path: string;
  change: "added" | "modified" | "deleted";
  scope: "ignored" | "output";
}

/**
 * Everything the checks changed, sorted (each list by path, UTF-16 code units):
 * - `changed`: pre-existing source-scope files modified, deleted, or with changed metadata;
 * - `created`: new source-scope files (not ignored, not at an output location);
 * - `harness`: changed harness files the observer records (`.git/config`, `.git/hooks/*`,
 *   `.git/info/*`, files foreign to git's layout, root `.turngate/` files turngate did not
 *   write);
 * - `outputs`: check outputs (ignored files and output locations) — never unbinding;
 * - `unreadable`: paths the after-snapshot could not read (its `unreadable`).
 */
export interface CheckChanges {
  changed: SourceChange[];
  created: string[];
  harness: string[];
  outputs: CheckOutput[];
  unreadable: string[];
}

/**
 * Compares the snapshot taken before the checks with the one taken after them (issue 10):
 * - a source entry of `before` that `after` lacks → `deleted` (unless `after` lists it as
 *   unreadable: then it is only in `unreadable`); whose kind, content digest
 *   or mode differs → `modified`; whose size, mtime, ctime or inode differs → `metadata`
 *   (unlike `diffSnapshots`, timestamps count: a file replaced and restored is not the
 *   file the checks read);
 * - a source entry only in `after` → `created`;
 * - an outside entry (`snapshot.outside`) added, removed or differing in any field: under
 *   scope `harness` → `harness`; else a check output with its scope (the after scope, or
 *   the before scope for a deletion).
 * Pure; never throws.
 */
export function checkChanges(before: WorkspaceSnapshot, after: WorkspaceSnapshot): CheckChanges {
  const changed: SourceChange[] = [];
  const created: string[] = [];
  const unreadable = new Set(after.unreadable);
  // forEach, not for-of (no [key, value] array per entry); a pass that matched every entry
  // of the other side skips the reverse pass (120,000 entries per comparison).
  let matched = 0;
  before.entries.forEach((then, path) => {
    const now = after.entries.get(path);
    if (now === undefined) {
      // An unreadable path (e.g. a file replaced by a FIFO) is reported as unreadable.
      if (!unreadable.has(path)) changed.push({ path, change: "deleted" });
      return;
    }
    matched++;
    if (then === now) return;
    if (now.kind !== then.kind || now.content_digest !== then.content_digest) {
      changed.push({ path, change: "modified" });
    } else if (now.mode !== then.mode) changed.push({ path, change: "modified" });
    else if (!sameIdentity(then, now)) changed.push({ path, change: "metadata" });
  });
  if (matched < after.entries.size) {
    after.entries.forEach((_, path) => {
      if (!before.entries.has(path)) created.push(path);
    });
  }

  const harness: string[] = [];
  const outputs: CheckOutput[] = [];
  const outBefore = before.outside;
  const outAfter = after.outside;
  const note = (path: string, change: CheckOutput["change"], scope: OutsideScope) => {
    if (scope === "harness") harness.push(path);
    else outputs.push({ path, change, scope });
  };
  let matchedOutside = 0;
  outAfter.forEach((now, path) => {
    const then = outBefore.get(path);
    if (then === undefined) {
      // A source file that moved out of scope is already `deleted` above; the copy outside
      // is still reported, so a harness file is never hidden.
      note(path, before.entries.has(path) ? "modified" : "added", now.scope);
      return;
    }
    matchedOutside++;
    if (then !== now && outsideDiffers(then, now)) {
      note(
        path,
        "modified",
        now.scope === "harness" || then.scope === "harness" ? "harness" : now.scope,
      );
    }
  });
  if (matchedOutside < outBefore.size) {
    outBefore.forEach((then, path) => {
      if (!outAfter.has(path) && !after.entries.has(path)) note(path, "deleted", then.scope);
    });
  }

  changed.sort((a, b) => compareCodeUnits(a.path, b.path));
  created.sort(compareCodeUnits);
  harness.sort(compareCodeUnits);
  outputs.sort((a, b) => compareCodeUnits(a.path, b.path));
  return { changed, created, harness, outputs, unreadable: [...after.unreadable] };
}

/**
 * Check outputs adopted for the rest of the turn (issue 10, "outputs stay outputs"): after
 * each run of the checks, every check output is remembered with the state the checks left
 * it in and with what the agent had done to it before the checks (its change in the
 * delta the checks started from, or none). While a path still holds the state the checks
 * left, later deltas show the agent's change instead of the checks' one: nothing for an
 * output the agent had not touched, the agent's row (kind and digest as the checks found
 * it) for one it had. So observing again after the checks keeps the effect digest the
 * report was bound to. Any other state of the path later is a change again (a ledger row).
 * Cost: O(check outputs) per adoption, O(changes + adopted paths) per delta; the baseline
 * is never copied.
 */
export class AdoptedCheckOutputs {
  /** path → the state the checks left (null: deleted) and the agent's change before. */
  readonly #adopted = new Map<
    string,
    { state: OutsideEntry | null; agent: WorkspaceChange | undefined }
  >();

  /** Number of adopted paths. */
  get size(): number {
    return this.#adopted.size;
  }

  /**
   * Adopts the `outputs` of one run of the checks (`checkChanges(before, after).outputs`).
   * `agentView` is the delta the checks started from (baseline → `before`, already passed
   * through {@link AdoptedCheckOutputs.apply}). Never throws.
   */
  adopt(
    agentView: readonly WorkspaceChange[],
    after: WorkspaceSnapshot,
    outputs: readonly CheckOutput[],
  ): void {
    if (outputs.length === 0) return;
    const byPath = new Map(agentView.map((c) => [c.path, c]));
    for (const { path } of outputs) {
      this.#adopted.set(path, { state: after.outside.get(path) ?? null, agent: byPath.get(path) });
    }
  }

  /**
   * `changes` (a delta of `snapshot` against the baseline, sorted by path) with every
   * adopted path that still holds the state the checks left shown as the agent left it:
   * dropped when the agent had not touched it, the agent's change otherwise (added back
   * when the checks' change undid it). Sorted by path. Pure with respect to its inputs.
   */
  apply(changes: readonly WorkspaceChange[], snapshot: WorkspaceSnapshot): WorkspaceChange[] {
    if (this.#adopted.size === 0) return [...changes];
    const out: WorkspaceChange[] = [];
    const listed = new Set<string>();
    for (const change of changes) {
      listed.add(change.path);
      const adopted = this.#adopted.get(change.path);
      if (adopted !== undefined && holdsState(adopted.state, change.path, snapshot)) {
        if (adopted.agent !== undefined) out.push(adopted.agent);
      } else out.push(change);
    }
    let appended = false;
    this.#adopted.forEach((adopted, path) => {
      if (adopted.agent === undefined || listed.has(path)) return;
      if (!holdsState(adopted.state, path, snapshot)) return;
      out.push(adopted.agent);
      appended = true;
    });
    if (appended) out.sort((a, b) => compareCodeUnits(a.path, b.path));
    return out;
  }
  /**
   * `snapshot` (the state the ledger was built from) with every adopted path in the state
   * the checks left it (removed for null), as a new snapshot whose `outside` map is a copy:
   * the workspace as the turn was judged, with its check outputs counted as outputs
   * (issue 32 item 3: the next turn's baseline). `snapshot` is not changed. Never throws.
   */
  overlay(snapshot: WorkspaceSnapshot): WorkspaceSnapshot {
    if (this.#adopted.size === 0) return snapshot;
    const outside = new Map(snapshot.outside);
    this.#adopted.forEach((adopted, path) => {
      if (snapshot.entries.has(path)) return;
      if (adopted.state === null) outside.delete(path);
      else outside.set(path, adopted.state);
    });
    return { ...snapshot, outside };
  }
}

/** True when `snapshot` holds `state` at `path` (absent from both maps for null). */
function holdsState(
  state: OutsideEntry | null,
  path: string,
  snapshot: WorkspaceSnapshot,
): boolean {
  const now = snapshot.outside.get(path);
  if (state === null) return now === undefined && !snapshot.entries.has(path);
  return now !== undefined && !outsideDiffers(state, now);
}

/** The paths that unbind a report: `changed`, `created` and `harness`, sorted, distinct. */
export function unbindingPaths(changes: CheckChanges): string[] {
  const paths = new Set<string>();
  for (const c of changes.changed) paths.add(c.path);
  for (const p of changes.created) paths.add(p);
  for (const p of changes.harness) paths.add(p);
  return [...paths].sort(compareCodeUnits);
}

/** True when nothing unbinds: no source or harness change and nothing unreadable. */
export function leavesBindingIntact(changes: CheckChanges): boolean {
  return (
    changes.changed.length === 0 &&
    changes.created.length === 0 &&
    changes.harness.length === 0 &&
    changes.unreadable.length === 0
  );
}

/**
 * The paths the checks rewrote that `isRewritePath` accepts, when they are the ONLY
 * unbinding changes (modified, metadata-only or created; a deleted lockfile is no
 * rewrite); else `[]`. Sorted.
 */
export function onlyRewrites(
  changes: CheckChanges,
  isRewritePath: (path: string) => boolean,
): string[] {
  if (changes.harness.length > 0 || changes.unreadable.length > 0) return [];
  const paths = [
    ...changes.changed.filter((c) => c.change !== "deleted").map((c) => c.path),
    ...changes.created,
  ];
  if (paths.length !== changes.changed.length + changes.created.length) return [];
  if (paths.length === 0 || !paths.every(isRewritePath)) return [];
  return paths.sort(compareCodeUnits);
}

/** At most this many check outputs are listed in a binding (the count is always exact). */
export const CHECK_OUTPUTS_CAP = 100;

/** Check outputs as a binding lists them: the first `cap` (by path) and the exact count. */
export interface CheckOutputs {
  count: number;
  paths: CheckOutput[];
}

/**
 * Merges check output lists (a re-run adds its own; the later entry for a path wins) and
 * caps the listing at `cap` paths (default {@link CHECK_OUTPUTS_CAP}). Pure.
 */
export function capCheckOutputs(
  lists: ReadonlyArray<readonly CheckOutput[]>,
  cap = CHECK_OUTPUTS_CAP,
): CheckOutputs {
  const byPath = new Map<string, CheckOutput>();
  for (const list of lists) for (const o of list) byPath.set(o.path, o);
  const all = [...byPath.values()].sort((a, b) => compareCodeUnits(a.path, b.path));
  return { count: all.length, paths: all.slice(0, cap) };
}

/**
 * The `"outputs"` pattern that would declare `path` (a new source-scope file) an output:
 * its shallowest folder that holds no file of `before`'s source scope, as `"dir/"`; the
 * path itself when every folder on the way already holds source files (or it sits at the
 * root). Never a pattern that covers a pre-existing source file.
 */
export function outputsPatternFor(path: string, sourceDirs: ReadonlySet<string>): string {
  for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) {
    const dir = path.slice(0, i);
    if (!sourceDirs.has(dir)) return `${dir}/`;
  }
  return path;
}

/** Every folder (relative, no trailing `/`) that holds at least one entry of `snapshot`. */
export function sourceDirectories(snapshot: WorkspaceSnapshot): Set<string> {
  const dirs = new Set<string>();
  snapshot.entries.forEach((_, path) => {
    for (let i = path.lastIndexOf("/"); i > 0; i = path.lastIndexOf("/", i - 1)) {
      const dir = path.slice(0, i);
      if (dirs.has(dir)) break;
      dirs.add(dir);
    }
  });
  return dirs;
}

/** Which pass of the checks the hint is about. */
export type RewritePhase =
  /** `"rewrite_paths"` names none of the rewritten lockfiles (or is empty). */
  | "not_configured"
  /** The first run rewrote only `"rewrite_paths"` lockfiles but did not pass. */
  | "first_run_failed"
  /** Other changes came with the rewrites, so there is no re-run. */
  | "mixed"
  /** The re-run changed the workspace again. */
  | "second_run";

/** Options of {@link checkChangesHint}. */
export interface HintOptions {
  /** Accepts the paths in `"rewrite_paths"`. */
  isRewritePath: (path: string) => boolean;
  /** Folders of the before-snapshot's source scope ({@link sourceDirectories}). */
  sourceDirs: ReadonlySet<string>;
  /** Default `"not_configured"`. */
  phase?: RewritePhase;
  /**
   * Source-scope paths git does not track (QA finding P2): a modified one gets the
   * "outputs" hint (a report file the checks rewrite), not "a check must not write source
   * files". Default: none.
   */
  untracked?: ReadonlySet<string>;
}

const SHOWN = 3;

function some(paths: readonly string[]): string {
  const shown = paths.slice(0, SHOWN).join(", ");
  return paths.length > SHOWN ? `${shown} and ${paths.length - SHOWN} more` : shown;
}

/**
 * What the user should do about the unbinding changes in `changes`, as one line of
 * clauses joined by `; ` (issue 10: every unbound message says what to do). Empty string
 * when nothing unbinds. The clauses, in this order:
 * - lockfiles rewritten (by file name, {@link lockfileTool}): `the check rewrote Cargo.lock:
 *   run cargo once in the agent's turn, or set "rewrite_paths": ["Cargo.lock"] in
 *   turngate.config.json` (other wording for a failed first run, a re-run that changed it
 *   again, or rewrites mixed with other changes);
 * - other source files modified / deleted / only their metadata changed;
 * - untracked source files modified (`options.untracked`): `the checks rewrote report.xml,
 *   which git does not track: add "report.xml" to "outputs" …` (QA finding P2);
 * - new source files: `add "build/" to "outputs" in turngate.config.json, or to .gitignore`
 *   (pattern from {@link outputsPatternFor});
 * - harness files (`.git/config`, `.git/hooks/`, `.git/info/`, …);
 * - unreadable paths.
 * Pure; never throws.
 */
export function checkChangesHint(changes: CheckChanges, options: HintOptions): string {
  const phase = options.phase ?? "not_configured";
  const clauses: string[] = [];
  const rewritten = [
    ...changes.changed.filter((c) => c.change !== "deleted").map((c) => c.path),
    ...changes.created,
  ].filter((p) => lockfileTool(p) !== undefined);
  const lockfiles = new Set(rewritten);
  if (rewritten.length > 0) {
    const tools = [...new Set(rewritten.map((p) => lockfileTool(p) as string))].join(" / ");
    const names = [...new Set(rewritten.map((p) => p.slice(p.lastIndexOf("/") + 1)))];
    const configured = rewritten.every(options.isRewritePath);
    if (phase === "second_run") {
      clauses.push(
        `the checks rewrote ${some(rewritten)} again on the re-run, so it does not settle: run ${tools} once in the agent's turn and keep the result`,
      );
    } else if (phase === "first_run_failed" && configured) {
      clauses.push(
        `the check rewrote ${some(rewritten)} and did not pass: "rewrite_paths" re-runs the checks only after a passing run; fix the failing check, or run ${tools} once in the agent's turn`,
      );
    } else if (phase === "mixed" && configured) {
      clauses.push(
        `${some(rewritten)} ${rewritten.length === 1 ? "is" : "are"} in "rewrite_paths", but the checks changed more than that, so they are not re-run`,
      );
    } else {
      clauses.push(
        `the check rewrote ${some(rewritten)}: run ${tools} once in the agent's turn, or set "rewrite_paths": ${JSON.stringify(names)} in turngate.config.json`,
      );
    }
  }
  const pick = (kind: SourceChangeKind) =>
    changes.changed.filter((c) => c.change === kind && !lockfiles.has(c.path)).map((c) => c.path);
  const untracked = options.untracked ?? new Set<string>();
  const modified = pick("modified").filter((p) => !untracked.has(p));
  const rewrittenOutputs = pick("modified").filter((p) => untracked.has(p));
  const deleted = pick("deleted");
  const metadata = pick("metadata");
  if (modified.length > 0) {
    clauses.push(
      `the checks changed ${some(modified)} while they ran: a check must not write source files; do that step in the agent's turn, or write to an output location`,
    );
  }
  if (deleted.length > 0) {
    clauses.push(
      `the checks deleted ${some(deleted)}: a check must not remove source files; do that step in the agent's turn`,
    );
  }
  if (metadata.length > 0) {
    clauses.push(
      `the checks touched ${some(metadata)} while they ran (size, mtime, ctime or inode changed; a file replaced and put back counts): find the check or background process that rewrites it`,
    );
  }
  if (rewrittenOutputs.length > 0) {
    const patterns = [
      ...new Set(rewrittenOutputs.map((p) => outputsPatternFor(p, options.sourceDirs))),
    ];
    const shown = patterns
      .slice(0, SHOWN)
      .map((p) => JSON.stringify(p))
      .join(", ");
    const more = patterns.length > SHOWN ? ` (and ${patterns.length - SHOWN} more)` : "";
    clauses.push(
      `the checks rewrote ${some(rewrittenOutputs)}, which git does not track: add ${shown}${more} to "outputs" in turngate.config.json, or to .gitignore`,
    );
  }
  const created = changes.created.filter((p) => !lockfiles.has(p));
  if (created.length > 0) {
    const patterns = [...new Set(created.map((p) => outputsPatternFor(p, options.sourceDirs)))];
    const shown = patterns
      .slice(0, SHOWN)
      .map((p) => JSON.stringify(p))
      .join(", ");
    const more = patterns.length > SHOWN ? ` (and ${patterns.length - SHOWN} more)` : "";
    clauses.push(
      `the checks created ${some(created)}: add ${shown}${more} to "outputs" in turngate.config.json, or to .gitignore`,
    );
  }
  if (changes.harness.length > 0) {
    clauses.push(
      `the checks changed ${some(changes.harness)}: a check must not change git's config, hooks or info/, or turngate's folder (that changes what later commands run); remove that step from the checks`,
    );
  }
  if (changes.unreadable.length > 0) {
    clauses.push(
      `the checks left ${some(changes.unreadable)} that cannot be read (a special file, or no permission): remove it or make it readable`,
    );
  }
  return clauses.join("; ");
}

function sameIdentity(a: EntryState, b: EntryState): boolean {
  return (
    a.size === b.size &&
    a.mtime_ms === b.mtime_ms &&
    a.ctime_ms === b.ctime_ms &&
    a.ino === b.ino &&
    a.mode === b.mode
  );
}

/** Any difference in kind, identity, or (when both are hashed) content. */
function outsideDiffers(a: OutsideEntry, b: OutsideEntry): boolean {
  if (a.kind !== b.kind || !sameIdentity(a, b)) return true;
  return a.hashed && b.hashed && a.content_digest !== b.content_digest;
}
