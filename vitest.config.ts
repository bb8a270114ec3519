import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { testTimeout } from "./test-time.js";

// Test files run this many at a time. Vitest's own default is one less than the cores, which
// on CI's 2 cores is a single file at a time: most of the suite spawns the CLI, git, npm,
// pytest or a sandbox and waits for them, so one file at a time leaves a core idle for much of
// the run. At least 2, else vitest's default.
// TURNGATE_TEST_WORKERS overrides (e.g. 1 to run the files one by one).
const env: NodeJS.ProcessEnv = process.env;
const workersOverride = env.TURNGATE_TEST_WORKERS;
const workers = Number(workersOverride ?? Math.max(2, availableParallelism() - 1));
if (!Number.isInteger(workers) || workers < 1) {
  throw new Error(
    `TURNGATE_TEST_WORKERS=${JSON.stringify(workersOverride)}: expected a whole number ≥ 1`,
  );
}

// One vitest process for the whole workspace. The "@turngate/source" export condition lets
// tests import workspace packages from their TypeScript sources, so no build is needed first.
export default defineConfig({
  ssr: { resolve: { conditions: ["@turngate/source"] } },
  resolve: { conditions: ["@turngate/source"] },
  test: {
    include: [
      "packages/*/test/**/*.test.ts",
      "scripts/test/**/*.test.ts",
      "test-matrix/**/*.test.ts",
    ],
    setupFiles: ["./vitest.setup.ts"],
    maxWorkers: workers,
    // Scaled by TURNGATE_TEST_TIME_SCALE (test-time.ts; raised by ./scripts/dev test --under-load).
    // Bounds on hung tests, never verdicts: twice the 20 s / 60 s of one file at a time, since
    // with two files running at once on 2 cores a test can get half the CPU it had alone.
    testTimeout: testTimeout(40_000),
    hookTimeout: testTimeout(120_000),
  },
});
