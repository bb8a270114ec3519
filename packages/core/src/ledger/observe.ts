import { TurngateValidationError } from "../errors.js";
import type { MutationRecord } from "../schemas/ledger.js";
import { joinPath } from "../schemas/parse.js";
import { contentDigest } from "./content-digest.js";
import { type ContentHasher, NOBLE_CONTENT_HASHER, toContentHasher } from "./content-hasher.js";
import { isHarnessPath } from "./harness.js";
import { isJsonObject } from "./json.js";

/** Tools whose successful `file_path` is a direct file mutation (A3S §1.8). */
export const DIRECT_MUTATION_TOOLS: readonly string[] = ["write", "edit", "patch", "download"];

/** Deepest nesting of `program.tool_calls` / `results` that is followed (then: an error). */
export const MAX_NESTED_TOOL_DEPTH = 64;

/** What one tool result contributes to the ledger. */
export interface ToolObservation {
  /** Rows to append, already filtered by `acceptLedgerPath` (path trimmed). */
  rows: MutationRecord[];
  /** Trimmed, non-empty `workspace_child` ids, in the order met. */
  workspaceChildren: string[];
}

/**
 * The push rule of A3S §2.1: drop harness paths and paths that are empty after trimming
 * whitespace; otherwise return the trimmed path (a leading `./` is kept, as in A3S).
 * turngate checks the harness rule on the trimmed path (A3S checked the untrimmed one, so
 * `" .git/x"` slipped through there).
 */
export function acceptLedgerPath(path: string): string | null {
  const trimmed = path.trim();
  if (trimmed === "" || isHarnessPath(trimmed)) return null;
  return trimmed;
}

/** ASCII lower-casing (A3S compares tool names after ASCII-lowercasing, §1.8). */
export function toolKey(tool: string): string {
  for (let i = 0; i < tool.length; i++) {
    const c = tool.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) return tool.replace(/[A-Z]/g, (u) => u.toLowerCase());
  }
  return tool;
}

/**
 * The rows and background children one tool result adds, A3S §2.1 (pure; the ledger
 * commits them all or none):
 * 1. no metadata (`undefined`/`null`) or non-object metadata → nothing;
 * 2. `changed_paths` (an array; non-string elements skipped) → one row per path with the
 *    content digest of the whole metadata, whatever the exit code;
 * 3. a string `workspace_child` → an open background child;
 * 4. non-zero exit → only nested effects (a failed write's `file_path` does not count);
 * 5. `write`/`edit`/`patch`/`download` → a row for a string `file_path`, nothing nested;
 * 6. otherwise nested effects: `program.tool_calls[]` (name key `tool_name`) and
 *    `results[]` (name key `tool`) whose `success` is `true`, `exit_code` is the integer
 *    0 and name is a non-empty string, each observed recursively with exit code 0.
 * Command text is never parsed.
 *
 * Throws `TurngateValidationError` for a non-string tool, a non-integer exit code, cyclic
 * or too deeply nested tool calls, or metadata that has no canonical JSON form when a
 * content digest is needed (the path names the field, e.g. `metadata.results.0.metadata`).
 * `hasher`: the SHA-256 of the content digests (default `@noble/hashes`; one without
 * `sha256Hex`/`textSink` is a `TurngateValidationError`, path `hasher`).
 */
export function observeToolResult(
  tool: string,
  exitCode: number,
  metadata: unknown,
  hasher: ContentHasher = NOBLE_CONTENT_HASHER,
): ToolObservation {
  if (typeof tool !== "string") {
    throw new TurngateValidationError("tool result", [
      { path: "tool", message: "expected a string" },
    ]);
  }
  if (!Number.isInteger(exitCode)) {
    throw new TurngateValidationError("tool result", [
      { path: "exit_code", message: "expected an integer" },
    ]);
  }
  const checked = hasher === NOBLE_CONTENT_HASHER ? hasher : toContentHasher(hasher);
  const out: ToolObservation = { rows: [], workspaceChildren: [] };
  visit(tool, exitCode, metadata, out, [], "metadata", checked);
  return out;
}

/** Content digest of `metadata`, re-thrown with the metadata's path when it fails. */
function digestAt(metadata: Record<string, unknown>, path: string, hasher: ContentHasher): string {
  try {
    return contentDigest(metadata, hasher);
  } catch (error) {
    if (error instanceof TurngateValidationError) {
      throw new TurngateValidationError("tool metadata", [
        { path: joinPath(path, error.path), message: error.issues[0]?.message ?? "invalid" },
      ]);
    }
    throw error;
  }
}

/**
 * Observes one (possibly nested) tool result. `ancestors` holds the metadata objects on
 * the current nesting path (cycle check; its length is the depth).
 */
function visit(
  tool: string,
  exitCode: number,
  metadata: unknown,
  out: ToolObservation,
  ancestors: object[],
  path: string,
  hasher: ContentHasher,
): void {
  if (!isJsonObject(metadata)) return;
  if (ancestors.includes(metadata)) {
    throw new TurngateValidationError("tool result", [
      { path, message: "nested tool calls form a cycle" },
    ]);
  }
  if (ancestors.length > MAX_NESTED_TOOL_DEPTH) {
    throw new TurngateValidationError("tool result", [
      { path, message: `nested tool calls deeper than ${MAX_NESTED_TOOL_DEPTH} levels` },
    ]);
  }
  const key = toolKey(tool);
  // The content digest is computed at most once, and only when a row is accepted.
  let digest: string | undefined;

  const changed = metadata.changed_paths;
  if (Array.isArray(changed)) {
    for (const p of changed) {
      const accepted = typeof p === "string" ? acceptLedgerPath(p) : null;
      if (accepted === null) continue;
      digest ??= digestAt(metadata, path, hasher);
      out.rows.push({ tool: key, path: accepted, content_digest: digest });
    }
  }
  const child = metadata.workspace_child;
  if (typeof child === "string" && child.trim() !== "") out.workspaceChildren.push(child.trim());

  if (exitCode === 0 && DIRECT_MUTATION_TOOLS.includes(key)) {
    const filePath = metadata.file_path;
    const accepted = typeof filePath === "string" ? acceptLedgerPath(filePath) : null;
    if (accepted !== null) {
      digest ??= digestAt(metadata, path, hasher);
      out.rows.push({ tool: key, path: accepted, content_digest: digest });
    }
    return;
  }
  ancestors.push(metadata);
  visitNested(metadata, out, ancestors, path, hasher);
  ancestors.pop();
}

function visitNested(
  metadata: Record<string, unknown>,
  out: ToolObservation,
  ancestors: object[],
  path: string,
  hasher: ContentHasher,
): void {
  const program = metadata.program;
  if (isJsonObject(program) && Array.isArray(program.tool_calls)) {
    visitCalls(
      program.tool_calls,
      "tool_name",
      out,
      ancestors,
      joinPath(path, "program.tool_calls"),
      hasher,
    );
  }
  if (Array.isArray(metadata.results)) {
    visitCalls(metadata.results, "tool", out, ancestors, joinPath(path, "results"), hasher);
  }
}

function visitCalls(
  calls: unknown[],
  nameKey: "tool_name" | "tool",
  out: ToolObservation,
  ancestors: object[],
  path: string,
  hasher: ContentHasher,
): void {
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    if (!isJsonObject(call)) continue;
    const name = call[nameKey];
    if (call.success !== true || call.exit_code !== 0 || typeof name !== "string" || name === "") {
      continue;
    }
    visit(name, 0, call.metadata, out, ancestors, joinPath(path, `${i}.metadata`), hasher);
  }
}
