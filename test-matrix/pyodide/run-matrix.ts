/**
 * Runs the Python matrix runner (bindings/python/matrix_runner.py) inside a loaded Pyodide
 * on a host vectors directory and returns its result object (test-matrix/README.md).
 */
import type { PyodideAPI } from "pyodide";
import type { RuntimeResults } from "../lib/results.js";

const VECTORS_AT = "/matrix-vectors";

/**
 * @param pyodide an instance from `loadTurngatePyodide()`.
 * @param vectorsDir absolute host path of the vector groups.
 * @returns `{runtime: "python-pyodide", cases}` as the runner wrote it.
 */
export function runMatrixInPyodide(pyodide: PyodideAPI, vectorsDir: string): RuntimeResults {
  pyodide.FS.mkdirTree(VECTORS_AT);
  pyodide.mountNodeFS(VECTORS_AT, vectorsDir);
  try {
    const text = pyodide.runPython(`
import json, pathlib, matrix_runner, turngate
with turngate.Client() as _client:
    _results = matrix_runner.run("python-pyodide", pathlib.Path("${VECTORS_AT}"), _client)
json.dumps(_results, ensure_ascii=False)
`) as string;
    return JSON.parse(text) as RuntimeResults;
  } finally {
    pyodide.FS.unmount(VECTORS_AT);
  }
}
