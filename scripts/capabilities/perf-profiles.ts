/**
 * Performance claims linked to their qualification profile (issue #18 item 5): a ledger
 * row's performance cell may name `` `qualify:<profile-id>` ``; the profile must be declared
 * in scripts/qualify/profiles.ts and not skipped, and its latest full report in
 * `<results>/perf/<profile-id>.json` (when present) must have passed. A quick report
 * (CI smoke, noisy) is not held to the budget.
 */
import fs from "node:fs";
import path from "node:path";
import { PROFILES, type Profile } from "../qualify/profiles.js";

const QUALIFY_REF = /`qualify:([a-z0-9][a-z0-9-]*-v[0-9]+)`/g;

/** The profile ids a performance cell names. */
export function qualifyRefs(cell: string): string[] {
  return [...cell.matchAll(QUALIFY_REF)].map((m) => m[1] as string);
}

/**
 * Problems with the profiles `cell` names (`owner`: the ledger row). `resultsDir` null: the
 * reports are not read (structure only). `profiles`: the declared profiles (tests pass their
 * own).
 */
export function perfProfileProblems(
  owner: string,
  cell: string,
  resultsDir: string | null,
  profiles: readonly Profile[] = PROFILES,
): string[] {
  const problems: string[] = [];
  for (const id of qualifyRefs(cell)) {
    const profile = profiles.find((p) => p.id === id);
    if (profile === undefined) {
      problems.push(`${owner}: qualify:${id} is not a profile of scripts/qualify/profiles.ts`);
      continue;
    }
    if (profile.skipped !== undefined) {
      problems.push(
        `${owner}: qualify:${id} is declared skipped (${profile.skipped}); it proves nothing yet`,
      );
      continue;
    }
    if (resultsDir === null) continue;
    const file = path.join(resultsDir, "perf", `${id}.json`);
    if (!fs.existsSync(file)) continue;
    let report: { mode?: unknown; passed?: unknown };
    try {
      report = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (error) {
      problems.push(
        `${owner}: ${file} is not JSON (${(error as Error).message}); run pnpm qualify --profile ${id}`,
      );
      continue;
    }
    if (report.mode === "full" && report.passed !== true) {
      problems.push(
        `${owner}: the latest full report of qualify:${id} (${file}) did not pass its budget`,
      );
    }
  }
  return problems;
}
