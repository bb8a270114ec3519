// Prints "<passed> <failed>" for a JUnit XML file (pytest --junitxml). Used by scripts/dev.
import { readFileSync } from "node:fs";

const xml = readFileSync(process.argv[2], "utf8");
let tests = 0;
let failures = 0;
let errors = 0;
let skipped = 0;
for (const m of xml.matchAll(/<testsuite\b([^>]*)>/g)) {
  const attr = (name) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(m[1])?.[1] ?? 0);
  tests += attr("tests");
  failures += attr("failures");
  errors += attr("errors");
  skipped += attr("skipped");
}
console.log(tests - failures - errors - skipped, failures + errors);
