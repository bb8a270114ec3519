import { homedir } from "node:os";
import { join } from "node:path";
import { parseToml } from "@turngate/node";
import { type HookTrustJudgement, type ProtectedPaths, within } from "./confine-paths.js";

type Json = Record<string, unknown>;

/** The sandbox mode `--confine` writes into Codex's `config.toml` (Codex config docs). */
export const CODEX_SANDBOX_MODE = "workspace-write";

/**
 * What a `confined-writes` answer says it lacks: Codex's sandbox modes all let the agent
 * read the whole disk (Codex config docs: `sandbox_mode`), so it could read the signing key.
 */
export const CODEX_READS_KEY =
  "Codex's sandbox lets the agent read the whole disk, turngate's signing key included: it could not write turngate's state, but could read the key and so sign a proof";

/**
 * Codex's `config.toml` a confined hook writes and reads (Codex config docs): the user's
 * `$CODEX_HOME/config.toml` (default `~/.codex`), and the project's `.codex/config.toml`
 * (which Codex reads for a trusted project, and keeps read-only to the agent in
 * workspace-write, like the rest of `.codex/`).
 */
export function codexConfigFiles(root: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? homedir();
  return [
    join(env.CODEX_HOME ?? join(home, ".codex"), "config.toml"),
    join(root, ".codex", "config.toml"),
  ];
}

/**
 * The folders Codex's workspace-write sandbox leaves writable besides the workspace and
 * `writable_roots` unless excluded (Codex config docs: `[sandbox_workspace_write]`
 * `exclude_slash_tmp`, `exclude_tmpdir_env_var`): `/tmp` and `$TMPDIR`.
 */
export function codexTmpRoots(env: NodeJS.ProcessEnv): { slashTmp: string; tmpdir?: string } {
  return { slashTmp: "/tmp", ...(env.TMPDIR ? { tmpdir: env.TMPDIR } : {}) };
}

/**
 * The new text of a Codex `config.toml` with the confinement merged in (docs/hooks.md
 * "Confined hooks"): the top-level `sandbox_mode = "workspace-write"` (an existing top-level
 * `sandbox_mode` line is replaced, else the line is put first); when a protected path or one
 * of `guarded` (the hook and config files) lies under `/tmp` or `$TMPDIR`, which
 * workspace-write leaves writable, `exclude_slash_tmp = true` / `exclude_tmpdir_env_var =
 * true` in `[sandbox_workspace_write]`. Only those lines change: every other key, comment
 * and table stays as it was; the result is parsed again and must hold exactly the old values
 * plus these. `before` already confined comes back unchanged.
 * Input: the file's text (null: absent), its path (for messages), the protected paths, the
 * guarded files, the env (`TMPDIR`).
 * Errors: `Error` naming the file when it is not TOML, when `sandbox_workspace_write` is not
 * a table edited in place here (an inline table, dotted keys), or when a `writable_roots`
 * entry holds or lies inside a protected path (the sandbox would let the agent write it);
 * nothing is written then.
 */
export function confineCodexToml(
  before: string | null,
  file: string,
  paths: ProtectedPaths,
  guarded: readonly string[],
  env: NodeJS.ProcessEnv,
): string {
  const text = before ?? "";
  const doc = parse(text, file);
  const table = doc.sandbox_workspace_write;
  const roots = isObject(table) ? strings(table.writable_roots) : [];
  for (const root of roots) {
    const hit = [...paths.dirs, ...paths.files].find((p) => within(p, root) || within(root, p));
    if (hit !== undefined) {
      throw new Error(
        `sandbox_workspace_write.writable_roots in ${file} lets Codex's agent write ${root}, which holds or lies in turngate's state ${hit}; remove that root (or move turngate's state) and run the install again; nothing was written`,
      );
    }
  }
  const tmp = codexTmpRoots(env);
  const underTmp = (dir: string | undefined) =>
    dir !== undefined && [...paths.dirs, ...paths.files, ...guarded].some((p) => within(p, dir));
  const excludes: [string, boolean][] = [];
  if (underTmp(tmp.slashTmp)) excludes.push(["exclude_slash_tmp", true]);
  if (underTmp(tmp.tmpdir)) excludes.push(["exclude_tmpdir_env_var", true]);
  const expected = structuredClone(doc);
  expected.sandbox_mode = CODEX_SANDBOX_MODE;
  if (excludes.length > 0) {
    const wanted = isObject(expected.sandbox_workspace_write)
      ? expected.sandbox_workspace_write
      : {};
    for (const [key, value] of excludes) wanted[key] = value;
    expected.sandbox_workspace_write = wanted;
  }
  if (canonical(expected) === canonical(doc)) return text;
  const lines = text === "" ? [] : text.replace(/\n$/, "").split("\n");
  const header = (line: string) => /^\s*\[/.test(line);
  const firstHeader = lines.findIndex(header);
  const topEnd = firstHeader < 0 ? lines.length : firstHeader;
  const modeAt = lines.slice(0, topEnd).findIndex((l) => /^\s*sandbox_mode\s*=/.test(l));
  const modeLine = `sandbox_mode = "${CODEX_SANDBOX_MODE}"`;
  if (modeAt >= 0) lines[modeAt] = modeLine;
  else lines.unshift(modeLine);
  if (excludes.length > 0) {
    const at = lines.findIndex((l) => /^\s*\[\s*sandbox_workspace_write\s*\]\s*(#.*)?$/.test(l));
    if (at < 0) {
      if (lines.length > 0) lines.push("");
      lines.push("[sandbox_workspace_write]", ...excludes.map(([k, v]) => `${k} = ${v}`));
    } else {
      let end = lines.findIndex((l, i) => i > at && header(l));
      if (end < 0) end = lines.length;
      for (const [key, value] of excludes) {
        const keyAt = lines.findIndex(
          (l, i) => i > at && i < end && new RegExp(`^\\s*${key}\\s*=`).test(l),
        );
        if (keyAt >= 0) lines[keyAt] = `${key} = ${value}`;
        else {
          lines.splice(at + 1, 0, `${key} = ${value}`);
          end++;
        }
      }
    }
  }
  const after = `${lines.join("\n")}\n`;
  let reparsed: Json;
  try {
    reparsed = parseToml(after);
  } catch {
    reparsed = {};
  }
  if (canonical(reparsed) !== canonical(expected)) {
    throw new Error(
      `${file} sets sandbox_mode or [sandbox_workspace_write] in a form turngate does not edit (an inline table, dotted keys); set sandbox_mode = "${CODEX_SANDBOX_MODE}"${excludes.map(([k]) => ` and sandbox_workspace_write.${k} = true`).join("")} by hand; nothing was written`,
    );
  }
  return after;
}

/**
 * What Codex's `config.toml` files (their text at turn start) let a hook record
 * (docs/hooks.md "Confined hooks"): `confined-writes` when a `sandbox_mode` is set, every
 * one set (top level and in `[profiles.*]`) is `workspace-write` or `read-only`, no
 * `writable_roots` entry holds or lies in a protected path or a `guarded` file, and when one
 * of those lies under `/tmp` or `$TMPDIR` the matching `exclude_*` is true; otherwise
 * `unsandboxed`, naming the first gap. Never `confined`: Codex's sandbox reads the whole
 * disk. A file that is not TOML counts as a gap.
 */
export function judgeCodexConfig(
  files: readonly { path: string; text: string | null }[],
  paths: ProtectedPaths,
  guarded: readonly string[],
  env: NodeJS.ProcessEnv,
): HookTrustJudgement {
  const layers: Json[] = [];
  for (const file of files) {
    if (file.text === null) continue;
    let doc: Json;
    try {
      doc = parseToml(file.text);
    } catch {
      return unsandboxed(`${file.path} cannot be read as TOML`);
    }
    layers.push(doc);
    const profiles = isObject(doc.profiles) ? Object.values(doc.profiles).filter(isObject) : [];
    layers.push(...profiles);
  }
  const modes = layers.map((l) => l.sandbox_mode).filter((m) => m !== undefined);
  if (modes.length === 0) return unsandboxed("no Codex config.toml sets sandbox_mode");
  const loose = modes.find((m) => m !== "workspace-write" && m !== "read-only");
  if (loose !== undefined)
    return unsandboxed(`a Codex config.toml sets sandbox_mode = ${JSON.stringify(loose)}`);
  const protectedAll = [...paths.dirs, ...paths.files, ...guarded];
  const tables = layers.map((l) =>
    isObject(l.sandbox_workspace_write) ? l.sandbox_workspace_write : {},
  );
  for (const root of tables.flatMap((t) => strings(t.writable_roots))) {
    const hit = protectedAll.find((p) => within(p, root) || within(root, p));
    if (hit !== undefined)
      return unsandboxed(`writable_roots entry ${root} lets the agent write ${hit}`);
  }
  const tmp = codexTmpRoots(env);
  const checks: [string | undefined, string][] = [
    [tmp.slashTmp, "exclude_slash_tmp"],
    [tmp.tmpdir, "exclude_tmpdir_env_var"],
  ];
  for (const [dir, key] of checks) {
    const hit = dir === undefined ? undefined : protectedAll.find((p) => within(p, dir));
    if (
      hit !== undefined &&
      !(tables.some((t) => t[key] === true) && !tables.some((t) => t[key] === false))
    )
      return unsandboxed(
        `${hit} lies under ${dir}, which Codex leaves writable unless ${key} = true`,
      );
  }
  return { level: "confined-writes", why: CODEX_READS_KEY };
}

/**
 * What the Codex session's own record of the turn says (its transcript, whose path the hook
 * payload gives): the last `turn_context` line's `sandbox_policy` must be `workspace-write`
 * or `read-only`, and under its `file_system_sandbox_policy` no protected path and no
 * `guarded` file (the config and hook files, the transcript itself) may be writable: each
 * path's access is the one of the longest entry holding it (`root` is `/`, `slash_tmp`
 * `/tmp`, `tmpdir` `$TMPDIR` when set; an entry of another kind that grants writes makes the
 * turn unsandboxed). This is what Codex applied, command-line flags included
 * (`--sandbox danger-full-access` overrides `config.toml`). Otherwise `unsandboxed`.
 * Output: `confined-writes` at best (Codex's sandbox reads the whole disk).
 */
export function judgeCodexTranscript(
  transcript: string | null,
  paths: ProtectedPaths,
  guarded: readonly string[],
  env: NodeJS.ProcessEnv,
): HookTrustJudgement {
  if (transcript === null) return unsandboxed("the Codex transcript cannot be read");
  let context: Json | undefined;
  for (const line of transcript.split("\n")) {
    if (!line.includes('"turn_context"')) continue;
    try {
      const row = JSON.parse(line) as Json;
      if (row.type === "turn_context" && isObject(row.payload)) context = row.payload;
    } catch {
      // a torn last line: the rows before it stand
    }
  }
  if (context === undefined) return unsandboxed("the Codex transcript records no turn context");
  const policy = isObject(context.sandbox_policy) ? context.sandbox_policy.type : undefined;
  if (policy !== "workspace-write" && policy !== "read-only")
    return unsandboxed(`Codex ran this turn with sandbox ${JSON.stringify(policy ?? null)}`);
  const fs = isObject(context.file_system_sandbox_policy) ? context.file_system_sandbox_policy : {};
  const entries = Array.isArray(fs.entries) ? fs.entries.filter(isObject) : [];
  if (entries.length === 0)
    return unsandboxed(
      "the Codex transcript does not say which paths its sandbox lets the agent write",
    );
  const rules: { path: string; write: boolean }[] = [];
  for (const entry of entries) {
    const where = isObject(entry.path) ? entry.path : {};
    const write = entry.access === "write";
    let path: string | undefined;
    if (where.type === "path" && typeof where.path === "string") path = where.path;
    else if (where.type === "special" && isObject(where.value)) {
      const kind = where.value.kind;
      const known: Record<string, string | undefined> = {
        root: "/",
        slash_tmp: "/tmp",
        // Unset in Codex's environment (which the hook inherits), it names no folder.
        tmpdir: env.TMPDIR,
      };
      if (!(typeof kind === "string" && kind in known) && write)
        return unsandboxed(
          `Codex's sandbox grants writes to ${JSON.stringify(kind)}, which turngate cannot place`,
        );
      path = typeof kind === "string" ? known[kind] : undefined;
    } else if (write) {
      return unsandboxed("Codex's sandbox grants writes to a path turngate cannot read");
    }
    if (path !== undefined) rules.push({ path, write });
  }
  for (const target of [...paths.dirs, ...paths.files, ...guarded]) {
    const holding = rules.filter((r) => within(target, r.path));
    const deepest = holding.sort((a, b) => b.path.length - a.path.length)[0];
    if (deepest?.write === true)
      return unsandboxed(`Codex's sandbox lets the agent write ${target} (under ${deepest.path})`);
  }
  return { level: "confined-writes", why: CODEX_READS_KEY };
}

function parse(text: string, file: string): Json {
  try {
    return parseToml(text);
  } catch (error) {
    throw new Error(
      `${file} is not TOML (${(error as Error).message.split("\n")[0]}); fix it by hand, nothing was written`,
    );
  }
}

/** JSON with every object's keys sorted: equal for equal TOML values whatever the key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    isObject(inner) && !(inner instanceof Date)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

function unsandboxed(why: string): HookTrustJudgement {
  return { level: "unsandboxed", why };
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
