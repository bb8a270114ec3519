/**
 * Protocol constants of the turngate bridge (docs/design.md §5).
 *
 * - `PROTOCOL_ID` is what `initialize` returns as `protocol`; bindings compare it exactly.
 * - `BRIDGE_VERSION` is the package version of `@turngate/bridge` (a test keeps it equal to
 *   package.json); bindings use `initialize.methods` for feature detection, not the version.
 * - `MAX_MESSAGE_BYTES` caps one message (one line, excluding its `\n`) in either direction.
 */
export const PROTOCOL_ID = "turngate.bridge.v1";
export const BRIDGE_VERSION = "0.1.0";
/** 32 MiB: the largest request or response line, in bytes, excluding the newline. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** Name of the server→client notification that reports progress of a running request. */
export const PROGRESS_NOTIFICATION = "progress";
