import { defineConfig } from "vitest/config";

// The tests of the full mutation run (stryker/full.config.json, ./scripts/dev mutate): core's
// tests, and the workspace observer's change-rule tests (diff and the stat cache's racy
// rule), found by name so they stay found when the workspace folder is regrouped.
export default defineConfig({
  ssr: { resolve: { conditions: ["@turngate/source"] } },
  resolve: { conditions: ["@turngate/source"] },
  test: {
    include: [
      "packages/core/test/**/*.test.ts",
      "packages/node/test/**/diff.test.ts",
      "packages/node/test/**/stat-cache.test.ts",
      "packages/node/test/**/observer-walk.test.ts",
    ],
    exclude: ["packages/core/test/purity.test.ts", "packages/core/test/schema-files.test.ts"],
    testTimeout: 20_000,
  },
});
