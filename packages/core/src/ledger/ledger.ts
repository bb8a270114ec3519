import { TurngateValidationError } from "../errors.js";
import type { LedgerSnapshot, MutationRecord, OpenWorkspaceChild } from "../schemas/ledger.js";
import { parseLedgerSnapshot, parseOpenWorkspaceChild } from "../schemas/parse.js";
import {
  compareLedgerRows,
  digestOfLedgerRows,
  isPlainField,
  type LedgerRow,
  sortRecords,
  toLedgerRow,
} from "./canonical.js";
import { type ContentHasher, toContentHasher } from "./content-hasher.js";
import { isHarnessPath } from "./harness.js";
import { acceptLedgerPath, observeToolResult } from "./observe.js";

/**
 * A path seen by re-reading the workspace: a plain path or a path with its content digest.
 * `harness: true` (byte-exact re-reads only) records a path inside a harness directory
 * (`.git/config`, `.git/hooks/pre-commit`, a foreign file under the root's `.turngate/`):
 * the workspace observer decides which harness files can change what a check does (issue 10
 * "`.git/` rows"); without it harness paths are dropped as in A3S §2.1.
 */
export type ObservedPath = string | { path: string; contentDigest: string; harness?: boolean };

/**
 * The mutation ledger of one turn, A3S §1.8 / §2.1–2.4.
 *
 * Rows are `{tool, path, content_digest}`; they are never de-duplicated. The effect
 * digest (`digest`) is the SHA-256 of `canonicalLedgerText(records)`, `""` while empty.
 *
 * Cost: A3S re-sorts and re-hashes the whole ledger on every push (quadratic over a long
 * turn). Here a new row goes to an unsorted pending list in O(1); the first read of
 * `records`, `paths` or `digest` after a change sorts only the pending rows (`sortRecords`:
 * a radix sort on path chunks with the engine's native numeric sort, no comparator call per
 * compare) and merges them into the sorted rows (stable: rows with equal (path, tool) keep
 * observation order), then hashes once and caches the digest until the next change. n
 * observations followed by one read cost one sort of n rows plus one hash of the text
 * (measured by `bench/ledger.bench.ts`).
 */
export class MutationLedger {
  readonly #hasher: ContentHasher;
  #sorted: LedgerRow[] = [];
  #pending: LedgerRow[] = [];
  /** Paths on the ledger; built on first use (unseen-path checks), then kept up to date. */
  #pathSet: Set<string> | null = null;
  #digest = "";
  #lastTool = "";
  #lastToolPlain = true;
  #digestStale = false;
  #openChildren: OpenWorkspaceChild[] = [];
  #observationIncomplete = false;

  /**
   * `options.hasher`: the SHA-256 of the content digests and the effect digest (issue 17;
   * default `@noble/hashes`, `NOBLE_CONTENT_HASHER`). Every hasher gives the same digests;
   * a Node host injects a faster one. Throws `TurngateValidationError` (path `hasher`) for a
   * hasher without `sha256Hex` and `textSink`.
   */
  constructor(options: { hasher?: ContentHasher } = {}) {
    this.#hasher = toContentHasher(options?.hasher);
  }

  /** The SHA-256 this ledger uses (the injected one, or the pure default). */
  get hasher(): ContentHasher {
    return this.#hasher;
  }

  /**
   * Observes one tool result (A3S §2.1, see `observeToolResult` for the rules): adds rows
   * for `changed_paths`, a successful direct write's `file_path` and nested
   * `program.tool_calls` / `results` effects, and opens a background child for a string
   * `workspace_child`. All or nothing: on a `TurngateValidationError` (non-string tool,
   * non-integer exit code, metadata without a canonical JSON form, cyclic nesting) the
   * ledger is unchanged. Returns the rows added.
   */
  observeTool(tool: string, exitCode: number, metadata?: unknown): readonly MutationRecord[] {
    const observation = observeToolResult(tool, exitCode, metadata, this.#hasher);
    // observeToolResult's content digests are always 64 lowercase hex digits (plain).
    for (const row of observation.rows) this.#push(row, true);
    for (const taskId of observation.workspaceChildren) {
      if (!this.#openChildren.some((c) => c.task_id === taskId)) {
        this.#openChildren.push({ task_id: taskId });
      }
    }
    return observation.rows;
  }

  /**
   * Records paths found changed by re-reading the workspace, A3S §2.3, with docs/design.md §3's
   * change that rows from a re-read carry the bytes' digest.
   *
   * - A plain string is A3S's row: trimmed, stripped of leading `./` (repeatedly), content
   *   digest `""`; skipped when empty, a harness path, already on the ledger (any tool) or
   *   repeated within the call.
   * - An object `{path, contentDigest}` comes from a byte-exact re-read (`contentDigest`: the
   *   SHA-256 of the file bytes, or `DELETED_CONTENT_DIGEST`). Its path is taken verbatim
   *   (only leading `./` is stripped: a name may really begin or end with a space) and it
   *   always gets a `"workspace"` row of its own, even when a tool row already names the
   *   path — a tool's claimed content must not stand for bytes rewritten later. A harness
   *   path is dropped unless the object says `harness: true`. An identical
   *   workspace row is not added twice; a workspace row for the same path with another
   *   digest is replaced (the latest re-read is authoritative).
   *
   * Returns the paths added or replaced. Throws `TurngateValidationError` (path `N`,
   * `N.path`, `N.contentDigest`) for a malformed element; then nothing changes.
   */
  observeUnseenPaths(paths: readonly ObservedPath[]): readonly string[] {
    const rows = normalizeObservedPaths(paths, "workspace", "observed paths", true);
    const added: string[] = [];
    const batch = new Set<string>();
    for (const row of rows) {
      if (batch.has(row.path)) continue;
      if (!row.exact) {
        if (this.#paths().has(row.path)) continue;
      } else {
        const current = this.#workspaceRow(row.path);
        if (current === row.content_digest) continue;
        if (current !== undefined) this.#removeWorkspaceRow(row.path);
      }
      batch.add(row.path);
      added.push(row.path);
      this.#push({ tool: row.tool, path: row.path, content_digest: row.content_digest });
    }
    return added;
  }

  /**
   * Adds or replaces (by `task_id`) an open background workspace child (A3S §2.4), e.g.
   * with the git porcelain/HEAD snapshot taken when it started. Throws
   * `TurngateValidationError` for a malformed child.
   */
  openChild(child: OpenWorkspaceChild): void {
    const parsed = parseOpenWorkspaceChild(child);
    const task_id = parsed.task_id.trim();
    const next = { ...parsed, task_id };
    const i = this.#openChildren.findIndex((c) => c.task_id === task_id);
    if (i >= 0) this.#openChildren[i] = next;
    else this.#openChildren.push(next);
  }

  /**
   * Records the writes of a settled background child, A3S §2.4 `record_child_paths`: the
   * child (trimmed id) leaves `openChildren` and each path becomes a `"task"` row (plain
   * strings with content digest `""`; the push rule applies: trimmed, harness paths
   * dropped, no `./` stripping). Returns the rows added. Throws `TurngateValidationError`
   * for a blank id or a malformed path; then nothing changes.
   */
  recordChildPaths(taskId: string, paths: readonly ObservedPath[]): readonly MutationRecord[] {
    if (typeof taskId !== "string" || taskId.trim() === "") {
      throw new TurngateValidationError("child task", [
        { path: "task_id", message: "must not be blank" },
      ]);
    }
    const rows = normalizeObservedPaths(paths, "task", "child paths", false);
    const id = taskId.trim();
    this.#openChildren = this.#openChildren.filter((c) => c.task_id !== id);
    for (const row of rows)
      this.#push({ tool: row.tool, path: row.path, content_digest: row.content_digest });
    return rows.map((r) => ({ tool: r.tool, path: r.path, content_digest: r.content_digest }));
  }

  /**
   * Records user-level files that changed what checks do (issue 10: `~/.gitconfig`,
   * `~/.npmrc`, Python user site `usercustomize.py`, …) as rows with tool
   * `"environment"`, path and content digest verbatim (the path is a `~/…` label, never a
   * workspace path, so the harness rule does not apply). An identical row is not added
   * twice. Returns the rows added. Throws `TurngateValidationError` (path `""` when `paths`
   * is not an array, `N.path`, `N.contentDigest`) for a blank path or a non-string digest;
   * then nothing changes.
   */
  recordEnvironmentPaths(
    paths: readonly { path: string; contentDigest: string }[],
  ): readonly MutationRecord[] {
    if (!Array.isArray(paths)) {
      throw new TurngateValidationError("environment paths", [
        { path: "", message: "expected an array" },
      ]);
    }
    paths.forEach((entry, index) => {
      if (typeof entry?.path !== "string" || entry.path.trim() === "") {
        throw new TurngateValidationError("environment paths", [
          { path: `${index}.path`, message: "expected a non-blank string" },
        ]);
      }
      if (typeof entry.contentDigest !== "string") {
        throw new TurngateValidationError("environment paths", [
          { path: `${index}.contentDigest`, message: "expected a string" },
        ]);
      }
    });
    const added: MutationRecord[] = [];
    for (const entry of paths) {
      const row = { tool: "environment", path: entry.path, content_digest: entry.contentDigest };
      const exists = this.records.some(
        (r) =>
          r.tool === row.tool && r.path === row.path && r.content_digest === row.content_digest,
      );
      if (
        exists ||
        added.some((r) => r.path === row.path && r.content_digest === row.content_digest)
      ) {
        continue;
      }
      this.#push(row);
      added.push(row);
    }
    return added;
  }

  /** Rows in ledger order (by path, then tool, code-point order; stable). A fresh copy. */
  get records(): MutationRecord[] {
    this.#flush();
    return this.#sorted.map((r) => ({
      tool: r.tool,
      path: r.path,
      content_digest: r.content_digest,
    }));
  }

  /** Number of rows. */
  get size(): number {
    return this.#sorted.length + this.#pending.length;
  }

  /** True when no row has been recorded (open children and the flag do not count). */
  get isEmpty(): boolean {
    return this.size === 0;
  }

  /** The effect digest: lowercase 64-hex SHA-256 of the canonical text; `""` when empty. */
  get digest(): string {
    if (this.#digestStale) {
      if (this.#hasher.ledgerDigest !== undefined) {
        // One call sorts and hashes the rows (a host's native hasher; issue 17). Rows
        // already sorted are merged with the pending ones first (then the order is the
        // identity; the call still renders and hashes them).
        if (this.#sorted.length > 0) this.#flush();
        const source = this.#sorted.length > 0 ? this.#sorted : this.#pending;
        const { rows, digest } = orderAndDigest(this.#hasher, source);
        this.#sorted = rows;
        this.#pending = [];
        this.#digest = digest;
      } else {
        this.#flush();
        this.#digest = digestOfLedgerRows(this.#sorted, this.#hasher);
      }
      this.#digestStale = false;
    }
    return this.#digest;
  }

  /** Record paths in ledger order, duplicates included (A3S `paths`). */
  get paths(): string[] {
    this.#flush();
    return this.#sorted.map((r) => r.path);
  }

  /** Distinct record paths in ledger order. */
  get distinctPaths(): string[] {
    const seen = new Set<string>();
    for (const p of this.paths) seen.add(p);
    return [...seen];
  }

  /**
   * The content digest recorded for `path` (exact match), or `undefined` when the path is
   * not on the ledger. With several rows for one path, the LAST row in ledger order wins
   * (a rule that survives `toJSON`/`fromJSON`; A3S left the choice open, §9 q5).
   */
  contentDigestForPath(path: string): string | undefined {
    if (!this.#paths().has(path)) return undefined;
    this.#flush();
    for (let i = this.#sorted.length - 1; i >= 0; i--) {
      const r = this.#sorted[i] as LedgerRow;
      if (r.path === path) return r.content_digest;
    }
    return undefined;
  }

  /** Open background workspace children (copies), in the order they were opened. */
  get openChildren(): OpenWorkspaceChild[] {
    return this.#openChildren.map((c) => ({ ...c }));
  }

  /** True when a background child has not been observed yet. */
  get hasOpenChildren(): boolean {
    return this.#openChildren.length > 0;
  }

  /**
   * True when the latest re-read of the workspace was incomplete (A3S §2.6 step 8): then
   * the digest is not the whole effect and the gate answers E3 even for an empty ledger.
   * Settable; the latest re-read is authoritative (a complete read clears it).
   */
  get observationIncomplete(): boolean {
    return this.#observationIncomplete;
  }

  set observationIncomplete(value: boolean) {
    if (typeof value !== "boolean") {
      throw new TurngateValidationError("ledger", [
        { path: "observation_incomplete", message: "expected a boolean" },
      ]);
    }
    this.#observationIncomplete = value;
  }

  /** Same as assigning `observationIncomplete`. */
  setObservationIncomplete(value: boolean): void {
    this.observationIncomplete = value;
  }

  /**
   * The ledger as a `LedgerSnapshot`: rows in ledger order, digest, `open_children`
   * (omitted when none) and `observation_incomplete` (omitted when false).
   */
  toJSON(): LedgerSnapshot {
    const snapshot: LedgerSnapshot = { records: this.records, digest: this.digest };
    if (this.#openChildren.length > 0) snapshot.open_children = this.openChildren;
    if (this.#observationIncomplete) snapshot.observation_incomplete = true;
    return snapshot;
  }

  /**
   * Loads a `LedgerSnapshot`. Rows are taken as given (stably put in ledger order), but
   * each must obey the push rule (trimmed, non-empty, not a harness path — except a
   * `workspace` row, which the observer may record for a harness file) and the recorded
   * `digest` must equal the digest recomputed from the rows. Throws
   * `TurngateValidationError` (path e.g. `records.2.path` or `digest`) otherwise.
   * `options.hasher` as for the constructor.
   */
  static fromJSON(snapshot: unknown, options: { hasher?: ContentHasher } = {}): MutationLedger {
    const parsed = parseLedgerSnapshot(snapshot);
    const ledger = new MutationLedger(options);
    parsed.records.forEach((r, i) => {
      // Harness rows come only from the byte-exact workspace re-read (tool "workspace").
      const harnessRow = r.tool === "workspace" && isHarnessPath(r.path);
      if (!harnessRow && acceptLedgerPath(r.path) !== r.path) {
        throw new TurngateValidationError("ledger snapshot", [
          { path: `records.${i}.path`, message: "is blank, untrimmed or a harness path" },
        ]);
      }
      ledger.#push({ tool: r.tool, path: r.path, content_digest: r.content_digest });
    });
    if (ledger.digest !== parsed.digest) {
      throw new TurngateValidationError("ledger snapshot", [
        { path: "digest", message: `does not match the records (recomputed "${ledger.digest}")` },
      ]);
    }
    for (const child of parsed.open_children ?? []) ledger.openChild(child);
    ledger.#observationIncomplete = parsed.observation_incomplete === true;
    return ledger;
  }

  /** Appends a row; `hexDigest` says its content digest is known to be a SHA-256 hex. */
  /** The content digest of the `"workspace"` row for `path`, if there is one. */
  #workspaceRow(path: string): string | undefined {
    if (!this.#paths().has(path)) return undefined;
    for (const r of this.#pending)
      if (r.tool === "workspace" && r.path === path) return r.content_digest;
    for (const r of this.#sorted)
      if (r.tool === "workspace" && r.path === path) return r.content_digest;
    return undefined;
  }

  /** Drops the `"workspace"` rows for `path` (a re-read replaces them; O(n), rare). */
  #removeWorkspaceRow(path: string): void {
    const keep = (r: LedgerRow) => !(r.tool === "workspace" && r.path === path);
    this.#sorted = this.#sorted.filter(keep);
    this.#pending = this.#pending.filter(keep);
    this.#pathSet = null;
    this.#digestStale = true;
  }

  #push(row: MutationRecord, hexDigest = false): void {
    const plain =
      this.#isPlainTool(row.tool) &&
      isPlainField(row.path) &&
      (hexDigest || isPlainField(row.content_digest));
    this.#pending.push(toLedgerRow(row, plain));
    this.#pathSet?.add(row.path);
    this.#digestStale = true;
  }

  /** `isPlainField(tool)`, remembering the answer for the last tool (tools repeat). */
  #isPlainTool(tool: string): boolean {
    if (tool !== this.#lastTool) {
      this.#lastTool = tool;
      this.#lastToolPlain = isPlainField(tool);
    }
    return this.#lastToolPlain;
  }

  #paths(): Set<string> {
    if (this.#pathSet === null) {
      const set = new Set<string>();
      for (const r of this.#sorted) set.add(r.path);
      for (const r of this.#pending) set.add(r.path);
      this.#pathSet = set;
    }
    return this.#pathSet;
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    const pending = sortRecords(this.#pending);
    this.#pending = [];
    const sorted = this.#sorted;
    if (sorted.length === 0) {
      this.#sorted = pending;
      return;
    }
    const merged: LedgerRow[] = new Array(sorted.length + pending.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < sorted.length && j < pending.length) {
      // `<= 0` keeps an older row before a newer row with the same (path, tool).
      if (compareLedgerRows(sorted[i] as LedgerRow, pending[j] as LedgerRow) <= 0) {
        merged[k++] = sorted[i++] as LedgerRow;
      } else merged[k++] = pending[j++] as LedgerRow;
    }
    while (i < sorted.length) merged[k++] = sorted[i++] as LedgerRow;
    while (j < pending.length) merged[k++] = pending[j++] as LedgerRow;
    this.#sorted = merged;
  }
}

/**
 * The rows in ledger order and their effect digest from the hasher's `ledgerDigest` (one
 * call; see `ContentHasher.ledgerDigest`). Throws `TurngateValidationError` (path
 * `hasher.ledgerDigest`) when its `order` is not a permutation of the rows or its digest
 * not a string.
 */
function orderAndDigest(
  hasher: ContentHasher,
  rows: readonly LedgerRow[],
): { rows: LedgerRow[]; digest: string } {
  const n = rows.length;
  const result = (hasher.ledgerDigest as NonNullable<ContentHasher["ledgerDigest"]>)(rows);
  const order = result?.order;
  const bad = (message: string) =>
    new TurngateValidationError("ledger hasher", [{ path: "hasher.ledgerDigest", message }]);
  if (!(order instanceof Uint32Array) || order.length !== n) {
    throw bad(`expected order: a Uint32Array of ${n} row indices`);
  }
  if (typeof result.digest !== "string") throw bad("expected digest: a string");
  const seen = new Uint8Array(n);
  const sorted: LedgerRow[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const at = order[i] as number;
    if (at >= n || seen[at] === 1) throw bad("order is not a permutation of the rows");
    seen[at] = 1;
    sorted[i] = rows[at] as LedgerRow;
  }
  return { rows: sorted, digest: result.digest };
}

/**
 * Validates and normalises observed paths. `stripDotSlash` applies the unseen-path rule
 * (A3S §2.3: trim, then strip leading `./` repeatedly); without it the push rule applies.
 */
function normalizeObservedPaths(
  paths: readonly ObservedPath[],
  tool: string,
  label: string,
  stripDotSlash: boolean,
): (MutationRecord & { exact: boolean })[] {
  if (!Array.isArray(paths)) {
    throw new TurngateValidationError(label, [{ path: "", message: "expected an array" }]);
  }
  const rows: (MutationRecord & { exact: boolean })[] = [];
  paths.forEach((item: unknown, i) => {
    let raw: string;
    let digest = "";
    let exact = false;
    let harness = false;
    if (typeof item === "string") raw = item;
    else if (typeof item === "object" && item !== null) {
      const o = item as { path?: unknown; contentDigest?: unknown };
      if (typeof o.path !== "string") {
        throw new TurngateValidationError(label, [
          { path: `${i}.path`, message: "expected a string" },
        ]);
      }
      if (typeof o.contentDigest !== "string") {
        throw new TurngateValidationError(label, [
          { path: `${i}.contentDigest`, message: "expected a string" },
        ]);
      }
      raw = o.path;
      digest = o.contentDigest;
      exact = true;
      harness = (item as { harness?: unknown }).harness === true;
    } else {
      throw new TurngateValidationError(label, [
        { path: String(i), message: "expected a string or {path, contentDigest}" },
      ]);
    }
    // A byte-exact re-read names the file exactly: no trimming (docs/design.md §3).
    let p = exact ? raw : raw.trim();
    if (stripDotSlash) while (p.startsWith("./")) p = p.slice(2);
    if (exact) {
      if (p !== "" && (harness || !isHarnessPath(p)))
        rows.push({ tool, path: p, content_digest: digest, exact });
      return;
    }
    const accepted = acceptLedgerPath(p);
    if (accepted !== null) rows.push({ tool, path: accepted, content_digest: digest, exact });
  });
  return rows;
}
