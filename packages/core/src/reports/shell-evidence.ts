/**
 * Shell evidence: turning a host-run shell command into a verification report when it
 * runs a known verification command (A3S §2.13), with turngate's change (docs/design.md §3):
 * a command whose exit status is masked never counts as a pass.
 *
 * Everything here is pure string analysis; no command is run.
 */
import { TurngateValidationError } from "../errors.js";
import type { VerificationCommandInput } from "../schemas/command.js";
import { parseVerificationCommand } from "../schemas/parse.js";
import type { VerificationReport } from "../schemas/report.js";
import { createReport } from "./create.js";
import { checkFromExecution } from "./execution.js";
import {
  commandSubstitutions,
  isAssignmentWord,
  type ScriptOptions,
  type ShellWord,
  shellWords,
  wrappedCommand,
} from "./shell-words.js";

/** Residual risk put on a shell-evidence check whose exit status is masked. */
export const EXIT_STATUS_MASKED_RISK = "exit status masked";

/** Collapses every whitespace run to one space and trims (A3S §2.13 normalisation). */
export function normalizeShellCommand(command: string): string {
  return command
    .split(/\s+/)
    .filter((part) => part !== "")
    .join(" ");
}

/**
 * A3S §2.13 `shell_command_covers_preset`: after collapsing whitespace in both (either
 * empty → false), true iff the command equals the preset, starts with `preset + " "`,
 * contains `"&& " + preset + " "`, ends with `"&& " + preset`, contains
 * `"; " + preset + " "`, or ends with `"; " + preset`. Nothing else (`||`, `|`, `(`…).
 * So `"cd d && cargo test"` and `"cargo test -p x"` cover `"cargo test"`;
 * `"echo cargo test"` and `"cargo testing"` do not.
 */
export function shellCommandCoversPreset(command: string, presetCommand: string): boolean {
  const c = normalizeShellCommand(command);
  const p = normalizeShellCommand(presetCommand);
  // An empty command covers nothing either: it equals no non-empty preset and contains none.
  if (p === "") return false;
  return (
    c === p ||
    c.startsWith(`${p} `) ||
    c.includes(`&& ${p} `) ||
    c.endsWith(`&& ${p}`) ||
    c.includes(`; ${p} `) ||
    c.endsWith(`; ${p}`)
  );
}

/** A top-level list operator of a shell command (`\n` is a newline separator). */
export type ShellOperator = "&&" | "||" | "|" | ";" | "&" | "\n";

/** One top-level segment of a shell command and the operator that follows it. */
export interface ShellSegment {
  /** The segment text, whitespace collapsed. */
  text: string;
  /** The operator after the segment; `null` for the last segment. */
  op: ShellOperator | null;
}

/**
 * Splits a shell command at its top-level list operators (`&&`, `||`, `|`, `|&`, `;`,
 * `;;`, `&`, newline). Operators inside quotes (`'…'`, `"…"`, `` `…` ``), after a
 * backslash, inside parentheses or `$( … )`, and inside `#` comments are not top level.
 * Redirections (`2>&1`, `>&2`, `&>file`, `>|file`) are not operators. A heuristic reading
 * of POSIX sh syntax, not a full parser: brace groups are read as if flat.
 */
export function splitShellCommand(command: string): ShellSegment[] {
  return splitRaw(command).map((seg) => ({ text: normalizeShellCommand(seg.raw), op: seg.op }));
}

/** A segment as written (whitespace inside quotes kept), with its operator. */
interface RawSegment {
  raw: string;
  op: ShellOperator | null;
}

/** `splitShellCommand` without whitespace collapsing, so quoted scripts keep newlines. */
function splitRaw(command: string): RawSegment[] {
  const segments: RawSegment[] = [];
  let current = "";
  let depth = 0;
  let quote: "'" | '"' | "`" | null = null;
  const end = (op: ShellOperator | null): void => {
    segments.push({ raw: current, op });
    current = "";
  };
  for (let i = 0; i < command.length; i++) {
    const ch = command.charAt(i);
    const next = command.charAt(i + 1);
    if (quote !== null) {
      if (ch === "\\" && quote !== "'") {
        current += ch + next;
        i++;
      } else {
        if (ch === quote) quote = null;
        current += ch;
      }
      continue;
    }
    if (ch === "\\") {
      current += next === "\n" ? " " : ch + next;
      i++;
      continue;
    }
    if (ch === "'" || ch === '"' || ch === "`") {
      quote = ch;
      current += ch;
      continue;
    }
    if (ch === "#" && (i === 0 || /[\s;&|()]/.test(command.charAt(i - 1)))) {
      while (i + 1 < command.length && command.charAt(i + 1) !== "\n") i++;
      continue;
    }
    if (ch === "(") depth++;
    else if (ch === ")") depth = Math.max(0, depth - 1);
    // A `(` opens a level (depth > 0); a `)` back at depth 0 is kept as a plain character.
    if (depth > 0) {
      current += ch;
      continue;
    }
    const prev = command.charAt(i - 1);
    if (ch === "&") {
      if (next === "&") {
        end("&&");
        i++;
      } else if (prev === ">" || prev === "<" || next === ">") current += ch;
      else end("&");
    } else if (ch === "|") {
      if (next === "|") {
        end("||");
        i++;
      } else if (prev === ">") current += ch;
      else {
        if (next === "&") i++;
        end("|");
      }
    } else if (ch === ";") {
      if (next === ";") i++;
      end(";");
    } else if (ch === "\n") end("\n");
    else current += ch;
  }
  end(null);
  return segments;
}

const SET_COMMAND = /^set(?:\s|$)/;
const CLOSES_GROUP = /^\}(?:\s|$)/;
const OPENS_GROUP = /^\{\s/;
const NEGATED = /^!(?:\s|$)/;
const EXITS = /^(?:exit|return)(?:\s|$)/;
const SUBSHELL = /^\((.*)\)(?:\s+\d*[<>&][^()]*)?$/s;
const BRACE_GROUP = /^\{\s(.*)$/s;
/** Compound commands whose status is not that of the command they run first. */
const COMPOUND = /^(if|while|until|for|case|select|function|trap|coproc)(?:\s|$)(.*)$/s;
/** How deep `( … )`, `{ …; }` and `sh -c '…'` are looked into; deeper counts as masked. */
const MAX_NESTING = 32;
const PIPEFAIL_ON = /(?:^|\s)-[A-Za-z]*o\s+pipefail(?:\s|$)/;
const PIPEFAIL_OFF = /(?:^|\s)\+[A-Za-z]*o\s+pipefail(?:\s|$)/;
const ERREXIT_ON = /(?:^|\s)(?:-[A-Za-z]*e[A-Za-z]*(?:\s|$)|-o\s+errexit(?:\s|$))/;
const ERREXIT_OFF = /(?:^|\s)(?:\+[A-Za-z]*e[A-Za-z]*(?:\s|$)|\+o\s+errexit(?:\s|$))/;

interface ShellState {
  pipefail: boolean;
  errexit: boolean;
}

/**
 * The `set` options in force after each segment (`set -o pipefail`, `set -e`, …), starting
 * from `initial` (a script's `bash -e -o pipefail -c` options).
 */
function statesAfter(
  segments: readonly ShellSegment[],
  initial: ScriptOptions = { pipefail: false, errexit: false },
): ShellState[] {
  const state: ShellState = { ...initial };
  return segments.map((seg) => {
    if (SET_COMMAND.test(seg.text)) {
      if (PIPEFAIL_ON.test(seg.text)) state.pipefail = true;
      if (PIPEFAIL_OFF.test(seg.text)) state.pipefail = false;
      if (ERREXIT_ON.test(seg.text)) state.errexit = true;
      if (ERREXIT_OFF.test(seg.text)) state.errexit = false;
    }
    return { ...state };
  });
}

/**
 * Whether another command runs after segment `index`. A `}` that closes a brace group
 * (`{ a; }`) is not one: the group's status is that of its last command.
 */
function commandFollows(segments: readonly ShellSegment[], index: number): boolean {
  for (let k = index + 1; k < segments.length; k++) {
    const text = (segments[k] as ShellSegment).text;
    if (text === "") continue;
    return !CLOSES_GROUP.test(text);
  }
  return false;
}

/**
 * Whether segment text is an `exit` / `return` (also as the first command of a `{ …` group)
 * that can end the script with status 0: not one with a non-zero literal status
 * (`exit 1` always fails the check).
 */
function isExit(text: string): boolean {
  const command = text.startsWith("{ ") ? text.slice(2) : text;
  return EXITS.test(command) && !FAILING_EXIT.test(command);
}
const FAILING_EXIT = /^(?:exit|return)\s+[1-9]\d*$/;

/** The first command after segment `index` (skipping `}` closers), or undefined. */
function laterCommand(segments: readonly ShellSegment[], index: number): string | undefined {
  for (let k = index + 1; k < segments.length; k++) {
    const text = (segments[k] as ShellSegment).text;
    if (text === "" || CLOSES_GROUP.test(text)) continue;
    return text;
  }
  return undefined;
}

/**
 * Whether a top-level `exit` / `return` before segment `k` can end the script with status 0
 * before `k` runs (`exit 0; node test.js`); `cd d || exit 1` cannot (see `isExit`).
 */
function exitsBefore(segments: readonly ShellSegment[], k: number): boolean {
  for (let j = 0; j < k; j++) {
    const text = (segments[j] as ShellSegment).text;
    if (isExit(text)) return true;
  }
  return false;
}

/** Whether the status of segment `k` can be lost after it (by `||`, `&`, a pipe or `;`). */
function maskedFrom(
  segments: readonly ShellSegment[],
  states: readonly ShellState[],
  k: number,
): boolean {
  const seg = segments[k] as ShellSegment;
  if (seg.op === "|" && !(states[k] as ShellState).pipefail) return true;
  let inAndList = false;
  for (let m = k; m < segments.length; m++) {
    const op = (segments[m] as ShellSegment).op;
    if (op === "||" || op === "&") return true;
    if (op === "&&") inAndList = true;
    if ((op === ";" || op === "\n") && commandFollows(segments, m)) {
      // `set -e` does not exit on a failure that is not the last command of an && list.
      if (!(states[m] as ShellState).errexit || inAndList) return true;
    }
  }
  return false;
}

/**
 * Whether a shell command's exit status can be 0 although a command in it failed
 * (docs/design.md §3 change). Read at top level (see `splitShellCommand`):
 *
 * - Without `presetCommand`: `exitStatusMaskedBy(command) !== null` — an `||`, a
 *   background `&`, a pipe without pipefail, a `;`/newline before another command without
 *   `set -e`, a leading `!`, an `if`/`while`/`until`/`for` condition or loop, the same
 *   inside `( … )`, `{ …; }`, and the scripts of `sh -c`/`bash -c`/`eval` seen through
 *   wrappers (`env`, `timeout 5`, `nice`, …); and a script that cannot be read
 *   (`sh -c "$(cat x)"`, `` `…` ``, `eval "$cmd"`). So only a plain `&&` chain (pipes
 *   allowed under pipefail) is unmasked.
 * - With `presetCommand`: whether THAT command's status is masked: true when it does not
 *   run as a top-level segment at all (e.g. only inside `if`, `( )` or quotes), or when an
 *   occurrence is run only after `||`, is piped into another command without pipefail,
 *   or is followed (at any distance) by `||`, `&`, or `;`/newline plus another command
 *   (unless `set -e` is in force and no `&&` lies between the occurrence and the `;`). `cd d; cargo test` and `cd d && cargo test | tee log` with
 *   `set -o pipefail` are unmasked; `cargo test || true` and `cargo test | tee log` are.
 */
export function exitStatusMasked(command: string, presetCommand?: string): boolean {
  if (presetCommand === undefined) return exitStatusMaskedBy(command) !== null;
  const segments = splitShellCommand(command);
  const states = statesAfter(segments);
  const preset = normalizeShellCommand(presetCommand);
  if (preset === "") return true;
  let occurs = false;
  for (let k = 0; k < segments.length; k++) {
    const text = (segments[k] as ShellSegment).text;
    if (text !== preset && !text.startsWith(`${preset} `)) continue;
    occurs = true;
    if (k > 0 && (segments[k - 1] as ShellSegment).op === "||") return true;
    if (exitsBefore(segments, k)) return true;
    if (maskedFrom(segments, states, k)) return true;
  }
  return !occurs;
}

/** Residual risk of a check whose command runs a script turngate cannot read. */
export const EXIT_STATUS_UNVERIFIABLE_RISK = "exit status cannot be verified";

/** Where a command's exit status is masked (see `exitStatusMaskedBy`). */
export interface MaskedExitStatus {
  /**
   * What loses the status: the list operators `||`, `&`, `|`, `;`, a newline (`\n`); a
   * leading `!` that negates it; the compound commands `if` / `while` / `until` (their
   * condition's failure chooses a branch) and `for` (only the last iteration counts);
   * `"substitution"`: a command substitution in a command's arguments (`echo $(make)`)
   * or one of several in assignments, whose status is discarded;
   * `"unreadable"`: a script or program computed when the check runs (`sh -c "$(…)"`,
   * backticks, `eval "$cmd"`, `$RUNNER test`), or a command turngate does not read
   * (`case`, `select`, `function`, `trap` — an `EXIT` trap can replace the status —, and
   * `coproc`, whose command runs in the background); `"exit"`: an `exit` / `return` that
   * is not the last command, so the script ends before `skipped` runs; or
   * `"nesting"` when subshells / `sh -c` scripts nest deeper than 32 levels (not read, so
   * counted as masked).
   */
  operator:
    | Exclude<ShellOperator, "&&">
    | "!"
    | "if"
    | "while"
    | "until"
    | "for"
    | "substitution"
    | "unreadable"
    | "exit"
    | "nesting";
  /**
   * The command whose status is lost, whitespace collapsed: the segment before the
   * operator, the whole `a && b` list before a `||`, `;` or newline, the whole `{ …; }`
   * group before a `;`, the condition of an `if`/`while`/`until`, the `for … in …` head,
   * or (unreadable, substitution) the simple command that holds the word.
   */
  command: string;
  /** `exit`: the next command, which never runs (`node test.js` in `exit 0; node test.js`). */
  skipped?: string;
  /** `||`: the fallback that runs when `command` fails (its status becomes the result). */
  fallback?: string;
  /** `;`/newline under `set -e`: `command` is an `a && b` list, where `set -e` does not stop. */
  andList?: boolean;
  /**
   * `unreadable`: the computed word as written (`"$(cat x)"`), or the keyword;
   * `substitution`: the word holding the substitution (`$(go list ./...)`).
   */
  word?: string;
}

/**
 * Why `exitStatusMasked(command)` (no preset) is true: the first top-level segment whose
 * operator can lose a failure (same rules), e.g. `"sleep 1; npm test"` →
 * `{operator: ";", command: "sleep 1"}`; `null` exactly when the command is unmasked.
 * Hosts use it to tell the user what to change (join with `&&`, `set -e`,
 * `set -o pipefail`, drop `|| …` or `&`).
 *
 * Before a segment's operator, its own text is read: a leading `!` masks
 * (`! make` → `{operator: "!", command: "! make"}`); `if`/`while`/`until`/`for` mask
 * (`if make; then …` → `{operator: "if", command: "make"}`), `case`/`select`/`function`
 * and `trap` are unreadable; a command substitution in a command's arguments masks
 * (`go test $(go list ./...)` → `{operator: "substitution", …}`) while the single one of
 * an assignment-only command is read (`V=$(make)`); `set +e` turns `set -e` off;
 * the inside of a `( … )` subshell (optionally followed by redirections)
 * and of a `{ …; }` group is read recursively; and the simple command is looked through
 * its wrappers (`wrappedCommand`: `env X=1`, `timeout 5`, `nice -n 5`, `nohup`, `time`,
 * `stdbuf -oL`, `command`, `exec`, in any nesting) to a `sh -c`/`bash -c`/`dash -c`/
 * `zsh -c`/`ksh -c` script (options before `-c` such as `-o pipefail` and `-e` apply
 * inside it) or `eval` words, read recursively with the same rules, reporting the inner
 * segment: `(false || true)` → `{operator: "||", command: "false", fallback: "true"}`,
 * `bash -o pipefail -c 'a | b'` → null. A computed script or program (`sh -c "$(cat x)"`,
 * `` `cat x` ``, `eval "$cmd"`) → `{operator: "unreadable", command, word}`.
 * `a && b || c` → `{operator: "||", command: "a && b", fallback: "c"}`;
 * `{ make; }; true` → `{operator: ";", command: "{ make; }"}`;
 * `exit 0; node test.js` → `{operator: "exit", command: "exit 0", skipped: "node test.js"}`
 * (an `exit` / `return` that is not the last command; inside `( … )` it ends only the
 * subshell); `coproc node test.js` → `{operator: "unreadable", word: "coproc", …}`.
 */
export function exitStatusMaskedBy(command: string): MaskedExitStatus | null {
  return maskedByAt(command, 0, { pipefail: false, errexit: false });
}

/**
 * Masking inside one segment's own text: a leading `!`, a compound command, a `( … )`
 * subshell, a `{ …` group opener, or a (wrapped) `sh -c` / `eval` script, read
 * recursively; a computed script is unreadable.
 */
function maskedInside(raw: string, depth: number): MaskedExitStatus | null {
  const text = normalizeShellCommand(raw);
  if (NEGATED.test(text)) return { operator: "!", command: text };
  const compound = COMPOUND.exec(text);
  if (compound !== null) {
    const keyword = compound[1] as string;
    const rest = compound[2] as string; // `text` is whitespace-collapsed: nothing to trim
    if (keyword === "if" || keyword === "while" || keyword === "until") {
      return { operator: keyword, command: rest };
    }
    if (keyword === "for") return { operator: "for", command: text };
    return { operator: "unreadable", command: text, word: keyword };
  }
  let inner: string | undefined = SUBSHELL.exec(raw)?.[1] ?? BRACE_GROUP.exec(raw)?.[1];
  let options: ScriptOptions = { pipefail: false, errexit: false };
  if (inner === undefined) {
    const words = shellWords(raw);
    const wrapped = wrappedCommand(words);
    if (wrapped.kind === "plain") return maskedBySubstitution(words, text, depth);
    if (wrapped.kind === "unreadable") {
      return { operator: "unreadable", command: text, word: wrapped.word };
    }
    inner = wrapped.script;
    options = wrapped.options;
  }
  if (depth >= MAX_NESTING) return { operator: "nesting", command: text };
  return maskedByAt(inner, depth + 1, options);
}

/**
 * A command substitution whose status is lost: one in a command's arguments or
 * redirections (`echo $(make)`, `go test $(go list ./...)`: the command's own status is
 * the result), or one of several in an assignment-only command (`A=$(a) B=$(b)`: only
 * the last counts). The single substitution of an assignment-only command (`V=$(make)`)
 * is its status: its body is read recursively.
 */
function maskedBySubstitution(
  words: readonly ShellWord[],
  text: string,
  depth: number,
): MaskedExitStatus | null {
  const assignmentsOnly = words.every((word) => isAssignmentWord(word.raw));
  const found = words.flatMap((word) =>
    commandSubstitutions(word.raw).map((body) => ({ word: word.raw, body })),
  );
  if (found.length === 0) return null;
  const first = found[0] as { word: string; body: string };
  if (!assignmentsOnly || found.length > 1) {
    return { operator: "substitution", command: text, word: first.word };
  }
  if (depth >= MAX_NESTING) return { operator: "nesting", command: text };
  return maskedByAt(first.body, depth + 1, { pipefail: false, errexit: false });
}

/** The segments `from..to` joined back into one command (`{ make; }`, `a && b`). */
function joinSegments(segments: readonly ShellSegment[], from: number, to: number): string {
  let text = "";
  for (let m = from; m <= to; m++) {
    const seg = segments[m] as ShellSegment;
    text += seg.text;
    if (m < to) text += seg.op === ";" || seg.op === "\n" ? "; " : ` ${seg.op} `;
  }
  return text;
}

/** Index of the segment that opens the `{ …; }` group closed by segment `close`. */
function groupStart(segments: readonly ShellSegment[], close: number): number {
  let depth = 0;
  for (let m = close; m >= 0; m--) {
    const text = (segments[m] as ShellSegment).text;
    if (CLOSES_GROUP.test(text)) depth++;
    if (OPENS_GROUP.test(text)) {
      depth--;
      if (depth <= 0) return m;
    }
  }
  return close;
}

/** Index of the first segment of the `a && b && …` list that ends at segment `k`. */
function andListStart(segments: readonly ShellSegment[], k: number): number {
  let m = k;
  while (m > 0 && (segments[m - 1] as ShellSegment).op === "&&") m--;
  return m;
}

/** Segment `k` as a command: a `}` stands for its whole group, `{ x` for `x`. */
function commandText(segments: readonly ShellSegment[], k: number): string {
  const text = (segments[k] as ShellSegment).text;
  if (CLOSES_GROUP.test(text)) return joinSegments(segments, groupStart(segments, k), k);
  if (OPENS_GROUP.test(text)) return text.slice(2);
  return text;
}

/** Whether segment `k` runs only after `&&` (`a && exit 0`): then the `;` rule reports it. */
function listedExit(segments: readonly ShellSegment[], k: number): boolean {
  return segments[k - 1]?.op === "&&";
}

function maskedByAt(
  command: string,
  depth: number,
  initial: ScriptOptions,
): MaskedExitStatus | null {
  const raws = splitRaw(command);
  const segments = raws.map((seg) => ({ text: normalizeShellCommand(seg.raw), op: seg.op }));
  const states = statesAfter(segments, initial);
  for (const [k, seg] of segments.entries()) {
    const inside = maskedInside((raws[k] as RawSegment).raw.trim(), depth);
    if (inside !== null) return inside;
    const op = seg.op;
    // `exit 0; node test.js`: the script ends (status 0) before the next command runs.
    if (isExit(seg.text) && segments[k - 1]?.op !== "||" && op !== "|" && op !== "||") {
      const skipped = laterCommand(segments, k);
      if (skipped !== undefined && !(listedExit(segments, k) && op !== "&&")) {
        return { operator: "exit", command: seg.text.replace(/^\{ /, ""), skipped };
      }
    }
    // A `set …` or `exit` that ends an `a && set -e` list only runs when `a` passed, so
    // the `;` after it can still discard `a`'s failure.
    const listed = segments[k - 1]?.op === "&&";
    if (op === null || op === "&&" || (SET_COMMAND.test(seg.text) && op !== "|" && !listed)) {
      continue;
    }
    const state = states[k] as ShellState;
    if (op === "||") {
      const from = andListStart(segments, k);
      const list =
        from === k ? commandText(segments, k) : joinSegments(segments, from, k).replace(/^\{ /, "");
      return { operator: op, command: list, fallback: (segments[k + 1] as ShellSegment).text };
    }
    if (op === "&") return { operator: op, command: commandText(segments, k) };
    if (op === "|") {
      if (!state.pipefail) return { operator: op, command: commandText(segments, k) };
      continue;
    }
    // `exit` / `return` end the script: nothing after them runs.
    if (!commandFollows(segments, k) || (EXITS.test(seg.text) && !listed)) continue;
    if (!state.errexit) {
      const from = andListStart(segments, k);
      const list =
        from === k ? commandText(segments, k) : joinSegments(segments, from, k).replace(/^\{ /, "");
      return { operator: op, command: list };
    }
    if (segments[k - 1]?.op === "&&") {
      const list = joinSegments(segments, andListStart(segments, k), k).replace(/^\{ /, "");
      return { operator: op, command: list, andList: true };
    }
  }
  return null;
}

/**
 * The report a host-run shell command yields as evidence, A3S §2.13
 * `shell_verification_report_for_command` with docs/design.md §3's masking rule:
 * the first of `candidates` (preset commands in preset order, then ACCEPTANCE commands)
 * that `command` covers (`shellCommandCoversPreset`) is matched; none → `null`.
 * The report has subject `"shell:{matched.id}"`, one check from `checkFromExecution`, and
 * no `effect_digest` (shell evidence never closes the gate by itself). When the command
 * ran (`executionError` absent) but `exitStatusMasked(command, matched.command)`, the check
 * becomes `needs_review` with residual risk `"exit status masked"` whatever the exit code.
 * Throws `TurngateValidationError` for a non-string command (`command`), a malformed
 * candidate (`candidates.N.field`), a non-integer exit code or non-string error.
 */
export function shellEvidenceReport(
  command: string,
  exitCode: number,
  candidates: readonly VerificationCommandInput[],
  metadata?: unknown,
  executionError?: string | null,
): VerificationReport | null {
  if (typeof command !== "string") {
    throw new TurngateValidationError("shell evidence", [
      { path: "command", message: "expected a string" },
    ]);
  }
  if (!Array.isArray(candidates)) {
    throw new TurngateValidationError("shell evidence", [
      { path: "candidates", message: "expected an array" },
    ]);
  }
  const parsed = candidates.map((c, i) => parseVerificationCommand(c, `candidates.${i}`));
  const matched = parsed.find((c) => shellCommandCoversPreset(command, c.command));
  if (matched === undefined) return null;
  const check = checkFromExecution(matched, exitCode, metadata, executionError);
  const ran = executionError === undefined || executionError === null;
  if (ran && exitStatusMasked(command, matched.command)) {
    check.status = "needs_review";
    check.residual_risk = EXIT_STATUS_MASKED_RISK;
  }
  return createReport(`shell:${matched.id}`, [check]);
}
