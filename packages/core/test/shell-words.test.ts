/**
 * Issue 10, "masked exit status through wrappers": the words of a simple command, the
 * wrappers looked through to the script they run, and exitStatusMaskedBy on wrapped and
 * unreadable commands.
 */
import { describe, expect, test } from "vitest";
import {
  commandSubstitutions,
  exitStatusMasked,
  exitStatusMaskedBy,
  shellWords,
  wrappedCommand,
} from "../src/index.js";

const off = { pipefail: false, errexit: false };

describe("shellWords", () => {
  test("quote removal, escapes and computed words", () => {
    expect(shellWords(`a 'b c' "d \\"e\\" \\$f" g\\ h $x "$(cat x)" \`y\` \${z} $'q'`)).toEqual([
      { raw: "a", value: "a" },
      { raw: "'b c'", value: "b c" },
      { raw: `"d \\"e\\" \\$f"`, value: 'd "e" $f' },
      { raw: "g\\ h", value: "g h" },
      { raw: "$x", value: null },
      { raw: `"$(cat x)"`, value: null },
      { raw: "`y`", value: null },
      { raw: "$" + "{z}", value: null },
      { raw: "$'q'", value: null },
    ]);
    expect(shellWords("sh -c $(printf '%s' 'a b') 2>&1")).toEqual([
      { raw: "sh", value: "sh" },
      { raw: "-c", value: "-c" },
      { raw: "$(printf '%s' 'a b')", value: null },
      { raw: "2>&1", value: "2>&1" },
    ]);
    expect(shellWords("  ")).toEqual([]);
    expect(shellWords("echo '$HOME' cost$")).toEqual([
      { raw: "echo", value: "echo" },
      { raw: "'$HOME'", value: "$HOME" },
      { raw: "cost$", value: "cost$" },
    ]);
  });
});

describe("commandSubstitutions", () => {
  test("bodies of $(…) and backticks outside single quotes; arithmetic is not one", () => {
    expect(commandSubstitutions(`a$(b c)d`)).toEqual(["b c"]);
    expect(commandSubstitutions(`"x $(y "$(z)") \`w\`"`)).toEqual([`y "$(z)"`, "w"]);
    expect(commandSubstitutions(`'$(no)' $((1+2)) \\$(no)`)).toEqual([]);
    // Found by the soundness property test: a substitution that starts with a subshell.
    expect(commandSubstitutions("$(( ok ) && ok)")).toEqual(["( ok ) && ok"]);
    expect(commandSubstitutions("$(( echo $(ko) ))")).toEqual(["( echo $(ko) )"]);
  });
});

describe("wrappedCommand", () => {
  const of = (command: string) => wrappedCommand(shellWords(command));

  test("wrappers with their options are looked through to the script", () => {
    const table: [string, string][] = [
      ["env X=1 sh -c 'exit 1; true'", "exit 1; true"],
      ["env -i -u HOME --chdir=/tmp A=b sh -c 'a'", "a"],
      ["env -C /tmp -- sh -c 'a'", "a"],
      ["nice sh -c 'a'", "a"],
      ["nice -n 10 sh -c 'a'", "a"],
      ["nice -10 sh -c 'a'", "a"],
      ["nice --adjustment=5 sh -c 'a'", "a"],
      ["ionice -c 3 -n 7 -t sh -c 'a'", "a"],
      ["ionice -c3 sh -c 'a'", "a"],
      ["nohup sh -c 'a'", "a"],
      ["time sh -c 'a'", "a"],
      ["time -p sh -c 'a'", "a"],
      ["/usr/bin/time -v -o t.log -f %e sh -c 'a'", "a"],
      ["timeout 5 sh -c 'a'", "a"],
      ["timeout -s KILL -k 2s 5m sh -c 'a'", "a"],
      ["timeout --signal=TERM --kill-after 3 --preserve-status 10 sh -c 'a'", "a"],
      ["timeout -sKILL 5 sh -c 'a'", "a"],
      ["stdbuf -oL -e0 sh -c 'a'", "a"],
      ["stdbuf --output=L --input 0 sh -c 'a'", "a"],
      ["command sh -c 'a'", "a"],
      ["command -p sh -c 'a'", "a"],
      ["exec sh -c 'a'", "a"],
      ["exec -a name -c sh -c 'a'", "a"],
      ["X=1 Y='2 3' >log 2>&1 /usr/bin/env nice timeout 1 /bin/bash -c 'a'", "a"],
      ["env -S 'sh -c \"a; b\"'", "a; b"],
      ["env -S'sh -c a'", "a"],
      ["eval 'a || b'", "a || b"],
      ["eval a '||' b", "a || b"],
    ];
    for (const [command, script] of table) {
      expect([command, of(command)]).toEqual([command, { kind: "script", script, options: off }]);
    }
  });

  test("shell options before -c apply inside the script", () => {
    expect(of("bash -o pipefail -c 'a | b'")).toEqual({
      kind: "script",
      script: "a | b",
      options: { pipefail: true, errexit: false },
    });
    expect(of("bash -ec 'a; b'")).toEqual({
      kind: "script",
      script: "a; b",
      options: { pipefail: false, errexit: true },
    });
    expect(of("sh -xc 'a'")).toEqual({ kind: "script", script: "a", options: off });
    expect(of("bash -e +e -o errexit --norc --rcfile f -c 'a' name arg")).toEqual({
      kind: "script",
      script: "a",
      options: { pipefail: false, errexit: true },
    });
    expect(of("zsh -o pipefail -e -c 'a'")).toEqual({
      kind: "script",
      script: "a",
      options: { pipefail: true, errexit: true },
    });
    expect(of("dash -c 'a'")).toEqual({ kind: "script", script: "a", options: off });
  });

  test("computed scripts and programs are unreadable", () => {
    const table: [string, string][] = [
      ['sh -c "$(cat x)"', '"$(cat x)"'],
      ['timeout 5 sh -c "$(cat x)"', '"$(cat x)"'],
      ['sh -c "$VAR"', '"$VAR"'],
      ["bash -c `cat x`", "`cat x`"],
      ['eval "$cmd"', '"$cmd"'],
      ["eval echo $x", "$x"],
      ["`cat x`", "`cat x`"],
      ["$(cat cmd.txt)", "$(cat cmd.txt)"],
      ["env $RUNNER test", "$RUNNER"],
      ['env -S "$X"', '"$X"'],
    ];
    for (const [command, word] of table) {
      expect([command, of(command)]).toEqual([command, { kind: "unreadable", word }]);
    }
  });

  test("plain commands, interpreter programs and script files are not looked into", () => {
    for (const command of [
      "cargo test",
      "python -c 'import sys; sys.exit(0)'",
      "node -e 'process.exit(0)'",
      "bash ci.sh",
      "sh -s",
      "command -v sh -c 'a; b'",
      "timeout 5",
      "X=1",
      "echo sh -c 'a; b'",
      "cargo test --jobs $(nproc)",
    ]) {
      expect([command, of(command)]).toEqual([command, { kind: "plain" }]);
    }
  });
});

describe("exitStatusMaskedBy through wrappers and compound commands", () => {
  test("a table of commands and what loses their status", () => {
    const table: [string, unknown][] = [
      [
        "bash -o pipefail -c 'false || true'",
        { operator: "||", command: "false", fallback: "true" },
      ],
      ["env X=1 sh -c 'false; true'", { operator: ";", command: "false" }],
      ["env X=1 sh -c 'exit 1; true'", null],
      ["nice -n 5 bash -c 'make | tee log'", { operator: "|", command: "make" }],
      ["bash -o pipefail -c 'make | tee log'", null],
      ["bash -ec 'make; make test'", null],
      ["bash -ec 'a && b; c'", { operator: ";", command: "a && b", andList: true }],
      ["sh -xc 'make; true'", { operator: ";", command: "make" }],
      ["timeout 60 nohup stdbuf -oL sh -c 'make &'", { operator: "&", command: "make" }],
      ["command exec sh -c '! make'", { operator: "!", command: "! make" }],
      [
        'timeout 5 sh -c "$(cat x)"',
        { operator: "unreadable", command: 'timeout 5 sh -c "$(cat x)"', word: '"$(cat x)"' },
      ],
      ["make && `cat x`", { operator: "unreadable", command: "`cat x`", word: "`cat x`" }],
      ['eval "$var"', { operator: "unreadable", command: 'eval "$var"', word: '"$var"' }],
      ["a && b || c", { operator: "||", command: "a && b", fallback: "c" }],
      ["{ make; }; true", { operator: ";", command: "{ make; }" }],
      ["{ a && b; } || true", { operator: "||", command: "{ a && b; }", fallback: "true" }],
      ["if make; then echo ok; fi", { operator: "if", command: "make" }],
      ["while make; do :; done", { operator: "while", command: "make" }],
      ["until make; do :; done", { operator: "until", command: "make" }],
      ["for d in a b; do make -C $d; done", { operator: "for", command: "for d in a b" }],
      [
        "case x in x) make;; esac",
        { operator: "unreadable", command: "case x in x) make", word: "case" },
      ],
      [
        "python -c 'import sys; sys.exit(1)' || true",
        {
          operator: "||",
          command: "python -c 'import sys; sys.exit(1)'",
          fallback: "true",
        },
      ],
      ["python -c 'import sys; sys.exit(1); print(1)'", null],
      ["exit 3; true", null],
      // Found by the soundness property test: a `set`/`exit` after `&&` runs only when the
      // list before it passed, so the `;` still discards that list's failure.
      ["false && set -o pipefail; true", { operator: ";", command: "false && set -o pipefail" }],
      ["false && exit 0; true", { operator: ";", command: "false && exit 0" }],
      ["a && b; c", { operator: ";", command: "a && b" }],
      ["set -e; set +e; false; true", { operator: ";", command: "false" }],
      [
        'set -e; trap "exit 0" EXIT; false',
        {
          operator: "unreadable",
          command: 'trap "exit 0" EXIT',
          word: "trap",
        },
      ],
      ["echo $(false)", { operator: "substitution", command: "echo $(false)", word: "$(false)" }],
      [
        "go test $(go list ./...)",
        {
          operator: "substitution",
          command: "go test $(go list ./...)",
          word: "$(go list ./...)",
        },
      ],
      [
        "make > `mktemp`",
        { operator: "substitution", command: "make > `mktemp`", word: "`mktemp`" },
      ],
      ["V=$(false || true)", { operator: "||", command: "false", fallback: "true" }],
      [
        "A=$(false) B=$(true)",
        { operator: "substitution", command: "A=$(false) B=$(true)", word: "A=$(false)" },
      ],
      ['V=$(make) && test -n "$V"', null],
      ["echo $((1 + 2)) '$(x)'", null],
    ];
    for (const [command, expected] of table) {
      expect([command, exitStatusMaskedBy(command)]).toEqual([command, expected]);
      expect([command, exitStatusMasked(command)]).toEqual([command, expected !== null]);
    }
  });
});
