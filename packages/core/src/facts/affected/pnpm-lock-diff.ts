/**
 * Which importers (workspace packages) of a `pnpm-lock.yaml` changed between two versions
 * of the file (our change: lockfile changes map to the packages whose dependencies
 * changed, not to "everything" or to the root only — pnpm#4420, turbo#2162 in
 * reference/landscape.md §2.1).
 */
import canonicalize from "canonicalize";
import { parse as parseYaml } from "yaml";
import { type Dict, isDict } from "../harn-values.js";

/** `importers`: changed importer folders (`packages/a`), sorted; `all`: treat every package as changed, with `why`. */
export interface LockfileImporterDiff {
  importers: string[];
  all: boolean;
  why?: string;
}

const canon = (v: unknown): string => canonicalize(v ?? null) ?? "null";
const DEP_FIELDS = ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies"];

function readLock(text: string | null): Dict | null {
  if (text === null) return {};
  const data: unknown = parseYaml(text, { maxAliasCount: 1000 });
  return isDict(data) ? data : null;
}

/** Keys a dependency `name` at `version` may have in `packages` / `snapshots` (v6 and v9 forms). */
function keysFor(name: string, version: string): string[] {
  const base = version.replace(/\(.*$/, "");
  return [
    `${name}@${version}`,
    `/${name}@${version}`,
    `${name}@${base}`,
    `/${name}@${base}`,
    `/${name}/${base}`,
  ];
}

function depEntries(entry: unknown): [string, string][] {
  const out: [string, string][] = [];
  if (!isDict(entry)) return out;
  for (const field of DEP_FIELDS) {
    const block = entry[field];
    if (!isDict(block)) continue;
    for (const [name, v] of Object.entries(block)) {
      const version = isDict(v) ? v.version : v;
      if (typeof version === "string" && !version.startsWith("link:")) out.push([name, version]);
    }
  }
  return out;
}

/** The `packages` / `snapshots` keys an importer's dependencies reach, transitively. */
function closure(lock: Dict, importer: unknown): Set<string> {
  const sections = [lock.snapshots, lock.packages].filter(isDict) as Dict[];
  const seen = new Set<string>();
  const queue = depEntries(importer);
  for (let i = 0; i < queue.length; i++) {
    const [name, version] = queue[i] as [string, string];
    for (const key of keysFor(name, version)) {
      for (const section of sections) {
        if (!Object.hasOwn(section, key) || seen.has(`${key}`)) continue;
        seen.add(key);
        queue.push(...depEntries(section[key]));
      }
    }
  }
  return seen;
}

/**
 * Compares two `pnpm-lock.yaml` texts (`null` = the file did not exist on that side).
 * An importer changed when its own entry differs, or when a `packages` / `snapshots`
 * entry its dependencies reach (transitively, on either side) was added, removed or
 * changed. `all` is true (with `why`) when a side is not a YAML mapping or fails to parse,
 * when the root importer `.` changed (its tools serve every package), or when the
 * top-level settings (`lockfileVersion`, `settings`, `overrides`, `patchedDependencies`,
 * `catalogs`) differ. Pure; never throws.
 */
export function pnpmLockChangedImporters(
  before: string | null,
  after: string | null,
): LockfileImporterDiff {
  if (
    (before !== null && typeof before !== "string") ||
    (after !== null && typeof after !== "string")
  ) {
    return { importers: [], all: true, why: "pnpm-lock.yaml text is missing" };
  }
  try {
    return diffLocks(before, after);
  } catch (error) {
    const why = `pnpm-lock.yaml cannot be compared: ${(error as Error).message}`;
    return { importers: [], all: true, why };
  }
}

function diffLocks(before: string | null, after: string | null): LockfileImporterDiff {
  let a: Dict | null;
  let b: Dict | null;
  try {
    a = readLock(before);
    b = readLock(after);
  } catch (error) {
    return {
      importers: [],
      all: true,
      why: `pnpm-lock.yaml does not parse: ${(error as Error).message}`,
    };
  }
  if (a === null || b === null)
    return { importers: [], all: true, why: "pnpm-lock.yaml is not a YAML mapping" };
  for (const key of [
    "lockfileVersion",
    "settings",
    "overrides",
    "patchedDependencies",
    "catalogs",
  ]) {
    if (canon(a[key]) !== canon(b[key]))
      return { importers: [], all: true, why: `pnpm-lock.yaml ${key} changed` };
  }
  const changedKeys = new Set<string>();
  for (const section of ["packages", "snapshots"]) {
    const x = isDict(a[section]) ? (a[section] as Dict) : {};
    const y = isDict(b[section]) ? (b[section] as Dict) : {};
    for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (canon(x[key]) !== canon(y[key])) changedKeys.add(key);
    }
  }
  const ia = isDict(a.importers) ? (a.importers as Dict) : {};
  const ib = isDict(b.importers) ? (b.importers as Dict) : {};
  const changed: string[] = [];
  for (const name of new Set([...Object.keys(ia), ...Object.keys(ib)])) {
    let hit = canon(ia[name]) !== canon(ib[name]);
    if (!hit && changedKeys.size > 0) {
      const reach = new Set([...closure(a, ia[name]), ...closure(b, ib[name])]);
      hit = [...reach].some((k) => changedKeys.has(k));
    }
    if (hit) changed.push(name);
  }
  changed.sort();
  if (changed.includes("."))
    return { importers: changed, all: true, why: "the root importer `.` changed" };
  return { importers: changed, all: false };
}
