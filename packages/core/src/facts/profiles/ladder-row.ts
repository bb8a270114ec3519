/**
 * What `ladderPlan` reads from one profile row, read once (harn-verification.md §1.9,
 * §3.4): the row id, rung, resource class, command, stale-prone flag, the warm mode's
 * timing kind and the p95 of each timing kind. The query and the plan options decide the
 * rest per call.
 */
import {
  coalesce,
  display,
  field,
  isDict,
  isNil,
  rustTrim,
  toInt,
  trimmedText,
  truthy,
} from "../harn-values.js";
import { rungRank } from "../rung.js";
import type { ProfileRow } from "./schemas.js";

/** Resource rank: cheap 0, moderate 1, heavy 2, remote_ok / remote-ok / remote 3, else 4. */
export function resourceRank(resourceClass: string): number {
  switch (resourceClass) {
    case "cheap":
      return 0;
    case "moderate":
      return 1;
    case "heavy":
      return 2;
    case "remote_ok":
    case "remote-ok":
    case "remote":
      return 3;
    default:
      return 4;
  }
}

/** One row as the ladder reads it. */
export interface LadderRowFacts {
  /** `trim(id ?? name ?? "")`, or `profile/<index>` when blank. */
  rowId: string;
  /** `check.rung ?? row.rung` as 0–5, or `null` when missing or invalid. */
  rank: number | null;
  /** Lowercased, trimmed; default `moderate`. */
  resourceClass: string;
  resourceRank: number;
  /** `check.command ?? check.spec ?? row.command ?? row.spec`. */
  command: unknown;
  /** No command: nil or a blank string. */
  commandMissing: boolean;
  staleProne: boolean;
  /** Timing kind when neither `timing_kind` nor a warm-state fact decides: from the warm mode (`.warm`, then `.ready`), else warm. */
  modeKind: "warm" | "cold";
  /** p95 (ms) for a non-cold kind: `timings.warmMs.p95 ?? timings.coldMs.p95`; `null` when neither. */
  warmP95: number | null;
  /** p95 (ms) for the cold kind: `timings.coldMs.p95`; `null` when absent. */
  coldP95: number | null;
  granularity: unknown;
  trust: unknown;
  background: unknown;
}

function warmModeOf(row: ProfileRow): unknown {
  const mode = coalesce(row.warmMode, row.warm_mode, row.warmState, row.warm_state);
  if (isNil(mode)) return undefined;
  return isDict(mode) ? mode : { warm: truthy(mode) };
}

/** The ladder's view of `row` (at position `index` of `rows`). The row's types must already be checked. */
export function ladderRowFacts(row: ProfileRow, index: number): LadderRowFacts {
  const rawId = trimmedText(coalesce(row.id, row.name, ""));
  const check = isDict(row.check) ? row.check : {};
  const cls = rustTrim(
    display(
      coalesce(
        check.resourceClass,
        check.resource_class,
        row.resourceClass,
        row.resource_class,
        "moderate",
      ),
    ),
  ).toLowerCase();
  const resourceClass = cls === "" ? "moderate" : cls;
  const command = coalesce(check.command, check.spec, row.command, row.spec);
  const mode = warmModeOf(row);
  const warm = field(mode, "warm");
  const ready = field(mode, "ready");
  const modeKind = !isNil(warm)
    ? truthy(warm)
      ? "warm"
      : "cold"
    : !isNil(ready)
      ? truthy(ready)
        ? "warm"
        : "cold"
      : "warm";
  const timings = row.timings ?? {};
  const coldRaw = field(timings.coldMs, "p95");
  return {
    rowId: rawId === "" ? `profile/${index}` : rawId,
    rank: rungRank(coalesce(check.rung, row.rung)),
    resourceClass,
    resourceRank: resourceRank(resourceClass),
    command,
    commandMissing: isNil(command) || (typeof command === "string" && rustTrim(command) === ""),
    staleProne: truthy(
      coalesce(check.staleProne, check.stale_prone, row.staleProne, row.stale_prone, false),
    ),
    modeKind,
    warmP95: toInt(coalesce(field(timings.warmMs, "p95"), coldRaw)),
    coldP95: toInt(coldRaw),
    granularity: coalesce(check.granularity, row.granularity) ?? null,
    trust: coalesce(check.trust, check.trust_level, row.trust, row.trust_level) ?? null,
    background: coalesce(check.background, row.background, false),
  };
}
