import { lstat, mkdtemp, open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  parseTestResults,
  type TestResultFormat,
  type TestResultsEvidence,
  TurngateError,
  type VerificationCommand,
} from "@turngate/core";
import { ensureDirectory } from "../fs/ensure-dir.js";

/** The placeholder a command uses for its results path, e.g. `pytest --junitxml={results}`. */
export const RESULTS_PLACEHOLDER = "{results}";

/** Environment variable holding the results path while the command runs. */
export const RESULTS_ENV = "TURNGATE_RESULTS";

/** Largest results file or output read, in bytes (64 MiB); a larger one is "too large". */
export const RESULTS_MAX_BYTES = 64 * 1024 * 1024;

/** How much earlier than the run's start a results file's mtime may be (coarse kernel clock), in ms. */
export const MTIME_SLACK_MS = 2000;

const EXTENSION: Record<TestResultFormat, string> = {
  junit: "xml",
  tap: "tap",
  ctrf: "json",
  go_test_json: "jsonl",
  jest_json: "json",
  pytest_reportlog: "jsonl",
  libtest: "txt",
};

/** A results path made for one run of one command. */
export interface PreparedTestResults {
  format: TestResultFormat;
  source: "file" | "output";
  /** The fresh folder made for this run (`mkdtemp`). */
  dir: string;
  /** `<dir>/results.<ext>`: where the command must write its results. */
  path: string;
  /** The command with every `{results}` replaced by the single-quoted path. */
  command: string;
  /** The command's environment plus `TURNGATE_RESULTS=<path>`. */
  env: NodeJS.ProcessEnv;
  /** When the folder was made (ms since the epoch), just before the command starts. */
  startedAtMs: number;
}

/** The path as a shell word: as it is when it holds only `[A-Za-z0-9_./+-]` (so `"{results}"` works too), else single-quoted. */
function shellWord(path: string): string {
  if (/^[A-Za-z0-9_./+-]+$/.test(path)) return path;
  return `'${path.replace(/'/g, `'\\''`)}'`;
}

/**
 * Make a fresh, empty folder for one run's results (issue #16 §2) under `baseDir` (the
 * session's state folder, e.g. `<state>/results/`; default the OS temp folder), so no file
 * written before the run — by the agent or an earlier run — can count: the folder's name
 * is random and it did not exist until now.
 *
 * Input: a command with `results: {format, source?}`. Output: the path, the command with
 * `{results}` substituted (single-quoted when the path holds a shell-special character)
 * and the environment with `TURNGATE_RESULTS`. When `baseDir` cannot be written, the
 * folder is made in the OS temp folder instead. Errors: rejects only when neither works.
 */
export async function prepareTestResults(
  command: VerificationCommand,
  options: { baseDir?: string; env?: NodeJS.ProcessEnv },
): Promise<PreparedTestResults> {
  const results = command.results;
  if (results === undefined) throw new TypeError("command has no results declaration");
  let dir: string;
  try {
    const base = options.baseDir ?? tmpdir();
    await ensureDirectory(base);
    dir = await mkdtemp(join(base, "run-"));
  } catch {
    // An unwritable state folder must not stop the check: the OS temp folder is outside
    // the workspace too.
    dir = await mkdtemp(join(tmpdir(), "turngate-results-"));
  }
  const path = join(dir, `results.${EXTENSION[results.format]}`);
  return {
    format: results.format,
    source: results.source ?? "file",
    dir,
    path,
    command: command.command.split(RESULTS_PLACEHOLDER).join(shellWord(path)),
    env: { ...(options.env ?? process.env), [RESULTS_ENV]: path },
    startedAtMs: Date.now(),
  };
}

async function readCapped(path: string): Promise<string> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(RESULTS_MAX_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > RESULTS_MAX_BYTES) throw new Error(`larger than ${RESULTS_MAX_BYTES} bytes`);
    return buffer.subarray(0, length).toString("utf8");
  } finally {
    await handle.close();
  }
}

function parse(format: TestResultFormat, text: string, what: string): TestResultsEvidence {
  try {
    return { results: parseTestResults(format, text) };
  } catch (error) {
    // Typed parse errors name the line or pointer; anything else (a parser bug) still
    // must not turn into a rejected check run: it is a result nobody can read.
    const message =
      error instanceof TurngateError ? error.message : `parser failed: ${String(error)}`;
    return { problem: `${what} is unreadable: ${message}` };
  }
}

/**
 * Read one run's structured results (issue #16 §2) after the command ended.
 *
 * - `source: "file"`: the file at `prepared.path` must exist, be a regular file (not a
 *   symlink), be modified no earlier than the run started, be at most `RESULTS_MAX_BYTES`
 *   and parse in `prepared.format`;
 * - `source: "output"`: the command's full output log (`logPath`) is parsed; without a log
 *   the captured output is used only when it was not truncated.
 *
 * Output: `{results}` or `{problem}` saying what the user should look at (`results file
 * was not written: … — does the command write to {results} / $TURNGATE_RESULTS?`). Never
 * rejects for a missing or bad file.
 */
export async function readTestResults(
  prepared: PreparedTestResults,
  output: { logPath?: string; captured: string; truncated: boolean },
): Promise<TestResultsEvidence> {
  if (prepared.source === "output") {
    if (output.logPath !== undefined) {
      try {
        return parse(prepared.format, await readCapped(output.logPath), "the command's output");
      } catch (error) {
        return { problem: `the command's output log cannot be read: ${(error as Error).message}` };
      }
    }
    if (output.truncated)
      return { problem: "the command's output was truncated and no full log was kept" };
    return parse(prepared.format, output.captured, "the command's output");
  }
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(prepared.path);
  } catch {
    return {
      problem: `results file was not written: ${prepared.path} (does the command write ${prepared.format} to {results} or $${RESULTS_ENV}?)`,
    };
  }
  if (!info.isFile()) return { problem: `results path is not a regular file: ${prepared.path}` };
  // File times come from the kernel's coarse clock, which lags Date.now() by up to a few
  // ms (one tick): allow MTIME_SLACK_MS. The folder is new, so only a file copied with its
  // old time (`cp -p`, `touch -d`) can be older than that.
  if (info.mtimeMs < prepared.startedAtMs - MTIME_SLACK_MS)
    return { problem: `results file is older than the run: ${prepared.path}` };
  let text: string;
  try {
    text = await readCapped(prepared.path);
  } catch (error) {
    return { problem: `results file cannot be read: ${(error as Error).message}` };
  }
  return parse(prepared.format, text, "results file");
}
