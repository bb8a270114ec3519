import { defineConfig } from "vitest/config";

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
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
