export {
  CACHE_KEY_SCHEMA,
  type CacheKeyCheck,
  type CacheKeyInput,
  type CacheKeyToolchainFact,
  cacheKey,
  cacheKeyMaterial,
} from "./key.js";
export {
  CACHE_KEY_EXCLUSIONS,
  type CacheKeyExclusion,
  type CacheKeyOutsideRows,
  cacheKeyOutsideRows,
} from "./outside-rows.js";
