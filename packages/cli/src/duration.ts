/** `1234` ms → `"1.2s"`: seconds with one decimal (negative values count as 0). */
export function formatSeconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
}
