/**
 * The words of a simple command, the wrappers looked through, and the command
 * substitutions of a word (packages/core/src/reports/shell-words.ts), spelled out edge by
 * edge: where a quote, a substitution or an expansion ends, what an unterminated one
 * takes, and which option words each wrapper and shell reads (issue #11 §5: every
 * surviving mutant is killed here or listed in stryker/equivalent/shell-words.md).
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell text, where ${…} is a parameter expansion
import { describe, expect, test } from "vitest";
import {
  commandSubstitutions,
  exitStatusMasked,
  shellWords,
  wrappedCommand,
} from "../../src/index.js";

const off = { pipefail: false, errexit: false };
const word = (raw: string, value: string | null = raw) => ({ raw, value });
const of = (command: string) => wrappedCommand(shellWords(command));

describe("shellWords: where a substitution ends", () => {
  test("$(…) ends at its matching parenthesis, past escaped and quoted parentheses", () => {
    expect(shellWords("echo $(a \\) b) c")).toEqual([
      word("echo"),
      word("$(a \\) b)", null),
      word("c"),
    ]);
    expect(shellWords("echo $(a ')' b) c")).toEqual([
      word("echo"),
      word("$(a ')' b)", null),
      word("c"),
    ]);
    expect(shellWords('echo $(a ")" b) c')).toEqual([
      word("echo"),
      word('$(a ")" b)', null),
      word("c"),
    ]);
    expect(shellWords("echo $(a `)` b) c")).toEqual([
      word("echo"),
      word("$(a `)` b)", null),
      word("c"),
    ]);
  });

  test("$(…) starts at its own parenthesis, whatever stands before the $", () => {
    expect(shellWords('"x"$(y) z')).toEqual([word('"x"$(y)', null), word("z")]);
    expect(shellWords("$(a)$(b) c")).toEqual([word("$(a)$(b)", null), word("c")]);
  });

  test("an unterminated quote inside $(…) runs to the end", () => {
    expect(shellWords("echo $(a 'b")).toEqual([word("echo"), word("$(a 'b", null)]);
  });

  test("a backtick substitution ends at its first unescaped backtick", () => {
    expect(shellWords("`a \\` b` c")).toEqual([word("`a \\` b`", null), word("c")]);
  });
});

describe("shellWords: quotes, escapes and expansions", () => {
  test("an unterminated quote runs to the end", () => {
    expect(shellWords("echo 'a b")).toEqual([word("echo"), word("'a b", "a b")]);
    expect(shellWords('echo "a b')).toEqual([word("echo"), word('"a b', "a b")]);
  });

  test("a backslash-newline joins lines, quoted or not", () => {
    expect(shellWords("a\\\nb c")).toEqual([word("a\\\nb", "ab"), word("c")]);
    expect(shellWords('"a\\\nb" c')).toEqual([word('"a\\\nb"', "ab"), word("c")]);
  });

  test("in double quotes: backticks, $(…), ${…} and $x are computed; a lone $ or ( is a character", () => {
    expect(shellWords('"a`b`" c')).toEqual([word('"a`b`"', null), word("c")]);
    expect(shellWords('"a$(b)" c')).toEqual([word('"a$(b)"', null), word("c")]);
    expect(shellWords('"a(b" "cost$"')).toEqual([word('"a(b"', "a(b"), word('"cost$"', "cost$")]);
    expect(shellWords('"${x}" y')).toEqual([word('"${x}"', null), word("y")]);
    expect(shellWords('"$x" y')).toEqual([word('"$x"', null), word("y")]);
    expect(shellWords('"a $x b" c')).toEqual([word('"a $x b"', null), word("c")]);
  });

  test("unquoted: ( and { not after a $ are characters", () => {
    expect(shellWords("a(b a{b}")).toEqual([word("a(b"), word("a{b}")]);
  });

  test("$'…' ends at the next single quote; unterminated, it runs to the end", () => {
    expect(shellWords("$'ab c' d")).toEqual([word("$'ab c'", null), word("d")]);
    expect(shellWords("$'ab' c")).toEqual([word("$'ab'", null), word("c")]);
    expect(shellWords("echo $'ab c")).toEqual([word("echo"), word("$'ab c", null)]);
  });

  test("${…} ends at the first closing brace; unterminated, it runs to the end", () => {
    expect(shellWords("${x:-a b} c")).toEqual([word("${x:-a b}", null), word("c")]);
    expect(shellWords("x}${y} z")).toEqual([word("x}${y}", null), word("z")]);
    expect(shellWords("${x'} y")).toEqual([word("${x'}", null), word("y")]);
    expect(shellWords("echo ${x y")).toEqual([word("echo"), word("${x y", null)]);
  });
});

describe("wrappedCommand: redirections and wrapper options", () => {
  test("a lone redirection operator takes the next word as its target", () => {
    expect(of("> log sh -c 'a'")).toEqual({ kind: "script", script: "a", options: off });
    expect(of("nohup 2> err sh -c 'a'")).toEqual({ kind: "script", script: "a", options: off });
  });

  test("after -- the next word is the command, even when it looks like an option", () => {
    expect(of("env -- -S 'sh -c a'")).toEqual({ kind: "plain" });
  });

  test("a lone - is not an option: it is the program", () => {
    expect(of("nohup - sh -c 'a'")).toEqual({ kind: "plain" });
  });

  test("a wrapper with nothing after its options runs nothing readable", () => {
    for (const command of ["nice", "env -i", "env X=1", "env -S", "env --split-string"]) {
      expect([command, of(command)]).toEqual([command, { kind: "plain" }]);
    }
  });

  test("a short option that takes a value may come last in a cluster", () => {
    expect(of("env -iu HOME sh -c 'a'")).toEqual({ kind: "script", script: "a", options: off });
    expect(of("timeout -vs KILL 5 sh -c 'a'")).toEqual({
      kind: "script",
      script: "a",
      options: off,
    });
  });

  test("command's -v or -V anywhere in a cluster runs nothing", () => {
    expect(of("command -pv sh -c 'a'")).toEqual({ kind: "plain" });
    expect(of("command -V sh")).toEqual({ kind: "plain" });
  });

  test("only env reads NAME=VALUE words after its options", () => {
    expect(of("nice X=1 sh -c 'a'")).toEqual({ kind: "plain" });
    expect(of("env X=1 Y=2 sh -c 'a'")).toEqual({ kind: "script", script: "a", options: off });
  });

  test("env --split-string, with = or with the next word, splices its words in", () => {
    const table: [string, string][] = [
      ["env --split-string='sh -c a'", "a"],
      ["env --split-string 'sh -c a'", "a"],
      ["env --split-string 'bash -c' 'a; b'", "a; b"],
      ["env --split-string='bash -c' 'a; b'", "a; b"],
      ["env -S 'bash -c' 'a; b'", "a; b"],
    ];
    for (const [command, script] of table) {
      expect([command, of(command)]).toEqual([command, { kind: "script", script, options: off }]);
    }
    expect(of('env --split-string "$X"')).toEqual({ kind: "unreadable", word: '"$X"' });
  });

  test("the caller's words are left as they were (env -S splices a copy)", () => {
    const words = shellWords("env -S 'sh -c a'");
    const before = structuredClone(words);
    expect(wrappedCommand(words)).toEqual({ kind: "script", script: "a", options: off });
    expect(words).toEqual(before);
  });

  test("eval with no words runs nothing", () => {
    expect(of("eval")).toEqual({ kind: "plain" });
    expect(of("eval 2>&1")).toEqual({ kind: "plain" });
  });
});

describe("wrappedCommand: a shell's options before the script", () => {
  test("-- ends the options: -c after it is the name of a script file", () => {
    expect(of("sh -- -c 'a'")).toEqual({ kind: "plain" });
    expect(of("bash -c -- 'a'")).toEqual({ kind: "script", script: "a", options: off });
  });

  test("the script word is never read as an option, whatever it ends with", () => {
    expect(of("bash -c 'echo --rcfile' x")).toEqual({
      kind: "script",
      script: "echo --rcfile",
      options: off,
    });
    expect(of("sh -c run-tests")).toEqual({ kind: "script", script: "run-tests", options: off });
  });

  test("--rcfile FILE takes a word; --rcfile=FILE does not", () => {
    expect(of("bash --rcfile f -c 'a'")).toEqual({ kind: "script", script: "a", options: off });
    expect(of("bash --rcfile=f -c 'a'")).toEqual({ kind: "script", script: "a", options: off });
  });

  test("a word with more than a sign and letters ends the options", () => {
    expect(of("sh -e1 -c 'a'")).toEqual({ kind: "plain" });
  });

  test("+ turns an option off", () => {
    expect(of("bash -e +e -c 'a'")).toEqual({ kind: "script", script: "a", options: off });
    expect(of("bash -o pipefail +o pipefail -c 'a'")).toEqual({
      kind: "script",
      script: "a",
      options: off,
    });
  });

  test("-O names a shopt option: it takes a word and sets neither pipefail nor errexit", () => {
    expect(of("bash -O extglob -c 'a'")).toEqual({ kind: "script", script: "a", options: off });
    expect(of("bash -O pipefail -O errexit -c 'a'")).toEqual({
      kind: "script",
      script: "a",
      options: off,
    });
  });

  test("a shell with -o or -c last has no script", () => {
    expect(of("bash -o")).toEqual({ kind: "plain" });
    expect(of("bash -c")).toEqual({ kind: "plain" });
  });
});

describe("commandSubstitutions: quotes", () => {
  test("single quotes hide substitutions up to their closing quote, or the end", () => {
    expect(commandSubstitutions("'x $(a)'")).toEqual([]);
    expect(commandSubstitutions("'a' $(b)")).toEqual(["b"]);
    expect(commandSubstitutions("'$(a)")).toEqual([]);
  });

  test("a single quote inside double quotes is a character", () => {
    expect(commandSubstitutions(`"it's $(a)"`)).toEqual(["a"]);
  });

  test("a parenthesis not after a $ is no substitution", () => {
    expect(commandSubstitutions("f(x)")).toEqual([]);
  });

  test("$(…) starts at its own parenthesis, whatever stands before the $", () => {
    expect(commandSubstitutions(`"$(a) b"`)).toEqual(["a"]);
  });

  test("a substitution whose body ends with a subshell is not arithmetic", () => {
    expect(commandSubstitutions("$(cd x && (make))")).toEqual(["cd x && (make)"]);
  });
});

describe("wrappers read as their programs do", () => {
  test("env's lone - (the same as -i) is an option: the command after it is read", () => {
    expect(of("env - sh -c 'false; true'")).toEqual({
      kind: "script",
      script: "false; true",
      options: off,
    });
    expect(of("/usr/bin/env - PATH=/bin sh -c 'a'")).toEqual({
      kind: "script",
      script: "a",
      options: off,
    });
    expect(exitStatusMasked("env - sh -c 'npm test; true'")).toBe(true);
    expect(exitStatusMasked("env - sh -c 'npm test'")).toBe(false);
  });
});

describe("commandSubstitutions: an unterminated one", () => {
  test("runs to the end of the word, last character included", () => {
    expect(commandSubstitutions("$(abc")).toEqual(["abc"]);
    expect(commandSubstitutions("x$(a (b)")).toEqual(["a (b)"]);
    expect(commandSubstitutions("$((1+2)")).toEqual(["(1+2)"]);
    expect(commandSubstitutions("$(")).toEqual([""]);
  });

  test("a terminated one still ends at its parenthesis, and arithmetic is still none", () => {
    expect(commandSubstitutions("$(abc)d")).toEqual(["abc"]);
    expect(commandSubstitutions("$((1+2))")).toEqual([]);
    expect(commandSubstitutions("$(( a ) && b)")).toEqual(["( a ) && b"]);
  });
});
