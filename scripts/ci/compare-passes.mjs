// Compares the two vitest passes of `./scripts/dev test` (issue 17 item 3): the whole suite
// with @turngate/native (TURNGATE_NATIVE=1) and the observer/hasher/ledger suites again on
// the TypeScript path (TURNGATE_NATIVE=0). Arguments: the native pass's and the TypeScript
// pass's vitest JSON reports. Every test of the TypeScript pass must have run in the native
// pass with the same status; a test that passed on one path and not the other, or ran on
// one path only, is a difference. Prints one line per difference, then
//   native/typescript passes: N tests compared, D differences
// on stderr, and `<passed> <failed>` (tests of the TypeScript pass) on stdout for the totals.
// Exit 1 on any difference or when the TypeScript pass ran no test; 2 on bad arguments.
import { readFileSync } from "node:fs";
import { relative } from "node:path";

const [nativeFile, typescriptFile] = process.argv.slice(2);
if (!nativeFile || !typescriptFile) {
  process.stderr.write("usage: compare-passes.mjs <native vitest.json> <typescript vitest.json>\n");
  process.exit(2);
}

/** @fast-check/vitest's suffix on a property's title: a new seed each run, not the test's name. */
const SEED_SUFFIX = / \(with seed=-?\d+\)$/;

/** Test id (file from the repo root > describe > … > name, without a seed suffix) → status. */
function statuses(file) {
  const report = JSON.parse(readFileSync(file, "utf8"));
  const out = new Map();
  for (const suite of report.testResults ?? []) {
    const name = relative(process.cwd(), suite.name);
    for (const t of suite.assertionResults ?? []) {
      out.set([name, ...t.ancestorTitles, t.title.replace(SEED_SUFFIX, "")].join(" > "), t.status);
    }
  }
  return out;
}

const native = statuses(nativeFile);
const typescript = statuses(typescriptFile);
const differences = [];
let passed = 0;
let failed = 0;
for (const [id, status] of typescript) {
  if (status === "passed") passed++;
  else if (status === "failed") failed++;
  const other = native.get(id);
  if (other !== status) {
    differences.push(`  ${id}: native ${other ?? "did not run"}, typescript ${status}`);
  }
}
for (const line of differences) process.stderr.write(`[dev] differs: ${line.trim()}\n`);
process.stderr.write(
  `[dev] native/typescript passes: ${typescript.size} tests compared, ${differences.length} differences\n`,
);
process.stdout.write(`${passed} ${failed}\n`);
process.exit(differences.length > 0 || typescript.size === 0 ? 1 : 0);
