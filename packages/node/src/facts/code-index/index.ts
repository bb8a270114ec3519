export {
  CODE_INDEX_FILE,
  CODE_INDEX_LOG_LIMIT,
  CODE_INDEX_MAX_PARSE_BYTES,
  CODE_INDEX_SCHEMA,
  CodeIndex,
  type CodeIndexChange,
  type CodeIndexChanges,
  CodeIndexError,
  type CodeIndexOptions,
  type CodeIndexUpdate,
  codeIndexPath,
  type GoImportsFact,
  type IndexedFile,
} from "./code-index.js";
export {
  GO_LIST_ENV,
  GO_LIST_TIMEOUT_MS,
  type GoImportsState,
  type GoListOptions,
  type GoListPackage,
  goListFileDeps,
  goListWorkspace,
} from "./go-list.js";
export { type IndexLanguage, languageOf } from "./languages.js";
export { type OpenCodeIndexOptions, openCodeIndex } from "./open.js";
