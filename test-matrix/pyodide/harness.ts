/**
 * Loads Pyodide (the `pyodide` npm package, stdlib only, offline) with the turngate Python
 * binding importable, for the Pyodide tests and the Pyodide matrix runner:
 * - `bindings/python` is mounted at `/turngate` (NODEFS): the package from `/turngate/src`,
 *   the Pyodide test functions from `/turngate/pyodide_tests`, the runner from `/turngate`;
 * - `@turngate/bridge/pure` is registered as the JS module `turngate_bridge`, which the
 *   binding's Pyodide transport calls through the FFI (`handleStatelessLine`).
 * One load takes 3–8 s on two cores: load once per test file.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPyodide, type PyodideAPI } from "pyodide";
import * as bridgePure from "../../packages/bridge/src/pure.js";

/** Repository root (this file is test-matrix/pyodide/harness.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
/** Where `bindings/python` appears inside Pyodide's file system. */
export const PY_ROOT = "/turngate";

/**
 * A Pyodide instance with `import turngate` working against the in-process bridge.
 * @param mounts extra host directories to mount, as `{pyodidePath: hostPath}`.
 */
export async function loadTurngatePyodide(
  mounts: Record<string, string> = {},
): Promise<PyodideAPI> {
  const pyodide = await loadPyodide();
  const all = { [PY_ROOT]: join(REPO_ROOT, "bindings", "python"), ...mounts };
  for (const [at, host] of Object.entries(all)) {
    pyodide.FS.mkdirTree(at);
    pyodide.mountNodeFS(at, host);
  }
  // The module namespace itself, exactly as docs/bindings.md's "Python" section tells hosts to do.
  pyodide.registerJsModule("turngate_bridge", bridgePure);
  pyodide.runPython(`
import sys
sys.dont_write_bytecode = True  # never write __pycache__ into the mounted host tree
for path in ("${PY_ROOT}/src", "${PY_ROOT}/pyodide_tests", "${PY_ROOT}"):
    if path not in sys.path:
        sys.path.insert(0, path)
`);
  return pyodide;
}
