import { dirname } from "node:path";

/**
 * The environment for tests that run real pytest: `scripts/dev test` exports
 * `TURNGATE_TEST_PYTHON` (the bindings' venv python, which has pytest) and its folder goes
 * first on PATH, so `python`, `python3` and `python -m pytest` find it; without it, the
 * machine's own `python3`/`python` must have pytest. Bytecode is not written into the
 * temporary workspaces.
 */
export function pythonTestEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const py = base.TURNGATE_TEST_PYTHON;
  const path = py ? `${dirname(py)}:${base.PATH ?? ""}` : base.PATH;
  return { ...base, PATH: path, PYTHONDONTWRITEBYTECODE: "1" };
}
