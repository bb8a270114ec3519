import * as z from "zod";
import { parseWith } from "../schemas/parse.js";

/**
 * A ledger row the result-cache key leaves out, with why the controlled check environment
 * (`prepareCheckEnvironment`) keeps it from influencing any check (README "Many machines").
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
    covers: "files inside a `__pycache__/` folder (any depth)",
    reason:
      "checks run with PYTHONPYCACHEPREFIX set to a fresh folder, so Python neither reads nor writes bytecode in `__pycache__/` folders of the workspace",
  },
];

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
 * every row except those a {@link CACHE_KEY_EXCLUSIONS} entry covers. A `__pycache__`
 * segment counts only as a whole path segment (`a/__pycache__/m.pyc`, not `a/x__pycache__`).
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
    if (segments.slice(0, -1).includes("__pycache__")) {
      excluded.push({ path: row.path, exclusion: "pycache" });
      continue;
    }
    outside[row.path] = row.content_digest;
  }
  excluded.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { outside, excluded };
}
