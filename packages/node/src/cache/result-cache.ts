/**
 * The result cache of one turn (issue 20): looks a check's key up locally
 * (`<state>/cache/artifacts/<key>.json`), then in the Turborepo remote cache; accepts an
 * artifact only through `openCachedCheck` (trusted signer, same key); stores results after
 * a run (locally always, remotely only when the host enabled uploads). Every lookup,
 * rejection and upload is one line appended to `<state>/cache/events.jsonl` (`O_APPEND`:
 * concurrent turns never lose a line), which `cacheStats` sums. Remote failures (network
 * errors, timeouts, 5xx) are warnings, never errors: the check runs.
 */
import { appendFile, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../fs/atomic.js";
import type { SigningKey } from "../proofs/signing-key.js";
import { type CachedCheck, openCachedCheck, signCachedCheck } from "./artifact.js";
import type { TrustedCacheKey } from "./host-settings.js";
import type { RemoteCacheClient } from "./remote-client.js";

/** Where a hit came from (`none`: the check ran). */
export type CacheSource = "remote" | "local" | "none";

/** Options of {@link ResultCache}. */
export interface ResultCacheOptions {
  /** The state folder; the cache lives in `<stateDir>/cache/`. */
  stateDir: string;
  /** The remote cache, when configured. */
  remote?: RemoteCacheClient;
  /** Look results up (config `cache.read`, default true). */
  read: boolean;
  /** Upload results (the host enabled writes and config `cache.write` is not false). */
  upload: boolean;
  /** Signers a hit may come from (host settings, outside the workspace). */
  trusted: readonly TrustedCacheKey[];
  /** The turn signing key: signs stored results. */
  signingKey: SigningKey;
  /**
   * Accept local entries signed with `signingKey` (host setting `trust_own_key`, default
   * false: an agent running as the same user can read the key and forge local entries).
   */
  trustOwnKey?: boolean;
  /** Called with each warning (a sentence). */
  warn?: (line: string) => void;
}

/** A hit: the stored result and where it came from. */
export interface CacheHit {
  payload: CachedCheck;
  source: "remote" | "local";
  keyid: string;
}

/** One line of `events.jsonl`. */
export interface CacheEvent {
  at: string;
  event: "hit" | "miss" | "rejected" | "remote_error" | "upload" | "upload_failed" | "stored";
  key: string;
  source?: "remote" | "local";
  bytes?: number;
  reason?: string;
}

/** `<stateDir>/cache`. */
export function cacheDir(stateDir: string): string {
  return join(stateDir, "cache");
}

/** The result cache of one turn; see the module docs. */
export class ResultCache {
  readonly #o: ResultCacheOptions;
  readonly #localTrusted: TrustedCacheKey[];
  /** Warnings so far (also passed to `warn`). */
  readonly warnings: string[] = [];

  /** Input: {@link ResultCacheOptions}. Never throws. */
  constructor(options: ResultCacheOptions) {
    this.#o = options;
    const own: TrustedCacheKey = {
      publicKey: options.signingKey.publicKey,
      keyid: options.signingKey.keyid,
      source: "own",
    };
    this.#localTrusted = options.trustOwnKey
      ? [...options.trusted.filter((k) => k.keyid !== own.keyid), own]
      : [...options.trusted];
  }

  /** Whether uploads are on. */
  get uploads(): boolean {
    return this.#o.upload && this.#o.remote !== undefined;
  }

  /**
   * Look `key` up: the local entry first (trusted keys, and this host's own key only with
   * `trustOwnKey`), then the
   * remote one (trusted keys only; an accepted remote artifact is also stored locally).
   * A rejected artifact (`malformed`, `unknown_key`, `bad_signature`, `key_mismatch`, …)
   * is a miss with a warning naming why. Output: the hit, or undefined. Never throws.
   */
  async lookup(key: string, checkId: string): Promise<CacheHit | undefined> {
    if (!this.#o.read) return undefined;
    const localPath = this.#localPath(key);
    const local = await readFile(localPath).catch(() => undefined);
    if (local !== undefined) {
      const opened = openCachedCheck(local, key, this.#localTrusted);
      if (opened.accepted) {
        await this.#event({ event: "hit", key, source: "local", bytes: local.length });
        return { payload: opened.payload, source: "local", keyid: opened.keyid };
      }
      this.#warn(
        `cache: local entry for ${checkId} rejected (${opened.reason}: ${opened.detail}); the check runs`,
      );
      await this.#event({ event: "rejected", key, source: "local", reason: opened.reason });
    }
    const remote = this.#o.remote;
    if (remote !== undefined) {
      const got = await remote.get(key);
      if (!got.ok) {
        this.#warn(
          `cache: remote cache unavailable for ${checkId} (${got.reason}); the check runs`,
        );
        await this.#event({ event: "remote_error", key, reason: got.reason });
      } else if (got.found) {
        const opened = openCachedCheck(got.bytes, key, this.#o.trusted);
        if (opened.accepted) {
          await this.#event({ event: "hit", key, source: "remote", bytes: got.bytes.length });
          await this.#storeLocal(key, got.bytes);
          return { payload: opened.payload, source: "remote", keyid: opened.keyid };
        }
        this.#warn(
          `cache: remote artifact for ${checkId} rejected (${opened.reason}: ${opened.detail}); the check runs`,
        );
        await this.#event({ event: "rejected", key, source: "remote", reason: opened.reason });
      }
    }
    await this.#event({ event: "miss", key });
    return undefined;
  }

  /**
   * Store a result under `key`: signed with the turn signing key, written locally, and
   * uploaded (`PUT /v8/artifacts/:hash`) when uploads are on. An upload failure is a
   * warning. Output: whether it was uploaded. Never throws for I/O or network errors.
   */
  async store(key: string, payload: CachedCheck, checkId: string): Promise<boolean> {
    let bytes: Buffer;
    try {
      bytes = signCachedCheck(payload, this.#o.signingKey);
    } catch (error) {
      this.#warn(`cache: result of ${checkId} not stored (${(error as Error).message})`);
      return false;
    }
    await this.#storeLocal(key, bytes);
    if (!this.uploads || this.#o.remote === undefined) return false;
    const put = await this.#o.remote.put(key, bytes, payload.duration_ms);
    if (!put.ok) {
      this.#warn(`cache: upload of ${checkId} failed (${put.reason})`);
      await this.#event({ event: "upload_failed", key, reason: put.reason });
      return false;
    }
    await this.#event({ event: "upload", key, bytes: bytes.length });
    return true;
  }

  #localPath(key: string): string {
    return join(cacheDir(this.#o.stateDir), "artifacts", `${key}.json`);
  }

  async #storeLocal(key: string, bytes: Buffer): Promise<void> {
    try {
      await mkdir(join(cacheDir(this.#o.stateDir), "artifacts"), { recursive: true });
      await writeFileAtomic(this.#localPath(key), bytes);
      await this.#event({ event: "stored", key, source: "local", bytes: bytes.length });
    } catch (error) {
      this.#warn(`cache: local entry not written (${(error as Error).message})`);
    }
  }

  #warn(line: string): void {
    this.warnings.push(line);
    this.#o.warn?.(line);
  }

  async #event(event: Omit<CacheEvent, "at">): Promise<void> {
    try {
      await mkdir(cacheDir(this.#o.stateDir), { recursive: true });
      const line = `${JSON.stringify({ at: new Date().toISOString(), ...event })}\n`;
      await appendFile(join(cacheDir(this.#o.stateDir), "events.jsonl"), line);
    } catch {
      // stats are best effort
    }
  }
}

/** Totals of `events.jsonl` (`turngate cache stats`). */
export interface CacheStats {
  hits: { local: number; remote: number };
  misses: number;
  rejected: { local: number; remote: number; by_reason: Record<string, number> };
  remote_errors: number;
  uploads: number;
  upload_failures: number;
  /** Bytes of accepted hits read, of uploads sent, of local entries written. */
  bytes: { hits: number; uploaded: number; stored: number };
  /** Lines that were not events (a torn or foreign line), not counted. */
  unreadable_lines: number;
}

/**
 * Sum `<stateDir>/cache/events.jsonl`. Input: the state folder. Output: {@link CacheStats}
 * (all zero when there is no file). Never throws for a missing file; bad lines are counted
 * in `unreadable_lines`.
 */
export async function cacheStats(stateDir: string): Promise<CacheStats> {
  const stats: CacheStats = {
    hits: { local: 0, remote: 0 },
    misses: 0,
    rejected: { local: 0, remote: 0, by_reason: {} },
    remote_errors: 0,
    uploads: 0,
    upload_failures: 0,
    bytes: { hits: 0, uploaded: 0, stored: 0 },
    unreadable_lines: 0,
  };
  const text = await readFile(join(cacheDir(stateDir), "events.jsonl"), "utf8").catch(() => "");
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let event: Partial<CacheEvent>;
    try {
      event = JSON.parse(line) as Partial<CacheEvent>;
    } catch {
      stats.unreadable_lines += 1;
      continue;
    }
    const bytes = typeof event.bytes === "number" ? event.bytes : 0;
    switch (event.event) {
      case "hit":
        if (event.source === "remote") stats.hits.remote += 1;
        else stats.hits.local += 1;
        stats.bytes.hits += bytes;
        break;
      case "miss":
        stats.misses += 1;
        break;
      case "rejected":
        if (event.source === "remote") stats.rejected.remote += 1;
        else stats.rejected.local += 1;
        if (event.reason)
          stats.rejected.by_reason[event.reason] =
            (stats.rejected.by_reason[event.reason] ?? 0) + 1;
        break;
      case "remote_error":
        stats.remote_errors += 1;
        break;
      case "upload":
        stats.uploads += 1;
        stats.bytes.uploaded += bytes;
        break;
      case "upload_failed":
        stats.upload_failures += 1;
        break;
      case "stored":
        stats.bytes.stored += bytes;
        break;
      default:
        stats.unreadable_lines += 1;
    }
  }
  return stats;
}
