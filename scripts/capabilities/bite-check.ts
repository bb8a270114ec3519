/**
 * The bite check (issue 35 item 2; CAPABILITY_VERIFICATION.md "Claims"): does each claim's
 * cited test catch a wrong change to the code the claim describes? Two sources of wrong
 * changes, judged per claim:
 *
 * - Stryker's mutants on the claim's code lines (`./bite.ts`, from `stryker/incremental.json`,
 *   no test run);
 * - the curated wrong changes of `scripts/capabilities/wrong-changes.json` for code outside
 *   Stryker's scope (`./wrong-changes.ts`): every `always` entry and 8 picked with a printed
 *   seed, each run against the claim's cited vitest tests (`./wrong-change-vitest.ts`).
 *
 * The bite rate of an area is its bitten claims over its judged claims. The check fails when a
 * claim of a strict area (completion gate, mutation ledger, workspace observer, hooks, result
 * cache: {@link isStrictArea}) is not bitten, when any selected wrong change is not caught, when
 * a claim's code lines hold no mutant, or when the list is malformed.
 */
import fs from "node:fs";
import path from "node:path";
import { type EquivalentEntry, readEquivalents } from "../mutation/equivalents.js";
import { type BiteReport, biteFromStryker, type ClaimBite } from "./bite.js";
import type { ClaimArea } from "./claims.js";
import type { VitestReference } from "./test-references.js";
import {
  parseWrongChanges,
  runWrongChanges,
  selectWrongChanges,
  type TestRunOutcome,
  type WrongChange,
  type WrongChangeVerdict,
  wrongChangeProblem,
  wrongChangeProblems,
} from "./wrong-changes.js";

/** The curated list, relative to the repository root. */
export const WRONG_CHANGES_FILE = "scripts/capabilities/wrong-changes.json";
/** Stryker's incremental file, relative to the repository root. */
export const STRYKER_INCREMENTAL_FILE = "stryker/incremental.json";
/** The equivalent-mutant list, relative to the repository root. */
export const EQUIVALENTS_DIR = "stryker/equivalent";

/**
 * Whether an area must be bitten in full (issue 35 item 2: "CI fails under 100% for the gate,
 * ledger, observer, hooks and cache areas").
 *
 * @param area the `### ` heading
 * @returns true for "Completion gate", "Mutation ledger and effect digest", "Workspace
 *   observer", "Result cache across machines" and every area starting "Hook "
 */
export function isStrictArea(area: string): boolean {
  return (
    [
      "Completion gate",
      "Mutation ledger and effect digest",
      "Workspace observer",
      "Result cache across machines",
    ].includes(area) || area.startsWith("Hook ")
  );
}

/** One area's line of the bite rate. */
export interface AreaRate {
  area: string;
  bitten: number;
  judged: number;
  strict: boolean;
  /** The area's claims in the map (judged or not); undefined when the map was not given. */
  claims?: number;
}

/** Outcome of {@link runBiteCheck}. */
export interface BiteCheckResult {
  ok: boolean;
  seed: number;
  stryker: ClaimBite[];
  wrongChanges: WrongChangeVerdict[];
  rates: AreaRate[];
  /** Bitten over judged claims, all areas. */
  total: { bitten: number; judged: number };
  problems: string[];
}

/** Options of {@link runBiteCheck}. */
export interface BiteCheckOptions {
  root: string;
  areas: ClaimArea[];
  seed: number;
  /** How many wrong changes to pick besides the `always` ones (default 8). */
  picks?: number;
  /** Runs one change's cited tests; default `runCitedTests` with the repository's vitest config. */
  run?: (change: WrongChange, refs: VitestReference[]) => Promise<TestRunOutcome>;
  /** Called before each change runs (progress lines). */
  onChange?: (change: WrongChange, owner: string) => void;
}

/**
 * Per-area bite rates from both sources: a claim is judged when it has a Stryker verdict or a
 * wrong change ran for it, and bitten when every verdict on it is positive.
 *
 * @param areas the map's areas, when given: rates come in map order with each area's claim
 *   count, and a strict area no claim of which was judged is listed too (0 judged), so the
 *   claims the check does not reach stay visible
 * @returns one rate per area with a judged claim (and, with `areas`, per strict area);
 *   without `areas`, in the order the areas first appear in `stryker`, then `changes`
 */
export function biteRates(
  stryker: ClaimBite[],
  changes: WrongChangeVerdict[],
  areas?: ClaimArea[],
): AreaRate[] {
  const claims = new Map<string, { area: string; ok: boolean }>();
  const note = (area: string, claim: number, ok: boolean) => {
    const key = `${area}\u0000${claim}`;
    const prev = claims.get(key);
    claims.set(key, { area, ok: (prev?.ok ?? true) && ok });
  };
  for (const s of stryker) note(s.area, s.claim, s.ok);
  for (const v of changes) note(v.change.area, v.change.claim, v.caught);
  const rates = new Map<string, AreaRate>();
  for (const { area, ok } of claims.values()) {
    const r = rates.get(area) ?? { area, bitten: 0, judged: 0, strict: isStrictArea(area) };
    r.judged++;
    if (ok) r.bitten++;
    rates.set(area, r);
  }
  if (areas === undefined) return [...rates.values()];
  return areas.flatMap((a) => {
    const r = rates.get(a.area);
    if (r === undefined && !isStrictArea(a.area)) return [];
    return [
      { ...(r ?? { area: a.area, bitten: 0, judged: 0, strict: true }), claims: a.claims.length },
    ];
  });
}

/**
 * Runs the bite check on a repository.
 *
 * @param options root, the map's areas, the seed, and (tests) a test runner
 * @returns verdicts, per-area rates and problems; `ok` when there are none
 * @throws Error when Stryker's incremental file or the equivalents list cannot be read
 */
export async function runBiteCheck(options: BiteCheckOptions): Promise<BiteCheckResult> {
  const { root, areas, seed } = options;
  const problems: string[] = [];
  const report = JSON.parse(
    fs.readFileSync(path.join(root, STRYKER_INCREMENTAL_FILE), "utf8"),
  ) as BiteReport;
  const equivalents: EquivalentEntry[] = readEquivalents(
    path.join(root, EQUIVALENTS_DIR),
    EQUIVALENTS_DIR,
  );
  const stryker = biteFromStryker(areas, report, equivalents);
  for (const s of stryker) {
    if (s.mutants === 0 || (!s.ok && isStrictArea(s.area)))
      problems.push(`${s.owner}: ${s.problem}`);
  }

  const listPath = path.join(root, WRONG_CHANGES_FILE);
  const listText = fs.existsSync(listPath) ? fs.readFileSync(listPath, "utf8") : '{"changes":[]}';
  const { changes, problems: listProblems } = parseWrongChanges(listText, WRONG_CHANGES_FILE);
  problems.push(...listProblems);
  const readFile = (file: string) => {
    try {
      return fs.readFileSync(path.join(root, file), "utf8");
    } catch {
      return null;
    }
  };
  const entryProblems = wrongChangeProblems(changes, areas, readFile);
  problems.push(...entryProblems);
  const selection = selectWrongChanges(changes, areas, seed, options.picks ?? 8);
  let run = options.run;
  if (run === undefined) {
    const { runCitedTests } = await import("./wrong-change-vitest.js");
    run = (change, refs) => runCitedTests(change, refs, { root });
  }
  const runOne = run;
  const verdicts = await runWrongChanges(selection, async (change, refs) => {
    options.onChange?.(change, selection.find((s) => s.change === change)?.owner ?? "");
    return runOne(change, refs);
  });
  for (const v of verdicts) {
    const p = wrongChangeProblem(v);
    if (p) problems.push(p);
  }
  const rates = biteRates(stryker, verdicts, areas);
  const total = rates.reduce(
    (t, r) => ({ bitten: t.bitten + r.bitten, judged: t.judged + r.judged }),
    { bitten: 0, judged: 0 },
  );
  return {
    ok: problems.length === 0,
    seed,
    stryker,
    wrongChanges: verdicts,
    rates,
    total,
    problems,
  };
}

/** `n/m (p%)`, p rounded down to a whole percent so 99.9% never prints as 100%. */
function rate(bitten: number, judged: number): string {
  return `${bitten}/${judged} (${judged === 0 ? 100 : Math.floor((bitten / judged) * 100)}%)`;
}

/**
 * The lines the CLI prints: the seed; one per wrong change run; one per claim judged by
 * Stryker (its mutants killed by a cited test over its counted mutants); one per claim outside
 * the strict areas whose mutants its tests do not kill (not a failure); one per area
 * (`bite rate <Area>: n/m (p%)`, `[strict]` for the areas that must reach 100%, and
 * `, <judged> of <claims> claim(s) judged` when the rates carry the map's claim counts; a
 * strict area with no judged claim prints `0/0 (100%)`); and the total.
 */
export function formatBiteCheck(result: BiteCheckResult): string[] {
  const lines = [`bite check seed: ${result.seed} (replay: --bite --seed ${result.seed})`];
  for (const v of result.wrongChanges) {
    lines.push(
      `wrong change ${v.caught ? "caught" : "NOT caught"}: ${v.owner}: ${v.change.file} (${v.change.why}); ${v.outcome.failed}/${v.outcome.ran} cited test(s) failed`,
    );
  }
  for (const s of result.stryker) {
    lines.push(
      `mutants ${s.ok ? "bitten" : "NOT bitten"}: ${s.owner}: ${s.bitten}/${s.mutants} on its lines killed by a cited test`,
    );
  }
  for (const s of result.stryker) {
    if (!s.ok && s.mutants > 0 && !isStrictArea(s.area))
      lines.push(`not bitten: ${s.owner}: ${s.problem}`);
  }
  for (const r of result.rates) {
    const reach = r.claims === undefined ? "" : `, ${r.judged} of ${r.claims} claim(s) judged`;
    lines.push(
      `bite rate ${r.area}: ${rate(r.bitten, r.judged)}${r.strict ? " [strict]" : ""}${reach}`,
    );
  }
  lines.push(`bite rate: ${rate(result.total.bitten, result.total.judged)} of judged claims`);
  return lines;
}
