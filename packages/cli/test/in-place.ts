import { afterAll, beforeAll } from "vitest";

/**
 * Run every turn of this test file with in-place checks (TURNGATE_ISOLATION=in-place, the
 * host default below `--isolation` and the configuration's `isolation`): for files that test
 * the in-place model (docs/design.md §3a: check outputs, rewrite_paths, the controlled
 * environment, scope rows) or whose checks leave a probe outside the workspace (a run
 * counter), which clean-room checks cannot write by design. The clean-room model has its
 * own suites (test/clean-room).
 */
export function inPlaceChecks(): void {
  let previous: string | undefined;
  beforeAll(() => {
    previous = process.env.TURNGATE_ISOLATION;
    process.env.TURNGATE_ISOLATION = "in-place";
  });
  afterAll(() => {
    if (previous === undefined) delete process.env.TURNGATE_ISOLATION;
    else process.env.TURNGATE_ISOLATION = previous;
  });
}
