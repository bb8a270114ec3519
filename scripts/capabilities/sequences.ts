/**
 * Compares two ordered name lists that must be equal — same names, same order, no
 * duplicates (reference/a3s-completion-gate.md §7 checks 1 and 3). Unlike A3S it reports
 * which names differ rather than one summary line.
 */

/** A name that appears in both lists but not in the same relative order. */
export interface MovedName {
  name: string;
  /** 1-based position of its first occurrence in the first list. */
  positionA: number;
  /** 1-based position of its first occurrence in the second list. */
  positionB: number;
}

/** How two name lists differ; every field is empty when they are equal. */
export interface SequenceDiff {
  /** Names listed more than once in the first list, with their counts, in first-seen order. */
  duplicatesA: Array<{ name: string; count: number }>;
  duplicatesB: Array<{ name: string; count: number }>;
  /** Names only in the first list, in its order. */
  onlyA: string[];
  /** Names only in the second list, in its order. */
  onlyB: string[];
  /**
   * Names present in both whose order differs: the fewest names that, taken out, leave the
   * rest in the same order (complement of a longest common subsequence), in first-list order.
   */
  moved: MovedName[];
}

function duplicates(list: readonly string[]): Array<{ name: string; count: number }> {
  const counts = new Map<string, number>();
  for (const n of list) counts.set(n, (counts.get(n) ?? 0) + 1);
  return [...counts].filter(([, c]) => c > 1).map(([name, count]) => ({ name, count }));
}

function longestCommonSubsequence(a: readonly string[], b: readonly string[]): Set<string> {
  const len: number[][] = Array.from({ length: a.length + 1 }, () =>
    new Array<number>(b.length + 1).fill(0),
  );
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const row = len[i] as number[];
      row[j] =
        a[i] === b[j]
          ? (len[i + 1]?.[j + 1] ?? 0) + 1
          : Math.max(len[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const kept = new Set<string>();
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      kept.add(a[i] as string);
      i++;
      j++;
    } else if ((len[i + 1]?.[j] ?? 0) >= (len[i]?.[j + 1] ?? 0)) i++;
    else j++;
  }
  return kept;
}

/**
 * Compares two name lists.
 *
 * @param a the list that defines the expected names and order
 * @param b the list checked against it
 * @returns the differences; all arrays are empty iff `a` and `b` are equal and duplicate-free
 */
export function compareSequences(a: readonly string[], b: readonly string[]): SequenceDiff {
  const firstA = [...new Set(a)];
  const firstB = [...new Set(b)];
  const setA = new Set(firstA);
  const setB = new Set(firstB);
  const commonA = firstA.filter((n) => setB.has(n));
  const commonB = firstB.filter((n) => setA.has(n));
  const kept = longestCommonSubsequence(commonA, commonB);
  return {
    duplicatesA: duplicates(a),
    duplicatesB: duplicates(b),
    onlyA: firstA.filter((n) => !setB.has(n)),
    onlyB: firstB.filter((n) => !setA.has(n)),
    moved: commonA
      .filter((n) => !kept.has(n))
      .map((name) => ({ name, positionA: a.indexOf(name) + 1, positionB: b.indexOf(name) + 1 })),
  };
}
