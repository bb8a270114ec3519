import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { judge } from "./lib/referee.js";
import { runCases } from "./lib/run-cases.js";
import { loadVectors } from "./lib/vectors.js";
import { callTypeScript } from "./runners/typescript-call.js";

const vectors = loadVectors(join(dirname(fileURLToPath(import.meta.url)), "vectors"));

describe("test matrix: TypeScript runtime (core in-process via @turngate/bridge/pure)", () => {
  test("the vector groups are present", () => {
    expect(vectors.map((g) => g.group)).toEqual([
      "affected",
      "cache",
      "content-digest",
      "errors",
      "evidence",
      "facts",
      "facts-profiles",
      "gate",
      "ledger",
      "report-status",
      "summary",
      "summary-text",
      "test-results",
      "turn-view",
      "waiver",
    ]);
  });

  test.each(vectors.map((g) => [g.group, g] as const))("every %s vector passes", (_name, group) => {
    const report = judge(
      [group],
      [{ name: "typescript", results: runCases("typescript", [group], callTypeScript) }],
    );
    expect(report.failures).toEqual([]);
    expect(report.passed).toBe(group.cases.length);
  });
});
