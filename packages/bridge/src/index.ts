/**
 * @turngate/bridge — the bridge protocol (a zod method table, exported as JSON Schema in
 * schema/protocol.json) and its stdio server (docs/design.md §5). `turngate bridge --stdio` runs
 * `runStdioServer`; the stateless methods are also served in-process by
 * `@turngate/bridge/pure` (no `node:` imports) for the Pyodide transport.
 */

export type { ErrorCodeInfo, KnownErrorCode, WireError } from "./errors.js";
export { BridgeError, ERROR_CODES, isBridgeError } from "./errors.js";
export type { MethodContext, MethodSpec, MethodTable } from "./method.js";
export { notificationTable } from "./notifications.js";
export {
  BRIDGE_VERSION,
  MAX_MESSAGE_BYTES,
  PROGRESS_NOTIFICATION,
  PROTOCOL_ID,
} from "./protocol.js";
export { buildProtocolDocument, lintMethodTable, renderProtocolDocument } from "./protocol-doc.js";
export { dispatchStateless, handleStatelessLine, statelessMethodNames } from "./pure.js";
export { type SessionEntry, SessionRegistry } from "./server/sessions.js";
export type { StdioServerOptions } from "./server/stdio.js";
export { runStdioServer } from "./server/stdio.js";
export { statelessTable } from "./stateless.js";
export type { ServerContext } from "./table.js";
export { bridgeTable } from "./table.js";
