/**
 * Small fixture repositories for the capability ledger check, written to a temp directory.
 * The default repo passes: three areas (vitest, pytest and go tests), seven surfaces, and a
 * results/ directory in the exact shapes vitest 4, pytest 9 (rootdir = bindings/python) and
 * `go test -json` write. Each test changes one thing through the `edit` hooks.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** docs/capabilities.md of the default repo: the capability map. */
export const MAP = `# Capabilities

## Capability map

| Area | What it advertises |
| --- | --- |
| Completion gate | ends a turn only on bound evidence |
| Python binding | drives the gate from CPython |
| Go binding | drives the gate from Go |

## Contributing
`;

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

| Area | Tests | Performance and resource evidence | Current evidence state |
| --- | --- | --- | --- |
| Completion gate | \`vitest:test/gate.test.ts > gate > allows a bound pass\`<br>\`vitest:test/gate.test.ts > gate > blocks an unbound pass\` | [bench](bench/gate.ts) | required CI |
| Python binding | \`pytest:bindings/python/tests/test_client.py::test_verified\`<br>\`pytest:bindings/python/tests/test_client.py::TestWaiver::test_waived[host]\` | n/a — thin wrapper | required CI |
| Go binding | \`go:example.com/tg/bindings/go TestDecide\`<br>\`go:example.com/tg/bindings/go TestDecide/waived\` | n/a — thin wrapper | targeted CI |

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
    "test/gate.test.ts": "// fixture\n",
    "bindings/python/tests/test_client.py": "# fixture\n",
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
