import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { CLAUDE_GATE_FOLDERS, harnessPrograms } from "@turngate/node";
import type { Harness } from "./adapters/index.js";
import { claudeLaunch, hookAncestry } from "./claude-launch.js";
import { claudeSettingsFiles, judgeClaudeMode, judgeClaudeSettings } from "./confine-claude.js";
import { codexConfigFiles, judgeCodexConfig, judgeCodexTranscript } from "./confine-codex.js";
import {
  type HookTrustJudgement,
  lowerTrust,
  type ProtectedPaths,
  protectedPaths,
} from "./confine-paths.js";

/** Largest transcript read to find Codex's turn context (bytes); a larger one is not trusted. */
export const TRANSCRIPT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The trust a harness's configuration files give a hook (docs/hooks.md "Confined hooks",
 * issue 32 item 2), read now — the turn start keeps it, so what the agent changes during the
 * turn cannot raise it: Claude Code's settings (`judgeClaudeSettings`) → `confined` at best;
 * Codex's `config.toml` (`judgeCodexConfig`) → `confined-writes` at best, `unsandboxed` when a
 * harness's settings name a workspace program (`harnessPrograms`), which its sandbox
 * cannot keep from the agent; Cursor and Goose
 * → `unsandboxed` (turngate writes no sandbox for them).
 * Input: harness, workspace root, env, cwd (for a relative `TURNGATE_SIGNING_KEY`).
 * Output: the level and why it is not higher. Never throws (an unreadable file is a gap).
 */
export async function configTrust(
  harness: Harness,
  root: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<HookTrustJudgement> {
  const paths = protectedPaths(env, cwd);
  if (harness === "claude-code") {
    const files = await readAll(claudeSettingsFiles(root, env));
    const programs = harnessPrograms(root, env);
    return judgeClaudeSettings(
      files,
      paths,
      env,
      claudeLaunch(hookAncestry(), readOrNull),
      [
        ...programs.paths,
        ...programs.frontMatter,
        ...CLAUDE_GATE_FOLDERS.map((rel) => join(root, rel)),
      ],
      programs.unresolved,
    );
  }
  if (harness === "codex") {
    const files = await readAll(codexConfigFiles(root, env));
    const judged = judgeCodexConfig(files, paths, codexGuarded(root, env), env);
    // Codex's workspace-write sandbox cannot keep one workspace file from the agent.
    const found = harnessPrograms(root, env);
    const program = [...found.paths, ...found.frontMatter, ...found.unresolved][0];
    if (judged.level === "unsandboxed" || program === undefined) return judged;
    return {
      level: "unsandboxed",
      why: `${program} is a program a hook or MCP server runs outside the sandbox, and Codex's workspace-write sandbox lets the agent rewrite it`,
    };
  }
  return {
    level: "unsandboxed",
    why: `turngate writes no sandbox for ${harness} (\`turngate hook install --confine\` supports claude-code and codex)`,
  };
}

/**
 * The trust a stop records (issue 32 item 2: "never more than both support"): the lowest of
 * the turn start's `configTrust` (`atTurnStart`; missing: unsandboxed), the configuration
 * now, and what the harness says of this very turn — Claude Code's payload `permission_mode`
 * (`judgeClaudeMode`: `bypassPermissions` is never confined), Codex's transcript turn
 * context (`judgeCodexTranscript`: the sandbox Codex applied, flags included).
 * Output: the level and why it is not higher. Never throws.
 */
export async function stopTrust(
  harness: Harness,
  payload: Record<string, unknown>,
  root: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  atTurnStart: HookTrustJudgement | undefined,
): Promise<HookTrustJudgement> {
  const start = atTurnStart ?? {
    level: "unsandboxed",
    why: "the turn start recorded no sandbox configuration",
  };
  let trust = lowerTrust(start, await configTrust(harness, root, env, cwd));
  if (trust.level === "unsandboxed") return trust;
  const paths: ProtectedPaths = protectedPaths(env, cwd);
  if (harness === "claude-code")
    trust = lowerTrust(trust, judgeClaudeMode(payload.permission_mode));
  if (harness === "codex") {
    const path = typeof payload.transcript_path === "string" ? payload.transcript_path : null;
    const text = path === null ? null : await readBounded(path);
    const guarded = [...codexGuarded(root, env), ...(path === null ? [] : [path])];
    trust = lowerTrust(trust, judgeCodexTranscript(text, paths, guarded, env));
  }
  return trust;
}

/**
 * The `trust:` line of a stop's answer (docs/hooks.md "Confined hooks"): the level, and
 * plainly what it means — `confined`: the harness's sandbox kept turngate's state and key
 * from the agent; `confined-writes`: the agent could not write turngate's state but could
 * read its key; `unsandboxed`: why not, and that the agent could forge a proof or a waiver.
 */
export function trustText(trust: HookTrustJudgement): string {
  if (trust.level === "confined")
    return "trust: confined (the harness's sandbox kept turngate's state folder and signing key from the agent's shell and file tools)";
  if (trust.level === "confined-writes")
    return `trust: confined-writes (the agent could not write turngate's state; ${trust.why})`;
  return `trust: unsandboxed (${trust.why}: the agent runs as your user and could read turngate's signing key or rewrite its state; \`turngate hook install <harness> --confine\` writes the harness's sandbox settings)`;
}

/** Codex's files an agent must not write besides turngate's state: its config and hook files. */
function codexGuarded(root: string, env: NodeJS.ProcessEnv): string[] {
  const [userConfig, projectConfig] = codexConfigFiles(root, env) as [string, string];
  return [
    userConfig,
    projectConfig,
    join(userConfig, "..", "hooks.json"),
    join(projectConfig, "..", "hooks.json"),
  ];
}

/** A file's text; null when absent; `"\u0000"` (not JSON: a gap) when it cannot be read. */
function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    return missing(error as NodeJS.ErrnoException);
  }
}

async function readAll(paths: string[]): Promise<{ path: string; text: string | null }[]> {
  return Promise.all(
    paths.map(async (path) => ({ path, text: await readFile(path, "utf8").catch(missing) })),
  );
}

/** A file's text; null when absent. Other errors make the text unreadable: `"\u0000"`. */
function missing(error: NodeJS.ErrnoException): string | null {
  return error.code === "ENOENT" ? null : "\u0000";
}

async function readBounded(path: string): Promise<string | null> {
  try {
    const bytes = await readFile(path);
    return bytes.length > TRANSCRIPT_MAX_BYTES ? null : bytes.toString("utf8");
  } catch {
    return null;
  }
}
