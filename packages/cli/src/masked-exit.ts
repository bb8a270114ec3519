import {
  EXIT_STATUS_MASKED_RISK,
  EXIT_STATUS_UNVERIFIABLE_RISK,
  exitStatusMaskedBy,
  type MaskedExitStatus,
} from "@turngate/core";

/** The shell the checks run with, as far as the hint needs it. */
export interface HintShell {
  /** The shell's program name (`bash`, `sh`, `dash`). */
  name: string;
  /** Whether `set -o pipefail` works in it (probed at baseline time). */
  pipefail: boolean;
}

/** Where bash stands by default: checks run with bash when it is on PATH. */
const DEFAULT_SHELL: HintShell = { name: "bash", pipefail: true };

const q = (text: string) => `\`${text}\``;

function why(m: MaskedExitStatus): string {
  const c = q(m.command);
  switch (m.operator) {
    case ";":
    case "\n": {
      const sep = m.operator === ";" ? "`;`" : "a line break";
      if (m.andList) {
        return `\`set -e\` does not stop at a failure inside ${c}, and ${sep} runs the next command anyway`;
      }
      return m.operator === ";"
        ? `\`;\` discards the exit status of ${c}`
        : `a line break discards the exit status of ${c}`;
    }
    case "||":
      return `\`||\` runs ${q(m.fallback ?? "")} when ${c} fails, so the check ends with the exit status of ${q(m.fallback ?? "")}`;
    case "|":
      return `a pipe keeps only the last command's exit status, not that of ${c}`;
    case "&":
      return `\`&\` runs ${c} in the background, so its exit status is lost`;
    case "!":
      return `\`!\` inverts the exit status in ${c}`;
    case "if":
      return `\`if … then\` uses the exit status of ${c} to choose a branch, so its failure does not fail the check`;
    case "while":
    case "until":
      return `\`${m.operator} … do\` uses the exit status of ${c} as the loop condition, so its failure ends the loop, not the check`;
    case "for":
      return `\`for … do … done\` keeps only the exit status of the last iteration of ${c}`;
    case "substitution":
      return `the exit status of the command substitution in ${q(m.word ?? "")} is discarded: ${c} ends with the status of the command that uses it`;
    case "unreadable":
      if (m.word !== undefined && /^[a-z]+$/.test(m.word)) {
        return `turngate does not read the exit status of a \`${m.word}\` command (${c})`;
      }
      return `${q(m.word ?? "")} in ${c} is computed when the check runs, so turngate cannot read what it runs`;
    case "exit":
      return `${c} ends the script before ${q(m.skipped ?? "")} runs`;
    case "nesting":
      return `${c} nests subshells or scripts too deep to read its exit status`;
  }
}

function fix(m: MaskedExitStatus, shell: HintShell): string {
  switch (m.operator) {
    case ";":
    case "\n":
      return m.andList
        ? "join all the commands with && (a && b && c)"
        : "join commands with && or use set -e";
    case "||":
      return "drop the `|| …` fallback so a failure fails the check";
    case "|":
      return shell.pipefail
        ? "run set -o pipefail first (set -o pipefail && …)"
        : `${shell.name} has no pipefail: redirect instead of piping (cmd > log 2>&1), or set "shell": "bash" in turngate.config.json`;
    case "&":
      return "run the command in the foreground (drop the `&`)";
    case "!":
      return "drop the leading `!`";
    case "if":
      return `run ${q(m.command)} as the check itself (${q(`${m.command} && …`)}) instead of testing it with \`if\``;
    case "while":
    case "until":
      return "run the command as a check of its own, outside the loop";
    case "for":
      return "list the commands joined with && instead of looping";
    case "substitution":
      return 'run it first and stop on failure (V="$(…)" && cmd "$V")';
    case "unreadable":
      if (m.word !== undefined && /^[a-z]+$/.test(m.word)) {
        return "write the commands out joined with &&, or put them in a script file the check runs (sh ./ci.sh)";
      }
      return "write the script out in the check, or put it in a script file the check runs (sh ./ci.sh)";
    case "exit":
      return "drop the `exit` (or make it the last command)";
    case "nesting":
      return "flatten the command";
  }
}

/**
 * The explanation shown for a check whose residual risk is `exit status masked` (core's
 * `EXIT_STATUS_MASKED_RISK`) or `exit status cannot be verified`
 * (`EXIT_STATUS_UNVERIFIABLE_RISK`): the risk, the construct that loses the status (named
 * as written: `if … then`, `a && b || c`, `{ …; }; true`, `sh -c "$(…)"`) and how to fix
 * the command, e.g. for `sleep 1; npm test`:
 * "exit status masked (`;` discards the exit status of `sleep 1`): join commands with && or use set -e".
 * The pipe fix is written for `shell` (default bash): a shell without pipefail (dash)
 * gets "dash has no pipefail: redirect instead of piping …".
 * Input: the check's shell command and the shell the checks run with. Output: the text,
 * or `null` when the command is not masked (core's `exitStatusMaskedBy` is null).
 */
export function maskedExitExplanation(
  command: string,
  shell: HintShell = DEFAULT_SHELL,
): string | null {
  const masked = exitStatusMaskedBy(command);
  if (masked === null) return null;
  const risk =
    masked.operator === "unreadable" ? EXIT_STATUS_UNVERIFIABLE_RISK : EXIT_STATUS_MASKED_RISK;
  return `${risk} (${why(masked)}): ${fix(masked, shell)}`;
}
