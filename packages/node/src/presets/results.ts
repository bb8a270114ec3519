import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { VerificationCommand } from "@turngate/core";

/** The reporter flags appended to `npm test` when the test script is node's own runner. */
export const NODE_TEST_RESULTS_ARGS =
  "--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination={results}";

/** The reporter flags appended to `npm test` when the test script is one `vitest` command (its own report stays on stdout). */
export const VITEST_RESULTS_ARGS = "--reporter=default --reporter=json --outputFile.json={results}";

/** The flags appended to `npm test` when the test script is one `jest` command (its report stays on stderr). */
export const JEST_RESULTS_ARGS = "--json --outputFile={results}";

/**
 * `vitest` or `jest` when the test script is exactly one run of that runner (`vitest`,
 * `vitest run …`, `jest …`, through `npx` or not), so flags `npm test -- …` appends reach
 * it; null for anything else (`&&`, `;`, `|`, redirections, a watch flag, env assignments,
 * another program): those are left as they are and their output is read for the digest.
 */
export function jsonReporterRunner(script: string): "vitest" | "jest" | null {
  const text = script.trim();
  if (/[;&|<>`$()\n]/.test(text)) return null;
  const words = text.split(/\s+/);
  if (words[0] === "npx") words.shift();
  const runner = words[0];
  if (runner === "vitest") {
    const sub = words[1];
    if (sub !== undefined && !sub.startsWith("-") && sub !== "run") return null;
    if (words.some((w) => w === "--watch" || w === "-w" || w.startsWith("--reporter"))) return null;
    return "vitest";
  }
  if (runner === "jest") {
    if (
      words.some(
        (w) =>
          w === "--watch" || w === "--watchAll" || w === "--json" || w.startsWith("--outputFile"),
      )
    )
      return null;
    return "jest";
  }
  return null;
}

/**
 * Whether `script` is `node --test` followed only by flags, so reporter flags that
 * `npm test -- …` appends reach node's test runner. With a file or folder after it
 * (`node --test test/`), node reads every later word as another file to run
 * ("Could not find '…/--test-reporter=spec'"), so such a script keeps its command and its
 * default (TAP) output is read for the failure digest.
 */
export function nodeTestTakesFlags(script: string): boolean {
  const text = script.trim();
  if (/[;&|<>`$()\n]/.test(text)) return false;
  const words = text.split(/\s+/);
  return (
    words[0] === "node" && words[1] === "--test" && words.slice(2).every((w) => w.startsWith("-"))
  );
}

/**
 * Whether `script` is `node --test` followed by flags and file or folder names (no shell
 * syntax): node reads reporter flags from `NODE_OPTIONS` for such a script.
 */
export function nodeTestNamesFiles(script: string): boolean {
  const text = script.trim();
  if (/[;&|<>`$()\n"'\\]/.test(text)) return false;
  const words = text.split(/\s+/);
  return words[0] === "node" && words[1] === "--test" && !nodeTestTakesFlags(text);
}

function nodeTestScript(root: string): string | null {
  try {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      scripts?: Record<string, unknown>;
    };
    const script = pkg.scripts?.test;
    return typeof script === "string" ? script : null;
  } catch {
    return null;
  }
}

/**
 * The preset command turngate runs itself, with structured results where the tool emits
 * them without extra packages (issue #16 §4). The detected presets (A3S §2.17, what
 * `verificationPresets` returns and shell evidence matches against) are left as they are;
 * only the command turngate runs changes:
 *
 * - `go:test` `go test ./...` → `go test -json ./...`, results `go_test_json` read from the
 *   command's output;
 * - `python:test` `<python> -m pytest` (`python3`, `python` or `.venv/bin/python`) →
 *   `<python> -m pytest --junitxml={results}`, `junit`;
 * - `rust:test` `cargo test` → `cargo test --no-fail-fast` (one failing test binary does not
 *   hide the others nor the doctests; issue 34 item 3), results `libtest` read from its
 *   output;
 * - `node:test` `npm test` whose `test` script is `node --test` with only flags after it
 *   (`nodeTestTakesFlags`) →
 *   `npm test -- --test-reporter=spec --test-reporter-destination=stdout
 *   --test-reporter=junit --test-reporter-destination={results}`, `junit` (spec output
 *   still goes to the log); when the script also names files or folders (`node --test
 *   test/`, `nodeTestNamesFiles`), node would read appended flags as more files, so the same
 *   reporters go in through `NODE_OPTIONS` (kept ahead of them) and `npm test` runs as it is;
 * - `node:test` `npm test` whose `test` script is one `vitest` or `jest` command
 *   (`jsonReporterRunner`) → `npm test -- --reporter=default --reporter=json
 *   --outputFile.json={results}` (vitest) or `npm test -- --json --outputFile={results}`
 *   (jest), `jest_json` (issue 34 item 2; the runner's own report still goes to the log).
 *
 * Other test scripts (tape, mocha, a script that runs another) keep their command: the
 * failure digest reads their failing tests from the output (core's `sniffFailures`).
 *
 * Any other command (or one a user already changed) is returned as given. Never throws.
 */
export function withStructuredResults(
  command: VerificationCommand,
  root: string,
): VerificationCommand {
  if (command.results !== undefined) return command;
  if (command.id === "go:test" && command.command === "go test ./...")
    return {
      ...command,
      command: "go test -json ./...",
      results: { format: "go_test_json", source: "output" },
    };
  // The Python preset runs the interpreter that exists (`python3`, `python`, the project's
  // `.venv/bin/python`, quoted when its path needs it), always as `<python> -m pytest`.
  if (command.id === "python:test" && / -m pytest$/.test(command.command))
    return {
      ...command,
      command: `${command.command} --junitxml={results}`,
      results: { format: "junit" },
    };
  if (command.id === "rust:test" && command.command === "cargo test")
    return {
      ...command,
      command: "cargo test --no-fail-fast",
      results: { format: "libtest", source: "output" },
    };
  if (command.id === "node:test" && command.command === "npm test") {
    const script = nodeTestScript(root);
    if (script !== null && nodeTestTakesFlags(script))
      return {
        ...command,
        command: `npm test -- ${NODE_TEST_RESULTS_ARGS}`,
        results: { format: "junit" },
      };
    // A script that names its files would read appended flags as more files: the reporters
    // go in through NODE_OPTIONS instead (node's runner and its per-file children read them),
    // so such a project keeps structured results and the vanished-tests rules.
    if (script !== null && nodeTestNamesFiles(script))
      return {
        ...command,
        command: `NODE_OPTIONS="\${NODE_OPTIONS:-} ${NODE_TEST_RESULTS_ARGS}" npm test`,
        results: { format: "junit" },
      };
    const runner = script === null ? null : jsonReporterRunner(script);
    if (runner !== null)
      return {
        ...command,
        command: `npm test -- ${runner === "vitest" ? VITEST_RESULTS_ARGS : JEST_RESULTS_ARGS}`,
        results: { format: "jest_json" },
      };
  }
  return command;
}
