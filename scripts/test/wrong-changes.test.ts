import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { testTimeout } from "../../test-time.js";
import { parseClaims } from "../capabilities/claims.js";
import {
  applyWrongChange,
  parseWrongChanges,
  runWrongChanges,
  seededRandom,
  selectWrongChanges,
  type WrongChange,
  wrongChangeProblem,
  wrongChangeProblems,
} from "../capabilities/wrong-changes.js";

/*
 * The bite check's curated wrong changes (issue 35 item 2): the list, the seeded picks, and a
 * real run on a fixture repository (a change a cited test catches passes; one nothing
 * catches fails naming the claim). The Stryker half: bite.test.ts.
 */

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

const MAP = `# Capabilities

## Claims

### Hook loop control

1. Doubling multiplies by two.
   - \`vitest:test/double.check.ts > double > doubles 3 to 6\`
2. Halving divides by two.
   - \`vitest:test/double.check.ts > double > halves 8 to 4\`
3. Only a pytest proves this.
   - \`pytest:tests/test_x.py::test_x\`
`;

const SOURCE = `export function double(n: number): number {
  return n * 2;
}

export function half(n: number): number {
  return n / 2;
}
`;

const TEST = `import { describe, expect, test } from "vitest";
import { double, half } from "../src/double.js";

describe("double", () => {
  test("doubles 3 to 6", () => {
    expect(double(3)).toBe(6);
  });
  test("halves 8 to 4", () => {
    expect(half(8)).toBe(4);
  });
});
`;

const change = (claim: number, find: string, replace: string, always = false): WrongChange => ({
  area: "Hook loop control",
  claim,
  file: "src/double.ts",
  find,
  replace,
  why: `claim ${claim} broken`,
  always,
});

const CAUGHT = change(1, "return n * 2;", "return n * 3;", true);
const MISSED = change(2, "return n / 2;", "return n === 5 ? 3 : n / 2;");

describe("the curated list (scripts/capabilities/wrong-changes.ts)", () => {
  const { areas } = parseClaims(MAP, "## Claims", "docs/capabilities.md");

  test("entries are validated field by field; a change that changes nothing is refused", () => {
    const text = JSON.stringify({
      changes: [
        CAUGHT,
        { ...CAUGHT, claim: 0, why: "" },
        { ...CAUGHT, always: "yes" },
        { ...CAUGHT, replace: CAUGHT.find },
      ],
    });
    expect(parseWrongChanges(text, "w.json")).toEqual({
      changes: [CAUGHT],
      problems: [
        "w.json: entry 2: claim, why missing or of the wrong type",
        "w.json: entry 3: always missing or of the wrong type",
        "w.json: entry 4: replace equals find (no change)",
      ],
    });
    expect(parseWrongChanges("{", "w.json").problems).toHaveLength(1);
    expect(parseWrongChanges("{}", "w.json").problems).toEqual(['w.json: "changes" is not a list']);
  });

  test("each entry names a claim with vitest tests and text found exactly once", () => {
    const read = (file: string) => (file === "src/double.ts" ? SOURCE : null);
    expect(
      wrongChangeProblems(
        [
          CAUGHT,
          { ...CAUGHT, claim: 9 },
          { ...CAUGHT, claim: 3 },
          { ...CAUGHT, find: "n" },
          { ...CAUGHT, file: "src/gone.ts" },
        ],
        areas,
        read,
      ),
    ).toEqual([
      'wrong change in src/double.ts: no claim 9 in area "Hook loop control"',
      'Hook loop control, claim 3 ("Only a pytest proves…"): wrong change in src/double.ts: the claim cites no vitest test (only vitest tests are run)',
      'Hook loop control, claim 1 ("Doubling multiplies by two."): wrong change in src/double.ts: find text occurs 14 times (must be once)',
      'Hook loop control, claim 1 ("Doubling multiplies by two."): wrong change in src/gone.ts: no such file',
    ]);
    expect(applyWrongChange(SOURCE, CAUGHT)).toBe(SOURCE.replace("n * 2", "n * 3"));
    expect(() => applyWrongChange(SOURCE, { ...CAUGHT, find: "n" })).toThrow(
      'find text occurs 14 times in src/double.ts (must be once): "n"',
    );
  });

  test("the seed replays the same picks; the always entries come first", () => {
    const random = seededRandom(42);
    expect([random(), random(), random()]).toEqual([
      0.6011037519201636, 0.44829055899754167, 0.8524657934904099,
    ]);
    const pool = Array.from({ length: 12 }, (_, i) => change(1, `find ${i}`, `replace ${i}`));
    const list = [...pool.slice(0, 6), CAUGHT, ...pool.slice(6)];
    const picks = (seed: number) =>
      selectWrongChanges(list, areas, seed, 8).map((s) => s.change.find);
    expect(picks(42)).toEqual(picks(42));
    expect(picks(42)).toEqual([
      "return n * 2;",
      "find 7",
      "find 5",
      "find 10",
      "find 9",
      "find 1",
      "find 8",
      "find 0",
      "find 2",
    ]);
    expect(picks(43)).not.toEqual(picks(42));
    expect(new Set(picks(43)).size).toBe(9);
    // Fewer entries than picks: every one, once.
    expect(selectWrongChanges([CAUGHT, MISSED], areas, 1, 8).map((s) => s.change)).toEqual([
      CAUGHT,
      MISSED,
    ]);
    expect(selectWrongChanges([MISSED], areas, 1, 8)[0]?.refs.map((r) => r.text)).toEqual([
      "vitest:test/double.check.ts > double > halves 8 to 4",
    ]);
  });

  test("a change is caught only when a cited test ran and failed", async () => {
    const selection = selectWrongChanges([CAUGHT, MISSED, change(2, "a", "b")], areas, 1, 8);
    const outcomes = [
      { ran: 1, failed: 1 },
      { ran: 1, failed: 0 },
      { ran: 0, failed: 0 },
    ];
    const verdicts = await runWrongChanges(
      selection,
      async () => outcomes.shift() ?? { ran: 0, failed: 0 },
    );
    expect(verdicts.map((v) => v.caught)).toEqual([true, false, false]);
    expect(verdicts.map(wrongChangeProblem)).toEqual([
      undefined,
      'Hook loop control, claim 2 ("Halving divides by two."): wrong change in src/double.ts (claim 2 broken) was not caught: 1 cited test(s) ran, none failed',
      'Hook loop control, claim 2 ("Halving divides by two."): wrong change in src/double.ts (claim 2 broken) was not caught: none of its cited vitest tests ran',
    ]);
    const broken = await runWrongChanges(selection.slice(0, 1), async () => {
      throw new Error("find text occurs 0 times");
    });
    expect(broken.map(wrongChangeProblem)).toEqual([
      'Hook loop control, claim 1 ("Doubling multiplies by two."): wrong change in src/double.ts (claim 1 broken) was not caught: find text occurs 0 times',
    ]);
  });
});

describe("check-capabilities.ts --bite on a fixture repository (real vitest runs)", () => {
  /** A fixture repo: the map, the source, its tests, the list, an empty Stryker file. */
  function fixture(changes: WrongChange[]): string {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "tg-bite-"));
    temps.push(root);
    const files: Record<string, string> = {
      "docs/capabilities.md": MAP,
      "src/double.ts": SOURCE,
      "test/double.check.ts": TEST,
      "vitest.config.mjs": 'export default { test: { include: ["test/**/*.check.ts"] } };\n',
      "stryker/incremental.json": '{"files": {}, "testFiles": {}}\n',
      "scripts/capabilities/wrong-changes.json": JSON.stringify({ changes }),
    };
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
    // The fixture's tests import vitest from this repository's dependencies.
    fs.symlinkSync(path.join(REPO, "node_modules"), path.join(root, "node_modules"));
    return root;
  }

  const bite = (root: string, seed: string) =>
    spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        path.join(REPO, "scripts/check-capabilities.ts"),
        "--bite",
        "--seed",
        seed,
        "--root",
        root,
      ],
      { cwd: REPO, encoding: "utf8", timeout: testTimeout(120_000) },
    );

  test(
    "a change a cited test catches passes; one nothing catches fails naming the claim, with the seed",
    () => {
      const root = fixture([CAUGHT, MISSED]);
      const r = bite(root, "5");
      expect(r.stdout.split("\n").filter((l) => !l.startsWith("applying"))).toEqual([
        "bite check seed: 5",
        'wrong change caught: Hook loop control, claim 1 ("Doubling multiplies by two."): src/double.ts (claim 1 broken); 1/1 cited test(s) failed',
        'wrong change NOT caught: Hook loop control, claim 2 ("Halving divides by two."): src/double.ts (claim 2 broken); 0/1 cited test(s) failed',
        "bite rate Hook loop control: 1/2 (50%) [strict], 2 of 3 claim(s) judged",
        "bite rate: 1/2 (50%) of judged claims",
        "",
      ]);
      expect(r.stderr).toBe(
        [
          'Hook loop control, claim 2 ("Halving divides by two."): wrong change in src/double.ts (claim 2 broken) was not caught: 1 cited test(s) ran, none failed',
          "bite check failed: 1 problem(s) (seed 5; replay with --bite --seed 5)",
          "",
        ].join("\n"),
      );
      expect(r.status).toBe(1);
      // Nothing in the working tree was changed.
      expect(fs.readFileSync(path.join(root, "src/double.ts"), "utf8")).toBe(SOURCE);
    },
    testTimeout(120_000),
  );

  test(
    "every change caught: exit 0 and the bite rate at 100%",
    () => {
      const r = bite(fixture([CAUGHT]), "9");
      expect(r.stderr).toBe("");
      expect(r.stdout.split("\n").slice(-4)).toEqual([
        "bite rate Hook loop control: 1/1 (100%) [strict], 1 of 3 claim(s) judged",
        "bite rate: 1/1 (100%) of judged claims",
        "bite check complete: 0 claim(s) judged by Stryker, 1 wrong change(s) caught",
        "",
      ]);
      expect(r.status).toBe(0);
    },
    testTimeout(120_000),
  );

  test(
    "usage errors: a seed that is not an integer, --seed without --bite",
    () => {
      const root = fixture([]);
      const r = bite(root, "x");
      expect([r.status, r.stderr.split("\n")[0]]).toEqual([2, '--seed: "x" is not an integer']);
      const s = spawnSync(
        process.execPath,
        ["--import", "tsx", path.join(REPO, "scripts/check-capabilities.ts"), "--seed", "1"],
        { cwd: REPO, encoding: "utf8" },
      );
      expect([s.status, s.stderr.split("\n")[0]]).toEqual([2, "--seed needs --bite"]);
    },
    testTimeout(60_000),
  );
});

describe("the repository's list", () => {
  test("every entry names a claim with vitest tests and text found once; three always run", () => {
    const map = parseClaims(
      fs.readFileSync(path.join(REPO, "docs/capabilities.md"), "utf8"),
      "## Claims",
      "docs/capabilities.md",
    );
    const { changes, problems } = parseWrongChanges(
      fs.readFileSync(path.join(REPO, "scripts/capabilities/wrong-changes.json"), "utf8"),
      "scripts/capabilities/wrong-changes.json",
    );
    expect(problems).toEqual([]);
    const read = (file: string) => {
      try {
        return fs.readFileSync(path.join(REPO, file), "utf8");
      } catch {
        return null;
      }
    };
    expect(wrongChangeProblems(changes, map.areas, read)).toEqual([]);
    expect(changes.filter((c) => c.always === true).map((c) => `${c.area} ${c.claim}`)).toEqual([
      "Check ladder 3",
      "Hook adapter: Goose 3",
      "turngate baseline and verify 3",
    ]);
    expect(changes.length).toBeGreaterThanOrEqual(11);
  });
});
