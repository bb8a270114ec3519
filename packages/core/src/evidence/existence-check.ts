/**
 * Existence checks in a shell command (issue 13 item 4; A3S's documented existence
 * evidence, seed 002): `test -f P`, `test -e P`, `[ -f P ]`, `[ -e P ]`, `[[ -f P ]]`,
 * `[[ -e P ]]` as a command of its own in a list. Pure string analysis.
 */
import { TurngateValidationError } from "../errors.js";
import { splitShellCommand } from "../reports/shell-evidence.js";
import { shellWords } from "../reports/shell-words.js";

/** Words that may stand before a test in the same command (`if [ -f x ]`, `! test -e x`). */
const LEADING = new Set(["if", "then", "elif", "else", "do", "while", "until", "!", "{", "("]);

/**
 * The paths `command` checks for existence, in order, each once: every top-level list
 * element (`splitShellCommand`) that is exactly `test -f|-e P`, `[ -f|-e P ]` or
 * `[[ -f|-e P ]]` (after optional `if`/`then`/`!`/… words), with `P` after quote removal.
 * A path whose value is computed (`$x`, `$(…)`) is not listed; neither is a negated test
 * (`! test -f x`, `[ ! -f x ]`), a test with more operands (`-a`, `-o`), or any other
 * operator (`-d`, `-s`). Throws `TurngateValidationError` (path `command`) for a non-string.
 */
export function existenceCheckPaths(command: string): string[] {
  if (typeof command !== "string") {
    throw new TurngateValidationError("existence check", [
      { path: "command", message: "expected a string" },
    ]);
  }
  const found: string[] = [];
  for (const segment of splitShellCommand(command)) {
    const words = shellWords(segment.text).map((w) => w.value);
    let i = 0;
    let negated = false;
    while (i < words.length && LEADING.has(words[i] ?? "")) {
      if (words[i] === "!") negated = true;
      i += 1;
    }
    const rest = words.slice(i);
    const path = testedPath(rest);
    if (path !== null && !negated && !found.includes(path)) found.push(path);
  }
  return found;
}

function testedPath(words: readonly (string | null)[]): string | null {
  const [head, op, path, close] = words;
  const isOp = op === "-f" || op === "-e";
  if (!isOp || typeof path !== "string" || path === "") return null;
  if (head === "test" && words.length === 3) return path;
  if (head === "[" && close === "]" && words.length === 4) return path;
  if (head === "[[" && close === "]]" && words.length === 4) return path;
  return null;
}
