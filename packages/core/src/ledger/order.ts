/**
 * Code-point order for strings (= the byte order of their UTF-8 encodings, which is how
 * A3S's Rust code orders ledger paths and summary subjects, A3S §2.1 / §1.4). JavaScript's
 * `<` compares UTF-16 code units, which puts U+E000–U+FFFF after astral characters; this
 * comparison fixes that up at the first differing unit.
 *
 * Returns a negative number, 0 or a positive number.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) {
        // Surrogates (astral code points) go after U+E000–U+FFFF.
        x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
        y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
      }
      return x - y;
    }
  }
  return a.length - b.length;
}

/** Sorts a copy of `values` in code-point order and drops duplicates. */
export function sortedUnique(values: Iterable<string>): string[] {
  const out = [...new Set(values)];
  out.sort(compareCodePoints);
  return out;
}
