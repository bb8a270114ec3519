/**
 * Recording observations into one profile row (harn-verification.md §3.2, §3.3) at the
 * cost of an array append: the row is validated once (zod) when the recorder is made; each
 * observation is type-checked by hand on the fast path and by zod when that check does not
 * pass (so a bad observation gets zod's exact error); durations go into a ring of
 * `TIMING_WINDOW_CAP` slots; p50/p95/p99 are computed when the row is read (`row()`), not
 * per observation. `applyObservation` is this recorder with one observation, so both give
 * byte-identical rows (same values, same key order).
 */
import { isDict } from "../harn-values.js";
import { isoSeconds } from "./iso-seconds.js";
import { CheckObservationSchema, type ProfileRow, ProfileRowSchema } from "./schemas.js";
import { TIMING_WINDOW_CAP, windowPercentiles } from "./timing-window.js";
import { validated } from "./validate.js";

/** A window of the newest `TIMING_WINDOW_CAP` durations (ms), oldest first when read. */
class TimingRing {
  private readonly slots: number[];
  private start = 0;
  private size = 0;

  constructor(initial: readonly number[]) {
    this.slots = new Array<number>(TIMING_WINDOW_CAP).fill(0);
    const from = Math.max(0, initial.length - TIMING_WINDOW_CAP);
    for (let i = from; i < initial.length; i++) this.push(initial[i] as number);
  }

  push(durationMs: number): void {
    if (this.size < TIMING_WINDOW_CAP) {
      let at = this.start + this.size;
      if (at >= TIMING_WINDOW_CAP) at -= TIMING_WINDOW_CAP;
      this.slots[at] = durationMs;
      this.size++;
    } else {
      this.slots[this.start] = durationMs;
      this.start = this.start + 1 === TIMING_WINDOW_CAP ? 0 : this.start + 1;
    }
  }

  toArray(): number[] {
    const out = new Array<number>(this.size);
    for (let i = 0; i < this.size; i++) {
      let at = this.start + i;
      if (at >= TIMING_WINDOW_CAP) at -= TIMING_WINDOW_CAP;
      out[i] = this.slots[at] as number;
    }
    return out;
  }
}

type Kind = "warm" | "cold";
const WINDOW_KEY = { warm: "recentWarmMs", cold: "recentColdMs" } as const;
const STATS_KEY = { warm: "warmMs", cold: "coldMs" } as const;

/**
 * Applies a sequence of check observations to one profile row (§3.2, §3.3): the result of
 * `row()` equals applying `applyObservation` once per recorded observation, in order.
 * `record` costs O(1) (no copy of the row, no sort); `row()` sorts each touched window
 * once and caches the row until the next `record`.
 */
export class ProfileRowRecorder {
  private readonly base: ProfileRow;
  private readonly baseTimings: Record<string, unknown>;
  private readonly baseSamples: number;
  private warm: TimingRing | null = null;
  private cold: TimingRing | null = null;
  /** Kinds in the order their first duration arrived (decides new keys' order). */
  private readonly touched: Kind[] = [];
  /** `timings` / `lastRun` in the order they were first set, when the row lacked them. */
  private readonly added: ("timings" | "lastRun")[] = [];
  private samples = 0;
  private lastRun: Record<string, unknown> | undefined;
  private cached: ProfileRow | undefined;

  /**
   * `row`: a profile row (§2.6), validated here once. Throws `TurngateValidationError`
   * naming the field under `rowPath`.
   */
  constructor(row: unknown, rowPath = "row") {
    this.base = validated(ProfileRowSchema, row, "profile row", rowPath);
    this.baseTimings = isDict(this.base.timings) ? this.base.timings : {};
    this.baseSamples = (this.baseTimings.samples as number | undefined) ?? 0;
  }

  /**
   * Applies one observation (§2.7): an integer `durationMs` (ms) goes to the warm window
   * unless `warm` is `false`, else to the cold one, and `timings.samples` grows by one; an
   * outcome-bearing observation (`exit`, `failureSignature` or `snapshot` present) replaces
   * `lastRun` with `{at (observation.at, else nowMs as YYYY-MM-DDTHH:MM:SSZ), exit?,
   * failureSignature?, snapshot?}`. Throws `TurngateValidationError` naming the field under
   * `observationPath`; the recorder is unchanged then.
   */
  record(observation: unknown, nowMs: number, observationPath = "observation"): void {
    if (typeof observation !== "object" || observation === null || Array.isArray(observation)) {
      validated(CheckObservationSchema, observation, "check observation", observationPath);
    }
    const obs = observation as Record<string, unknown>;
    const durationMs = obs.durationMs;
    const warm = obs.warm;
    const at = obs.at;
    const exit = obs.exit;
    const failureSignature = obs.failureSignature;
    const snapshot = obs.snapshot;
    // Fast path: types checked by hand, accepting only what CheckObservationSchema accepts
    // (a snapshot always goes through zod); anything else gets zod's verdict and error.
    if (
      (durationMs !== undefined &&
        !(Number.isSafeInteger(durationMs) && (durationMs as number) >= 0)) ||
      (warm !== undefined && typeof warm !== "boolean") ||
      (at !== undefined && typeof at !== "string") ||
      (exit !== undefined && !Number.isSafeInteger(exit)) ||
      (failureSignature !== undefined && typeof failureSignature !== "string") ||
      snapshot !== undefined
    ) {
      validated(CheckObservationSchema, observation, "check observation", observationPath);
    }
    this.cached = undefined;
    if (durationMs !== undefined) {
      const ring =
        warm === false ? (this.cold ?? this.open("cold")) : (this.warm ?? this.open("warm"));
      ring.push(durationMs as number);
      this.samples++;
    }
    if (exit !== undefined || failureSignature !== undefined || snapshot !== undefined) {
      const lastRun: Record<string, unknown> = {
        at: typeof at === "string" ? at : isoSeconds(nowMs),
      };
      if (exit !== undefined) lastRun.exit = exit;
      if (failureSignature !== undefined) lastRun.failureSignature = failureSignature;
      if (snapshot !== undefined) lastRun.snapshot = snapshot;
      if (this.lastRun === undefined && !("lastRun" in this.base)) this.added.push("lastRun");
      this.lastRun = lastRun;
    }
  }

  /** The window of `kind`, made from the row's window on its first duration. */
  private open(kind: Kind): TimingRing {
    const ring = new TimingRing((this.baseTimings[WINDOW_KEY[kind]] as number[] | undefined) ?? []);
    if (kind === "warm") this.warm = ring;
    else this.cold = ring;
    this.touched.push(kind);
    if (this.touched.length === 1 && !("timings" in this.base)) this.added.push("timings");
    return ring;
  }

  /** Durations recorded so far (both kinds). */
  get recorded(): number {
    return this.samples;
  }

  /**
   * The row with every recorded observation applied: a new object (the row given to the
   * constructor is not changed); fields the store does not own round-trip.
   */
  row(): ProfileRow {
    if (this.cached !== undefined) return this.cached;
    const out: ProfileRow = { ...this.base };
    const set = (key: "timings" | "lastRun") => {
      if (key === "timings" && this.touched.length > 0) out.timings = this.timings();
      if (key === "lastRun" && this.lastRun !== undefined) out.lastRun = this.lastRun;
    };
    // Keys the row already had keep their place; new ones follow in first-set order.
    for (const key of ["timings", "lastRun"] as const) if (key in this.base) set(key);
    for (const key of this.added) set(key);
    this.cached = out;
    return out;
  }

  private timings(): Record<string, unknown> {
    const timings: Record<string, unknown> = { ...this.baseTimings };
    for (const kind of this.touched) {
      const window = ((kind === "warm" ? this.warm : this.cold) as TimingRing).toArray();
      const statsKey = STATS_KEY[kind];
      const stats = isDict(timings[statsKey]) ? (timings[statsKey] as Record<string, unknown>) : {};
      timings[WINDOW_KEY[kind]] = window;
      timings[statsKey] = { ...stats, ...windowPercentiles(window) };
      timings.samples = this.baseSamples + this.samples;
    }
    return timings;
  }
}
