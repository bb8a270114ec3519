import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { proofWorkspaceRoot } from "../../src/index.js";

const DIGEST = "a".repeat(64);

describe("proofWorkspaceRoot", () => {
  test("a proof under <root>/.turngate/proofs/ belongs to <root>, also from a relative path", () => {
    expect(proofWorkspaceRoot(`/work/repo/.turngate/proofs/${DIGEST}.json`)).toBe("/work/repo");
    expect(proofWorkspaceRoot(`repo/.turngate/proofs/${DIGEST}.json`)).toBe(resolve("repo"));
    expect(proofWorkspaceRoot(join("/w/x/../y/.turngate/proofs", `${DIGEST}.json`))).toBe("/w/y");
  });

  test("a proof anywhere else has no root of its own", () => {
    expect(proofWorkspaceRoot(`/tmp/${DIGEST}.json`)).toBeUndefined();
    expect(proofWorkspaceRoot(`/work/repo/proofs/${DIGEST}.json`)).toBeUndefined();
    expect(proofWorkspaceRoot(`/work/repo/.turngate/logs/${DIGEST}.json`)).toBeUndefined();
    expect(proofWorkspaceRoot(`/work/repo/.turngate/proofs/${DIGEST}.txt`)).toBeUndefined();
  });
});
