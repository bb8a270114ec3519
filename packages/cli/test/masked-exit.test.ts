/**
 * Issue 10 (shellenv): a table of check commands → the exact status of the check when it
 * really runs (bash, the checks' default shell, in a temporary folder) and the exact
 * explanation `turngate run` prints for it.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runVerificationCommand } from "@turngate/node";
import { afterAll, describe, expect, test } from "vitest";
import { maskedExitExplanation } from "../src/masked-exit.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "turngate-masked-")));
writeFileSync(join(dir, "x"), "false; true\n");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const bash = execFileSync("sh", ["-c", "command -v bash"]).toString().trim();

const MASKED = "exit status masked";
const CANNOT = "exit status cannot be verified";
const JOIN = "join commands with && or use set -e";
const DROP_OR = "drop the `|| …` fallback so a failure fails the check";
const PIPEFAIL = "run set -o pipefail first (set -o pipefail && …)";
const WRITE_OUT =
  "write the script out in the check, or put it in a script file the check runs (sh ./ci.sh)";

/** [command, status when run, explanation]. */
const TABLE: [string, "passed" | "failed" | "needs_review", string | null][] = [
  ["true", "passed", null],
  ["false", "failed", null],
  ["true && true", "passed", null],
  [
    "false || true",
    "needs_review",
    `${MASKED} (\`||\` runs \`true\` when \`false\` fails, so the check ends with the exit status of \`true\`): ${DROP_OR}`,
  ],
  [
    "true && false || true",
    "needs_review",
    `${MASKED} (\`||\` runs \`true\` when \`true && false\` fails, so the check ends with the exit status of \`true\`): ${DROP_OR}`,
  ],
  [
    "{ false; }; true",
    "needs_review",
    `${MASKED} (\`;\` discards the exit status of \`{ false; }\`): ${JOIN}`,
  ],
  [
    "if false; then echo ok; fi",
    "needs_review",
    `${MASKED} (\`if … then\` uses the exit status of \`false\` to choose a branch, so its failure does not fail the check): run \`false\` as the check itself (\`false && …\`) instead of testing it with \`if\``,
  ],
  [
    "while false; do :; done",
    "needs_review",
    `${MASKED} (\`while … do\` uses the exit status of \`false\` as the loop condition, so its failure ends the loop, not the check): run the command as a check of its own, outside the loop`,
  ],
  [
    "for f in 1 2; do test $f = 2; done",
    "needs_review",
    `${MASKED} (\`for … do … done\` keeps only the exit status of the last iteration of \`for f in 1 2\`): list the commands joined with && instead of looping`,
  ],
  [
    "case a in a) true;; esac",
    "needs_review",
    `${CANNOT} (turngate does not read the exit status of a \`case\` command (\`case a in a) true\`)): write the commands out joined with &&, or put them in a script file the check runs (sh ./ci.sh)`,
  ],
  [
    "set -e; false && true; true",
    "needs_review",
    `${MASKED} (\`set -e\` does not stop at a failure inside \`false && true\`, and \`;\` runs the next command anyway): join all the commands with && (a && b && c)`,
  ],
  [
    "false | cat",
    "needs_review",
    `${MASKED} (a pipe keeps only the last command's exit status, not that of \`false\`): ${PIPEFAIL}`,
  ],
  ["set -o pipefail && false | cat", "failed", null],
  [
    "bash -o pipefail -c 'false || true'",
    "needs_review",
    `${MASKED} (\`||\` runs \`true\` when \`false\` fails, so the check ends with the exit status of \`true\`): ${DROP_OR}`,
  ],
  ["bash -o pipefail -c 'false | cat'", "failed", null],
  [
    "bash -ec 'false && true; true'",
    "needs_review",
    `${MASKED} (\`set -e\` does not stop at a failure inside \`false && true\`, and \`;\` runs the next command anyway): join all the commands with && (a && b && c)`,
  ],
  ["bash -ec 'false; true'", "failed", null],
  [
    "sh -xc 'false; true'",
    "needs_review",
    `${MASKED} (\`;\` discards the exit status of \`false\`): ${JOIN}`,
  ],
  [
    "env X=1 sh -c 'false; true'",
    "needs_review",
    `${MASKED} (\`;\` discards the exit status of \`false\`): ${JOIN}`,
  ],
  ["env X=1 sh -c 'exit 1; true'", "failed", null],
  [
    "nice -n 5 nohup stdbuf -oL timeout -k 1 5 sh -c 'false | cat'",
    "needs_review",
    `${MASKED} (a pipe keeps only the last command's exit status, not that of \`false\`): ${PIPEFAIL}`,
  ],
  [
    "time -p command exec dash -c '! false'",
    "needs_review",
    `${MASKED} (\`!\` inverts the exit status in \`! false\`): drop the leading \`!\``,
  ],
  [
    'timeout 5 sh -c "$(cat x)"',
    "needs_review",
    `${CANNOT} (\`"$(cat x)"\` in \`timeout 5 sh -c "$(cat x)"\` is computed when the check runs, so turngate cannot read what it runs): ${WRITE_OUT}`,
  ],
  // Unquoted, the substitution is split into words: `sh -c 'false;' true` fails; still
  // never passed, and the explanation names the computed word.
  [
    "sh -c `cat x`",
    "failed",
    `${CANNOT} (\`\`cat x\`\` in \`sh -c \`cat x\`\` is computed when the check runs, so turngate cannot read what it runs): ${WRITE_OUT}`,
  ],
  [
    'S=$(cat x) && eval "$S"',
    "needs_review",
    `${CANNOT} (\`"$S"\` in \`eval "$S"\` is computed when the check runs, so turngate cannot read what it runs): ${WRITE_OUT}`,
  ],
  [
    'V="false; true" && sh -c "$V"',
    "needs_review",
    `${CANNOT} (\`"$V"\` in \`sh -c "$V"\` is computed when the check runs, so turngate cannot read what it runs): ${WRITE_OUT}`,
  ],
  [
    "echo $(false)",
    "needs_review",
    `${MASKED} (the exit status of the command substitution in \`$(false)\` is discarded: \`echo $(false)\` ends with the status of the command that uses it): run it first and stop on failure (V="$(…)" && cmd "$V")`,
  ],
  ["V=$(false)", "failed", null],
  [
    'set -e; trap "exit 0" EXIT; false',
    "needs_review",
    `${CANNOT} (turngate does not read the exit status of a \`trap\` command (\`trap "exit 0" EXIT\`)): write the commands out joined with &&, or put them in a script file the check runs (sh ./ci.sh)`,
  ],
  [
    "set -e; set +e; false; true",
    "needs_review",
    `${MASKED} (\`;\` discards the exit status of \`false\`): ${JOIN}`,
  ],
  // Security report item 3: an exit before the real command, and coproc.
  [
    "exit 0; false",
    "needs_review",
    `${MASKED} (\`exit 0\` ends the script before \`false\` runs): drop the \`exit\` (or make it the last command)`,
  ],
  [
    "set -e; { exit 0; }; false",
    "needs_review",
    `${MASKED} (\`exit 0\` ends the script before \`false\` runs): drop the \`exit\` (or make it the last command)`,
  ],
  [
    "coproc false",
    "needs_review",
    `${CANNOT} (turngate does not read the exit status of a \`coproc\` command (\`coproc false\`)): write the commands out joined with &&, or put them in a script file the check runs (sh ./ci.sh)`,
  ],
  // Interpreter programs are opaque by design: their own status is the check's.
  ["python3 -c 'import sys; sys.exit(1)'", "failed", null],
  ["python3 -c 'import sys; sys.exit(0)'", "passed", null],
  ["node -e 'process.exit(0)'", "passed", null],
];

describe("masked exit status: commands → status when run → explanation", () => {
  test.each(TABLE)("%s → %s", async (command, status, explanation) => {
    const run = await runVerificationCommand(
      {
        id: "c",
        kind: "command",
        description: command,
        command,
        required: true,
        expect_exit: 0,
        timeout_ms: 10_000,
      },
      { root: dir, shell: bash },
    );
    expect(run.check.status).toBe(status);
    expect(maskedExitExplanation(command)).toBe(explanation);
    if (status === "needs_review") {
      expect(run.check.residual_risk).toBe(explanation?.startsWith(CANNOT) ? CANNOT : MASKED);
    }
  });

  test("the pipe fix for a shell without pipefail names it", () => {
    expect(maskedExitExplanation("false | cat", { name: "dash", pipefail: false })).toBe(
      `${MASKED} (a pipe keeps only the last command's exit status, not that of \`false\`): dash has no pipefail: redirect instead of piping (cmd > log 2>&1), or set "shell": "bash" in turngate.config.json`,
    );
  });
});
