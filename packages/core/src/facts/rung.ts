import { display, isNil, rustTrim, toInt } from "./harn-values.js";

/**
 * Harn's rung rule (harn-verification.md §3.4): `t = uppercase(trim(to_string(v)))`; an
 * integer 0..5 → it; else a two-character `R<d>` with d in 0..5 → d; else `null`. So
 * `"R3"`, `"r3"`, `" R3 "`, `3`, `"3"`, `"+3"` → 3; `"R6"`, `"R03"`, `"R-1"`, nil → null.
 */
export function rungRank(value: unknown): number | null {
  if (isNil(value)) return null;
  // Fast paths for the common spellings (same answers as the general rule below).
  if (typeof value === "number") {
    return Number.isInteger(value) && value >= 0 && value <= 5 ? value : null;
  }
  if (typeof value === "string") {
    const c = value.charCodeAt(value.length - 1) - 48;
    if (c >= 0 && c <= 5) {
      if (value.length === 1) return c;
      if (value.length === 2 && (value[0] === "R" || value[0] === "r")) return c;
    }
  }
  const t = rustTrim(display(value)).toUpperCase();
  const direct = toInt(t);
  if (direct !== null) return direct >= 0 && direct <= 5 ? direct : null;
  if (Array.from(t).length === 2 && t.startsWith("R")) {
    const d = toInt(t.slice(1));
    if (d !== null && d >= 0 && d <= 5) return d;
  }
  return null;
}
