/**
 * Shell words of one simple command, and what that command really runs once the
 * wrappers in front of it are looked through (issue 10, "masked exit status through
 * wrappers"). Pure string analysis: nothing is run, nothing is expanded.
 *
 * Why not a parser library: core must stay pure and synchronous and run unchanged in
 * Pyodide's JS host. `sh-syntax` (mvdan/sh) is a Go WASM module that must be instantiated
 * asynchronously; `mvdan-sh` is a GopherJS transpilation of the same Go code (a large
 * generated bundle with its own runtime); `bash-parser` has had no release since 2017;
 * `shell-quote` tokenizes but
 * expands variables and drops the quoting this rule needs (whether a word is computed).
 * What the masked-exit rule needs is small — words with "static or computed", plus the
 * list operators `splitShellCommand` already finds — and is tested exhaustively
 * (`packages/core/test/shell-words.test.ts`).
 */

import * as z from "zod";
import { expectString, validated } from "../validate.js";

/** One word of a simple command as written, with its value when it is static. */
export interface ShellWord {
  /** The word as written (quotes kept). */
  raw: string;
  /**
   * The word after quote removal, or `null` when its value is only known when the shell
   * runs it: it contains a command substitution (`$(…)`, `` `…` ``), a parameter
   * expansion (`$x`, `${x}`, `$1`, `$@`), an arithmetic expansion or an ANSI-C `$'…'`.
   */
  value: string | null;
}

/** Characters that may follow `$` in a parameter expansion (`$x`, `$1`, `$@`, `$?`, …). */
const PARAM_START = /[A-Za-z0-9_@*#?$!-]/;

/** Index just after the `)` that closes the `(` at `open` (quotes and nesting skipped), or the end. */
function skipParens(text: string, open: number): number {
  const close = closingParen(text, open);
  return close < 0 ? text.length : close + 1;
}

/** Index of the `)` that closes the `(` at `open` (quotes and nesting skipped), or -1. */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === "\\") {
      i++;
    } else if (ch === "'") {
      const close = text.indexOf("'", i + 1);
      i = close < 0 ? text.length : close;
    } else if (ch === '"' || ch === "`") {
      i = skipQuoted(text, i, ch);
    } else if (ch === "(") depth++;
    else if (ch === ")") {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Index of the closing `quote` of the `"…"` / `` `…` `` opened at `open` (or the end). */
function skipQuoted(text: string, open: number, quote: string): number {
  for (let i = open + 1; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === "\\") i++;
    else if (ch === quote) return i;
  }
  return text.length;
}

/**
 * Splits one simple command (a segment of `splitShellCommand`, quotes kept) into words,
 * POSIX-style: unquoted blanks separate words; `'…'` is literal; in `"…"` a backslash
 * escapes only `$`, `` ` ``, `"`, `\` and a newline; an unquoted backslash escapes the next
 * character (a backslash-newline joins lines); `$(…)`, `` `…` ``, `${…}`, `$x`, `$'…'`
 * make the word's `value` `null` (see `ShellWord`). Redirections stay words
 * (`2>&1`, `>log`). An unterminated quote runs to the end. Throws
 * `TurngateValidationError` (path `text`) only when `text` is not a string.
 */
export function shellWords(text: string): ShellWord[] {
  expectString(text, "shell words", "text");
  return wordsOf(text);
}

function wordsOf(text: string): ShellWord[] {
  const words: ShellWord[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
    if (i >= text.length) break;
    const start = i;
    let value = "";
    let dynamic = false;
    while (i < text.length && !/\s/.test(text.charAt(i))) {
      const ch = text.charAt(i);
      const next = text.charAt(i + 1);
      if (ch === "'") {
        const close = text.indexOf("'", i + 1);
        const end = close < 0 ? text.length : close;
        value += text.slice(i + 1, end);
        i = end + 1;
      } else if (ch === '"') {
        i++;
        while (i < text.length && text.charAt(i) !== '"') {
          const c = text.charAt(i);
          const n = text.charAt(i + 1);
          if (c === "\\" && /[$`"\\\n]/.test(n)) {
            if (n !== "\n") value += n;
            i += 2;
          } else if (c === "`") {
            dynamic = true;
            i = skipQuoted(text, i, "`") + 1;
          } else if (c === "$" && n === "(") {
            dynamic = true;
            i = skipParens(text, i + 1);
          } else if (c === "$" && (n === "{" || PARAM_START.test(n))) {
            dynamic = true;
            i += 2;
          } else {
            value += c;
            i++;
          }
        }
        i++;
      } else if (ch === "\\") {
        if (next !== "\n") value += next;
        i += 2;
      } else if (ch === "`") {
        dynamic = true;
        i = skipQuoted(text, i, "`") + 1;
      } else if (ch === "$" && next === "(") {
        dynamic = true;
        i = skipParens(text, i + 1);
      } else if (ch === "$" && next === "'") {
        dynamic = true;
        const close = text.indexOf("'", i + 2);
        i = close < 0 ? text.length : close + 1;
      } else if (ch === "$" && next === "{") {
        dynamic = true;
        const close = text.indexOf("}", i + 2);
        i = close < 0 ? text.length : close + 1;
      } else if (ch === "$" && PARAM_START.test(next)) {
        dynamic = true;
        i += 2;
      } else {
        value += ch;
        i++;
      }
    }
    words.push({ raw: text.slice(start, Math.min(i, text.length)), value: dynamic ? null : value });
  }
  return words;
}

/** The `set`-style options a script starts with (`bash -e -o pipefail -c …`). */
export interface ScriptOptions {
  pipefail: boolean;
  errexit: boolean;
}

/** What one simple command runs, once its wrappers are looked through. */
export type WrappedCommand =
  /** An ordinary command (or none): its own exit status is the segment's. */
  | { kind: "plain" }
  /** A shell script run by `sh -c SCRIPT` (any listed shell) or `eval WORDS`. */
  | { kind: "script"; script: string; options: ScriptOptions }
  /**
   * A command whose program or script is computed when it runs (`sh -c "$(cat x)"`,
   * `eval "$cmd"`, `` `cat x` ``, `$RUNNER test`): `word` is the word as written.
   */
  | { kind: "unreadable"; word: string };

/** What `wrappedCommand` accepts: `shellWords` output (extra keys are ignored). */
const ShellWordListSchema = z.array(
  z.looseObject({ raw: z.string(), value: z.string().nullable() }),
);

/** Shells whose `-c SCRIPT` is read as a script. */
const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"]);

/** How a wrapper's options are read before the command it runs. */
interface WrapperSpec {
  /** Short options that take a value (`-n 5` or `-n5`). */
  shortWithValue: string;
  /** Long options that take a value when written without `=` (`--signal KILL`). */
  longWithValue: readonly string[];
  /** Positional words before the command (timeout's DURATION). */
  positional: number;
  /** Words `NAME=VALUE` after the options are environment assignments (env). */
  assignments?: boolean;
  /** Options after which the wrapper runs no command (`command -v`). */
  noCommand?: string;
  /** A lone `-` is an option, not the command (env: the same as `-i`). */
  loneDashOption?: boolean;
}

/**
 * Wrappers that run their command with the command's own exit status (or a status of
 * their own that is never 0 on a failure: timeout's 124), keyed by program name.
 */
const WRAPPERS: Record<string, WrapperSpec> = {
  env: {
    shortWithValue: "uCS",
    longWithValue: ["--unset", "--chdir", "--split-string"],
    positional: 0,
    assignments: true,
    loneDashOption: true,
  },
  nice: {
    shortWithValue: "n",
    longWithValue: ["--adjustment"],
    positional: 0,
  },
  ionice: { shortWithValue: "cnpPu", longWithValue: ["--class", "--classdata"], positional: 0 },
  nohup: { shortWithValue: "", longWithValue: [], positional: 0 },
  time: {
    shortWithValue: "of",
    longWithValue: ["--output", "--format"],
    positional: 0,
  },
  timeout: {
    shortWithValue: "sk",
    longWithValue: ["--signal", "--kill-after"],
    positional: 1,
  },
  stdbuf: {
    shortWithValue: "ioe",
    longWithValue: ["--input", "--output", "--error"],
    positional: 0,
  },
  command: { shortWithValue: "", longWithValue: [], positional: 0, noCommand: "vV" },
  exec: { shortWithValue: "a", longWithValue: [], positional: 0 },
};

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const REDIRECTION = /^\d*(?:[<>]|&>)/;
const LONE_REDIRECTION = /^\d*(?:[<>]{1,2}|&>{1,2}|[<>]&|>\|)$/;

/** The program name of a static command word: its last `/` component. */
function programName(value: string): string {
  return value.slice(value.lastIndexOf("/") + 1);
}

/**
 * Index of the first word after `from` that is not a redirection (`2>&1`, `> log`,
 * `<in`): redirections may stand anywhere in a simple command.
 */
function skipRedirections(words: readonly ShellWord[], from: number): number {
  let i = from;
  while (i < words.length) {
    const raw = (words[i] as ShellWord).raw;
    if (LONE_REDIRECTION.test(raw)) i += 2;
    else if (REDIRECTION.test(raw)) i += 1;
    else break;
  }
  return i;
}

/**
 * Index of the command a wrapper runs (`words[at]` is the wrapper), or `null` when it
 * runs none (`command -v x`); `env -S STRING` words are spliced in place.
 */
function afterWrapper(
  words: ShellWord[],
  at: number,
  spec: WrapperSpec,
): { index: number } | { unreadable: string } | null {
  let i = at + 1;
  while (i < words.length) {
    const word = words[i] as ShellWord;
    const value = word.value;
    if (value === null) return { index: i };
    if (value === "--") {
      i++;
      break;
    }
    if (value === "-" && spec.loneDashOption) {
      i++;
      continue;
    }
    // `--` alone ended the options above.
    if (value.startsWith("--")) {
      const name = value.split("=", 1)[0] as string;
      const takesValue = spec.longWithValue.includes(name) && !value.includes("=");
      if (name === "--split-string") {
        const str = value.includes("=") ? value.slice(value.indexOf("=") + 1) : words[i + 1];
        return splitString(words, i, str, value.includes("=") ? 1 : 2);
      }
      i += takesValue ? 2 : 1;
      continue;
    }
    // A cluster of short options; nice's `-10` is one whose letters take no value.
    if (value.startsWith("-") && value.length > 1) {
      const letters = value.slice(1);
      const noCommand = spec.noCommand;
      if (noCommand !== undefined && [...letters].some((l) => noCommand.includes(l))) return null;
      let consumed = 1;
      for (let k = 0; k < letters.length; k++) {
        const letter = letters.charAt(k);
        if (!spec.shortWithValue.includes(letter)) continue;
        const attached = letters.slice(k + 1);
        if (letter === "S") {
          return attached !== ""
            ? splitString(words, i, { raw: attached, value: attached }, 1)
            : splitString(words, i, words[i + 1], 2);
        }
        if (attached === "") consumed = 2;
        break;
      }
      i += consumed;
      continue;
    }
    break;
  }
  i = skipRedirections(words, i);
  if (spec.assignments) {
    while (i < words.length && ASSIGNMENT.test((words[i] as ShellWord).raw)) i++;
  }
  i += spec.positional;
  return { index: skipRedirections(words, i) };
}

/** `env -S STRING …`: STRING's words take the place of the option and its value. */
function splitString(
  words: ShellWord[],
  at: number,
  str: ShellWord | string | undefined,
  width: number,
): { index: number } | { unreadable: string } {
  const word = typeof str === "string" ? { raw: str, value: str } : str;
  if (word === undefined) return { index: words.length };
  if (word.value === null) return { unreadable: word.raw };
  words.splice(at, width, ...wordsOf(word.value));
  return { index: at };
}

/** Reads `sh`'s options before `-c`; the script word follows them. */
function shellScript(words: readonly ShellWord[], at: number): WrappedCommand {
  const options: ScriptOptions = { pipefail: false, errexit: false };
  let hasC = false;
  let i = at + 1;
  while (i < words.length) {
    const value = (words[i] as ShellWord).value;
    if (value === null) break;
    if (value === "--") {
      i++;
      break;
    }
    if (/^--(?:rcfile|init-file)$/.test(value)) {
      i += 2;
      continue;
    }
    if (value.startsWith("--")) {
      i++;
      continue;
    }
    if (!/^[-+][A-Za-z]+$/.test(value)) break;
    const on = value.startsWith("-");
    const letters = value.slice(1);
    let consumed = 1;
    for (const letter of letters) {
      if (letter === "c" && on) hasC = true;
      else if (letter === "e") options.errexit = on;
      else if (letter === "o" || letter === "O") {
        const name = (words[i + consumed] as ShellWord | undefined)?.value;
        if (letter === "o" && name === "pipefail") options.pipefail = on;
        if (letter === "o" && name === "errexit") options.errexit = on;
        consumed++;
      }
    }
    i += consumed;
  }
  if (!hasC) return { kind: "plain" };
  const script = words[i];
  if (script === undefined) return { kind: "plain" };
  if (script.value === null) return { kind: "unreadable", word: script.raw };
  return { kind: "script", script: script.value, options };
}

/**
 * What a simple command runs, looking through (recursively, in any order) leading
 * `NAME=VALUE` assignments and redirections and the wrappers `env` (options, a lone `-`, `-u NAME`,
 * `-C DIR`, `-S STRING`, assignments), `nice` (`-n N`, `-N`), `ionice` (`-c N`, `-n N`,
 * `-t`), `nohup`, `time` (`-p`, `/usr/bin/time -o FILE -f FMT …`), `timeout` (options,
 * then DURATION), `stdbuf` (`-o L`, …), `command` (`-p`; `-v`/`-V` run nothing), and
 * `exec` (`-c`, `-l`, `-a NAME`), each also as an absolute path (`/usr/bin/env`):
 *
 * - `sh`/`bash`/`dash`/`zsh`/`ksh`/`mksh`/`ash`/`yash`/`posh` with `-c` (alone or in a
 *   cluster: `-ec`, `-xc`) and options before the script (`-e`, `-o pipefail`,
 *   `+o errexit`, `-x`, `--norc`, …) → `{kind: "script", script, options}`;
 * - `eval WORDS` → the words' values joined by spaces as the script;
 * - a program or script word computed when the command runs (`$(…)`, backticks, `$x`)
 *   → `{kind: "unreadable", word}`;
 * - anything else (a plain program, `bash script.sh`, interpreter programs such as
 *   `python -c` or `node -e`, which are opaque by design) → `{kind: "plain"}`.
 *
 * Input: the segment's words (`shellWords`). Throws `TurngateValidationError` (path
 * `words`, `words.N.raw`, `words.N.value`) only when `input` is not a list of such words.
 */
export function wrappedCommand(input: readonly ShellWord[]): WrappedCommand {
  const words = validated(ShellWordListSchema, input, "shell words", "words").slice();
  let i = skipRedirections(words, 0);
  while (i < words.length && ASSIGNMENT.test((words[i] as ShellWord).raw)) {
    i = skipRedirections(words, i + 1);
  }
  // Ends: each wrapper step moves `i` forward by at least one word.
  while (i < words.length) {
    const word = words[i] as ShellWord;
    if (word.value === null) return { kind: "unreadable", word: word.raw };
    const name = programName(word.value);
    if (SHELLS.has(name)) return shellScript(words, i);
    if (name === "eval") {
      const args = words.slice(skipRedirections(words, i + 1));
      const computed = args.find((arg) => arg.value === null);
      if (computed !== undefined) return { kind: "unreadable", word: computed.raw };
      if (args.length === 0) return { kind: "plain" };
      return {
        kind: "script",
        script: args.map((arg) => arg.value).join(" "),
        options: { pipefail: false, errexit: false },
      };
    }
    const spec = WRAPPERS[name];
    if (spec === undefined) return { kind: "plain" };
    const next = afterWrapper(words, i, spec);
    if (next === null) return { kind: "plain" };
    if ("unreadable" in next) return { kind: "unreadable", word: next.unreadable };
    i = next.index;
  }
  return { kind: "plain" };
}

/**
 * The bodies of the command substitutions in one word as written (`$(…)` and `` `…` ``,
 * outside single quotes; `$((…))` arithmetic is not one unless it holds one, `$(( a ) && b)`
 * is), in order: `"a$(b c)d"` →
 * `["b c"]`. An unterminated one runs to the end. Throws `TurngateValidationError` (path
 * `raw`) only when `raw` is not a string.
 */
export function commandSubstitutions(raw: string): string[] {
  expectString(raw, "shell word", "raw");
  const bodies: string[] = [];
  let inDouble = false;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw.charAt(i);
    const next = raw.charAt(i + 1);
    if (ch === "\\") {
      i++;
    } else if (ch === "'" && !inDouble) {
      const close = raw.indexOf("'", i + 1);
      i = close < 0 ? raw.length : close;
    } else if (ch === '"') {
      inDouble = !inDouble;
    } else if (ch === "$" && next === "(") {
      // An unterminated `$(` runs to the end of the word.
      const close = closingParen(raw, i + 1);
      const end = close < 0 ? raw.length : close;
      // `$(( … ))` is arithmetic only when the inner group closes right before the outer
      // one; `$(( a ) && b)` is a command substitution starting with a subshell.
      // Arithmetic that holds a substitution (`$(( $(a) + 1 ))`) runs it: counted as one.
      const body = raw.slice(i + 2, end);
      // (Unterminated, `close - 1` is -2, which no inner group matches: not arithmetic.)
      const arithmetic = raw.charAt(i + 2) === "(" && closingParen(raw, i + 2) === close - 1;
      if (!arithmetic || /\$\(|`/.test(body)) bodies.push(body);
      i = end;
    } else if (ch === "`") {
      const end = skipQuoted(raw, i, "`");
      bodies.push(raw.slice(i + 1, end));
      i = end;
    }
  }
  return bodies;
}

/**
 * Whether `raw` is a `NAME=VALUE` assignment word. Throws `TurngateValidationError` (path
 * `raw`) when `raw` is not a string.
 */
export function isAssignmentWord(raw: string): boolean {
  return ASSIGNMENT.test(expectString(raw, "shell word", "raw"));
}
