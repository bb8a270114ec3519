import { compareCodePoints } from "./order.js";

/** Groups of at most this many rows are put in order by comparing rows. */
const SMALL_GROUP = 24;
/** `groupOf` value of a row whose place is final. */
const PLACED = 0xffffffff;

/**
 * The permutation that puts rows in ledger order (A3S §2.1): by path, then by tool, both in
 * code-point order (= UTF-8 byte order); rows with equal (path, tool) keep their index
 * order (stable). Row `i` is `(paths[i], tools[i])`; the two arrays have the same length.
 * Returns the row indices in ledger order. O(total distinguishing prefix length + n log n)
 * with the n log n part in the engine's native numeric sort.
 *
 * How: an MSD radix sort whose digits are chunks of `chunkChars` path characters packed
 * with the row index into one exact double, so each group is ordered by one native
 * `Float64Array` sort instead of a JavaScript comparator per compare. Each round skips
 * the prefix a group's paths share, keys each row by the next chunk, sorts, and splits the
 * group into runs of equal chunks for the next round; small runs, runs of equal paths and
 * runs the chunk cannot split are ordered by `compareCodePoints` (path, then tool, then
 * index). Rows are read in index order in each round (memory order for rows pushed in
 * order), which keeps the string reads cache-friendly.
 *
 * A chunk maps each unit below U+007E to itself + 1 and the end of the path to 0; a unit
 * from U+007E up (rare in paths) maps to 127 and ends the chunk (zeros follow). That makes
 * the key monotone — it can tie two different paths, never invert them — so runs of equal
 * keys are refined or compared, and different keys are already in order.
 */
export function ledgerOrder(paths: readonly string[], tools: readonly string[]): Uint32Array {
  const n = paths.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  const compare = (a: number, b: number): number =>
    compareCodePoints(paths[a] as string, paths[b] as string) ||
    compareCodePoints(tools[a] as string, tools[b] as string) ||
    a - b;
  const compareRange = (lo: number, hi: number): void => {
    if (hi - lo < 2) return;
    const part = Array.from(order.subarray(lo, hi));
    part.sort(compare);
    order.set(part, lo);
  };
  if (n <= SMALL_GROUP) {
    compareRange(0, n);
    return order;
  }

  let indexBits = 1;
  while (2 ** indexBits < n) indexBits++;
  const scale = 2 ** indexBits;
  const chunkChars = Math.floor((53 - indexBits) / 7);
  const keys = new Float64Array(n);
  const groupOf = new Uint32Array(n); // every row starts in group 0
  // The open groups of this round: order[lo..hi) holds their rows, which share the path's
  // first `from` units.
  let lo = [0];
  let hi = [n];
  let from = [0];
  const active = order.slice(); // rows of open groups, in index order
  let activeCount = n;

  while (activeCount > 0) {
    const groups = lo.length;
    const ref: string[] = new Array(groups);
    const prefix = new Int32Array(groups);
    const fill = new Int32Array(groups);
    for (let g = 0; g < groups; g++) {
      ref[g] = paths[order[lo[g] as number] as number] as string;
      prefix[g] = (ref[g] as string).length;
      fill[g] = lo[g] as number;
    }
    // Shared prefix of each group (its rows already agree on the first `from` units).
    for (let a = 0; a < activeCount; a++) {
      const row = active[a] as number;
      const g = groupOf[row] as number;
      const shared = prefix[g] as number;
      let j = from[g] as number;
      if (shared <= j) continue;
      const p = paths[row] as string;
      const r = ref[g] as string;
      const end = Math.min(p.length, shared);
      while (j < end && p.charCodeAt(j) === r.charCodeAt(j)) j++;
      prefix[g] = j;
    }
    // One key per row: the chunk after its group's shared prefix, then the row index.
    for (let a = 0; a < activeCount; a++) {
      const row = active[a] as number;
      const g = groupOf[row] as number;
      const chunk = chunkAt(paths[row] as string, prefix[g] as number, chunkChars);
      keys[fill[g] as number] = chunk * scale + row;
      fill[g] = (fill[g] as number) + 1;
    }
    const nextLo: number[] = [];
    const nextHi: number[] = [];
    const nextFrom: number[] = [];
    for (let g = 0; g < groups; g++) {
      const start = lo[g] as number;
      const end = hi[g] as number;
      keys.subarray(start, end).sort();
      for (let i = start; i < end; i++) {
        const key = keys[i] as number;
        order[i] = key - Math.floor(key / scale) * scale;
      }
      const firstChunk = Math.floor((keys[start] as number) / scale);
      if (firstChunk === Math.floor((keys[end - 1] as number) / scale)) {
        // The chunk does not split the group (equal paths, or units from U+007E up).
        compareRange(start, end);
        for (let i = start; i < end; i++) groupOf[order[i] as number] = PLACED;
        continue;
      }
      let runStart = start;
      let runChunk = firstChunk;
      for (let i = start + 1; i <= end; i++) {
        const chunk = i < end ? Math.floor((keys[i] as number) / scale) : -1;
        if (chunk === runChunk) continue;
        let id = PLACED;
        if (i - runStart <= SMALL_GROUP) compareRange(runStart, i);
        else {
          id = nextLo.length;
          nextLo.push(runStart);
          nextHi.push(i);
          nextFrom.push(prefix[g] as number);
        }
        for (let j = runStart; j < i; j++) groupOf[order[j] as number] = id;
        runStart = i;
        runChunk = chunk;
      }
    }
    let kept = 0;
    for (let a = 0; a < activeCount; a++) {
      const row = active[a] as number;
      if (groupOf[row] !== PLACED) active[kept++] = row;
    }
    activeCount = kept;
    lo = nextLo;
    hi = nextHi;
    from = nextFrom;
  }
  return order;
}

/**
 * `chars` units of `path` from `start` as a base-128 number (see `ledgerOrder`): a unit
 * below U+007E counts as itself + 1, the end of the path as 0, and a unit from U+007E up
 * as 127 followed by zeros.
 */
function chunkAt(path: string, start: number, chars: number): number {
  let value = 0;
  for (let j = 0; j < chars; j++) {
    const c = path.charCodeAt(start + j); // NaN past the end
    if (c < 0x7e) {
      value = value * 128 + c + 1;
      continue;
    }
    value = value * 128 + (c >= 0x7e ? 127 : 0);
    for (j++; j < chars; j++) value *= 128;
  }
  return value;
}
