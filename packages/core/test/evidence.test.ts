/**
 * Issue 13's pure evidence parts: ACCEPTANCE.md criteria (A3S §2.14), goal-achievement
 * gating (§2.15), existence-check parsing and the read-only verifier's tool policy (§2.18).
 * Expected values written by hand from the reference rules.
 */
import { describe, expect, test } from "vitest";
import {
  existenceCheckPaths,
  goalAchievement,
  loopIsActive,
  loopStatus,
  parseAcceptanceCriteria,
  quoteAcceptancePath,
  TurngateValidationError,
  verifierToolPolicy,
} from "../src/index.js";

const ACCEPTANCE = [
  "# Goal", //                                                      1
  "", //                                                            2
  "- [ ] kind:command assert:`cargo test -p core` expect:exit=0", //  3
  "* [x]: kind:command assert:cargo test", //                       4
  "  - [ ] kind:file_exists assert:`out/report.txt`", //            5
  "- [ ] kind:file-exists assert:`it's here.txt`", //               6
  "- [ ] kind:manual the UI looks right", //                        7
  "- [ ] kind:command assert:`make check` expect:exit=2", //        8
  "- [ ] kind:command assert:`never closed", //                     9
  "- [ ] kind:command no assert here", //                           10
  "- [ ] kind:file_exists assert:`../outside.txt`", //              11
  "- [ ] kind:file_exists assert:/etc/passwd", //                   12
  "plain text kind:command assert:`ignored`", //                    13
  "- [ ] KIND:COMMAND ASSERT: `npm test` EXPECT:EXIT=x", //         14
].join("\n");

describe("parseAcceptanceCriteria (A3S §2.14)", () => {
  test("machine criteria with line-number ids, expect_exit, quoting; skipped lines listed", () => {
    const c = (line: number, command: string, expect_exit = 0) => ({
      id: `acceptance:loop-1:${line}`,
      kind: "acceptance_command",
      description: "ACCEPTANCE kind:command (loop-1)",
      command,
      required: true,
      expect_exit,
    });
    const f = (line: number, command: string) => ({
      id: `acceptance:loop-1:${line}`,
      kind: "acceptance_file_exists",
      description: "ACCEPTANCE kind:file_exists (loop-1)",
      command,
      required: true,
      expect_exit: 0,
    });
    expect(parseAcceptanceCriteria("loop-1", ACCEPTANCE)).toEqual({
      loop_id: "loop-1",
      commands: [
        c(3, "cargo test -p core"),
        c(4, "cargo"),
        f(5, "test -f out/report.txt"),
        f(6, "test -f 'it'\\''s here.txt'"),
        c(8, "make check", 2),
        c(14, "npm test"),
      ],
      problems: [
        {
          line: 9,
          reason: "unterminated_backtick",
          message: "the assert: value has no closing backtick",
        },
        { line: 10, reason: "missing_assert", message: "the criterion has no assert:" },
        {
          line: 11,
          reason: "path_not_allowed",
          message: 'kind:file_exists path "../outside.txt" leaves the workspace',
        },
        {
          line: 12,
          reason: "path_not_allowed",
          message:
            'kind:file_exists path "/etc/passwd" is absolute and not an existing file inside the workspace',
        },
      ],
    });
  });

  test("an absolute path is allowed only by the host's check; a/../b stays inside", () => {
    const text = "- [ ] kind:file_exists assert:/ws/a.txt\n- [ ] kind:file_exists assert:a/../b";
    const parsed = parseAcceptanceCriteria("g", text, {
      allowAbsolutePath: (p) => p === "/ws/a.txt",
    });
    expect(parsed.commands.map((c) => c.command)).toEqual(["test -f /ws/a.txt", "test -f a/../b"]);
  });

  test("quoteAcceptancePath: bare, empty and single-quoted forms", () => {
    expect([
      quoteAcceptancePath("a/b_c-1.txt"),
      quoteAcceptancePath(""),
      quoteAcceptancePath("a b"),
      quoteAcceptancePath("x'y"),
    ]).toEqual(["a/b_c-1.txt", "''", "'a b'", "'x'\\''y'"]);
  });

  test("loop status: first Status: line, case-sensitive prefix, case-insensitive value", () => {
    expect(loopStatus("# s\n  Status: Running  \nStatus: verified")).toBe("Running");
    expect(loopIsActive("Status: Running")).toBe(true);
    expect(loopIsActive("Status: paused")).toBe(true);
    expect(loopIsActive("Status: RETRYING")).toBe(true);
    expect(loopIsActive("Status: achieved")).toBe(false);
    expect(loopIsActive("status: running")).toBe(false);
    expect(loopIsActive("no status")).toBe(false);
  });

  test("bad input is a typed error naming the field", () => {
    expect(() => parseAcceptanceCriteria(" ", "")).toThrow(TurngateValidationError);
    expect(() => parseAcceptanceCriteria("g", 7 as unknown as string)).toThrow(
      "invalid acceptance criteria at text: expected a string",
    );
  });
});

describe("goalAchievement (A3S §2.15)", () => {
  const passed = (subject: string) => ({
    subject,
    status: "passed",
    checks: [{ id: "c", kind: "test", description: "d", required: true, status: "passed" }],
  });
  const criteria = [
    { id: "acceptance:loop-a:3" },
    { id: "acceptance:loop-a:4" },
    { id: "acceptance:team:loop-b:7" },
  ];

  test("the model's claim never suffices alone", () => {
    expect(goalAchievement(true, [])).toEqual({
      achieved: false,
      reason: "evidence_insufficient",
      unmet_loops: [],
    });
    expect(goalAchievement(false, [passed("x")])).toEqual({
      achieved: false,
      reason: "not_claimed",
      unmet_loops: [],
    });
  });

  test("without goal loops, passing evidence is enough", () => {
    expect(goalAchievement(true, [passed("ci")])).toEqual({
      achieved: true,
      reason: "achieved",
      unmet_loops: [],
    });
  });

  test("every active loop needs a passing shell report of one of its own criteria", () => {
    const reports = [passed("shell:acceptance:loop-a:4"), passed("shell:acceptance:loop-b:7")];
    expect(goalAchievement(true, reports, criteria)).toEqual({
      achieved: false,
      reason: "acceptance_unmet",
      unmet_loops: ["team:loop-b"],
    });
    const all = [...reports, passed("shell:acceptance:team:loop-b:7")];
    expect(goalAchievement(true, all, criteria).achieved).toBe(true);
  });

  test("a failed or pending report anywhere blocks the claim", () => {
    const failing = {
      subject: "lint",
      status: "failed",
      checks: [{ id: "l", kind: "lint", description: "d", required: false, status: "failed" }],
    };
    expect(goalAchievement(true, [passed("ci"), failing]).reason).toBe("evidence_insufficient");
  });
});

describe("existenceCheckPaths", () => {
  test("test, [ ] and [[ ]] forms with -f and -e, quotes removed, each path once", () => {
    expect(
      existenceCheckPaths(
        "test -f a.txt && [ -e 'b c.txt' ]; [[ -f \"d.txt\" ]] && if [ -f a.txt ]; then echo ok; fi",
      ),
    ).toEqual(["a.txt", "b c.txt", "d.txt"]);
  });

  test("not an existence check: negated, other operators, computed paths, extra operands, text", () => {
    for (const command of [
      "! test -f a",
      "[ ! -f a ]",
      "test -d a",
      "test -s a",
      "test -f $X",
      "[ -f a -a -f b ]",
      "echo test -f a",
      "test -f",
      "[ -f a",
    ]) {
      expect([command, existenceCheckPaths(command)]).toEqual([command, []]);
    }
  });
});

describe("verifierToolPolicy (A3S §2.18)", () => {
  const refused = (rule: string, message: string) => ({ allowed: false, rule, message });
  test.each(["write", "Edit", "PATCH", "download", "Skill", "task", "batch"])(
    "writer tool %s is refused",
    (tool) => {
      expect(verifierToolPolicy(tool, {})).toEqual(
        refused(
          "writer_tool",
          `verifier tool policy: ${JSON.stringify(tool)} writes to the workspace; the verifier is read-only`,
        ),
      );
    },
  );
  test.each([
    ["echo x > f", ">", "shell_redirect"],
    ["npm test 2>&1", ">", "shell_redirect"],
    ["rm -rf dist", "rm ", "shell_rm"],
    ["mv a b", "mv ", "shell_mv"],
    ["cat a | tee b", "tee ", "shell_tee"],
  ])("bash %j is refused (contains %j)", (command, text, rule) => {
    expect(verifierToolPolicy("bash", { command })).toEqual(
      refused(
        rule,
        `verifier tool policy: a bash command containing ${JSON.stringify(text)} can write; the verifier is read-only`,
      ),
    );
  });
  test("bash reporting changed_paths is refused; read-only bash is allowed", () => {
    expect(verifierToolPolicy("bash", { command: "ls", changed_paths: [] })).toEqual(
      refused(
        "shell_changed_paths",
        "verifier tool policy: a bash call that reports changed_paths wrote files; the verifier is read-only",
      ),
    );
    expect(verifierToolPolicy("bash", { command: "cargo test && git diff" })).toEqual({
      allowed: true,
    });
    expect(verifierToolPolicy("bash", { command: "rmdir" })).toEqual({ allowed: true });
  });
  test("state-changing git calls are refused, the rest allowed", () => {
    const p = (args: object) => verifierToolPolicy("git", args);
    expect(p({ command: "checkout" })).toEqual(
      refused(
        "git_checkout",
        "verifier tool policy: git checkout changes the work tree; the verifier is read-only",
      ),
    );
    expect(p({ command: "branch", name: "x" })).toEqual(
      refused(
        "git_branch_create",
        "verifier tool policy: git branch with a name creates a branch; the verifier is read-only",
      ),
    );
    expect(p({ command: "stash", message: "m" })).toMatchObject({
      allowed: false,
      rule: "git_stash",
    });
    expect(p({ command: "stash", include_untracked: true })).toMatchObject({ rule: "git_stash" });
    expect(p({ command: "worktree", subcommand: "create" })).toMatchObject({
      rule: "git_worktree",
    });
    expect(p({ command: "worktree", subcommand: "add" })).toMatchObject({ rule: "git_worktree" });
    expect(p({ command: "worktree", subcommand: "remove" })).toEqual(
      refused(
        "git_worktree",
        "verifier tool policy: git worktree remove changes worktrees; the verifier is read-only",
      ),
    );
    for (const args of [
      { command: "branch" },
      { command: "stash" },
      { command: "worktree", subcommand: "list" },
      { command: "status" },
    ]) {
      expect(p(args)).toEqual({ allowed: true });
    }
  });
  test("other tools are allowed, args that are not an object count as {}", () => {
    expect(verifierToolPolicy("read", { path: "a" })).toEqual({ allowed: true });
    expect(verifierToolPolicy("bash", "rm -rf /")).toEqual({ allowed: true });
  });
});
