import { defineConfig } from "vitest/config";

// The tests Stryker runs against each mutant of @turngate/core (stryker.config.json): core's
// own unit and property tests, sources resolved through the "@turngate/source" condition.
export default defineConfig({
  ssr: { resolve: { conditions: ["@turngate/source"] } },
  resolve: { conditions: ["@turngate/source"] },
  test: {
    include: ["packages/core/test/**/*.test.ts"],
    exclude: ["packages/core/test/purity.test.ts", "packages/core/test/schema-files.test.ts"],
    testTimeout: 20_000,
  },
});
