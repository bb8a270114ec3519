import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { VerificationCommand } from "@turngate/core";

/** The reporter flags appended to `npm test` when the test script is node's own runner. */
export const NODE_TEST_RESULTS_ARGS =
  "--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination={results}";

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
 * - `rust:test` `cargo test` → unchanged, results `libtest` read from its output;
 * - `node:test` `npm test` whose `test` script starts with `node --test` →
 *   `npm test -- --test-reporter=spec --test-reporter-destination=stdout
 *   --test-reporter=junit --test-reporter-destination={results}`, `junit` (spec output
 *   still goes to the log).
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
    return { ...command, results: { format: "libtest", source: "output" } };
  if (command.id === "node:test" && command.command === "npm test") {
    const script = nodeTestScript(root);
    if (script !== null && /^node --test(\s|$)/.test(script.trim()))
      return {
        ...command,
        command: `npm test -- ${NODE_TEST_RESULTS_ARGS}`,
        results: { format: "junit" },
      };
  }
  return command;
}
