import { describe, expect, test } from "vitest";
import { snapshotStaleness } from "../../src/index.js";

describe("snapshotStaleness", () => {
  test("an empty or non-map bound snapshot is unbound and advisory", () => {
    const unbound = {
      schema: "harn.verification.snapshot_staleness.v1",
      status: "unbound",
      stale: false,
      fresh: false,
      staleFiles: [],
      stale_files: [],
      changed_files: [],
      advisory: true,
      reason: "diagnostic carries no file-hash snapshot binding",
    };
    expect(snapshotStaleness({}, { a: "1" })).toEqual(unbound);
    expect(snapshotStaleness(null, { a: "1" })).toEqual(unbound);
    expect(snapshotStaleness(["a"], { a: "1" })).toEqual(unbound);
    expect(snapshotStaleness({ snapshot: {} }, { a: "1" })).toEqual(unbound);
  });

  test("matching hashes are bound_fresh", () => {
    expect(
      snapshotStaleness(
        { "src/a.ts": "h1", "b.md": "h2" },
        { "src/a.ts": "h1", "b.md": "h2", extra: "x" },
      ),
    ).toEqual({
      schema: "harn.verification.snapshot_staleness.v1",
      status: "bound_fresh",
      stale: false,
      fresh: true,
      staleFiles: [],
      stale_files: [],
      changed_files: [],
      advisory: false,
      reason: "snapshot matches current file hashes",
    });
  });

  test("changed and missing files are stale, listed in byte order", () => {
    const r = snapshotStaleness(
      { "z.ts": "1", "a.ts": "1", "m.ts": "1", "É.ts": "1", "ä.ts": "1" },
      {
        "z.ts": "2",
        "a.ts": "1",
        "ä.ts": "1",
      },
    );
    expect(r.status).toBe("bound_stale");
    expect(r.stale).toBe(true);
    expect(r.fresh).toBe(false);
    expect(r.advisory).toBe(true);
    expect(r.staleFiles).toEqual(["m.ts", "z.ts", "É.ts"]);
    expect(r.stale_files).toEqual(["m.ts", "z.ts", "É.ts"]);
    expect(r.changed_files).toEqual(["m.ts", "z.ts", "É.ts"]);
    expect(r.reason).toBe(
      "snapshot superseded or unverifiable for 3 file(s); re-check before trusting",
    );
  });

  test("unavailable current hashes make every bound file stale", () => {
    const r = snapshotStaleness({ "b.ts": "1", "a.ts": "2" }, null);
    expect(r.status).toBe("bound_stale");
    expect(r.staleFiles).toEqual(["a.ts", "b.ts"]);
    expect(r.reason).toBe(
      "snapshot superseded or unverifiable for 2 file(s); re-check before trusting",
    );
  });

  test("whole file-hash snapshots are unwrapped on both sides", () => {
    const bound = { seq: 3, snapshot: { "a.ts": "1" }, missing: [], files: [] };
    expect(snapshotStaleness(bound, { seq: 4, snapshot: { "a.ts": "1" } }).status).toBe(
      "bound_fresh",
    );
    expect(snapshotStaleness(bound, { seq: 4, snapshot: { "a.ts": "9" } }).status).toBe(
      "bound_stale",
    );
  });
});
