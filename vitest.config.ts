import { defineConfig } from "vitest/config";
import { testTimeout } from "./test-time.js";

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
    // Scaled by TURNGATE_TEST_TIME_SCALE (test-time.ts; raised by ./scripts/dev test --under-load).
    testTimeout: testTimeout(20_000),
    hookTimeout: testTimeout(60_000),
  },
});
