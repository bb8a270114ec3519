import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { CapabilityCheckInputError, checkCapabilities } from "../capabilities/check.js";
import { type GoEvent, makeRepo, removeRepos } from "./fixture-repo.js";

afterAll(removeRepos);

const check = (root: string) => checkCapabilities({ root });
const problemsOf = (root: string) => check(root).problems;

const GATE_BLOCKS = "vitest:test/gate.test.ts > gate > blocks an unbound pass";
const PY_WAIVED = "pytest:bindings/python/tests/test_client.py::TestWaiver::test_waived[host]";
const GO_WAIVED = "go:example.com/tg/bindings/go TestDecide/waived";
const SURFACES =
  "TypeScript core, Node host, CLI, Python (CPython), Python (Pyodide), Go, Native accelerator";

describe("checkCapabilities", () => {
  test("a clean fixture passes with exact counts", () => {
    expect(check(makeRepo())).toEqual({
      ok: true,
      problems: [],
      counts: { areas: 3, surfaces: 7, tests: 6 },
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
    const root = makeRepo({ map: (s) => s.replace(/^\| Go binding \|.*\n/m, "") });
    expect(problemsOf(root)).toEqual([
      "Go binding: in the capability evidence ledger but missing from the capability map (docs/capabilities.md)",
    ]);
  });

  test("a duplicate area is named with its count", () => {
    const root = makeRepo({ map: (s) => s.replace("| Go binding |", "| Python binding |") });
    expect(problemsOf(root)).toEqual([
      "Python binding: listed 2 times in the capability map (docs/capabilities.md)",
      "Go binding: in the capability evidence ledger but missing from the capability map (docs/capabilities.md)",
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
      "Python binding: out of order — row 2 in the capability map (docs/capabilities.md), row 3 in the capability evidence ledger",
    ]);
  });

  test("an empty capability map description is named", () => {
    const root = makeRepo({ map: (s) => s.replace("| drives the gate from Go |", "| |") });
    expect(problemsOf(root)).toEqual(["Go binding: capability map description is empty"]);
  });

  test("a missing heading and a missing column are reported per file", () => {
    const root = makeRepo({
      map: (s) => s.replace("## Capability map", "## Capabilities"),
      ledger: (s) => s.replace("| Current evidence state |", "| State |"),
    });
    expect(problemsOf(root)).toEqual([
      'docs/capabilities.md: missing heading "## Capability map"',
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

  test("a row without tests and empty or reasonless performance cells are named", () => {
    const root = makeRepo({
      ledger: (s) =>
        s
          .replace(/^\| Completion gate \|.*\n/m, "| Completion gate | | | required CI |\n")
          .replace("| n/a — thin wrapper | targeted CI |", "| n/a | targeted CI |"),
    });
    expect(problemsOf(root)).toEqual([
      "Completion gate: names no test (the Tests cell needs at least one reference)",
      "Completion gate: performance and resource evidence is empty",
      'Go binding: performance and resource evidence "n/a" needs a reason (write "n/a — <reason>")',
    ]);
  });

  test("a malformed test reference is named", () => {
    const root = makeRepo({
      ledger: (s) => s.replace(`\`${GO_WAIVED}\``, "`jest:gate.test.ts > x`<br>test_waived"),
    });
    expect(problemsOf(root)).toEqual([
      'Go binding: "jest:gate.test.ts > x" is not a test reference (vitest:…, pytest:…, go:… or matrix:…)',
      'Go binding: "test_waived" is not a test reference in backticks',
    ]);
  });

  test("a reference to a deleted test file names every row that uses it", () => {
    const root = makeRepo({ files: { "test/gate.test.ts": null } });
    expect(problemsOf(root)).toEqual([
      "Completion gate: vitest:test/gate.test.ts > gate > allows a bound pass — test file does not exist",
      `Completion gate: ${GATE_BLOCKS} — test file does not exist`,
      "TypeScript core: vitest:test/gate.test.ts > gate > allows a bound pass — test file does not exist",
    ]);
  });

  test("every problem is printed, not only the first", () => {
    const root = makeRepo({
      map: (s) => s.replace(/^\| Go binding \|.*\n/m, ""),
      ledger: (s) =>
        s.replace("| [bench](bench/gate.ts) | required CI |", "| [bench](bench/gate.ts) | |"),
      vitest: (f) => ({ "test/gate.test.ts": (f["test/gate.test.ts"] ?? []).slice(0, 1) }),
    });
    expect(problemsOf(root)).toEqual([
      "Go binding: in the capability evidence ledger but missing from the capability map (docs/capabilities.md)",
      'Completion gate: current evidence state is empty (write "gap" when there is no evidence)',
      `Completion gate: ${GATE_BLOCKS} — absent from results/vitest.json`,
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

  test("a failed, skipped, todo or absent vitest test fails its row", () => {
    expect(problemsOf(setStatus("failed"))).toEqual([`Completion gate: ${GATE_BLOCKS} — failed`]);
    expect(problemsOf(setStatus("skipped"))).toEqual([`Completion gate: ${GATE_BLOCKS} — skipped`]);
    expect(problemsOf(setStatus("todo"))).toEqual([
      `Completion gate: ${GATE_BLOCKS} — skipped (todo)`,
    ]);
    const absent = makeRepo({
      vitest: () => ({ "test/gate.test.ts": [[["gate"], "allows a bound pass", "passed"]] }),
    });
    expect(problemsOf(absent)).toEqual([
      `Completion gate: ${GATE_BLOCKS} — absent from results/vitest.json`,
    ]);
  });

  test("a missing vitest.json makes every vitest reference absent", () => {
    expect(problemsOf(makeRepo({ vitest: null }))).toEqual([
      "Completion gate: vitest:test/gate.test.ts > gate > allows a bound pass — absent (no results/vitest.json — did the runner run?)",
      `Completion gate: ${GATE_BLOCKS} — absent (no results/vitest.json — did the runner run?)`,
      "TypeScript core: vitest:test/gate.test.ts > gate > allows a bound pass — absent (no results/vitest.json — did the runner run?)",
    ]);
  });

  test("an unreadable vitest.json is reported once and its references are absent", () => {
    const root = makeRepo({ files: { "results/vitest.json": '{"numTotalTests":0}' } });
    expect(problemsOf(root)).toEqual([
      "Completion gate: vitest:test/gate.test.ts > gate > allows a bound pass — absent (results/vitest.json could not be read)",
      `Completion gate: ${GATE_BLOCKS} — absent (results/vitest.json could not be read)`,
      "TypeScript core: vitest:test/gate.test.ts > gate > allows a bound pass — absent (results/vitest.json could not be read)",
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

  test("a failed, errored, skipped or absent pytest test fails its row", () => {
    expect(
      problemsOf(withWaived('<failure message="assert False">E   assert False</failure>')),
    ).toEqual([`Python binding: ${PY_WAIVED} — failed`]);
    expect(
      problemsOf(withWaived('<error message="failed on setup">E   RuntimeError</error>')),
    ).toEqual([`Python binding: ${PY_WAIVED} — failed (error)`]);
    expect(problemsOf(withWaived('<skipped type="pytest.skip" message="no">no</skipped>'))).toEqual(
      [`Python binding: ${PY_WAIVED} — skipped`],
    );
    expect(problemsOf(withWaived(undefined))).toEqual([
      `Python binding: ${PY_WAIVED} — absent from results/pytest.xml`,
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
    expect(problemsOf(makeRepo({ pytest: null }))).toEqual([
      "Python binding: pytest:bindings/python/tests/test_client.py::test_verified — absent (no results/pytest.xml — did the runner run?)",
      `Python binding: ${PY_WAIVED} — absent (no results/pytest.xml — did the runner run?)`,
      "Python (CPython): pytest:bindings/python/tests/test_client.py::test_verified — absent (no results/pytest.xml — did the runner run?)",
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

  test("a failed, skipped, unfinished or absent go test fails its row", () => {
    expect(problemsOf(withWaived("fail"))).toEqual([`Go binding: ${GO_WAIVED} — failed`]);
    expect(problemsOf(withWaived("skip"))).toEqual([`Go binding: ${GO_WAIVED} — skipped`]);
    expect(problemsOf(withWaived("output"))).toEqual([
      `Go binding: ${GO_WAIVED} — failed (started but never finished)`,
    ]);
    expect(problemsOf(withWaived(null))).toEqual([
      `Go binding: ${GO_WAIVED} — absent from results/go.json`,
    ]);
  });

  test("a missing go.json makes every go reference absent", () => {
    expect(problemsOf(makeRepo({ go: null }))).toEqual([
      "Go binding: go:example.com/tg/bindings/go TestDecide — absent (no results/go.json — did the runner run?)",
      `Go binding: ${GO_WAIVED} — absent (no results/go.json — did the runner run?)`,
      "Go: go:example.com/tg/bindings/go TestDecide — absent (no results/go.json — did the runner run?)",
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
      `Completion gate: ${GATE_BLOCKS} — failed`,
      `Node host: ${GATE_BLOCKS} — failed`,
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

  test("skipResults checks structure and file existence but reads no results", () => {
    const root = makeRepo({ vitest: null, pytest: null, go: null });
    expect(checkCapabilities({ root, skipResults: true })).toEqual({
      ok: true,
      problems: [],
      counts: { areas: 3, surfaces: 7, tests: 6 },
      resultsChecked: false,
    });
  });
});
