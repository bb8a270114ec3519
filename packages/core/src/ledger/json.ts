import { TurngateValidationError } from "../errors.js";
import { joinPath } from "../schemas/parse.js";

/** True for a non-null, non-array object (a JSON object once serialised). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks that `value` can be written as RFC 8785 canonical JSON: no functions, BigInts,
 * symbols, non-finite numbers, unpaired surrogates or cycles. `undefined` is allowed as an
 * object value (JSON drops the key) and as an array element (JSON writes `null`), not at
 * the root.
 * Objects and arrays may nest at most `MAX_JSON_DEPTH` (512) levels (the root container is
 * level 1; a `toJSON` result counts one level more), so canonicalizing never exhausts
 * the call stack.
 * Throws `TurngateValidationError` whose path names the bad field (prefixed by `label`);
 * for too deep nesting the path is `path` itself (the value's root) and the message
 * "nests deeper than 512 levels".
 */
export function assertJsonValue(value: unknown, label: string, path = ""): void {
  walk(value, label, path, new Set(), 0, path, true);
}

/**
 * The path of member `key` below `path`. Below the base every key is a segment, an empty
 * key too (`a.` names key "" of `a`, `.1` item 1 of the root's key ""; issue 36: the empty
 * segment was dropped, so the path named another field); at the base `joinPath` applies.
 */
function child(path: string, key: string, atBase: boolean): string {
  return atBase ? joinPath(path, key) : `${path}.${key}`;
}

/**
 * How many levels of objects/arrays a JSON value checked by `assertJsonValue` (and so a
 * tool metadata object given to `contentDigest` / `observeTool`) may nest.
 */
export const MAX_JSON_DEPTH = 512;

function fail(label: string, path: string, message: string): never {
  throw new TurngateValidationError(label, [{ path, message }]);
}

function walk(
  value: unknown,
  label: string,
  path: string,
  stack: Set<object>,
  depth: number,
  root: string,
  atBase: boolean,
): void {
  switch (typeof value) {
    case "string":
      if (hasLoneSurrogate(value)) fail(label, path, "holds an unpaired UTF-16 surrogate");
      return;
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) fail(label, path, `is ${value}, not a JSON number`);
      return;
    case "object":
      break;
    default:
      fail(label, path, `is not a JSON value (${typeof value})`);
  }
  if (value === null) return;
  if (stack.has(value)) fail(label, path, "is a circular reference");
  if (depth >= MAX_JSON_DEPTH) fail(label, root, `nests deeper than ${MAX_JSON_DEPTH} levels`);
  stack.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (value[i] !== undefined)
        walk(value[i], label, child(path, String(i), atBase), stack, depth + 1, root, false);
    }
  } else {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") {
      walk(
        (value as { toJSON: () => unknown }).toJSON(),
        label,
        path,
        stack,
        depth + 1,
        root,
        atBase,
      );
    } else {
      for (const key of Object.keys(value)) {
        if (hasLoneSurrogate(key))
          fail(label, child(path, key, atBase), "key holds an unpaired surrogate");
        const v = (value as Record<string, unknown>)[key];
        if (v === undefined) continue;
        walk(v, label, child(path, key, atBase), stack, depth + 1, root, false);
      }
    }
  }
  stack.delete(value);
}

function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    return true;
  }
  return false;
}

/**
 * True when `value` nests objects/arrays more than `max` levels deep (the root container is
 * level 1, as in `assertJsonValue`). Iterative, so it never exhausts the call stack itself,
 * and it stops at the first container past the limit; a cycle counts as too deep.
 * Input: any value (`JSON.parse` output in practice); `max` in levels (default
 * `MAX_JSON_DEPTH`). Never throws. Used where input enters: bridge params (issue #11 §2)
 * and diagnostic-parser documents.
 */
export function exceedsJsonDepth(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  if (typeof value !== "object" || value === null) return false;
  // Each entry: a container and its level. Depth-first, so the stack holds at most
  // `max` levels' worth of pending siblings before the check below returns.
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, level] = stack.pop() as [object, number];
    if (level > max) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === "object" && child !== null) stack.push([child, level + 1]);
    }
  }
  return false;
}
