/**
 * The verification profile store on disk (harn-verification.md §1.5, §6.2): one JSON file,
 * `verification-profiles.json`, per store directory, holding Harn's record set
 * `{schemaVersion: 1, updatedAt, rows}`. Writes are atomic (temp file + fsync + rename) and
 * serialised across processes by a lock (`verification-profiles.json.lock`, a directory
 * created atomically by proper-lockfile; a lock older than `staleMs` is taken over), so two
 * processes recording at once lose no observation. A corrupt or foreign file is a
 * `ProfileStoreError` naming the file — never silently reset.
 *
 * Harn resolves stores hierarchically by directory; here a store is exactly one directory
 * (open another `ProfileStore` for another directory).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type CheckObservation,
  type HudModel,
  hudModel,
  type LadderPlan,
  ladderPlan,
  normalizeRecordSet,
  type ProfileMatch,
  type ProfileRecordSet,
  type ProfileRow,
  parseProfileRecordSet,
  profileMatches,
  recordRun,
  TurngateValidationError,
} from "@turngate/core";
import lockfile from "proper-lockfile";
import { writeJsonAtomic } from "../../fs/atomic.js";
import { ensureDirectory } from "../../fs/ensure-dir.js";
import { ProfileStoreError } from "./store-error.js";

/** File name of a store inside its directory. */
export const PROFILE_STORE_FILE = "verification-profiles.json";

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
  /** The store file (`<dir>/verification-profiles.json`). */
  readonly file: string;
  private readonly now: () => number;
  private readonly staleMs: number;
  private readonly lockTimeoutMs: number;

  /** `dir`: the store directory (created on the first write). */
  constructor(
    readonly dir: string,
    options: ProfileStoreOptions = {},
  ) {
    this.file = join(dir, PROFILE_STORE_FILE);
    this.now = options.now ?? Date.now;
    this.staleMs = options.staleMs ?? 10_000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 30_000;
  }

  /**
   * The stored record set, or `null` when the file does not exist.
   * Throws `ProfileStoreError` (file not JSON, not a record set) or the `fs` error.
   */
  async read(): Promise<ProfileRecordSet | null> {
    let text: string;
    try {
      text = await readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new ProfileStoreError(this.file, "", `not JSON (${(error as Error).message})`);
    }
    try {
      return parseProfileRecordSet(value, "");
    } catch (error) {
      if (error instanceof TurngateValidationError) {
        throw new ProfileStoreError(this.file, error.path, error.issues[0]?.message ?? "invalid");
      }
      throw error;
    }
  }

  /**
   * Replaces the whole record set (`verification_profiles_set`): validated, `schemaVersion`
   * defaulted to 1, `rows` to `[]`, `updatedAt` stamped. Returns what was written.
   * Throws `TurngateValidationError` (path `profiles.*`) for a malformed record set.
   */
  async set(recordSet: unknown): Promise<ProfileRecordSet> {
    const normalized = normalizeRecordSet(recordSet, this.now());
    await this.withLock(async () => {
      await this.readOrNull();
      await writeJsonAtomic(this.file, normalized);
    });
    return normalized;
  }

  /**
   * Applies `update` to the current record set (null when none) under the lock and writes
   * the result when it returns one; `undefined` leaves the file untouched. Returns the
   * written (or current) record set.
   */
  async update(
    update: (current: ProfileRecordSet | null) => ProfileRecordSet | undefined,
  ): Promise<ProfileRecordSet | null> {
    return this.withLock(async () => {
      const current = await this.readOrNull();
      const next = update(current);
      if (next === undefined) return current;
      const normalized = normalizeRecordSet(next, this.now());
      await writeJsonAtomic(this.file, normalized);
      return normalized;
    });
  }

  /**
   * `verification_profile_record_run`: applies `observation` to the first row whose id is
   * `rowId` (§3.2, §3.3) and saves; returns the updated row, or `null` when there is no
   * store or no such row (nothing is written). Safe against concurrent writers.
   * Throws `TurngateValidationError` (blank `row_id`, malformed `observation`) or
   * `ProfileStoreError`.
   */
  async recordRun(
    rowId: unknown,
    observation: CheckObservation | unknown,
  ): Promise<ProfileRow | null> {
    return this.withLock(async () => {
      const current = await this.readOrNull();
      const out = recordRun(current, rowId, observation, this.now());
      if (out.row !== null && out.profiles !== null) await writeJsonAtomic(this.file, out.profiles);
      return out.row;
    });
  }

  /** `profileMatches(query)` over the stored rows. Throws `ProfileStoreError`. */
  async matches(query: unknown): Promise<ProfileMatch[]> {
    return profileMatches(query, { profiles: await this.read() });
  }

  /** `ladderPlan(query, options)` over the stored rows (`options.profiles` is replaced). */
  async ladderPlan(query: unknown, options: Record<string, unknown> = {}): Promise<LadderPlan> {
    return ladderPlan(query, { ...options, profiles: await this.read() });
  }

  /** `hudModel(state, options)` over the stored rows (`options.profiles` is replaced). */
  async hudModel(state: unknown, options: Record<string, unknown> = {}): Promise<HudModel> {
    return hudModel(state, { ...options, profiles: await this.read() });
  }

  private async readOrNull(): Promise<ProfileRecordSet | null> {
    return this.read();
  }

  private async withLock<T>(fn: () => Promise<T>): Promise<T> {
    await ensureDirectory(this.dir);
    const retries = Math.max(1, Math.ceil(this.lockTimeoutMs / 25));
    const release = await lockfile.lock(this.file, {
      realpath: false,
      lockfilePath: `${this.file}.lock`,
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
