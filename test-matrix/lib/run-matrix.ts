/**
 * `test-matrix/run`: runs every registered runtime on the vectors, prints the matrix
 * (vector group × runtime) on stdout and exits 1 on any expectation failure, any difference
 * between runtimes or any runtime that could not run. See ../README.md.
 *
 *   --runtime NAME   only this runtime (repeatable)
 *   --json FILE      also write {passed, failed, runtimes, groups, failures}
 *   --vectors DIR    vector directory (default test-matrix/vectors)
 *   --runtimes FILE  runtime registry (default test-matrix/runtimes.json)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { judge, renderMatrix } from "./referee.js";
import { loadRuntimes, runRuntime } from "./runtimes.js";
import { loadVectors } from "./vectors.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values } = parseArgs({
  options: {
    runtime: { type: "string", multiple: true },
    json: { type: "string" },
    vectors: { type: "string" },
    runtimes: { type: "string" },
  },
});
const vectorsDir = resolve(values.vectors ?? join(root, "test-matrix", "vectors"));
const registry = loadRuntimes(
  resolve(values.runtimes ?? join(root, "test-matrix", "runtimes.json")),
);
const wanted = values.runtime ?? registry.map((r) => r.name);
const unknown = wanted.filter((name) => !registry.some((r) => r.name === name));
if (unknown.length > 0 || wanted.length === 0) {
  console.error(
    `unknown runtime(s): ${unknown.join(", ")}; registered: ${registry.map((r) => r.name).join(", ")}`,
  );
  process.exit(2);
}
const vectors = loadVectors(vectorsDir);
const runs = registry
  .filter((spec) => wanted.includes(spec.name))
  .map((spec) => {
    console.error(`[matrix] ${spec.name}: ${spec.command.join(" ")}`);
    return runRuntime(spec, root, vectorsDir);
  });
const report = judge(vectors, runs);
console.log(renderMatrix(report));
if (values.json) {
  const file = resolve(values.json);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
process.exit(report.failed > 0 ? 1 : 0);
