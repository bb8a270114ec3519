import { describe, expect, test } from "vitest";
import { diagnosticClassify } from "../../src/index.js";

const envelope = {
  rung: " R2 ",
  rowId: "zig/file",
  at: 1700000000000,
  snapshot: { "src/b.zig": "2", "src/a.zig": "1" },
};

describe("diagnosticClassify", () => {
  test("a rung+timestamp+snapshot envelope whose hashes match is bound_fresh and feeds gates", () => {
    expect(diagnosticClassify(envelope, { "src/a.zig": "1", "src/b.zig": "2" })).toEqual({
      rung: "R2",
      rowId: "zig/file",
      status: "bound_fresh",
      staleFiles: [],
      feedsGates: true,
      advisory: false,
      reason: "snapshot matches current file hashes",
    });
  });

  test("changed, missing or differently typed hashes are bound_stale", () => {
    expect(diagnosticClassify(envelope, { "src/a.zig": 1, "src/b.zig": "3" })).toEqual({
      rung: "R2",
      rowId: "zig/file",
      status: "bound_stale",
      staleFiles: ["src/a.zig", "src/b.zig"],
      feedsGates: false,
      advisory: true,
      reason: "snapshot superseded for 2 file(s); re-check before trusting",
    });
    expect(diagnosticClassify(envelope, "not a map").staleFiles).toEqual([
      "src/a.zig",
      "src/b.zig",
    ]);
    expect(diagnosticClassify(envelope).status).toBe("bound_stale");
  });

  test("an integer or blank rung, a missing timestamp or an empty snapshot is unbound", () => {
    const unbound = {
      status: "unbound",
      staleFiles: [],
      feedsGates: false,
      advisory: true,
      reason: "diagnostic carries no rung+timestamp+snapshot binding; advisory only",
    };
    const hashes = { "src/a.zig": "1", "src/b.zig": "2" };
    expect(diagnosticClassify({ ...envelope, rung: 2 }, hashes)).toEqual({
      rowId: "zig/file",
      ...unbound,
    });
    expect(diagnosticClassify({ ...envelope, rung: "  " }, hashes)).toEqual({
      rowId: "zig/file",
      ...unbound,
    });
    expect(diagnosticClassify({ ...envelope, at: undefined }, hashes)).toEqual({
      rung: "R2",
      rowId: "zig/file",
      ...unbound,
    });
    expect(diagnosticClassify({ ...envelope, at: true }, hashes).status).toBe("unbound");
    expect(diagnosticClassify({ ...envelope, snapshot: {} }, hashes).status).toBe("unbound");
    expect(diagnosticClassify(null, hashes)).toEqual(unbound);
    expect(
      diagnosticClassify({ ...envelope, at: "2026-07-03T00:00:00Z", rowId: null }, hashes).rowId,
    ).toBeUndefined();
  });
});
