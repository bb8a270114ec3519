/**
 * The read-only verifier's tool policy, A3S §2.18 `tool_allowed` (pure): what a verifier
 * turn may call. Writers and nested writers are refused; `bash` is refused when its command
 * could write; state-changing `git` calls are refused; every other tool is allowed.
 */

/** Tools never presented to the verifier (compared lower-cased). */
export const VERIFIER_REFUSED_TOOLS: readonly string[] = [
  "write",
  "edit",
  "patch",
  "download",
  "skill",
  "task",
  "batch",
];

/** Substrings that refuse a verifier `bash` command (A3S: trailing spaces significant). */
export const VERIFIER_REFUSED_SHELL_TEXT: readonly string[] = [">", "rm ", "mv ", "tee "];

/** Why a verifier tool call is refused. */
export type VerifierPolicyRule =
  | "writer_tool"
  | "shell_redirect"
  | "shell_rm"
  | "shell_mv"
  | "shell_tee"
  | "shell_changed_paths"
  | "git_checkout"
  | "git_branch_create"
  | "git_stash"
  | "git_worktree";

/** The policy's answer: allowed, or refused with the rule and a sentence naming it. */
export type VerifierPolicyDecision =
  | { allowed: true }
  | { allowed: false; rule: VerifierPolicyRule; message: string };

const SHELL_RULES: ReadonlyArray<[string, VerifierPolicyRule]> = [
  [">", "shell_redirect"],
  ["rm ", "shell_rm"],
  ["mv ", "shell_mv"],
  ["tee ", "shell_tee"],
];

/** A printable name for a tool value that is not a string (never throws). */
function describeTool(tool: unknown): string {
  try {
    return String(tool);
  } catch {
    return typeof tool;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A3S §2.18 `tool_allowed(tool, args)`, rules in order:
 * 1. `write`, `edit`, `patch`, `download`, `skill`, `task`, `batch` (any case) → `writer_tool`;
 * 2. `bash`: `args.command` containing `>` (`shell_redirect`), `rm ` (`shell_rm`), `mv `
 *    (`shell_mv`) or `tee ` (`shell_tee`) — plain substring checks, so `2>&1` and `farm x`
 *    are refused too, as in A3S — or `args` with a `changed_paths` key
 *    (`shell_changed_paths`) → refused;
 * 3. `git`: `args.command` `checkout` (`git_checkout`); `branch` with a string `name`
 *    (`git_branch_create`); `stash` with a string `message` or `include_untracked: true`
 *    (`git_stash`); `worktree` with `subcommand` `create`, `add` or `remove`
 *    (`git_worktree`) → refused;
 * 4. anything else → allowed.
 * Args that are not an object count as `{}`. Never throws.
 */
export function verifierToolPolicy(tool: string, args?: unknown): VerifierPolicyDecision {
  const shown = typeof tool === "string" ? tool : describeTool(tool);
  const name = shown.toLowerCase();
  const a = isObject(args) ? args : {};
  const refuse = (rule: VerifierPolicyRule, why: string): VerifierPolicyDecision => ({
    allowed: false,
    rule,
    message: `verifier tool policy: ${why}; the verifier is read-only`,
  });
  if (VERIFIER_REFUSED_TOOLS.includes(name)) {
    return refuse("writer_tool", `${JSON.stringify(shown)} writes to the workspace`);
  }
  if (name === "bash") {
    const command = typeof a.command === "string" ? a.command : "";
    for (const [text, rule] of SHELL_RULES) {
      if (command.includes(text)) {
        return refuse(rule, `a bash command containing ${JSON.stringify(text)} can write`);
      }
    }
    if (Object.hasOwn(a, "changed_paths")) {
      return refuse("shell_changed_paths", "a bash call that reports changed_paths wrote files");
    }
    return { allowed: true };
  }
  if (name === "git") {
    const sub = a.command;
    if (sub === "checkout") return refuse("git_checkout", "git checkout changes the work tree");
    if (sub === "branch" && typeof a.name === "string") {
      return refuse("git_branch_create", "git branch with a name creates a branch");
    }
    if (sub === "stash" && (typeof a.message === "string" || a.include_untracked === true)) {
      return refuse(
        "git_stash",
        "git stash with a message or untracked files changes the work tree",
      );
    }
    if (
      sub === "worktree" &&
      (a.subcommand === "create" || a.subcommand === "add" || a.subcommand === "remove")
    ) {
      return refuse("git_worktree", `git worktree ${String(a.subcommand)} changes worktrees`);
    }
  }
  return { allowed: true };
}
