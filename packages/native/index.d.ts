/**
 * turngate's native addon (napi-rs, built from source by `pnpm --filter @turngate/native
 * build`). Issue 10 "Child subreaper"; issue 17 adds hashing beside `process`.
 */

/** True when the `.node` build for this platform loaded; false otherwise (see `reason`). */
export declare const available: boolean;

/** Why the addon is unavailable (not built, other platform, load error); null when available. */
export declare const reason: string | null;

/** What `reapChild` found. */
export interface ReapResult {
  /** `reaped`: the child had ended and its zombie is gone; `running`: still alive; `not_child`: ECHILD. */
  state: "reaped" | "running" | "not_child";
  /** Exit code when the child exited normally. */
  exitCode?: number;
  /** Number of the signal that ended it, when one did. */
  signal?: number;
}

/**
 * `prctl(PR_SET_CHILD_SUBREAPER, on)` for this process: while on, orphaned descendants are
 * reparented to it instead of init. Output: the previous state.
 * Errors: code `ERR_TURNGATE_UNSUPPORTED` in the message off Linux; the OS error when prctl
 * fails; `ERR_TURNGATE_NATIVE_UNAVAILABLE` when the addon is absent.
 */
export declare function setChildSubreaper(on: boolean): boolean;

/** Whether this process is a child subreaper (`PR_GET_CHILD_SUBREAPER`). Errors as `setChildSubreaper`. */
export declare function isChildSubreaper(): boolean;

/**
 * `waitpid(pid, WNOHANG)` for exactly `pid` (never -1, so libuv's children stay libuv's).
 * Errors: `pid` not a positive integer; `ERR_TURNGATE_UNSUPPORTED` off Unix;
 * `ERR_TURNGATE_NATIVE_UNAVAILABLE` when the addon is absent.
 */
export declare function reapChild(pid: number): ReapResult;
