/** The affected-target parser table (harn-verification.md §1.3.1, plus ours). */
import { TurngateError, TurngateValidationError } from "../../../errors.js";
import { isDict } from "../../harn-values.js";
import { parseCargoMetadata } from "./cargo-metadata.js";
import { parseGoList } from "./go-list.js";
import { parseJsWorkspaceGraph } from "./js-workspace-graph.js";
import { parsePnpmWorkspace } from "./pnpm-workspace.js";
import { parseTargetsJson } from "./targets-json.js";
import { parseTargetsLines } from "./targets-lines.js";
import {
  AffectedParseError,
  type AffectedParser,
  type ParsedTargets,
  type ParserContext,
} from "./types.js";

export { parseJsonStream } from "./go-list.js";
export { PNPM_DEPENDENCY_FIELDS } from "./pnpm-workspace.js";
export {
  AffectedParseError,
  type AffectedParser,
  type ParsedTargets,
  type ParserContext,
} from "./types.js";

/** Harn's default parser id (a blank or missing `parser_id`). */
export const DEFAULT_AFFECTED_PARSER_ID = "harn.targets_json.v1";

const PARSERS: Readonly<Record<string, AffectedParser>> = {
  "harn.targets_json.v1": parseTargetsJson,
  "json.targets.v1": parseTargetsJson,
  "harn.targets_lines.v1": parseTargetsLines,
  "lines.v1": parseTargetsLines,
  "cargo.metadata.v1": parseCargoMetadata,
  "js.workspace_graph.v1": parseJsWorkspaceGraph,
  "nx.project_graph.v1": parseJsWorkspaceGraph,
  "pnpm.workspace.v1": parsePnpmWorkspace,
  "go.list.v1": parseGoList,
};

/** Parser ids: Harn's four (with their aliases) and ours (`pnpm.workspace.v1`, `go.list.v1`). */
export const AFFECTED_PARSER_IDS: readonly string[] = Object.keys(PARSERS);

function invalid(path: string, message: string): never {
  throw new TurngateValidationError("affected parser input", [{ path, message }]);
}

/**
 * Parses one adapter's stdout with the parser `parserId` (trimmed; blank → the default).
 * Output {@link ParsedTargets}. Throws `TurngateValidationError` for arguments of the
 * wrong type (field named: `parser_id`, `stdout`, `context.*`), `AffectedParseError`
 * (`code: "affected_parse_error"`) for an unknown id (``verification_affected_targets:
 * unsupported parser_id `<id>` ``, Harn's text) or stdout the parser cannot read.
 */
export function parseAffectedOutput(
  parserId: string,
  stdout: string | null | undefined,
  ctx: ParserContext,
): ParsedTargets {
  if (typeof parserId !== "string") invalid("parser_id", "must be a string");
  if (stdout !== null && stdout !== undefined && typeof stdout !== "string") {
    invalid("stdout", "must be a string or null");
  }
  if (!isDict(ctx)) invalid("context", "must be an object");
  if (typeof ctx.adapterId !== "string") invalid("context.adapterId", "must be a string");
  if (!Array.isArray(ctx.changedPaths) || ctx.changedPaths.some((p) => typeof p !== "string")) {
    invalid("context.changedPaths", "must be a list of strings");
  }
  if (ctx.root !== undefined && typeof ctx.root !== "string") {
    invalid("context.root", "must be a string");
  }
  const id = parserId.trim() === "" ? DEFAULT_AFFECTED_PARSER_ID : parserId.trim();
  const parser = Object.hasOwn(PARSERS, id) ? PARSERS[id] : undefined;
  if (parser === undefined) {
    throw new AffectedParseError(`verification_affected_targets: unsupported parser_id \`${id}\``);
  }
  try {
    return parser(stdout, ctx);
  } catch (error) {
    if (error instanceof TurngateError) throw error;
    // Tool output that breaks a parser (e.g. nested past the stack) is still a parse error.
    throw new AffectedParseError(`${id}: cannot read stdout (${(error as Error).message})`);
  }
}
