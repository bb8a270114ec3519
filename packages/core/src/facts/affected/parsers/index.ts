/** The affected-target parser table (harn-verification.md §1.3.1, plus ours). */
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

export { parseCargoMetadata } from "./cargo-metadata.js";
export { parseGoList, parseJsonStream } from "./go-list.js";
export { parseJsWorkspaceGraph } from "./js-workspace-graph.js";
export { PNPM_DEPENDENCY_FIELDS, parsePnpmWorkspace } from "./pnpm-workspace.js";
export { parseTargetsJson } from "./targets-json.js";
export { parseTargetsLines } from "./targets-lines.js";
export {
  AffectedParseError,
  type AffectedParser,
  type ParsedTargets,
  type ParserContext,
} from "./types.js";

/** Harn's default parser id (a blank or missing `parser_id`). */
export const DEFAULT_AFFECTED_PARSER_ID = "harn.targets_json.v1";

/** Parser ids: Harn's four (with their aliases) and ours (`pnpm.workspace.v1`, `go.list.v1`). */
export const AFFECTED_PARSERS: Readonly<Record<string, AffectedParser>> = {
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

/**
 * Parses one adapter's stdout with the parser `parserId` (trimmed; blank → the default).
 * Output {@link ParsedTargets}. Throws `AffectedParseError`: an unknown id
 * (``verification_affected_targets: unsupported parser_id `<id>` ``, Harn's text) or
 * input the parser cannot read.
 */
export function parseAffectedOutput(
  parserId: string,
  stdout: string | null | undefined,
  ctx: ParserContext,
): ParsedTargets {
  const id = parserId.trim() === "" ? DEFAULT_AFFECTED_PARSER_ID : parserId.trim();
  const parser = Object.hasOwn(AFFECTED_PARSERS, id) ? AFFECTED_PARSERS[id] : undefined;
  if (parser === undefined) {
    throw new AffectedParseError(`verification_affected_targets: unsupported parser_id \`${id}\``);
  }
  return parser(stdout, ctx);
}
