/**
 * The one place test timeouts come from (issue 35 item 5). A timeout in a test bounds how
 * long a hung test may hold the run; it never decides a verdict. Every such bound — vitest's
 * per-test and hook timeouts, a spawned child's `timeout`, a polling deadline — is written
 * as `testTimeout(ms)`: the budget on a quiet 2-core machine, multiplied by
 * `TURNGATE_TEST_TIME_SCALE` (default 1). `./scripts/dev test --under-load` raises the scale
 * (default 4) while busy loops keep every core saturated, so the same tests hold when the
 * machine is slow; vitest.config.ts takes its testTimeout / hookTimeout from here too.
 */

/** `TURNGATE_TEST_TIME_SCALE`: a number ≥ 1 (e.g. `4`, `2.5`); anything else fails loudly. */
export function testTimeScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.TURNGATE_TEST_TIME_SCALE;
  if (raw === undefined || raw.trim() === "") return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale < 1 || scale > 100) {
    throw new Error(
      `TURNGATE_TEST_TIME_SCALE=${JSON.stringify(raw)}: expected a number from 1 to 100 (the factor test timeouts are multiplied by; ./scripts/dev test --under-load sets 4)`,
    );
  }
  return scale;
}

/**
 * A timeout for a test, hook, child process or deadline: `ms` (milliseconds, the budget on
 * a quiet machine) times `testTimeScale()`, rounded up to a whole millisecond.
 * @throws Error when `ms` is not a positive finite number, or the scale is malformed.
 */
export function testTimeout(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new Error(`testTimeout(${ms}): expected a positive number of milliseconds`);
  }
  return Math.ceil(ms * testTimeScale());
}
