/**
 * Pyodide runner of the test matrix (see ../README.md, "Runtimes"):
 *   node --conditions=@turngate/source --import tsx test-matrix/pyodide/runner.ts \
 *     --vectors DIR --out FILE
 * Loads Pyodide with the Python binding on the in-process bridge and feeds the vectors
 * through bindings/python/matrix_runner.py. Exits 0 when it wrote FILE, 2 on bad arguments.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadTurngatePyodide } from "./harness.js";
import { runMatrixInPyodide } from "./run-matrix.js";

const { values } = parseArgs({ options: { vectors: { type: "string" }, out: { type: "string" } } });
if (!values.vectors || !values.out) {
  console.error("usage: runner.ts --vectors DIR --out FILE");
  process.exit(2);
}
const pyodide = await loadTurngatePyodide();
const results = runMatrixInPyodide(pyodide, resolve(values.vectors));
writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
