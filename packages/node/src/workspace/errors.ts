/** Machine-readable reasons a workspace observation call can fail. */
export type WorkspaceObserverErrorCode =
  | "invalid_option"
  | "invalid_root"
  | "git_failed"
  | "no_baseline"
  | "invalid_snapshot";

/**
 * The one error type thrown by the workspace observer.
 *
 * `code` says what went wrong; `field` names the offending input (an option name, or a JSON
 * path such as `entries[3].size` for snapshot input) when the error is about input.
 */
export class WorkspaceObserverError extends Error {
  readonly code: WorkspaceObserverErrorCode;
  readonly field: string | undefined;

  constructor(code: WorkspaceObserverErrorCode, message: string, field?: string) {
    super(message);
    this.name = "WorkspaceObserverError";
    this.code = code;
    this.field = field;
  }
}
