/**
 * Benchmark: the capability check on a large synthetic run against the irreducible cost of
 * reading and parsing the same three results files (issue 6 "Deliver" item 4: the pre-stop
 * hook needs the check quick). Prints ratios measured in this run; no absolute budgets.
 *
 *   pnpm exec tsx scripts/capabilities/bench.ts [--areas 100] [--tests 20000]
 *
 * Synthetic repo: `areas` areas of one claim each, citing 3 vitest, 1 pytest and 1 go test
 * that the test sources declare; the results hold `tests` vitest assertions and `tests / 4`
 * pytest and go tests each.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { XMLParser } from "fast-xml-parser";
import { checkCapabilities } from "./check.js";
import { RUNTIME_SURFACES } from "./layout.js";

const { values } = parseArgs({
  options: {
    areas: { type: "string", default: "100" },
    tests: { type: "string", default: "20000" },
  },
});
const areas = Number(values.areas);
const tests = Number(values.tests);
const SAMPLES = 7;

function write(root: string, file: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  fs.writeFileSync(path.join(root, file), text);
}

function makeRepo(root: string): void {
  const names = Array.from({ length: areas }, (_, i) => `Area ${i}`);
  const files = 50;
  const vitestFile = (i: number) => `test/f${i % files}.test.ts`;
  const sections = names.map((name, i) => {
    const refs = [0, 1, 2].map(
      (k) => `\`vitest:${vitestFile(i * 3 + k)} > suite > case ${i * 3 + k}\``,
    );
    refs.push(`\`pytest:py/tests/test_m.py::test_${i}\``, `\`go:example.com/m/pkg Test${i}\``);
    return `### ${name}\n\n1. It holds.\n${refs.map((r) => `   - ${r}`).join("\n")}\n`;
  });
  const rows = names.map(
    (name, i) =>
      `| ${name} | [1](docs/capabilities.md#area-${i}) | n/a — synthetic | required CI |`,
  );
  write(root, "docs/capabilities.md", `## Claims\n\n${sections.join("\n")}`);
  write(
    root,
    "CAPABILITY_VERIFICATION.md",
    [
      "## Evidence levels\n\n| Level | Meaning |\n| --- | --- |\n| required CI | x |\n| gap | x |\n",
      `## Capability evidence ledger\n\n| Area | Claims | Performance and resource evidence | Current evidence state |\n| --- | --- | --- | --- |\n${rows.join("\n")}\n`,
      `## Runtime surface ledger\n\n| Surface | Tests | Current gate |\n| --- | --- | --- |\n${RUNTIME_SURFACES.map((s) => `| ${s} | | gap |`).join("\n")}\n`,
    ].join("\n"),
  );
  // Test sources that declare every cited test, so the structure look-up finds them.
  const titles = new Map<number, string[]>();
  for (let t = 0; t < areas * 3; t++) {
    titles.set(t % files, [...(titles.get(t % files) ?? []), `  test("case ${t}", () => {});`]);
  }
  for (let f = 0; f < files; f++) {
    write(
      root,
      vitestFile(f),
      `describe("suite", () => {\n${(titles.get(f) ?? []).join("\n")}\n});\n`,
    );
  }
  const ids = Array.from({ length: areas }, (_, i) => i);
  write(root, "py/tests/test_m.py", ids.map((i) => `def test_${i}():\n    pass\n`).join("\n"));
  write(root, "go.mod", "module example.com/m\n\ngo 1.24\n");
  write(
    root,
    "pkg/m_test.go",
    `package pkg\n\nimport "testing"\n\n${ids.map((i) => `func Test${i}(t *testing.T) {}\n`).join("")}`,
  );
  const byFile = new Map<number, unknown[]>();
  for (let t = 0; t < tests; t++) {
    const list = byFile.get(t % files) ?? [];
    list.push({
      ancestorTitles: ["suite"],
      title: `case ${t}`,
      fullName: `suite case ${t}`,
      status: "passed",
    });
    byFile.set(t % files, list);
  }
  const testResults = [...byFile].map(([f, assertionResults]) => ({
    name: path.join(root, vitestFile(f)),
    status: "passed",
    assertionResults,
  }));
  write(root, "results/vitest.json", JSON.stringify({ testResults }));
  const quarter = Math.max(tests / 4, areas);
  const cases = Array.from(
    { length: quarter },
    (_, i) => `<testcase classname="tests.test_m" name="test_${i}" time="0.001" />`,
  );
  write(
    root,
    "results/pytest.xml",
    `<?xml version="1.0"?><testsuites><testsuite name="pytest">${cases.join("")}</testsuite></testsuites>`,
  );
  const events = Array.from({ length: quarter }, (_, i) =>
    [
      `{"Action":"run","Package":"example.com/m/pkg","Test":"Test${i}"}`,
      `{"Action":"pass","Package":"example.com/m/pkg","Test":"Test${i}"}`,
    ].join("\n"),
  );
  write(root, "results/go.json", `${events.join("\n")}\n`);
}

function median(run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const t0 = performance.now();
    run();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), "tg-cap-bench-"));
try {
  makeRepo(root);
  const result = checkCapabilities({ root });
  if (!result.ok)
    throw new Error(`synthetic repo should pass:\n${result.problems.slice(0, 5).join("\n")}`);
  const xml = new XMLParser({ ignoreAttributes: false });
  const reference = median(() => {
    JSON.parse(fs.readFileSync(path.join(root, "results/vitest.json"), "utf8"));
    xml.parse(fs.readFileSync(path.join(root, "results/pytest.xml"), "utf8"));
    for (const line of fs.readFileSync(path.join(root, "results/go.json"), "utf8").split("\n")) {
      if (line) JSON.parse(line);
    }
  });
  const check = median(() => checkCapabilities({ root }));
  console.log(
    `capability check, ${areas} areas / ${result.counts.tests} references / ${tests} vitest tests: ` +
      `${(check / reference).toFixed(2)}× the time to read and parse the same results files ` +
      `(median of ${SAMPLES})`,
  );
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
