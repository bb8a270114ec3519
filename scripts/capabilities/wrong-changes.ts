/**
 * Curated wrong changes (issue 35 item 2; CAPABILITY_VERIFICATION.md "Claims"): for claims
 * whose code is outside Stryker's mutate scope, `scripts/capabilities/wrong-changes.json`
 * holds small hand-written edits that make the claim's sentence false. The bite check applies
 * each selected one, runs the tests the claim cites and expects at least one to fail. This
 * file reads and checks the list, picks the run's selection with a printed seed, and judges
 * the outcomes; running the tests is `./wrong-change-vitest.ts`.
 */
import type { ClaimArea } from "./claims.js";
import { claimOwner } from "./claims.js";
import type { VitestReference } from "./test-references.js";

/** One entry of the list. */
export interface WrongChange {
  /** The claim's area, exactly as its `### ` heading. */
  area: string;
  /** The claim's number within the area. */
  claim: number;
  /** Repository-relative POSIX path of the file the change edits. */
  file: string;
  /** Text that occurs exactly once in `file`. */
  find: string;
  /** What replaces it. */
  replace: string;
  /** Why this makes the claim's sentence false. */
  why: string;
  /** True for entries every run applies (survivors an audit named); the rest are picked by seed. */
  always?: boolean;
}

/** A selected change with the claim it breaks. */
export interface SelectedChange {
  change: WrongChange;
  owner: string;
  /** The claim's vitest references: the tests that run. */
  refs: VitestReference[];
}

/** What running the cited tests against a changed file gave. */
export interface TestRunOutcome {
  /** Cited tests that ran. */
  ran: number;
  /** Of those, the ones that failed. */
  failed: number;
  /** Set when the run itself broke (the change did not apply, vitest could not start). */
  error?: string;
}

/** The verdict on one selected change. */
export interface WrongChangeVerdict {
  change: WrongChange;
  owner: string;
  /** True when at least one cited test failed with the change applied. */
  caught: boolean;
  outcome: TestRunOutcome;
}

const KEYS = ["area", "claim", "file", "find", "replace", "why"] as const;

/**
 * Parses and validates the list.
 *
 * @param text the JSON file: `{"changes": [ {area, claim, file, find, replace, why, always?}, … ]}`
 * @param where file name for problems
 * @returns the entries and problems (`<where>: entry <i>: <field> …`); malformed entries are dropped
 */
export function parseWrongChanges(
  text: string,
  where: string,
): { changes: WrongChange[]; problems: string[] } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return { changes: [], problems: [`${where}: not JSON: ${(err as Error).message}`] };
  }
  const list = (data as { changes?: unknown })?.changes;
  if (!Array.isArray(list)) return { changes: [], problems: [`${where}: "changes" is not a list`] };
  const changes: WrongChange[] = [];
  const problems: string[] = [];
  list.forEach((raw, i) => {
    const e = raw as Record<string, unknown>;
    const bad = KEYS.filter((k) =>
      k === "claim"
        ? !(Number.isInteger(e?.[k]) && (e[k] as number) >= 1)
        : typeof e?.[k] !== "string" || (k !== "replace" && e[k] === ""),
    );
    if (e?.always !== undefined && typeof e.always !== "boolean") bad.push("always" as never);
    if (bad.length > 0) {
      problems.push(`${where}: entry ${i + 1}: ${bad.join(", ")} missing or of the wrong type`);
      return;
    }
    if (e.find === e.replace) {
      problems.push(`${where}: entry ${i + 1}: replace equals find (no change)`);
      return;
    }
    changes.push(e as unknown as WrongChange);
  });
  return { changes, problems };
}

/**
 * Problems with entries against the map and the sources: the claim does not exist, cites no
 * vitest test, or `find` does not occur exactly once in `file`.
 *
 * @param changes parsed entries
 * @param areas the map's areas
 * @param readFile reads a repository-relative file; null when it does not exist
 * @returns `<Area>, claim <n> ("…"): wrong change in <file>: <problem>` or `<where>…` lines
 */
export function wrongChangeProblems(
  changes: WrongChange[],
  areas: ClaimArea[],
  readFile: (file: string) => string | null,
): string[] {
  const problems: string[] = [];
  for (const change of changes) {
    const area = areas.find((a) => a.area === change.area);
    const claim = area?.claims.find((c) => c.number === change.claim);
    if (area === undefined || claim === undefined) {
      problems.push(
        `wrong change in ${change.file}: no claim ${change.claim} in area "${change.area}"`,
      );
      continue;
    }
    const owner = `${claimOwner(area.area, claim)}: wrong change in ${change.file}`;
    if (!claim.refs.some((r) => r.runner === "vitest")) {
      problems.push(`${owner}: the claim cites no vitest test (only vitest tests are run)`);
    }
    const text = readFile(change.file);
    if (text === null) {
      problems.push(`${owner}: no such file`);
      continue;
    }
    const count = text.split(change.find).length - 1;
    if (count !== 1) problems.push(`${owner}: find text occurs ${count} times (must be once)`);
  }
  return problems;
}

/**
 * A deterministic pseudo-random sequence in [0, 1) from a 32-bit seed (mulberry32), so a
 * printed seed replays the same picks.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The changes a run applies: every `always` entry, then `count` entries picked from the others
 * by `seed` (a partial Fisher–Yates shuffle with {@link seededRandom}; fewer when there are not
 * enough), each with its claim's owner and vitest references. Entries whose claim is missing
 * are skipped (they are problems of {@link wrongChangeProblems}).
 *
 * @param changes the list, in file order
 * @param areas the map's areas
 * @param seed any integer; the same seed and list give the same selection
 * @param count how many to pick besides the `always` entries (default 8)
 */
export function selectWrongChanges(
  changes: WrongChange[],
  areas: ClaimArea[],
  seed: number,
  count = 8,
): SelectedChange[] {
  const pool = changes.filter((c) => c.always !== true);
  const random = seededRandom(seed);
  const picked: WrongChange[] = [];
  for (let i = 0; i < Math.min(count, pool.length); i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j] as WrongChange, pool[i] as WrongChange];
    picked.push(pool[i] as WrongChange);
  }
  const out: SelectedChange[] = [];
  for (const change of [...changes.filter((c) => c.always === true), ...picked]) {
    const area = areas.find((a) => a.area === change.area);
    const claim = area?.claims.find((c) => c.number === change.claim);
    if (area === undefined || claim === undefined) continue;
    out.push({
      change,
      owner: claimOwner(area.area, claim),
      refs: claim.refs.filter((r): r is VitestReference => r.runner === "vitest"),
    });
  }
  return out;
}

/**
 * The file's text with the change applied.
 *
 * @throws Error when `find` does not occur exactly once in `text`
 */
export function applyWrongChange(text: string, change: WrongChange): string {
  const parts = text.split(change.find);
  if (parts.length !== 2) {
    throw new Error(
      `find text occurs ${parts.length - 1} times in ${change.file} (must be once): ${JSON.stringify(change.find)}`,
    );
  }
  return `${parts[0]}${change.replace}${parts[1]}`;
}

/**
 * Runs the selection one change at a time and judges each: caught when at least one cited
 * test failed. A run where no cited test ran, or that broke, is not caught.
 *
 * @param selection from {@link selectWrongChanges}
 * @param run runs `refs` with `change` applied (`./wrong-change-vitest.ts` in the check)
 * @returns one verdict per change, in order
 */
export async function runWrongChanges(
  selection: SelectedChange[],
  run: (change: WrongChange, refs: VitestReference[]) => Promise<TestRunOutcome>,
): Promise<WrongChangeVerdict[]> {
  const verdicts: WrongChangeVerdict[] = [];
  for (const { change, owner, refs } of selection) {
    let outcome: TestRunOutcome;
    try {
      outcome = await run(change, refs);
    } catch (err) {
      outcome = { ran: 0, failed: 0, error: (err as Error).message };
    }
    const caught = outcome.error === undefined && outcome.failed > 0;
    verdicts.push({ change, owner, caught, outcome });
  }
  return verdicts;
}

/**
 * Why a verdict is not caught, for the problem line; undefined when caught.
 *
 * @returns e.g. `wrong change in <file> (<why>) was not caught: 3 cited test(s) ran, none failed`
 */
export function wrongChangeProblem(v: WrongChangeVerdict): string | undefined {
  if (v.caught) return undefined;
  const head = `${v.owner}: wrong change in ${v.change.file} (${v.change.why}) was not caught`;
  if (v.outcome.error !== undefined) return `${head}: ${v.outcome.error}`;
  if (v.outcome.ran === 0) return `${head}: none of its cited vitest tests ran`;
  return `${head}: ${v.outcome.ran} cited test(s) ran, none failed`;
}
