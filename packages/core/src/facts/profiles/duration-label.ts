/** The HUD's duration label (harn-verification.md §3.6). */
import { toInt } from "../harn-values.js";

/**
 * `ms` (integer ms; nil or non-numeric → 0; negative → 0) as `<s>s` under a minute, else
 * `<m>m<s>s` (whole seconds, no padding, no hours): 999 → `0s`, 61000 → `1m1s`,
 * 3600000 → `60m0s`.
 */
export function durationLabel(ms: unknown): string {
  const v = Math.max(0, toInt(ms) ?? 0);
  const s = Math.floor(v / 1000);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${s % 60}s`;
}
