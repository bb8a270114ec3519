// turngate CLI as a library: build or run the program in-process (tests, embedding).

export { GC_RESULT_SCHEMA } from "./commands/gc.js";
export { COMMANDS } from "./commands/registry.js";
export type { CliCommand, ExitState } from "./commands/types.js";
export { CONFIG_FILE_NAME, checksFromFlags, loadConfig, type TurngateConfig } from "./config.js";
export {
  CLI_VERSION,
  type CliContext,
  EXIT_INCOMPLETE,
  EXIT_INTERNAL,
  EXIT_OK,
  type TextStream,
} from "./context.js";
export {
  type CliErrorReport,
  describeError,
  ERROR_RESULT_SCHEMA,
  reportError,
} from "./errors.js";
export { createProgram, main } from "./main.js";
export { renderTurnText, TURN_RESULT_SCHEMA, turnJson, verdictOf } from "./render.js";
export {
  GC_DEFAULT_KEEP_TURNS,
  GC_DEFAULT_MAX_BYTES,
  type GcOptions,
  type GcPlan,
  planGc,
  type StateFile,
} from "./state-gc.js";
export {
  runTurn,
  TURN_CHECKS_SUBJECT,
  type TurnRequest,
  type TurnResult,
  withDefaultTimeout,
} from "./turn.js";
