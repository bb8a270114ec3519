/**
 * Integer inputs that land in a result (issue 36): the published schemas allow integers
 * within ±(2^53−1) (`Number.MAX_SAFE_INTEGER`), the integers a JSON number carries exactly.
 * An input whose Harn `to_int` value lies outside that range is refused at its field, so a
 * success never carries a number its own schema rejects (harn-verification.md §2.3: Harn's
 * i64 values past 2^53 have no exact JavaScript number anyway).
 */
import * as z from "zod";
import { toInt } from "../harn-values.js";

const MESSAGE = `Out of range: expected an integer from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`;

/**
 * A number or string read with Harn's `to_int` (a float is truncated, a string is a strict
 * base-10 integer): refused when that integer is outside ±(2^53−1). A string that is not an
 * integer (or is past i64) reads as nil, as in Harn, and is kept.
 */
export const SafeIntLike = z.union([z.number(), z.string()]).refine((v) => {
  const n = toInt(v);
  return n === null || Number.isSafeInteger(n);
}, MESSAGE);

/** A non-negative duration or count in ms, truncated by `to_int`: at most 2^53−1. */
export const SafeNonNegNumber = z.number().min(0).max(Number.MAX_SAFE_INTEGER);
