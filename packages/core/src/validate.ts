/**
 * Argument validation shared by core's exported functions (issue #11 §1: on hostile input
 * an exported function throws only its typed errors, naming the field). Every helper
 * throws `TurngateValidationError` whose `path` names the bad argument or field.
 */
import type * as z from "zod";
import { TurngateValidationError } from "./errors.js";
import { joinPath } from "./schemas/parse.js";

/** Throws `TurngateValidationError` for `label` at `path` with `message`. */
export function invalid(label: string, path: string, message: string): never {
  throw new TurngateValidationError(label, [{ path, message }]);
}

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

/** `value` when it is a string; else throws `TurngateValidationError` at `path`. */
export function expectString(value: unknown, label: string, path: string): string {
  if (typeof value !== "string") invalid(label, path, `expected a string, got ${kindOf(value)}`);
  return value;
}

/** `value` when it is a finite number; else throws `TurngateValidationError` at `path`. */
export function expectFiniteNumber(value: unknown, label: string, path: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    invalid(label, path, `expected a finite number, got ${kindOf(value)}`);
  }
  return value;
}

/**
 * `value` when it is an array of finite numbers; else throws `TurngateValidationError` at
 * `path` (not an array) or `path.N` (the first element that is not a finite number).
 */
export function expectNumberList(value: unknown, label: string, path: string): number[] {
  if (!Array.isArray(value)) invalid(label, path, `expected an array, got ${kindOf(value)}`);
  for (let i = 0; i < value.length; i++) {
    expectFiniteNumber(value[i], label, joinPath(path, String(i)));
  }
  return value;
}

/**
 * What a value is, for a message: `null`, `undefined`, `an array`, `an object`, `NaN`,
 * `Infinity`, or `a string` / `a number` / `a boolean` / … (never the value itself: it may
 * be huge or hostile).
 */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  const type = typeof value;
  return type === "object" ? "an object" : `a ${type}`;
}
