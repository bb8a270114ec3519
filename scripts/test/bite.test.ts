import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { type BiteReport, biteFromStryker } from "../capabilities/bite.js";
import {
  biteRates,
  EQUIVALENTS_DIR,
  formatBiteCheck,
  isStrictArea,
  STRYKER_INCREMENTAL_FILE,
} from "../capabilities/bite-check.js";
import { parseClaims } from "../capabilities/claims.js";
import { codeRangeProblem, parseCodeRange } from "../capabilities/code-ranges.js";
import { CLAIMS_HEADING, MAP_FILE } from "../capabilities/layout.js";
import { parseEquivalents, readEquivalents } from "../mutation/equivalents.js";

/*
 * The bite check's Stryker half (issue 35 item 2): a claim's code lines, and whether the
 * mutants on them are killed by a test the claim cites. The curated wrong changes:
 * wrong-changes.test.ts.
 */

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const MAP = `## Claims

### Completion gate

1. A pass bound to the digest ends the turn.
   - \`vitest:test/gate.test.ts > gate > allows a bound pass\`
   - code: \`src/gate.ts:10-12\`
2. An unbound pass never ends the turn.
   - \`vitest:test/gate.test.ts > gate > blocks an unbound pass\`
   - code: \`src/gate.ts:20-20\`
   - code: \`src/other.ts:1-3\`
3. A claim without code lines is not judged here.
   - \`vitest:test/gate.test.ts > gate > allows a bound pass\`

### Reports

1. Statuses are derived.
   - \`vitest:test/reports.test.ts > status > derives\`
   - code: \`src/status.ts:5-6\`
2. Summaries are counted.
   - \`vitest:test/reports.test.ts > status > derives\`
   - code: \`src/status.ts:40-41\`
`;

const mutant = (
  id: string,
  line: number,
  status: string,
  killedBy: string[] = [],
  extra: Record<string, unknown> = {},
) => ({
  id,
  status,
  mutatorName: "ConditionalExpression",
  replacement: "true",
  killedBy,
  location: { start: { line, column: 7 } },
  ...extra,
});

const REPORT: BiteReport = {
  files: {
    "src/gate.ts": {
      mutants: [
        // Claim 1: killed by its cited test on line 11; a mutant on line 13 is outside.
        mutant("1", 11, "Killed", ["t1"]),
        mutant("2", 13, "Killed", ["t2"]),
        // Claim 2: on line 20, killed only by a test the claim does not cite.
        mutant("3", 20, "Killed", ["t1"]),
        mutant("4", 20, "Survived"),
        mutant("5", 20, "Ignored", [], { static: true }),
      ],
    },
    "src/other.ts": { mutants: [mutant("6", 9, "Killed", ["t2"])] },
    "src/status.ts": {
      mutants: [
        // Reports 1: the only killed mutant is listed as equivalent, the other survives.
        mutant("7", 5, "Killed", ["t3"]),
        mutant("8", 6, "Survived"),
        // Reports 2: a timeout with its cited killer bites.
        mutant("9", 41, "Timeout", ["t3"]),
      ],
    },
  },
  testFiles: {
    "test/gate.test.ts": {
      tests: [
        { id: "t1", name: "gate allows a bound pass" },
        { id: "t2", name: "gate blocks an unbound pass" },
      ],
    },
    "test/reports.test.ts": { tests: [{ id: "t3", name: "status derives" }] },
  },
};

const EQUIVALENTS = parseEquivalents(
  [
    "## src/status.ts",
    "| mutant | why |",
    "| --- | --- |",
    "| 5:7 ConditionalExpression | x |",
  ].join("\n"),
  "eq.md",
);

describe("claim code lines (scripts/capabilities/code-ranges.ts, claims.ts)", () => {
  test("code items are read under their claim, in order, beside the test references", () => {
    const { areas, problems } = parseClaims(MAP, "## Claims", "map.md");
    expect(problems).toEqual([]);
    expect(areas[0]?.claims.map((c) => [c.refs.length, c.code.map((r) => r.text)])).toEqual([
      [1, ["src/gate.ts:10-12"]],
      [1, ["src/gate.ts:20-20", "src/other.ts:1-3"]],
      [1, []],
    ]);
    expect(areas[0]?.claims[0]?.code[0]).toEqual({
      file: "src/gate.ts",
      start: 10,
      end: 12,
      line: 7,
      text: "src/gate.ts:10-12",
    });
  });

  test("a malformed code item is a problem of its claim", () => {
    const why = "(repository-relative path, 1-based lines, start ≤ end)";
    for (const [item, shown] of [
      ["`src/a.ts:5-4`", "`src/a.ts:5-4`"],
      ["`src/a.ts:0-4`", "`src/a.ts:0-4`"],
      ["`src/a.ts:4`", "`src/a.ts:4`"],
      ["src/a.ts:1-2", "src/a.ts:1-2"],
      ["`/abs/a.ts:1-2`", "`/abs/a.ts:1-2`"],
      ["`../a.ts:1-2`", "`../a.ts:1-2`"],
    ]) {
      const text = `## Claims\n\n### A\n\n1. It works.\n   - \`vitest:t.test.ts > x\`\n   - code: ${item}\n`;
      expect(parseClaims(text, "## Claims", "m.md").problems).toEqual([
        `A, claim 1 ("It works."): code: "${shown}" is not \`<path>:<start>-<end>\` ${why}`,
      ]);
    }
    expect(parseCodeRange("`a/b.ts:3-3`", 9)).toEqual({
      file: "a/b.ts",
      start: 3,
      end: 3,
      line: 9,
      text: "a/b.ts:3-3",
    });
  });

  test("the structure check: the file exists and the range ends inside it", () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "tg-bite-"));
    temps.push(root);
    fs.mkdirSync(path.join(root, "src"));
    fs.writeFileSync(path.join(root, "src/a.ts"), "one\ntwo\nthree");
    const range = (text: string) =>
      parseCodeRange(`\`${text}\``, 1) as Exclude<ReturnType<typeof parseCodeRange>, string>;
    const cache = new Map<string, number | null>();
    expect(codeRangeProblem(root, range("src/a.ts:1-3"), cache)).toBeUndefined();
    expect(codeRangeProblem(root, range("src/a.ts:2-4"), cache)).toBe(
      "code src/a.ts:2-4: ends past line 3, the file's last",
    );
    expect(codeRangeProblem(root, range("src/b.ts:1-1"), cache)).toBe(
      "code src/b.ts:1-1: no such file",
    );
    expect([...cache]).toEqual([
      ["src/a.ts", 3],
      ["src/b.ts", null],
    ]);
  });
});

describe("bite from Stryker's results (scripts/capabilities/bite.ts)", () => {
  const { areas } = parseClaims(MAP, "## Claims", "map.md");
  const verdicts = biteFromStryker(areas, REPORT, EQUIVALENTS);

  test("a cited test killing a mutant on the claim's lines bites; one outside the range does not count", () => {
    expect(verdicts[0]).toEqual({
      area: "Completion gate",
      claim: 1,
      owner: 'Completion gate, claim 1 ("A pass bound to…")',
      mutants: 1,
      bitten: 1,
      ok: true,
    });
  });

  test("mutants killed only by an uncited test do not bite, naming the killer; ignored ones do not count", () => {
    expect(verdicts[1]).toEqual({
      area: "Completion gate",
      claim: 2,
      owner: 'Completion gate, claim 2 ("An unbound pass never…")',
      mutants: 2,
      bitten: 0,
      ok: false,
      problem:
        "none of its 2 mutant(s) is killed by a test it cites (killed by: gate allows a bound pass)",
    });
  });

  test("claims without code lines are skipped; an equivalent mutant is left out, a timeout by a cited test bites", () => {
    expect(verdicts.map((v) => [v.area, v.claim, v.mutants, v.bitten, v.ok])).toEqual([
      ["Completion gate", 1, 1, 1, true],
      ["Completion gate", 2, 2, 0, false],
      ["Reports", 1, 1, 0, false],
      ["Reports", 2, 1, 1, true],
    ]);
    expect(verdicts[2]?.problem).toBe(
      "none of its 1 mutant(s) is killed by a test it cites (killed by: no test)",
    );
    // Without the equivalents list the killed mutant on line 5 counts and bites.
    expect(biteFromStryker(areas, REPORT)[2]).toMatchObject({ mutants: 2, bitten: 1, ok: true });
  });

  test("a claim whose lines hold no mutant is a problem: the range is wrong", () => {
    const map = MAP.replace("src/status.ts:40-41", "src/status.ts:50-60");
    const v = biteFromStryker(parseClaims(map, "## Claims", "m.md").areas, REPORT, EQUIVALENTS);
    expect(v[3]).toEqual({
      area: "Reports",
      claim: 2,
      owner: 'Reports, claim 2 ("Summaries are counted.")',
      mutants: 0,
      bitten: 0,
      ok: false,
      problem:
        "no mutant on its lines (src/status.ts:50-60): the range is wrong or the file is outside Stryker's mutate scope",
    });
  });

  test("bite rates per area, the strict areas and the printed lines", () => {
    const rates = biteRates(verdicts, []);
    expect(rates).toEqual([
      { area: "Completion gate", bitten: 1, judged: 2, strict: true },
      { area: "Reports", bitten: 1, judged: 2, strict: false },
    ]);
    // With the map: map order, claim counts, and a strict area nothing judged is listed.
    const withMap = `${MAP}\n### Hook install\n\n1. It installs.\n   - \`vitest:t.test.ts > x\`\n`;
    expect(biteRates(verdicts, [], parseClaims(withMap, "## Claims", "m.md").areas)).toEqual([
      { area: "Completion gate", bitten: 1, judged: 2, strict: true, claims: 3 },
      { area: "Reports", bitten: 1, judged: 2, strict: false, claims: 2 },
      { area: "Hook install", bitten: 0, judged: 0, strict: true, claims: 1 },
    ]);
    expect(
      ["Completion gate", "Mutation ledger and effect digest", "Workspace observer"].map(
        isStrictArea,
      ),
    ).toEqual([true, true, true]);
    expect(
      ["Result cache across machines", "Hook install", "Hook adapter: Goose", "Reports"].map(
        isStrictArea,
      ),
    ).toEqual([true, true, true, false]);
    const lines = formatBiteCheck({
      ok: false,
      seed: 7,
      stryker: verdicts,
      wrongChanges: [],
      rates,
      total: { bitten: 2, judged: 4 },
      problems: [],
    });
    expect(lines).toEqual([
      "bite check seed: 7 (replay: --bite --seed 7)",
      'mutants bitten: Completion gate, claim 1 ("A pass bound to…"): 1/1 on its lines killed by a cited test',
      'mutants NOT bitten: Completion gate, claim 2 ("An unbound pass never…"): 0/2 on its lines killed by a cited test',
      'mutants NOT bitten: Reports, claim 1 ("Statuses are derived."): 0/1 on its lines killed by a cited test',
      'mutants bitten: Reports, claim 2 ("Summaries are counted."): 1/1 on its lines killed by a cited test',
      'not bitten: Reports, claim 1 ("Statuses are derived."): none of its 1 mutant(s) is killed by a test it cites (killed by: no test)',
      "bite rate Completion gate: 1/2 (50%) [strict]",
      "bite rate Reports: 1/2 (50%)",
      "bite rate: 2/4 (50%) of judged claims",
    ]);
  });
});

describe("the repository", () => {
  test("every claim with code lines is bitten by Stryker's committed results", () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
    const { areas } = parseClaims(
      fs.readFileSync(path.join(root, MAP_FILE), "utf8"),
      CLAIMS_HEADING,
      MAP_FILE,
    );
    const report = JSON.parse(
      fs.readFileSync(path.join(root, STRYKER_INCREMENTAL_FILE), "utf8"),
    ) as BiteReport;
    const verdicts = biteFromStryker(
      areas,
      report,
      readEquivalents(path.join(root, EQUIVALENTS_DIR)),
    );
    expect(verdicts.length).toBeGreaterThanOrEqual(30);
    expect(verdicts.filter((v) => !v.ok).map((v) => `${v.owner}: ${v.problem}`)).toEqual([]);
  });
});
