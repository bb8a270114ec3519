// The sample project's tests: plain Node, no installs. `node test.js` prints one line per
// test and exits 1 when any fails.
import assert from "node:assert/strict";
import { slugify } from "./src/slugify.js";

const tests = [
  ["lower-cases every letter", () => assert.equal(slugify("Release Notes"), "release-notes")],
  [
    "joins words with single hyphens",
    () => assert.equal(slugify("  many   spaces here "), "many-spaces-here"),
  ],
  ["drops punctuation", () => assert.equal(slugify("Hello, World!"), "hello-world")],
];

let failed = 0;
for (const [name, run] of tests) {
  try {
    run();
    console.log(`ok   ${name}`);
  } catch (error) {
    failed += 1;
    console.log(
      `FAIL ${name}: expected ${JSON.stringify(error.expected)}, got ${JSON.stringify(error.actual)}`,
    );
  }
}
console.log(`${tests.length - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 ? 0 : 1;
