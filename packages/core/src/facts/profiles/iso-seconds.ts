/** UTC time in Harn's `YYYY-MM-DDTHH:MM:SSZ` form (second precision; harn-verification.md §1.5). */
export function isoSeconds(nowMs: number): string {
  return `${new Date(nowMs).toISOString().slice(0, 19)}Z`;
}
