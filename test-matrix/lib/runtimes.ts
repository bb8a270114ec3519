/**
 * The runtime registry (`runtimes.json`) and running one runtime's runner.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RuntimeRun } from "./referee.js";
import { checkResultsFile } from "./results.js";

/** One registered runtime: argv to run from `cwd` (relative to the repository root). */
export interface RuntimeSpec {
  name: string;
  command: string[];
  cwd?: string;
  /** Kill the runner after this many milliseconds (default 300000). */
  timeout_ms?: number;
}

/**
 * Reads and checks `runtimes.json`.
 * @throws Error naming the bad entry (missing name/command, duplicate name).
 */
export function loadRuntimes(file: string): RuntimeSpec[] {
  const value: unknown = JSON.parse(readFileSync(file, "utf8"));
  if (!Array.isArray(value)) throw new Error(`${file}: expected an array`);
  const names = new Set<string>();
  return value.map((entry: RuntimeSpec, i) => {
    const ok =
      typeof entry?.name === "string" &&
      Array.isArray(entry.command) &&
      entry.command.length > 0 &&
      entry.command.every((part) => typeof part === "string");
    if (!ok)
      throw new Error(
        `${file}[${i}]: needs "name" (string) and "command" (non-empty string array)`,
      );
    if (names.has(entry.name)) throw new Error(`${file}[${i}]: duplicate runtime "${entry.name}"`);
    names.add(entry.name);
    return entry;
  });
}

/**
 * Runs one runner to completion (its stdout and stderr go to our stderr) and reads its
 * result file. Never throws: a runner that cannot start, exits non-zero, times out or writes
 * a malformed file yields a run with `error`.
 */
export function runRuntime(spec: RuntimeSpec, root: string, vectorsDir: string): RuntimeRun {
  const dir = mkdtempSync(join(tmpdir(), "turngate-matrix-"));
  const out = join(dir, "result.json");
  const timeout = spec.timeout_ms ?? 300_000;
  try {
    const [program, ...args] = spec.command as [string, ...string[]];
    const child = spawnSync(program, [...args, "--vectors", vectorsDir, "--out", out], {
      cwd: resolve(root, spec.cwd ?? "."),
      stdio: ["ignore", 2, 2],
      timeout,
      killSignal: "SIGKILL",
    });
    if (child.error) {
      const code = (child.error as NodeJS.ErrnoException).code;
      const why = code === "ETIMEDOUT" ? `timed out after ${timeout} ms` : child.error.message;
      return { name: spec.name, error: why };
    }
    if (child.status !== 0) {
      return { name: spec.name, error: `runner exited with ${child.status ?? child.signal}` };
    }
    let text: string;
    try {
      text = readFileSync(out, "utf8");
    } catch {
      return { name: spec.name, error: "runner wrote no result file" };
    }
    try {
      const results = checkResultsFile(JSON.parse(text));
      if (results.runtime !== spec.name) {
        return { name: spec.name, error: `result file names runtime "${results.runtime}"` };
      }
      return { name: spec.name, results };
    } catch (error) {
      return { name: spec.name, error: `bad result file: ${(error as Error).message}` };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
