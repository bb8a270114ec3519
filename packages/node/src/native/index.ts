/**
 * The Node host's use of `@turngate/native` (issue 17): which path runs (`TURNGATE_NATIVE`),
 * and the ledger's content hasher. The observer's seams (file hasher, stat service, walk)
 * live beside the code they accelerate in `workspace/`.
 */
export {
  hostContentHasher,
  NODE_CRYPTO_CONTENT_HASHER,
  nativeContentHasher,
} from "./content-hasher.js";
export {
  NATIVE_ENV,
  type NativeAddon,
  type NativeMode,
  nativeMode,
  nativeStatus,
  selectNative,
} from "./select.js";
