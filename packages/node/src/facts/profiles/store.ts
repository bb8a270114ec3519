/**
 * The verification profile store on disk (harn-verification.md §1.5, §6.2): Harn's record
 * set `{schemaVersion: 1, updatedAt, rows}` kept per store directory, one JSON file each —
 * `<root>/verification-profiles.json` for the root (`"."`), and
 * `<root>/verification-profiles.d/<dir>/verification-profiles.json` for a directory `dir`
 * below it (e.g. `packages/core`). As in Harn's hierarchical metadata store:
 * - reading at `dir` merges the record sets from `"."` down through each path component of
 *   `dir`, key by key (a deeper directory's `rows`, `updatedAt`, … replace the shallower
 *   ones; no deeper file → the root's set is seen from every directory);
 * - `set(recordSet, dir)` replaces `dir`'s own record set;
 * - `recordRun(rowId, observation, dir)` writes to the *origin* directory: the deepest
 *   directory on the path from the root to `dir` whose own record set has `rows` (else
 *   `dir` itself), so recording from a subdirectory never forks a shadowing copy.
 * Writes are atomic (temp file + fsync + rename) and serialised across processes by a lock
 * per file (`<file>.lock`, a directory created atomically by proper-lockfile; a lock older
 * than `staleMs` is taken over), so two processes recording at once lose no observation. A
 * corrupt or foreign file is a `ProfileStoreError` naming the file — never silently reset.
 */
import { constants as fsConstants } from "node:fs";
import { access, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import {
  type CheckObservation,
  type CompiledProfiles,
  compileProfiles,
  type HudModel,
  hudModel,
  type LadderPlan,
  ladderPlan,
  normalizeRecordSet,
  type ProfileMatch,
  type ProfileRecordSet,
  type ProfileRow,
  profileMatches,
  recordRun,
  TurngateValidationError,
} from "@turngate/core";
import lockfile from "proper-lockfile";
import { writeJsonAtomic } from "../../fs/atomic.js";
import { ensureDirectory } from "../../fs/ensure-dir.js";
import {
  PROFILE_STORE_FILE,
  storeDirChain,
  storeDirComponents,
  storeDirFile,
  storeDirKey,
} from "./store-dir.js";
import { ProfileStoreError } from "./store-error.js";

export { PROFILE_STORE_FILE };

/** Options of a `ProfileStore`. */
export interface ProfileStoreOptions {
  /** Clock (ms since the epoch) for `updatedAt` and `lastRun.at`; default `Date.now`. */
  now?: () => number;
  /** A lock older than this (ms) is considered abandoned and taken over; default 10000. */
  staleMs?: number;
  /** How long to wait for the lock before failing (ms); default 30000. */
  lockTimeoutMs?: number;
}

/** A profile store rooted at one directory. */
export class ProfileStore {
  /** The root's record-set file (`<root>/verification-profiles.json`). */
  readonly file: string;
  private readonly now: () => number;
  private readonly staleMs: number;
  private readonly lockTimeoutMs: number;

  /** `dir`: the store root (created on the first write). */
  constructor(
    readonly dir: string,
    options: ProfileStoreOptions = {},
  ) {
    this.file = storeDirFile(dir, []);
    this.now = options.now ?? Date.now;
    this.staleMs = options.staleMs ?? 10_000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  }

  /**
   * The record-set file of store directory `dir` (Harn's `dir`: relative to the store root;
   * nil or blank → the root). Throws `TurngateValidationError` (path `dir`) for an absolute
   * path or a `..` component.
   */
  fileOf(dir?: unknown): string {
    return storeDirFile(this.dir, storeDirComponents(dir));
  }

  /**
   * `verification_profiles_get(dir)`: the record set seen from `dir` — the record sets
   * from the root down to `dir` merged key by key, deeper winning — or `null` when none of
   * those directories has one. Throws `ProfileStoreError` (a file not JSON, not a record
   * set), `TurngateValidationError` (bad `dir`) or the `fs` error.
   */
  async read(dir?: unknown): Promise<ProfileRecordSet | null> {
    return (await this.resolve(dir)).merged;
  }

  /**
   * `dir`'s own record set (no merging), or `null` when it has none. Throws like `read`.
   */
  async readOwn(dir?: unknown): Promise<ProfileRecordSet | null> {
    return this.readFile(this.fileOf(dir));
  }

  /**
   * The record set seen from `dir` (`read`), validated and indexed for planning many
   * queries (`compileProfiles`): pass it as `profiles` to `profileMatches` / `ladderPlan`
   * / `hudModel`. `null` when there is none. Throws like `read`.
   */
  async compiled(dir?: unknown): Promise<CompiledProfiles | null> {
    const { merged, levels } = await this.resolve(dir);
    if (merged === null) return null;
    // One file seen: its own compiled set (validated once, when read).
    if (levels.length === 1) return levels[0] as CompiledProfiles;
    return compileProfiles(merged, { copy: false, path: "" });
  }

  /** The compiled record sets on the path from the root to `dir` and their merge. */
  private async resolve(
    dir: unknown,
  ): Promise<{ merged: ProfileRecordSet | null; levels: CompiledProfiles[] }> {
    const levels: CompiledProfiles[] = [];
    let merged: Record<string, unknown> | null = null;
    for (const components of storeDirChain(storeDirComponents(dir))) {
      const own = await this.readCompiled(storeDirFile(this.dir, components));
      if (own === null) continue;
      levels.push(own);
      merged = { ...(merged ?? {}), ...own.recordSet };
    }
    return { merged: merged as ProfileRecordSet | null, levels };
  }

  /**
   * `verification_profiles_set(record_set, dir)`: replaces `dir`'s own record set
   * (validated, `schemaVersion` defaulted to 1, `rows` to `[]`, `updatedAt` stamped).
   * Returns what was written. Throws `TurngateValidationError` (path `profiles.*`, `dir`)
   * or `ProfileStoreError` (the file there is corrupt: it is left as it is).
   */
  async set(recordSet: unknown, dir?: unknown): Promise<ProfileRecordSet> {
    const file = this.fileOf(dir);
    const normalized = normalizeRecordSet(recordSet, this.now());
    await this.withLock(file, async () => {
      await this.readFile(file);
      await writeJsonAtomic(file, normalized);
    });
    return normalized;
  }

  /**
   * Applies `update` to `dir`'s own record set (null when none) under its lock and writes
   * the result when it returns one; `undefined` leaves the file untouched. Returns the
   * written (or current) record set.
   */
  async update(
    update: (current: ProfileRecordSet | null) => ProfileRecordSet | undefined,
    dir?: unknown,
  ): Promise<ProfileRecordSet | null> {
    const file = this.fileOf(dir);
    return this.withLock(file, async () => {
      const current = await this.readFile(file);
      const next = update(current);
      if (next === undefined) return current;
      const normalized = normalizeRecordSet(next, this.now());
      await writeJsonAtomic(file, normalized);
      return normalized;
    });
  }

  /**
   * The origin of `dir` (§1.5): the deepest store directory on the path from the root to
   * `dir` whose own record set has `rows`, else `dir` itself; as its key (`"."`,
   * `"packages/core"`).
   */
  async originOf(dir?: unknown): Promise<string> {
    return storeDirKey(await this.origin(storeDirComponents(dir)));
  }

  /**
   * `verification_profile_record_run(row_id, observation, dir)`: applies `observation` to
   * the first row whose id is `rowId` (§3.2, §3.3) in the origin directory's own record set
   * (`originOf(dir)`) and saves it there; returns the updated row, or `null` when there is
   * no record set or no such row (nothing is written). Safe against concurrent writers.
   * Throws `TurngateValidationError` (blank `row_id`, malformed `observation`, bad `dir`)
   * or `ProfileStoreError`.
   */
  async recordRun(
    rowId: unknown,
    observation: CheckObservation | unknown,
    dir?: unknown,
  ): Promise<ProfileRow | null> {
    const file = storeDirFile(this.dir, await this.origin(storeDirComponents(dir)));
    return this.withLock(file, async () => {
      const current = await this.readFile(file);
      const out = recordRun(current, rowId, observation, this.now());
      if (out.row !== null && out.profiles !== null) await writeJsonAtomic(file, out.profiles);
      return out.row;
    });
  }

  /** `profileMatches(query)` over the rows seen from `dir`. Throws `ProfileStoreError`. */
  async matches(query: unknown, dir?: unknown): Promise<ProfileMatch[]> {
    return profileMatches(query, { profiles: await this.compiled(dir) });
  }

  /**
   * `ladderPlan(query, options)` over the rows seen from `options.dir` (`options.profiles`
   * is replaced by the store's).
   */
  async ladderPlan(query: unknown, options: Record<string, unknown> = {}): Promise<LadderPlan> {
    return ladderPlan(query, { ...options, profiles: await this.compiled(options.dir) });
  }

  /**
   * `hudModel(state, options)` over the rows seen from `options.dir ?? state.dir` (§1.10;
   * `options.profiles` is replaced by the store's).
   */
  async hudModel(state: unknown, options: Record<string, unknown> = {}): Promise<HudModel> {
    const stateDir =
      typeof state === "object" && state !== null
        ? (state as Record<string, unknown>).dir
        : undefined;
    const dir = options.dir ?? stateDir;
    return hudModel(state, { ...options, profiles: await this.compiled(dir) });
  }

  private async origin(components: string[]): Promise<string[]> {
    const chain = storeDirChain(components);
    for (let i = chain.length - 1; i >= 0; i--) {
      const at = chain[i] as string[];
      const own = await this.readFile(storeDirFile(this.dir, at));
      if (own !== null && own.rows !== undefined) return at;
    }
    return components;
  }

  /** One file's record set (validated), `null` when it does not exist. */
  private async readFile(file: string): Promise<ProfileRecordSet | null> {
    return (await this.readCompiled(file))?.recordSet ?? null;
  }

  /** One file's record set, validated and indexed; `null` when it does not exist. */
  private async readCompiled(file: string): Promise<CompiledProfiles | null> {
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return null;
      throw error;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ProfileStoreError(file, "", `not JSON (${(error as Error).message})`);
    }
    try {
      return compileProfiles(value, { copy: false, path: "" });
    } catch (error) {
      if (error instanceof TurngateValidationError) {
        throw new ProfileStoreError(file, error.path, error.issues[0]?.message ?? "invalid");
      }
      throw error;
    }
  }

  private async withLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
    await ensureDirectory(dirname(file));
    // proper-lockfile retries every error until the timeout: a folder that cannot be written
    // (EACCES, EROFS) fails at once instead of after 30 s.
    await access(dirname(file), fsConstants.W_OK);
    const retries = Math.max(1, Math.ceil(this.lockTimeoutMs / 25));
    const release = await lockfile.lock(file, {
      realpath: false,
      lockfilePath: `${file}.lock`,
      stale: this.staleMs,
      retries: { retries, minTimeout: 5, maxTimeout: 25, factor: 1.2 },
    });
    try {
      return await fn();
    } finally {
      await release();
    }
  }
}
