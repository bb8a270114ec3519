/** Shared types of the affected-target parsers (harn-verification.md §1.3.1). */
import { TurngateError } from "../../../errors.js";
import type { ProjectNode } from "../project-graph.js";
import type { AffectedTarget } from "../target.js";

/** What a parser knows besides stdout: the adapter's id, the changed paths, the root. */
export interface ParserContext {
  adapterId: string;
  /** Normalized changed paths (string-list rule, §2.10). */
  changedPaths: string[];
  /** Absolute workspace root, to map absolute tool paths to workspace-relative ones. */
  root?: string;
}

/**
 * A parser's answer: the targets the changed paths reach directly (Harn's result), and —
 * for workspace graphs — every project with its dependencies, so the reducer can add
 * dependents, global-file and lockfile targets.
 */
export interface ParsedTargets {
  targets: AffectedTarget[];
  projects?: ProjectNode[];
}

/** A parser: stdout text in, targets out. Throws `AffectedParseError` on bad input. */
export type AffectedParser = (
  stdout: string | null | undefined,
  ctx: ParserContext,
) => ParsedTargets;

/**
 * A parser could not read its input (not JSON, wrong shape, unknown parser id). `code`
 * `affected_parse_error`; the message is the one the adapter fact's `error` carries.
 */
export class AffectedParseError extends TurngateError {
  constructor(message: string) {
    super("affected_parse_error", message);
    this.name = "AffectedParseError";
  }
}

/** `json_parse(stdout ?? "null")`: an empty string is a parse error, as in Harn. */
export function parseJsonStdout(stdout: string | null | undefined, parserId: string): unknown {
  try {
    return JSON.parse(stdout ?? "null");
  } catch (error) {
    throw new AffectedParseError(`${parserId}: stdout is not JSON (${(error as Error).message})`);
  }
}
