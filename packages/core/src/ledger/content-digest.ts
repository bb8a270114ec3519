import canonicalize from "canonicalize";
import { type ContentHasher, NOBLE_CONTENT_HASHER, toContentHasher } from "./content-hasher.js";
import { assertJsonValue, isJsonObject } from "./json.js";

/**
 * The content digest recorded for a file that the workspace observer found deleted
 * (docs/design.md §3 change: rows from re-reading the workspace carry the SHA-256 of the file's
 * bytes; a deleted file has no bytes, so it gets this fixed marker). It is the literal
 * string `"deleted"`: it can never equal a 64-hex SHA-256 nor the `""` of an unknown
 * digest, so a deletion and any content stay distinguishable in the effect digest.
 */
export const DELETED_CONTENT_DIGEST = "deleted";

/**
 * Content digest of a tool result's metadata, A3S §2.2: when `metadata` is an object whose
 * `after` is a string, the lowercase 64-hex SHA-256 of that string's UTF-8 bytes;
 * otherwise the SHA-256 of the RFC 8785 canonical JSON of the whole metadata (docs/design.md §3;
 * A3S used serde_json's compact form, which matches for sorted keys, strings and integers).
 *
 * Throws `TurngateValidationError` (label "tool metadata", path of the bad field) when the
 * metadata is not a JSON value (undefined, a function, a BigInt, NaN, a cycle, an
 * unpaired surrogate) or nests deeper than `MAX_JSON_DEPTH` (512) levels (path `""`,
 * message "nests deeper than 512 levels"; checked before canonicalizing, so deep input
 * never exhausts the call stack).
 * `hasher`: the SHA-256 to use (default `@noble/hashes`; every hasher gives the same digest);
 * one without `sha256Hex` and `textSink` throws `TurngateValidationError` (path `hasher`).
 */
export function contentDigest(
  metadata: unknown,
  hasher: ContentHasher = NOBLE_CONTENT_HASHER,
): string {
  const h = toContentHasher(hasher);
  if (isJsonObject(metadata) && typeof metadata.after === "string") {
    return h.sha256Hex(metadata.after);
  }
  assertJsonValue(metadata, "tool metadata");
  // canonicalize returns undefined only for a root it cannot write (undefined, a
  // function), which assertJsonValue has refused just above.
  return h.sha256Hex(canonicalize(metadata) as string);
}
