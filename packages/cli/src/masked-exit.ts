import { EXIT_STATUS_MASKED_RISK, exitStatusMaskedBy, type MaskedExitStatus } from "@turngate/core";

type MaskingOperator = MaskedExitStatus["operator"];

const WHY: Record<MaskingOperator, (command: string) => string> = {
  ";": (c) => `\`;\` discards the exit status of \`${c}\``,
  "\n": (c) => `a line break discards the exit status of \`${c}\``,
  "||": (c) => `\`||\` turns a failure of \`${c}\` into success`,
  "|": (c) => `a pipe keeps only the last command's exit status, not that of \`${c}\``,
  "&": (c) => `\`&\` runs \`${c}\` in the background, so its exit status is lost`,
  "!": (c) => `\`!\` inverts the exit status in \`${c}\``,
  nesting: (c) => `\`${c}\` nests subshells or scripts too deep to read its exit status`,
};

const FIX: Record<MaskingOperator, string> = {
  ";": "join commands with && or use set -e",
  "\n": "join commands with && or use set -e",
  "||": "drop the `|| …` fallback so a failure fails the check",
  "|": "run set -o pipefail first (set -o pipefail && …)",
  "&": "run the command in the foreground (drop the `&`)",
  "!": "drop the leading `!`",
  nesting: "flatten the command",
};

/**
 * The explanation shown for a check whose residual risk is `exit status masked` (core's
 * `EXIT_STATUS_MASKED_RISK`): the risk, what masks it and how to fix the command, e.g.
 * for `sleep 1; npm test`:
 * "exit status masked (`;` discards the exit status of `sleep 1`): join commands with && or use set -e".
 * Input: the check's shell command. Output: the text, or `null` when the command is not
 * masked (core's `exitStatusMaskedBy` is null).
 */
export function maskedExitExplanation(command: string): string | null {
  const masked = exitStatusMaskedBy(command);
  if (masked === null) return null;
  return `${EXIT_STATUS_MASKED_RISK} (${WHY[masked.operator](masked.command)}): ${FIX[masked.operator]}`;
}
