import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";
import { checkCapabilities } from "../capabilities/check.js";
import { type FixtureEdits, makeRepo, removeRepos, SOURCES } from "./fixture-repo.js";

/*
 * Claims (issue 35 item 1): every claim cites tests that passed, --no-results sees a deleted
 * test id in the sources, and README/docs state no capability outside the map. The ledger's
 * other rules: check-capabilities.test.ts.
 */

afterAll(removeRepos);

const problemsOf = (edits: FixtureEdits, skipResults = false) =>
  checkCapabilities({ root: makeRepo(edits), skipResults }).problems;

const GATE_ALLOWS = "vitest:test/gate.test.ts > gate > allows a bound pass";
const GATE_BLOCKS = "vitest:test/gate.test.ts > gate > blocks an unbound pass";
const PY_VERIFIED = "pytest:bindings/python/tests/test_client.py::test_verified";
const PY_WAIVED = "pytest:bindings/python/tests/test_client.py::TestWaiver::test_waived[host]";
const GO_DECIDE = "go:example.com/tg/bindings/go TestDecide";
const GO_WAIVED = "go:example.com/tg/bindings/go TestDecide/waived";
const GATE_1 = 'Completion gate, claim 1 ("A pass bound to…")';
const GATE_2 = 'Completion gate, claim 2 ("An unbound pass never…")';
const PY_1 = 'Python binding, claim 1 ("The gate runs from…")';
const GO_1 = 'Go binding, claim 1 ("The gate runs from…")';
const notInSources = (owner: string, ref: string, why: string) =>
  `${owner}: cited test ${ref} is not in the sources: ${why}`;
const GATE_SOURCE = SOURCES["test/gate.test.ts"] ?? "";
const PY_SOURCE = SOURCES["bindings/python/tests/test_client.py"] ?? "";
const GO_SOURCE = SOURCES["bindings/go/decide_test.go"] ?? "";

describe("claims cite tests that passed", () => {
  test("removing any single cited test from the results fails, naming the claim", () => {
    const absent = (owner: string, ref: string, file: string) =>
      `${owner}: cited test ${ref} did not pass (absent from results/${file})`;
    const withoutVitest = (title: string) =>
      problemsOf({
        vitest: (f) => ({
          "test/gate.test.ts": (f["test/gate.test.ts"] ?? []).filter((c) => c[1] !== title),
        }),
      });
    expect(withoutVitest("allows a bound pass")).toEqual([
      absent(GATE_1, GATE_ALLOWS, "vitest.json"),
      absent("TypeScript core", GATE_ALLOWS, "vitest.json"),
    ]);
    expect(withoutVitest("blocks an unbound pass")).toEqual([
      absent(GATE_2, GATE_BLOCKS, "vitest.json"),
    ]);
    const withoutPytest = (key: string) =>
      problemsOf({
        pytest: (c) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== key)),
      });
    expect(withoutPytest("tests.test_client::test_verified")).toEqual([
      absent(PY_1, PY_VERIFIED, "pytest.xml"),
      absent("Python (CPython)", PY_VERIFIED, "pytest.xml"),
    ]);
    expect(withoutPytest("tests.test_client.TestWaiver::test_waived[host]")).toEqual([
      absent(PY_1, PY_WAIVED, "pytest.xml"),
    ]);
    const withoutGo = (name: string) =>
      problemsOf({ go: (events) => events.filter(([, t]) => t !== name) });
    expect(withoutGo("TestDecide")).toEqual([
      absent(GO_1, GO_DECIDE, "go.json"),
      absent("Go", GO_DECIDE, "go.json"),
    ]);
    expect(withoutGo("TestDecide/waived")).toEqual([absent(GO_1, GO_WAIVED, "go.json")]);
  });

  test("a claim that cites no test fails, naming it", () => {
    expect(problemsOf({ map: (s) => s.replace(`   - \`${GATE_BLOCKS}\`\n`, "") })).toEqual([
      `${GATE_2}: cites no test`,
    ]);
  });

  test("a sentence added to an area outside a claim, or inside one, fails", () => {
    const outside = problemsOf({
      map: (s) => s.replace("\n### Python binding", "Waivers are host-only.\n\n### Python binding"),
    });
    expect(outside).toEqual([
      "docs/capabilities.md:13: text outside a claim in Completion gate (every sentence of an area is a numbered claim with its tests)",
    ]);
    const inside = problemsOf({
      map: (s) => s.replace("never ends the turn.", "never ends the turn. Waivers are host-only."),
    });
    expect(inside).toEqual([
      `${GATE_2}: sentence holds more than one sentence (write each as its own claim with its own tests)`,
    ]);
  });

  test("numbering, a missing full stop and an area without claims are named", () => {
    const root = {
      map: (s: string) =>
        s
          .replace(
            "2. An unbound pass never ends the turn.",
            "3. An unbound pass never ends the turn",
          )
          .replace(/(### Go binding\n)[^#]*/, "$1\n"),
    };
    expect(problemsOf(root)).toEqual([
      'Completion gate, claim 3 ("An unbound pass never…"): numbered 3, expected 2',
      'Completion gate, claim 3 ("An unbound pass never…"): sentence does not end with a full stop',
      "Go binding: has no claims",
      "Go binding: Claims cell says 1 claims, the capability map (docs/capabilities.md) has 0 (write [0](docs/capabilities.md#go-binding))",
    ]);
  });

  test("a claim's code lines must name a file that exists and lines inside it (bite check, issue 35 item 2)", () => {
    const gateLines = (GATE_SOURCE.match(/\n/g) ?? []).length + 1;
    const withCode = (...items: string[]) => ({
      map: (s: string) =>
        s.replace(
          "   - `vitest:test/gate.test.ts > gate > allows a bound pass`\n",
          `   - \`vitest:test/gate.test.ts > gate > allows a bound pass\`\n${items.map((i) => `   - code: ${i}\n`).join("")}`,
        ),
    });
    expect(problemsOf(withCode(`\`test/gate.test.ts:1-${gateLines}\``))).toEqual([]);
    expect(
      problemsOf(
        withCode(
          `\`test/gate.test.ts:2-${gateLines + 1}\``,
          "`src/gone.ts:1-2`",
          "`test/gate.test.ts:3-2`",
        ),
      ),
    ).toEqual([
      `${GATE_1}: code: "\`test/gate.test.ts:3-2\`" is not \`<path>:<start>-<end>\` (repository-relative path, 1-based lines, start ≤ end)`,
      `${GATE_1}: code test/gate.test.ts:2-${gateLines + 1}: ends past line ${gateLines}, the file's last`,
      `${GATE_1}: code src/gone.ts:1-2: no such file`,
    ]);
  });
});

describe("structure only (--no-results) looks cited tests up in the sources", () => {
  const source = (file: string, text: string) => ({ files: { [file]: text } });

  test("a deleted or renamed vitest test or describe is seen", () => {
    const deleted = source(
      "test/gate.test.ts",
      GATE_SOURCE.replace('  test("allows a bound pass", () => {});\n', ""),
    );
    const why = '"allows a bound pass" is not a test or describe title in test/gate.test.ts';
    expect(problemsOf(deleted, true)).toEqual([
      notInSources(GATE_1, GATE_ALLOWS, why),
      notInSources("TypeScript core", GATE_ALLOWS, why),
    ]);
    const renamed = source(
      "test/gate.test.ts",
      GATE_SOURCE.replace('describe("gate"', 'describe("gates"'),
    );
    const gone = '"gate" is not a test or describe title in test/gate.test.ts';
    expect(problemsOf(renamed, true)).toEqual([
      notInSources(GATE_1, GATE_ALLOWS, gone),
      notInSources(GATE_2, GATE_BLOCKS, gone),
      notInSources("TypeScript core", GATE_ALLOWS, gone),
    ]);
  });

  test("a placeholder matches only in a title; comments do not count", () => {
    const moved = source(
      "test/gate.test.ts",
      GATE_SOURCE.replace(
        'test.each([["unbound"]])("blocks an %s pass", () => {});',
        'const label = "blocks an %s pass"; // test("blocks an unbound pass")',
      ),
    );
    expect(problemsOf(moved, true)).toEqual([
      notInSources(
        GATE_2,
        GATE_BLOCKS,
        '"blocks an unbound pass" is not a test or describe title in test/gate.test.ts',
      ),
    ]);
  });

  test("a deleted pytest function or class is seen", () => {
    const file = "bindings/python/tests/test_client.py";
    expect(
      problemsOf(source(file, PY_SOURCE.replace("def test_verified", "def test_other")), true),
    ).toEqual([
      notInSources(PY_1, PY_VERIFIED, `def test_verified is not defined in ${file}`),
      notInSources("Python (CPython)", PY_VERIFIED, `def test_verified is not defined in ${file}`),
    ]);
    expect(
      problemsOf(source(file, PY_SOURCE.replace("class TestWaiver", "class Waiver")), true),
    ).toEqual([notInSources(PY_1, PY_WAIVED, `class TestWaiver is not defined in ${file}`)]);
  });

  test("a deleted go test function or a missing module is seen", () => {
    const file = "bindings/go/decide_test.go";
    const why = "func TestDecide is not declared in bindings/go/*_test.go";
    expect(problemsOf(source(file, GO_SOURCE.replace("TestDecide", "TestOther")), true)).toEqual([
      notInSources(GO_1, GO_DECIDE, why),
      notInSources(GO_1, GO_WAIVED, why),
      notInSources("Go", GO_DECIDE, why),
    ]);
    const noModule = "no go.mod in the repository declares a module for example.com/tg/bindings/go";
    expect(problemsOf({ files: { "bindings/go/go.mod": null } }, true)).toEqual([
      notInSources(GO_1, GO_DECIDE, noModule),
      notInSources(GO_1, GO_WAIVED, noModule),
      notInSources("Go", GO_DECIDE, noModule),
    ]);
  });

  test("a matrix cell needs its vector group file and a listed runtime", () => {
    const edits = (files: Record<string, string | null>): FixtureEdits => ({
      map: (s) =>
        s.replace(
          `   - \`${GATE_BLOCKS}\`\n`,
          `   - \`${GATE_BLOCKS}\`\n   - \`matrix:gate > typescript\`\n   - \`matrix:gate > rust\`\n`,
        ),
      files: {
        "test-matrix/vectors/gate.json": "[]\n",
        "test-matrix/runtimes.json": '[{"name": "typescript"}]\n',
        ...files,
      },
    });
    expect(problemsOf(edits({}), true)).toEqual([
      notInSources(
        GATE_2,
        "matrix:gate > rust",
        "runtime rust is not in test-matrix/runtimes.json",
      ),
    ]);
    const noGroup = "vector group file test-matrix/vectors/gate.json does not exist";
    expect(problemsOf(edits({ "test-matrix/vectors/gate.json": null }), true)).toEqual([
      notInSources(GATE_2, "matrix:gate > typescript", noGroup),
      notInSources(GATE_2, "matrix:gate > rust", noGroup),
    ]);
  });
});

describe("README and docs/ state no capability outside the map", () => {
  const MARKER = (file: string, line: number, sentence: string, marker: string) =>
    `${file}:${line}: "${sentence}" states a capability ("${marker}") but links no capability map area (capabilities.md#<area>)`;

  test("an unmapped marker sentence added to README fails, naming the sentence", () => {
    expect(
      problemsOf({ readme: (s) => `${s}\nChecks always run in a sandbox, never in place.\n` }),
    ).toEqual([
      MARKER("README.md", 6, "Checks always run in a sandbox, never in place.", "always"),
    ]);
    const linked = `${"\n"}Checks always run in a sandbox ([claims](docs/capabilities.md#completion-gate)).\n`;
    expect(problemsOf({ readme: (s) => s + linked })).toEqual([]);
  });

  test("README's vocabulary is wider than docs/'s; code spans, link targets and headings do not count", () => {
    const readme = problemsOf({ readme: (s) => `${s}\nA waiver it cannot forge is refused.\n` });
    expect(readme).toEqual([
      MARKER("README.md", 6, "A waiver it cannot forge is refused.", "cannot"),
    ]);
    const docs = problemsOf({
      files: {
        "docs/more.md":
          "# What it guarantees\n\nA forged waiver is never honoured and `always` stays code.\n\nSee [the threat model](guarantees.md).\n\nIt guarantees one verdict per digest.\n",
        "docs/guarantees.md": "# Guarantees\n",
      },
    });
    expect(docs).toEqual([
      MARKER("docs/more.md", 7, "It guarantees one verdict per digest.", "guarantees"),
    ]);
  });

  test("a link to an anchor that is no map area is named", () => {
    expect(problemsOf({ readme: (s) => s.replace("#completion-gate", "#completion") })).toEqual([
      "README.md:3: links capabilities.md#completion, which is no area of the capability map",
      MARKER("README.md", 3, "tg never ends a turn on the model's word (claims).", "never"),
    ]);
  });
});

describe("the repository", () => {
  test("the real repository passes the structure-only check", () => {
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
    const result = checkCapabilities({ root, skipResults: true });
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
  });
});
