// The result cache shared across machines (issue 20): key gathering, signed artifacts,
// the Turborepo remote-cache client, host settings and the per-turn cache.
export {
  CACHED_CHECK_PAYLOAD_TYPE,
  CACHED_CHECK_SCHEMA,
  type CachedCheck,
  type CachedCheckRejection,
  LOG_EXCERPT_MAX_CHARS,
  logExcerpt,
  type OpenedCachedCheck,
  openCachedCheck,
  signCachedCheck,
} from "./artifact.js";
export {
  CACHE_TRUSTED_KEYS_ENV,
  CACHE_WRITE_ENV,
  type CacheHostSettings,
  cacheHostSettings,
  type TrustedCacheKey,
  userCacheConfigPath,
} from "./host-settings.js";
export {
  CACHE_KEY_LOCKFILE_NAMES,
  type CacheKeyContext,
  type CacheKeyContextOptions,
  type CheckKeyOptions,
  cacheKeyContext,
  checkCacheKey,
  defaultToolchainRows,
  lockfileDigests,
  mergeToolchainRows,
  type ToolchainRow,
} from "./key-context.js";
export {
  DEFAULT_REMOTE_TIMEOUT_MS,
  MAX_REMOTE_ARTIFACT_BYTES,
  RemoteCacheClient,
  type RemoteCacheOptions,
  type RemoteFailure,
  type RemoteGet,
} from "./remote-client.js";
export {
  type CacheEvent,
  type CacheHit,
  type CacheSource,
  type CacheStats,
  cacheDir,
  cacheStats,
  ResultCache,
  type ResultCacheOptions,
} from "./result-cache.js";
export { type SourceTreeChange, sourceTreeFromChanges } from "./tree-from-changes.js";
