import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { CapabilityCheckInputError, checkCapabilities } from "../capabilities/check.js";
import { type GoEvent, makeRepo, removeRepos } from "./fixture-repo.js";

/*
 * The ledger's structure and the with-results checks. Claims, the structure-only look-up of
 * cited tests and claim markers: check-capabilities-claims.test.ts.
 */

afterAll(removeRepos);

const check = (root: string) => checkCapabilities({ root });
const problemsOf = (root: string) => check(root).problems;

const GATE_ALLOWS = "vitest:test/gate.test.ts > gate > allows a bound pass";
const GATE_BLOCKS = "vitest:test/gate.test.ts > gate > blocks an unbound pass";
const PY_VERIFIED = "pytest:bindings/python/tests/test_client.py::test_verified";
const GO_DECIDE = "go:example.com/tg/bindings/go TestDecide";
const PY_WAIVED = "pytest:bindings/python/tests/test_client.py::TestWaiver::test_waived[host]";
const GO_WAIVED = "go:example.com/tg/bindings/go TestDecide/waived";
/** How the check names each claim of the default repo. */
const GATE_1 = 'Completion gate, claim 1 ("A pass bound to…")';
const GATE_2 = 'Completion gate, claim 2 ("An unbound pass never…")';
const PY_1 = 'Python binding, claim 1 ("The gate runs from…")';
const GO_1 = 'Go binding, claim 1 ("The gate runs from…")';
/** The problem of a cited test that did not pass. */
const notPassed = (owner: string, ref: string, why: string) =>
  `${owner}: cited test ${ref} did not pass (${why})`;
const SURFACES =
  "TypeScript core, Node host, CLI, Python (CPython), Python (Pyodide), Go, Native accelerator";

describe("checkCapabilities", () => {
  test("a clean fixture passes with exact counts", () => {
    expect(check(makeRepo())).toEqual({
      ok: true,
      problems: [],
      counts: { areas: 3, claims: 4, surfaces: 7, tests: 6 },
      resultsChecked: true,
    });
  });

  test("bad options throw a typed error naming the field", () => {
    expect(() => checkCapabilities({ root: "" })).toThrow(CapabilityCheckInputError);
    expect(() => checkCapabilities({ root: "" })).toThrow("root: must be a non-empty path string");
    const root = `${makeRepo()}/CAPABILITY_VERIFICATION.md`;
    expect(() => checkCapabilities({ root })).toThrow(`root: is not a directory: ${root}`);
  });
});

describe("capability areas", () => {
  test("an area missing from the ledger is named", () => {
    const root = makeRepo({ ledger: (s) => s.replace(/^\| Go binding \|.*\n/m, "") });
    expect(problemsOf(root)).toEqual([
      "Go binding: in the capability map (docs/capabilities.md) but missing from the capability evidence ledger",
    ]);
  });

  test("an area missing from the capability map is named", () => {
    const root = makeRepo({ map: (s) => s.replace(/^### Go binding\n[^#]*/m, "") });
    expect(problemsOf(root)).toEqual([
      "Go binding: in the capability evidence ledger but missing from the capability map (docs/capabilities.md)",
      "docs/guide.md:5: links capabilities.md#go-binding, which is no area of the capability map",
    ]);
  });

  test("a duplicate area is named with its count", () => {
    const root = makeRepo({ map: (s) => s.replace("### Go binding", "### Python binding") });
    expect(problemsOf(root)).toEqual([
      "Python binding: listed 2 times in the capability map (docs/capabilities.md)",
      "Go binding: in the capability evidence ledger but missing from the capability map (docs/capabilities.md)",
      "docs/guide.md:5: links capabilities.md#go-binding, which is no area of the capability map",
    ]);
  });

  test("an order mismatch names the fewest moved areas with both rows", () => {
    const root = makeRepo({
      ledger: (s) => {
        const py = /^\| Python binding \|.*\n/m.exec(s)?.[0] ?? "";
        return s.replace(py, "").replace(/^(\| Go binding \|.*\n)/m, `$1${py}`);
      },
    });
    expect(problemsOf(root)).toEqual([
      "Python binding: out of order — area 2 in the capability map (docs/capabilities.md), row 3 in the capability evidence ledger",
    ]);
  });

  test("a missing heading and a missing column are reported per file", () => {
    const root = makeRepo({
      map: (s) => s.replace("## Claims", "## Capabilities"),
      ledger: (s) => s.replace("| Current evidence state |", "| State |"),
    });
    expect(problemsOf(root)).toEqual([
      'docs/capabilities.md: missing heading "## Claims"',
      'CAPABILITY_VERIFICATION.md: "## Capability evidence ledger" table has no "Current evidence state" column',
    ]);
  });
});

describe("ledger rows", () => {
  test("an empty state cell must be an explicit gap", () => {
    const root = makeRepo({
      ledger: (s) => s.replace("| n/a — thin wrapper | targeted CI |", "| n/a — thin wrapper | |"),
    });
    expect(problemsOf(root)).toEqual([
      'Go binding: current evidence state is empty (write "gap" when there is no evidence)',
    ]);
  });

  test("an explicit gap state passes and an unknown state is named", () => {
    const gap = makeRepo({
      ledger: (s) =>
        s.replace(
          "| n/a — thin wrapper | targeted CI |",
          "| n/a — thin wrapper | gap — Go toolchain missing |",
        ),
    });
    expect(problemsOf(gap)).toEqual([]);
    const unknown = makeRepo({
      ledger: (s) =>
        s.replace("| n/a — thin wrapper | targeted CI |", "| n/a — thin wrapper | mostly fine |"),
    });
    expect(problemsOf(unknown)).toEqual([
      'Go binding: current evidence state "mostly fine" does not start with an evidence level (required CI, targeted CI, release qualification, gap)',
    ]);
  });

  test("a wrong claim count or anchor and empty or reasonless performance cells are named", () => {
    const root = makeRepo({
      ledger: (s) =>
        s
          .replace(
            /^\| Completion gate \|.*\n/m,
            "| Completion gate | [3](docs/capabilities.md#completion-gate) | | required CI |\n",
          )
          .replace("[1](docs/capabilities.md#python-binding)", "[1](docs/capabilities.md#python)")
          .replace("| n/a — thin wrapper | targeted CI |", "| n/a | targeted CI |"),
    });
    expect(problemsOf(root)).toEqual([
      "Completion gate: Claims cell says 3 claims, the capability map (docs/capabilities.md) has 2 (write [2](docs/capabilities.md#completion-gate))",
      "Completion gate: performance and resource evidence is empty",
      "Python binding: Claims cell links docs/capabilities.md#python, expected docs/capabilities.md#python-binding",
      'Go binding: performance and resource evidence "n/a" needs a reason (write "n/a — <reason>")',
    ]);
  });

  test("a malformed test reference is named by its claim or surface", () => {
    const root = makeRepo({
      map: (s) => s.replace(`\`${GO_WAIVED}\``, "`jest:gate.test.ts > x`\n   - test_waived"),
      ledger: (s) => s.replace(`| \`${GO_DECIDE}\` |`, `| \`${GO_DECIDE}\`<br>test_waived |`),
    });
    expect(problemsOf(root)).toEqual([
      `${GO_1}: "jest:gate.test.ts > x" is not a test reference (vitest:…, pytest:…, go:… or matrix:…)`,
      `${GO_1}: "test_waived" is not a test reference in backticks (text belongs in the claim's sentence)`,
      'Go: "test_waived" is not a test reference in backticks',
    ]);
  });

  test("a reference to a deleted test file names every claim and surface that cites it", () => {
    const root = makeRepo({ files: { "test/gate.test.ts": null } });
    expect(problemsOf(root)).toEqual([
      `${GATE_1}: cited test ${GATE_ALLOWS} is not in the sources: test file does not exist`,
      `${GATE_2}: cited test ${GATE_BLOCKS} is not in the sources: test file does not exist`,
      `TypeScript core: cited test ${GATE_ALLOWS} is not in the sources: test file does not exist`,
    ]);
  });

  test("every problem is printed, not only the first", () => {
    const root = makeRepo({
      map: (s) => s.replace(/^### Go binding\n[^#]*/m, ""),
      ledger: (s) =>
        s.replace("| [bench](bench/gate.ts) | required CI |", "| [bench](bench/gate.ts) | |"),
      vitest: (f) => ({ "test/gate.test.ts": (f["test/gate.test.ts"] ?? []).slice(0, 1) }),
    });
    expect(problemsOf(root)).toEqual([
      "Go binding: in the capability evidence ledger but missing from the capability map (docs/capabilities.md)",
      'Completion gate: current evidence state is empty (write "gap" when there is no evidence)',
      "docs/guide.md:5: links capabilities.md#go-binding, which is no area of the capability map",
      notPassed(GATE_2, GATE_BLOCKS, "absent from results/vitest.json"),
    ]);
  });
});

describe("ledger links", () => {
  test("a broken link is named by its row", () => {
    const root = makeRepo({ ledger: (s) => s.replace("(bench/gate.ts)", "(bench/missing.ts#L3)") });
    expect(problemsOf(root)).toEqual([
      "Completion gate: link target does not exist: bench/missing.ts#L3",
    ]);
  });

  test("a link escaping the repository is named, even when the target exists", () => {
    const root = makeRepo({
      ledger: (s) =>
        s
          .replace("(bench/gate.ts)", "(../outside.md)")
          .replace("(docs/capabilities.md)", "(docs/capa%20bilities.md)"),
      files: { "../outside.md": "outside\n" },
    });
    expect(problemsOf(root)).toEqual([
      "Completion gate: link escapes the repository: ../outside.md",
      "CAPABILITY_VERIFICATION.md:3: link target does not exist: docs/capa%20bilities.md",
    ]);
  });
});

describe("vitest results", () => {
  const setStatus = (status: string) =>
    makeRepo({
      vitest: () => ({
        "test/gate.test.ts": [
          [["gate"], "allows a bound pass", "passed"],
          [["gate"], "blocks an unbound pass", status],
        ],
      }),
    });

  test("a failed, skipped, todo or absent vitest test fails the claim citing it", () => {
    expect(problemsOf(setStatus("failed"))).toEqual([notPassed(GATE_2, GATE_BLOCKS, "failed")]);
    expect(problemsOf(setStatus("skipped"))).toEqual([notPassed(GATE_2, GATE_BLOCKS, "skipped")]);
    expect(problemsOf(setStatus("todo"))).toEqual([
      notPassed(GATE_2, GATE_BLOCKS, "skipped (todo)"),
    ]);
    const absent = makeRepo({
      vitest: () => ({ "test/gate.test.ts": [[["gate"], "allows a bound pass", "passed"]] }),
    });
    expect(problemsOf(absent)).toEqual([
      notPassed(GATE_2, GATE_BLOCKS, "absent from results/vitest.json"),
    ]);
  });

  test("a missing vitest.json makes every vitest reference absent", () => {
    const why = "absent (no results/vitest.json — did the runner run?)";
    expect(problemsOf(makeRepo({ vitest: null }))).toEqual([
      notPassed(GATE_1, GATE_ALLOWS, why),
      notPassed(GATE_2, GATE_BLOCKS, why),
      notPassed("TypeScript core", GATE_ALLOWS, why),
    ]);
  });

  test("an unreadable vitest.json is reported once and its references are absent", () => {
    const root = makeRepo({ files: { "results/vitest.json": '{"numTotalTests":0}' } });
    const why = "absent (results/vitest.json could not be read)";
    expect(problemsOf(root)).toEqual([
      notPassed(GATE_1, GATE_ALLOWS, why),
      notPassed(GATE_2, GATE_BLOCKS, why),
      notPassed("TypeScript core", GATE_ALLOWS, why),
      "results/vitest.json: has no testResults array",
    ]);
  });
});

describe("pytest results", () => {
  const withWaived = (inner: string | undefined) =>
    makeRepo({
      pytest: (c) => {
        const out = { ...c };
        if (inner === undefined) delete out["tests.test_client.TestWaiver::test_waived[host]"];
        else out["tests.test_client.TestWaiver::test_waived[host]"] = inner;
        return out;
      },
    });

  test("a failed, errored, skipped or absent pytest test fails the claim citing it", () => {
    expect(
      problemsOf(withWaived('<failure message="assert False">E   assert False</failure>')),
    ).toEqual([notPassed(PY_1, PY_WAIVED, "failed")]);
    expect(
      problemsOf(withWaived('<error message="failed on setup">E   RuntimeError</error>')),
    ).toEqual([notPassed(PY_1, PY_WAIVED, "failed (error)")]);
    expect(problemsOf(withWaived('<skipped type="pytest.skip" message="no">no</skipped>'))).toEqual(
      [notPassed(PY_1, PY_WAIVED, "skipped")],
    );
    expect(problemsOf(withWaived(undefined))).toEqual([
      notPassed(PY_1, PY_WAIVED, "absent from results/pytest.xml"),
    ]);
  });

  test("class names written from the repository root (pytest --rootdir=.) also match", () => {
    const root = makeRepo({
      pytest: () => ({
        "bindings.python.tests.test_client::test_verified": "",
        "bindings.python.tests.test_client.TestWaiver::test_waived[host]": "",
      }),
    });
    expect(problemsOf(root)).toEqual([]);
  });

  test("a missing pytest.xml makes every pytest reference absent", () => {
    const why = "absent (no results/pytest.xml — did the runner run?)";
    expect(problemsOf(makeRepo({ pytest: null }))).toEqual([
      notPassed(PY_1, PY_VERIFIED, why),
      notPassed(PY_1, PY_WAIVED, why),
      notPassed("Python (CPython)", PY_VERIFIED, why),
    ]);
  });
});

describe("go results", () => {
  /** Replaces the subtest's `pass` event with `action`, or drops all its events (null). */
  const withWaived = (action: string | null) =>
    makeRepo({
      go: (events) =>
        events.flatMap(([pkg, t, a]): GoEvent[] => {
          if (t !== "TestDecide/waived") return [[pkg, t, a]];
          if (action === null) return [];
          return [[pkg, t, a === "pass" ? action : a]];
        }),
    });

  test("a failed, skipped, unfinished or absent go test fails the claim citing it", () => {
    expect(problemsOf(withWaived("fail"))).toEqual([notPassed(GO_1, GO_WAIVED, "failed")]);
    expect(problemsOf(withWaived("skip"))).toEqual([notPassed(GO_1, GO_WAIVED, "skipped")]);
    expect(problemsOf(withWaived("output"))).toEqual([
      notPassed(GO_1, GO_WAIVED, "failed (started but never finished)"),
    ]);
    expect(problemsOf(withWaived(null))).toEqual([
      notPassed(GO_1, GO_WAIVED, "absent from results/go.json"),
    ]);
  });

  test("a missing go.json makes every go reference absent", () => {
    const why = "absent (no results/go.json — did the runner run?)";
    expect(problemsOf(makeRepo({ go: null }))).toEqual([
      notPassed(GO_1, GO_DECIDE, why),
      notPassed(GO_1, GO_WAIVED, why),
      notPassed("Go", GO_DECIDE, why),
    ]);
  });
});

describe("runtime surfaces", () => {
  test("surfaces must be exactly the seven, in order", () => {
    const root = makeRepo({
      ledger: (s) =>
        s
          .replace("| Go | `go:", "| Golang | `go:")
          .replace(/^(\| CLI \|.*\n)(\| Node host \|.*\n)/m, "$2$1"),
    });
    const swapped = makeRepo({
      ledger: (s) => s.replace(/^(\| Node host \|.*\n)(\| CLI \|.*\n)/m, "$2$1"),
    });
    expect(problemsOf(root)).toEqual([
      "Go: missing from the runtime surface ledger",
      `Golang: not a runtime surface (expected exactly: ${SURFACES})`,
    ]);
    expect(problemsOf(swapped)).toEqual([
      "Node host: out of order — expected row 2, found at row 3 of the runtime surface ledger",
    ]);
  });

  test("a surface without tests needs an explicit gap gate", () => {
    const root = makeRepo({
      ledger: (s) =>
        s
          .replace("| Node host | | gap |", "| Node host | | required CI |")
          .replace("| Python (Pyodide) | | gap |", "| Python (Pyodide) | | |"),
    });
    expect(problemsOf(root)).toEqual([
      'Node host: names no test (only a "gap" gate may have none)',
      'Python (Pyodide): current gate is empty (write "gap" when there is no evidence)',
    ]);
  });

  test("a gap surface that names tests still needs them to pass", () => {
    const root = makeRepo({
      ledger: (s) => s.replace("| Node host | | gap |", `| Node host | \`${GATE_BLOCKS}\` | gap |`),
      vitest: () => ({
        "test/gate.test.ts": [
          [["gate"], "allows a bound pass", "passed"],
          [["gate"], "blocks an unbound pass", "failed"],
        ],
      }),
    });
    expect(problemsOf(root)).toEqual([
      notPassed(GATE_2, GATE_BLOCKS, "failed"),
      notPassed("Node host", GATE_BLOCKS, "failed"),
    ]);
  });
});

describe("results directory", () => {
  test("resultsDir reads the run's results from another directory", () => {
    const root = makeRepo();
    fs.renameSync(path.join(root, "results"), path.join(root, "run-1"));
    expect(check(root).ok).toBe(false);
    expect(checkCapabilities({ root, resultsDir: path.join(root, "run-1") }).problems).toEqual([]);
  });

  test("skipResults checks structure and the test sources but reads no results", () => {
    const root = makeRepo({ vitest: null, pytest: null, go: null });
    expect(checkCapabilities({ root, skipResults: true })).toEqual({
      ok: true,
      problems: [],
      counts: { areas: 3, claims: 4, surfaces: 7, tests: 6 },
      resultsChecked: false,
    });
  });
});
