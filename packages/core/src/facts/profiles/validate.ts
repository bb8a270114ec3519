/** Validation of profile-store inputs: the value is checked, then returned unchanged. */
import type { z } from "zod";
import { TurngateValidationError } from "../../errors.js";
import { joinPath } from "../../schemas/parse.js";

/**
 * Checks `value` against `schema` and returns `value` itself (not zod's copy, so key order
 * and unknown keys stay as given). Throws `TurngateValidationError` whose `path` is
 * `path` joined with the first bad field (e.g. `options.profiles.rows.2.timings.warmMs.p95`).
 */
export function validated<S extends z.ZodType>(
  schema: S,
  value: unknown,
  label: string,
  path: string,
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return value as z.output<S>;
  const issues = result.error.issues.map((issue) => ({
    path: joinPath(path, issue.path.map((key) => String(key)).join(".")),
    message: issue.message,
  }));
  throw new TurngateValidationError(label, issues);
}

/** Throws `TurngateValidationError` at `path` with `message`. */
export function invalid(label: string, path: string, message: string): never {
  throw new TurngateValidationError(label, [{ path, message }]);
}
