export {
  canonicalLedgerRow,
  canonicalLedgerText,
  compareRecords,
  effectDigest,
  parseCanonicalLedgerText,
  sortRecords,
} from "./canonical.js";
export { contentDigest, DELETED_CONTENT_DIGEST } from "./content-digest.js";
export {
  type ContentHasher,
  type LedgerOrderDigest,
  NOBLE_CONTENT_HASHER,
  type TextSink,
  toContentHasher,
} from "./content-hasher.js";
export { escapeLedgerField, unescapeLedgerField } from "./escape.js";
export { HARNESS_DIRECTORIES, isHarnessPath } from "./harness.js";
export { exceedsJsonDepth, MAX_JSON_DEPTH } from "./json.js";
export { MutationLedger, type ObservedPath } from "./ledger.js";
export {
  acceptLedgerPath,
  DIRECT_MUTATION_TOOLS,
  MAX_NESTED_TOOL_DEPTH,
  observeToolResult,
  type ToolObservation,
} from "./observe.js";
export { compareCodePoints } from "./order.js";
export { sha256Hex } from "./sha256.js";
