import { defineConfig } from "vitest/config";

// The tests Stryker runs against each mutant (stryker.config.json, CI and ./scripts/dev
// mutate): core's unit and property tests, and the workspace observer's change-rule tests
// (diff and its rules, the stat cache and its racy rule, the observer walk), found by name so they stay found
// when the workspace folder is regrouped. Sources resolve through "@turngate/source".
export default defineConfig({
  ssr: { resolve: { conditions: ["@turngate/source"] } },
  resolve: { conditions: ["@turngate/source"] },
  test: {
    include: [
      "packages/core/test/**/*.test.ts",
      "packages/node/test/**/diff.test.ts",
      "packages/node/test/**/stat-cache.test.ts",
      "packages/node/test/**/observer-walk.test.ts",
      "packages/node/test/**/diff-rules.test.ts",
      "packages/node/test/**/stat-cache-rules.test.ts",
    ],
    exclude: ["packages/core/test/purity.test.ts", "packages/core/test/schema-files.test.ts"],
    testTimeout: 20_000,
  },
});
