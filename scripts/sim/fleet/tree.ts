/**
 * The tree model of the fleet simulation (issue #20 item 5): files interned to numbers, grouped
 * into packages, main's revisions stored as per-file version histories, and a 64-bit multiset
 * hash per group (XOR of a hash of each (file, version)) so a tree's key inputs update in
 * O(changed files) instead of rehashing the whole tree.
 */
import type { ChangeSet } from "./history.js";

/** Slot of root-level manifests and lockfiles (inputs of every check). */
const SHARED = -1;
/** Slot of other root-level files (inputs of no package check; part of the whole-tree key). */
const ROOT_OTHER = -2;

const CONTAINERS = new Set([
  "packages",
  "apps",
  "libs",
  "bindings",
  "crates",
  "services",
  "plugins",
  "modules",
]);
const MANIFEST =
  /^(package\.json|[^/]*lock[^/]*|go\.mod|go\.sum|Cargo\.toml|pyproject\.toml|requirements[^/]*\.txt|tsconfig[^/]*\.json|turbo\.json)$/;

/** The group of a repository path: see assumptions() in params.ts. Pure. */
export function groupOfPath(path: string): string | typeof SHARED | typeof ROOT_OTHER {
  const parts = path.split("/");
  if (parts.length === 1) return MANIFEST.test(path) ? SHARED : ROOT_OTHER;
  const first = parts[0] as string;
  if (CONTAINERS.has(first) && parts.length > 2) return `${first}/${parts[1]}`;
  return first;
}

/** Every file of a history, interned, with its group slot. */
export interface Layout {
  files: string[];
  fileIndex: Map<string, number>;
  /** Package groups in first-seen order; one check per group. */
  groups: string[];
  /** Slot per file: 0..groups-1 for a group, `groups.length` for shared manifests, `groups.length + 1` for other root files. */
  slotOf: Int32Array;
  /** Number of hash slots (groups + 2). */
  slots: number;
}

/** Interns the files of `commits` and assigns their groups (first-seen order, deterministic). Pure. */
export function buildLayout(commits: readonly ChangeSet[]): Layout {
  const files: string[] = [];
  const fileIndex = new Map<string, number>();
  const groups: string[] = [];
  const groupIndex = new Map<string, number>();
  const rawSlots: number[] = [];
  for (const c of commits) {
    for (const f of c.files) {
      if (fileIndex.has(f)) continue;
      fileIndex.set(f, files.length);
      files.push(f);
      const g = groupOfPath(f);
      if (typeof g === "string") {
        let gi = groupIndex.get(g);
        if (gi === undefined) {
          gi = groups.length;
          groupIndex.set(g, gi);
          groups.push(g);
        }
        rawSlots.push(gi);
      } else rawSlots.push(g);
    }
  }
  const slotOf = Int32Array.from(rawSlots, (s) =>
    s === SHARED ? groups.length : s === ROOT_OTHER ? groups.length + 1 : s,
  );
  return { files, fileIndex, groups, slotOf, slots: groups.length + 2 };
}

function fmix32(h: number): number {
  let x = h >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The two 32-bit halves of the hash of one (file, version) pair. */
function pairHash(file: number, version: number, half: 0 | 1): number {
  return fmix32(
    fmix32(Math.imul(file + 1, 0x9e3779b1) ^ (half === 0 ? 0x1b873593 : 0xcc9e2d51)) ^
      Math.imul(version + 1, 0x27d4eb2f),
  );
}

/** Per-slot accumulators of one tree: `[slot0.lo, slot0.hi, slot1.lo, …]`. */
export type Accumulators = Uint32Array;

/**
 * Main's revisions: revision 0 holds every file at version 0; each merge appends a revision.
 * versionAt() is a binary search in the file's history.
 */
export class MainLine {
  private readonly revs: number[][];
  private readonly vers: number[][];
  private readonly accs: Accumulators[] = [];
  /** Minutes at which each revision was merged (revision 0 at 0). */
  readonly mergedAt: number[] = [0];

  constructor(readonly layout: Layout) {
    const n = layout.files.length;
    this.revs = Array.from({ length: n }, () => [0]);
    this.vers = Array.from({ length: n }, () => [0]);
    const acc = new Uint32Array(layout.slots * 2);
    for (let f = 0; f < n; f++) {
      const s = layout.slotOf[f] as number;
      acc[2 * s] = (acc[2 * s] as number) ^ pairHash(f, 0, 0);
      acc[2 * s + 1] = (acc[2 * s + 1] as number) ^ pairHash(f, 0, 1);
    }
    this.accs.push(acc);
  }

  /** Newest revision number. */
  get head(): number {
    return this.accs.length - 1;
  }

  /** Version of `file` at revision `rev`. */
  versionAt(file: number, rev: number): number {
    const revs = this.revs[file] as number[];
    let lo = 0;
    let hi = revs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((revs[mid] as number) <= rev) lo = mid;
      else hi = mid - 1;
    }
    return (this.vers[file] as number[])[lo] as number;
  }

  /** Accumulators of `base` with `overlay` (file → version) applied; a fresh array. */
  treeOf(base: number, overlay: ReadonlyMap<number, number>): Accumulators {
    const acc = (this.accs[base] as Accumulators).slice();
    for (const [f, v] of overlay) {
      const old = this.versionAt(f, base);
      if (old === v) continue;
      const s = this.layout.slotOf[f] as number;
      acc[2 * s] = (acc[2 * s] as number) ^ pairHash(f, old, 0) ^ pairHash(f, v, 0);
      acc[2 * s + 1] = (acc[2 * s + 1] as number) ^ pairHash(f, old, 1) ^ pairHash(f, v, 1);
    }
    return acc;
  }

  /** Accumulators of revision `rev` (shared, do not mutate). */
  accumulators(rev: number): Accumulators {
    return this.accs[rev] as Accumulators;
  }

  /** Appends head ⊕ overlay as a new revision merged at `at` minutes; returns its number. */
  merge(overlay: ReadonlyMap<number, number>, at: number): number {
    const acc = this.treeOf(this.head, overlay);
    const rev = this.accs.length;
    for (const [f, v] of overlay) {
      (this.revs[f] as number[]).push(rev);
      (this.vers[f] as number[]).push(v);
    }
    this.accs.push(acc);
    this.mergedAt.push(at);
    return rev;
  }
}

/**
 * The key-input part of a check's cache key for a tree: the whole tree's hash (`repo`) or the
 * check's group plus the shared manifests (`package`). The full key adds the check and toolchain.
 */
export function treePart(
  acc: Accumulators,
  group: number,
  layout: Layout,
  scope: "repo" | "package",
): string {
  if (scope === "package") {
    const s = layout.groups.length;
    return `${acc[2 * group]}.${acc[2 * group + 1]}.${acc[2 * s]}.${acc[2 * s + 1]}`;
  }
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < acc.length; i += 2) {
    lo ^= acc[i] as number;
    hi ^= acc[i + 1] as number;
  }
  return `${lo >>> 0}.${hi >>> 0}`;
}
