/**
 * Equality of JSON values as the matrix compares them: objects by key set and values (key
 * order ignored; an absent key differs from a present `null`), arrays element by element,
 * numbers by value, strings by code units.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ob = b as Record<string, unknown>;
  return ka.every(
    (k) => Object.hasOwn(ob, k) && jsonEqual((a as Record<string, unknown>)[k], ob[k]),
  );
}
