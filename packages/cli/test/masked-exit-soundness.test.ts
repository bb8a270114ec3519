/**
 * Issue 10 (shellenv): soundness of the masked-exit rule against the real shell. For
 * random commands built from a failing and a passing program, wrappers, list operators,
 * groups, `if`, `!`, `set ±e`, `trap`, command substitutions, `eval` and nested `sh -c` /
 * `bash -o pipefail -c` scripts: whenever
 * `exitStatusMaskedBy` calls a command unmasked, running it in bash never exits 0 after
 * the failing program ran. (The converse does not hold: the rule is conservative.)
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exitStatusMaskedBy } from "@turngate/core";
import fc from "fast-check";
import { afterAll, describe, expect, test } from "vitest";
import { testTimeout } from "../../../test-time.js";

const dir = realpathSync(mkdtempSync(join(tmpdir(), "turngate-sound-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const log = join(dir, "log");
for (const [name, code] of [
  ["ok", 0],
  ["ko", 1],
] as const) {
  writeFileSync(join(dir, name), `#!/bin/sh\necho ${name} >> "${log}"\nexit ${code}\n`);
  chmodSync(join(dir, name), 0o755);
}
const bash = execFileSync("sh", ["-c", "command -v bash"]).toString().trim();
const quote = (script: string) => `'${script.replace(/'/g, "'\\''")}'`;

const WRAPPERS = [
  "env X=1 ",
  "nice -n 1 ",
  "nohup ",
  "timeout 10 ",
  "stdbuf -oL ",
  "command ",
  "time -p ",
  "env -i PATH=$PATH ",
];

const command: fc.Arbitrary<string> = fc.letrec<{ cmd: string }>((tie) => ({
  cmd: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("ok", "ko"),
    fc
      .tuple(tie("cmd"), fc.constantFrom(" && ", " || ", "; ", " | ", "\n"), tie("cmd"))
      .map(([a, op, b]) => `${a}${op}${b}`),
    tie("cmd").map((a) => `( ${a} )`),
    tie("cmd").map((a) => `{ ${a}; }`),
    tie("cmd").map((a) => `! ${a}`),
    fc.tuple(tie("cmd"), tie("cmd")).map(([a, b]) => `if ${a}; then ${b}; fi`),
    fc.tuple(fc.constantFrom(...WRAPPERS), tie("cmd")).map(([w, a]) => `${w}sh -c ${quote(a)}`),
    tie("cmd").map((a) => `bash -o pipefail -c ${quote(a)}`),
    tie("cmd").map((a) => `bash -e -c ${quote(a)}`),
    tie("cmd").map((a) => `set -o pipefail; ${a}`),
    tie("cmd").map((a) => `set -e; ${a}`),
    tie("cmd").map((a) => `set +e; ${a}`),
    tie("cmd").map((a) => `trap "exit 0" EXIT; ${a}`),
    tie("cmd").map((a) => `echo $(${a})`),
    tie("cmd").map((a) => `V=$(${a})`),
    fc.tuple(tie("cmd"), tie("cmd")).map(([a, b]) => `A=$(${a}) B=$(${b})`),
    tie("cmd").map((a) => `eval ${quote(a)}`),
    tie("cmd").map((a) => `exec sh -c ${quote(a)}`),
    fc
      .tuple(tie("cmd"), fc.constantFrom("set -e", "set -o pipefail", "exit 0"), tie("cmd"))
      .map(([a, set, b]) => `${a} && ${set}; ${b}`),
  ),
})).cmd;

describe("masked exit status: soundness against bash", () => {
  test("an unmasked command never exits 0 after a failing program ran", () => {
    fc.assert(
      fc.property(command, (cmd) => {
        if (exitStatusMaskedBy(cmd) !== null) return;
        writeFileSync(log, "");
        const run = spawnSync(bash, ["-c", cmd], {
          cwd: dir,
          env: { PATH: `${dir}:${process.env.PATH}` },
          stdio: "ignore",
          timeout: testTimeout(10_000),
        });
        const ran = readFileSync(log, "utf8").split("\n");
        expect([cmd, run.status === 0 && ran.includes("ko")]).toEqual([cmd, false]);
      }),
      { numRuns: 400, seed: 20261201 },
    );
  });
});
