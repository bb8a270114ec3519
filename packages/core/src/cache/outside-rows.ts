import * as z from "zod";
import { parseWith } from "../schemas/parse.js";

/**
 * A ledger row the result-cache key leaves out, with why the controlled check environment
 * (`prepareCheckEnvironment`) keeps it from influencing any check (docs/scale-out.md "Many
 * machines").
 */
export interface CacheKeyExclusion {
  /** Stable id (`pycache`). */
  id: string;
  /** Which paths it covers, in words. */
  covers: string;
  /** Why leaving them out of the key is safe. */
  reason: string;
}

/** Every exclusion of `cacheKeyOutsideRows`, in the order they are tried. */
export const CACHE_KEY_EXCLUSIONS: readonly CacheKeyExclusion[] = [
  {
    id: "pycache",
    covers:
      "Python bytecode caches: a file named `<module>.<tag>.pyc` or `<module>.<tag>.opt-N.pyc` (PEP 3147/488, e.g. `m.cpython-311.pyc`) directly inside a `__pycache__/` folder (any depth)",
    reason:
      "checks run with PYTHONPYCACHEPREFIX set to a fresh folder, so Python's import system neither reads nor writes bytecode in `__pycache__/` folders of the workspace; any other file there (data, a `.pyc` of another name, a sub-folder) joins the key",
  },
];

/** `<module>.<tag>.pyc` / `<module>.<tag>.opt-N.pyc` (PEP 3147, PEP 488): `m.cpython-311.pyc`. */
const PYC_NAME = /^[^./][^/]*\.[A-Za-z]+-\d+(?:\.opt-\d)?\.pyc$/;

const RowsSchema = z.array(z.object({ path: z.string(), content_digest: z.string() }));

/** Result of {@link cacheKeyOutsideRows}. */
export interface CacheKeyOutsideRows {
  /** path → content digest of the rows that join the key (last row of a path wins). */
  outside: Record<string, string>;
  /** `{path, exclusion}` of each row left out, sorted by path. */
  excluded: { path: string; exclusion: string }[];
}

/**
 * The ledger rows outside the source scope that join a result-cache key (issue 20 item 1):
 * every row except those a {@link CACHE_KEY_EXCLUSIONS} entry covers: a bytecode cache file
 * named as Python's import system names it (`<module>.<tag>[.opt-N].pyc`) whose parent
 * folder is exactly `__pycache__` (`a/__pycache__/m.cpython-311.pyc`; not `a/x__pycache__/…`,
 * not `__pycache__/data.json`, not `__pycache__/top.pyc`, not `__pycache__/sub/m.cpython-311.pyc`).
 * Residual: a check that itself runs or reads such a file by path sees bytes the key does
 * not cover (docs/scale-out.md "Many machines").
 * Input: rows `{path, content_digest}` (the caller passes only rows outside the source
 * scope; extra fields ignored). Output: {@link CacheKeyOutsideRows}.
 * Errors: `TurngateValidationError` (path `N.path` / `N.content_digest`) for a malformed row.
 */
export function cacheKeyOutsideRows(
  rows: readonly { path: string; content_digest: string }[],
): CacheKeyOutsideRows {
  const parsed = parseWith(RowsSchema, rows, "cache key rows");
  const outside: Record<string, string> = {};
  const excluded: { path: string; exclusion: string }[] = [];
  for (const row of parsed) {
    const segments = row.path.split("/");
    const name = segments[segments.length - 1] ?? "";
    if (
      segments.length >= 2 &&
      segments[segments.length - 2] === "__pycache__" &&
      PYC_NAME.test(name)
    ) {
      excluded.push({ path: row.path, exclusion: "pycache" });
      continue;
    }
    outside[row.path] = row.content_digest;
  }
  excluded.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { outside, excluded };
}
