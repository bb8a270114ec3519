export {
  CODE_INDEX_FILE,
  CODE_INDEX_LOG_LIMIT,
  CODE_INDEX_MAX_PARSE_BYTES,
  CODE_INDEX_SCHEMA,
  CodeIndex,
  type CodeIndexChange,
  type CodeIndexChanges,
  CodeIndexError,
  type CodeIndexUpdate,
  codeIndexPath,
  type IndexedFile,
} from "./code-index.js";
export { type IndexLanguage, languageOf } from "./languages.js";
export { type OpenCodeIndexOptions, openCodeIndex } from "./open.js";
