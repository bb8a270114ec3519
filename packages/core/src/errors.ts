/**
 * Typed errors thrown by @turngate/core (and reused by @turngate/node, bridge and cli).
 *
 * Every error carries a stable snake_case `code` so that a host, the bridge (JSON-RPC
 * `data.code`) and the language bindings can map it without parsing the message.
 */

/** One problem found while validating a value: the field path (`checks.0.status`) and why. */
export interface ValidationIssue {
  /** Dot-joined field path from the validated value's root; `""` for the root itself. */
  path: string;
  message: string;
}

/** Base class of every error @turngate/core throws on purpose. `code` is stable. */
export class TurngateError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = "TurngateError";
    this.code = code;
  }
}

/**
 * Bad input: a value did not match its schema (wrong type, unknown status, blank waiver
 * field, malformed metadata …). `code` is `"invalid_input"`; `path` names the first bad
 * field (`"checks.0.status"`, `""` for the root); `issues` lists every problem found.
 */
export class TurngateValidationError extends TurngateError {
  readonly path: string;
  readonly issues: readonly ValidationIssue[];
  constructor(label: string, issues: readonly ValidationIssue[]) {
    const first = issues[0] ?? { path: "", message: "invalid value" };
    const where = first.path === "" ? "" : ` at ${first.path}`;
    const more = issues.length > 1 ? ` (+${issues.length - 1} more)` : "";
    super("invalid_input", `invalid ${label}${where}: ${first.message}${more}`);
    this.name = "TurngateValidationError";
    this.path = first.path;
    this.issues = issues;
  }
}

/**
 * A verification report was refused because of who wrote it (docs/design.md §3 "Authorship"):
 * only `host` and `verifier` authors are trusted; `editor`, an absent author and unknown
 * author strings are refused (A3S accepts unknown authors as host — we do not).
 * `code` is `"report_author_rejected"`; `author` is the value that was given; `path` is
 * the field at fault, `"verification_author"` (the tool-metadata key that names the author).
 */
export class TurngateAuthorshipError extends TurngateError {
  readonly author: unknown;
  readonly path = "verification_author";
  constructor(author: unknown, message: string) {
    super("report_author_rejected", message);
    this.name = "TurngateAuthorshipError";
    this.author = author;
  }
}

/**
 * A verification report records a status that its checks do not derive (docs/design.md §3: a
 * mismatch is rejected, never trusted). `code` is `"report_status_mismatch"`.
 */
export class TurngateStatusMismatchError extends TurngateError {
  readonly subject: string;
  readonly recordedStatus: string;
  readonly derivedStatus: string;
  constructor(subject: string, recordedStatus: string, derivedStatus: string) {
    super(
      "report_status_mismatch",
      `verification report "${subject}" records status "${recordedStatus}" but its checks derive "${derivedStatus}"`,
    );
    this.name = "TurngateStatusMismatchError";
    this.subject = subject;
    this.recordedStatus = recordedStatus;
    this.derivedStatus = derivedStatus;
  }
}
