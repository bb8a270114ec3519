/**
 * Small fixture repositories for the capability ledger check, written to a temp directory.
 * The default repo passes: three areas with four claims (vitest, pytest and go tests, whose
 * sources declare them), seven surfaces, a README and a docs page whose guarantee sentences
 * link their map area, and a results/ directory in the exact shapes vitest 4, pytest 9
 * (rootdir = bindings/python) and `go test -json` write. Each test changes one thing through
 * the `edit` hooks.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** docs/capabilities.md of the default repo: the capability map, as claims per area. */
export const MAP = `# Capabilities

Each area lists its claims.

## Claims

### Completion gate

1. A pass bound to the digest ends the turn.
   - \`vitest:test/gate.test.ts > gate > allows a bound pass\`
2. An unbound pass never ends the turn.
   - \`vitest:test/gate.test.ts > gate > blocks an unbound pass\`

### Python binding

1. The gate runs from CPython, waivers included.
   - \`pytest:bindings/python/tests/test_client.py::test_verified\`
   - \`pytest:bindings/python/tests/test_client.py::TestWaiver::test_waived[host]\`

### Go binding

1. The gate runs from Go, waivers included.
   - \`go:example.com/tg/bindings/go TestDecide\`
   - \`go:example.com/tg/bindings/go TestDecide/waived\`

## Contributing
`;

/** README.md of the default repo: its one guarantee links its map area. */
export const README = `# tg

tg never ends a turn on the model's word ([claims](docs/capabilities.md#completion-gate)).
It runs from Python and Go.
`;

/** docs/guide.md of the default repo: a table row and a list item with linked guarantees. */
export const GUIDE = `# Guide

| Binding | What it guarantees |
| --- | --- |
| Go | the same verdicts ([claims](capabilities.md#go-binding)) |

- Waivers from Python are always the host's
  ([claims](capabilities.md#python-binding)).
`;

/** Test sources of the default repo: they declare every cited test. */
export const SOURCES: Record<string, string> = {
  "test/gate.test.ts": `describe("gate", () => {
  test("allows a bound pass", () => {});
  test.each([["unbound"]])("blocks an %s pass", () => {});
});
`,
  "bindings/python/tests/test_client.py": `def test_verified():
    pass


class TestWaiver:
    def test_waived(self, author):
        pass
`,
  "bindings/go/go.mod": "module example.com/tg/bindings/go\n\ngo 1.24\n",
  "bindings/go/decide_test.go": `package tg

import "testing"

func TestDecide(t *testing.T) {
\tt.Run("waived", func(t *testing.T) {})
}
`,
};

export const LEDGER = `# Capability verification

Rows follow [the capability map](docs/capabilities.md).

## Evidence levels

| Level | Meaning |
| --- | --- |
| required CI | runs on every CI run |
| targeted CI | runs when its toolchain is present |
| release qualification | runs before a release |
| gap | advertised, not yet proven |

## Capability evidence ledger

| Area | Claims | Performance and resource evidence | Current evidence state |
| --- | --- | --- | --- |
| Completion gate | [2](docs/capabilities.md#completion-gate) | [bench](bench/gate.ts) | required CI |
| Python binding | [1](docs/capabilities.md#python-binding) | n/a — thin wrapper | required CI |
| Go binding | [1](docs/capabilities.md#go-binding) | n/a — thin wrapper | targeted CI |

## Runtime surface ledger

| Surface | Tests | Current gate |
| --- | --- | --- |
| TypeScript core | \`vitest:test/gate.test.ts > gate > allows a bound pass\` | required CI |
| Node host | | gap |
| CLI | | gap — no CLI yet |
| Python (CPython) | \`pytest:bindings/python/tests/test_client.py::test_verified\` | required CI |
| Python (Pyodide) | | gap |
| Go | \`go:example.com/tg/bindings/go TestDecide\` | targeted CI |
| Native accelerator | | gap |
`;

/** One vitest assertion: ancestor titles, title, status. */
export type VitestCase = [ancestors: string[], title: string, status: string];

/** Passing vitest cases of the default repo, by repo-relative file. */
export const VITEST: Record<string, VitestCase[]> = {
  "test/gate.test.ts": [
    [["gate"], "allows a bound pass", "passed"],
    [["gate"], "blocks an unbound pass", "passed"],
  ],
};

/** Writes a vitest JSON report (only the fields the check reads, plus `status`). */
export function vitestJson(root: string, files: Record<string, VitestCase[]>): string {
  return JSON.stringify({
    numTotalTests: Object.values(files).flat().length,
    testResults: Object.entries(files).map(([file, cases]) => ({
      name: path.join(root, file),
      status: cases.some((c) => c[2] === "failed") ? "failed" : "passed",
      message: "",
      assertionResults: cases.map(([ancestorTitles, title, status]) => ({
        ancestorTitles,
        fullName: [...ancestorTitles, title].join(" "),
        status,
        title,
        failureMessages: [],
      })),
    })),
  });
}

/** JUnit testcase bodies of the default repo, keyed `classname::name` (empty body = passed). */
export const PYTEST: Record<string, string> = {
  "tests.test_client::test_verified": "",
  "tests.test_client.TestWaiver::test_waived[host]": "",
};

/** Writes a pytest 9 JUnit XML report. */
export function junitXml(cases: Record<string, string>): string {
  const body = Object.entries(cases)
    .map(([key, inner]) => {
      const [classname, name] = key.split("::");
      const open = `<testcase classname="${classname}" name="${name}" time="0.001"`;
      return inner ? `${open}>${inner}</testcase>` : `${open} />`;
    })
    .join("");
  return `<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="0" failures="0" skipped="0" tests="${Object.keys(cases).length}" time="0.050" hostname="vm">${body}</testsuite></testsuites>`;
}

/** One `go test -json` event: package, test (or "" for the package), action. */
export type GoEvent = [pkg: string, test: string, action: string];

const PKG = "example.com/tg/bindings/go";
/** Events of the default repo: both tests run and pass. */
export const GO: GoEvent[] = [
  [PKG, "", "start"],
  [PKG, "TestDecide", "run"],
  [PKG, "TestDecide/waived", "run"],
  [PKG, "TestDecide/waived", "output"],
  [PKG, "TestDecide/waived", "pass"],
  [PKG, "TestDecide", "pass"],
  [PKG, "", "pass"],
];

/** Writes `go test -json` output, one event per line. */
export function goJson(events: GoEvent[]): string {
  return events
    .map(([Package, Test, Action]) =>
      JSON.stringify({ Time: "2026-01-01T00:00:00Z", Action, Package, ...(Test ? { Test } : {}) }),
    )
    .map((l) => `${l}\n`)
    .join("");
}

/** Changes to the default repo. A results entry set to `null` leaves that file out. */
export interface FixtureEdits {
  /** Changes docs/capabilities.md. */
  map?: (text: string) => string;
  ledger?: (text: string) => string;
  readme?: (text: string) => string;
  vitest?: ((files: Record<string, VitestCase[]>) => Record<string, VitestCase[]>) | null;
  pytest?: ((cases: Record<string, string>) => Record<string, string>) | null;
  go?: ((events: GoEvent[]) => GoEvent[]) | null;
  /** Extra files (repo-relative path → contents); `null` deletes a default file. */
  files?: Record<string, string | null>;
}

const temps: string[] = [];

/**
 * Creates a fixture repository in a fresh temp directory.
 *
 * @returns the absolute repository root
 */
export function makeRepo(edits: FixtureEdits = {}): string {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "tg-cap-"));
  temps.push(parent);
  const root = path.join(parent, "repo");
  const files: Record<string, string | null> = {
    "docs/capabilities.md": (edits.map ?? ((s) => s))(MAP),
    "CAPABILITY_VERIFICATION.md": (edits.ledger ?? ((s) => s))(LEDGER),
    "README.md": (edits.readme ?? ((s) => s))(README),
    "docs/guide.md": GUIDE,
    ...SOURCES,
    "bench/gate.ts": "// fixture\n",
  };
  if (edits.vitest !== null)
    files["results/vitest.json"] = vitestJson(root, (edits.vitest ?? ((f) => f))(VITEST));
  if (edits.pytest !== null)
    files["results/pytest.xml"] = junitXml((edits.pytest ?? ((c) => c))(PYTEST));
  if (edits.go !== null) files["results/go.json"] = goJson((edits.go ?? ((e) => e))(GO));
  Object.assign(files, edits.files);
  for (const [file, text] of Object.entries(files)) {
    if (text === null) continue;
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

/** Removes every fixture repository made so far. */
export function removeRepos(): void {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
