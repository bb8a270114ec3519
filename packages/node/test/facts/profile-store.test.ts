/**
 * The profile store on disk: atomic, locked writes; corrupt and foreign files refused by
 * name and never reset; two real processes recording at once lose nothing
 * (harn-verification.md §1.5, §3.2, §3.3).
 */
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TurngateValidationError } from "@turngate/core";
import { ProfileStore, ProfileStoreError } from "@turngate/node";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(60_000), hookTimeout: testTimeout(60_000) });

const NOW = Date.UTC(2026, 2, 4, 5, 6, 7);
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "turngate-profiles-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const storeFile = () => join(dir, "verification-profiles.json");

describe("ProfileStore", () => {
  test("no file → null; set stamps schemaVersion and updatedAt; read returns it", async () => {
    const store = new ProfileStore(dir, { now: () => NOW });
    expect(await store.read()).toBeNull();
    const written = await store.set({
      rows: [{ id: "unit", check: { rung: "R2" } }],
      note: "kept",
    });
    expect(written).toEqual({
      rows: [{ id: "unit", check: { rung: "R2" } }],
      note: "kept",
      schemaVersion: 1,
      updatedAt: "2026-03-04T05:06:07Z",
    });
    expect(await store.read()).toEqual(written);
    expect(JSON.parse(readFileSync(storeFile(), "utf8"))).toEqual(written);
  });

  test("recordRun updates the row on disk; an unknown row writes nothing", async () => {
    const store = new ProfileStore(dir, { now: () => NOW });
    await store.set({ rows: [{ id: "unit" }] });
    const before = readFileSync(storeFile(), "utf8");
    expect(await store.recordRun("nope", { durationMs: 5 })).toBeNull();
    expect(readFileSync(storeFile(), "utf8")).toBe(before);
    const row = await store.recordRun("unit", { durationMs: 5, exit: 0 });
    expect(row).toEqual({
      id: "unit",
      timings: { recentWarmMs: [5], warmMs: { p50: 5, p95: 5, p99: 5 }, samples: 1 },
      lastRun: { at: "2026-03-04T05:06:07Z", exit: 0 },
    });
    expect((await store.read())?.rows).toEqual([row]);
    expect(
      await new ProfileStore(join(dir, "empty")).recordRun("unit", { durationMs: 1 }),
    ).toBeNull();
  });

  test("a corrupt file is a typed error naming the file, and is never reset", async () => {
    writeFileSync(storeFile(), "{ not json");
    const store = new ProfileStore(dir);
    const error = await store.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProfileStoreError);
    expect((error as ProfileStoreError).code).toBe("profile_store_invalid");
    expect((error as ProfileStoreError).file).toBe(storeFile());
    expect((error as Error).message).toContain(
      `profile store ${storeFile()} is not a verification profile record set: not JSON`,
    );
    await expect(store.recordRun("r", { durationMs: 1 })).rejects.toBeInstanceOf(ProfileStoreError);
    await expect(store.set({ rows: [] })).rejects.toBeInstanceOf(ProfileStoreError);
    expect(readFileSync(storeFile(), "utf8")).toBe("{ not json");
  });

  test("a foreign file (another schema, another tool's JSON) names the field", async () => {
    const store = new ProfileStore(dir);
    for (const [content, field] of [
      [{ schemaVersion: 2, rows: [] }, "schemaVersion"],
      [{ rows: { a: 1 } }, "rows"],
      [{ rows: [{ id: "a", timings: { recentWarmMs: ["x"] } }] }, "rows.0.timings.recentWarmMs.0"],
      [["a", "list"], ""],
    ] as const) {
      writeFileSync(storeFile(), JSON.stringify(content));
      const error = (await store
        .recordRun("a", { durationMs: 1 })
        .catch((e: unknown) => e)) as ProfileStoreError;
      expect(error).toBeInstanceOf(ProfileStoreError);
      expect(error.field).toBe(field);
      expect(JSON.parse(readFileSync(storeFile(), "utf8"))).toEqual(content);
    }
  });

  test("ladderPlan and hudModel read the stored rows", async () => {
    const store = new ProfileStore(dir, { now: () => NOW });
    await store.set({
      rows: [
        {
          id: "lint",
          check: { rung: "R1", command: "tx lint" },
          timings: { warmMs: { p95: 2500 } },
        },
        {
          id: "all",
          check: { rung: "R4", command: "tx test" },
          timings: { warmMs: { p95: 61000 } },
        },
      ],
    });
    expect((await store.ladderPlan({})).selected.map((e) => e.row_id)).toEqual(["lint", "all"]);
    expect((await store.matches({})).length).toBe(2);
    const model = await store.hudModel({ started_ms: NOW - 5000 }, { now_ms: NOW });
    expect(model.visible).toBe(true);
  });

  test("two real processes recording at once lose no observation", async () => {
    const store = new ProfileStore(dir);
    await store.set({ rows: [{ id: "r" }] });
    const worker = fileURLToPath(new URL("./fixtures/record-worker.ts", import.meta.url));
    const run = (base: number) =>
      new Promise<number>((resolveRun, reject) => {
        const child = spawn(
          process.execPath,
          ["--conditions=@turngate/source", "--import", "tsx", worker, dir, "40", String(base)],
          { stdio: ["ignore", "ignore", "pipe"] },
        );
        let stderr = "";
        child.stderr.on("data", (d) => {
          stderr += d;
        });
        child.on("error", reject);
        child.on("exit", (code) => (code === 0 ? resolveRun(code) : reject(new Error(stderr))));
      });
    await Promise.all([run(1000), run(2000)]);
    const row = (await store.read())?.rows?.[0] as {
      timings: { samples: number; recentWarmMs: number[] };
    };
    expect(row.timings.samples).toBe(80);
    const window = row.timings.recentWarmMs;
    expect(window.length).toBe(64);
    // Each process's own observations stay in its order, and the newest of each survive.
    const a = window.filter((d) => d < 2000);
    const b = window.filter((d) => d >= 2000);
    expect(a).toEqual([...a].sort((x, y) => x - y));
    expect(b).toEqual([...b].sort((x, y) => x - y));
    expect(a.at(-1)).toBe(1039);
    expect(b.at(-1)).toBe(2039);
  });
});

describe("ProfileStore directories (Harn's hierarchical store, §1.5, §6.2)", () => {
  const sub = (...parts: string[]) =>
    join(dir, "verification-profiles.d", ...parts, "verification-profiles.json");

  test("a record set at the root is seen from every directory; a deeper one overrides key by key", async () => {
    const store = new ProfileStore(dir, { now: () => NOW });
    await store.set({ rows: [{ id: "root-row" }], team: "root", keep: 1 });
    expect((await store.read("packages/core/src"))?.rows).toEqual([{ id: "root-row" }]);
    await store.set({ rows: [{ id: "pkg-row" }], team: "core" }, "packages/core");
    expect(JSON.parse(readFileSync(sub("packages", "core"), "utf8")).team).toBe("core");
    // Deeper keys win, shallow per-key merge; keys only the root has stay visible.
    expect(await store.read("packages/core/src")).toEqual({
      rows: [{ id: "pkg-row" }],
      team: "core",
      keep: 1,
      schemaVersion: 1,
      updatedAt: "2026-03-04T05:06:07Z",
    });
    expect((await store.read("packages/other"))?.rows).toEqual([{ id: "root-row" }]);
    expect((await store.read("."))?.team).toBe("root");
    expect((await store.read(" "))?.team).toBe("root");
    expect(await store.readOwn("packages")).toBeNull();
    expect(
      (await store.ladderPlan({}, { dir: "packages/core" })).matches.map((m) => m.row.id),
    ).toEqual(["pkg-row"]);
    expect((await store.matches({}, "packages")).map((m) => m.row.id)).toEqual(["root-row"]);
  });

  test("dir spellings: ./a//b/ is a/b; nothing stored anywhere → null", async () => {
    const store = new ProfileStore(dir, { now: () => NOW });
    expect(await store.read("a/b")).toBeNull();
    await store.set({ rows: [{ id: "ab" }] }, "./a//b/");
    expect(store.fileOf("a/b")).toBe(sub("a", "b"));
    expect((await store.readOwn("a/b"))?.rows).toEqual([{ id: "ab" }]);
    expect(await store.originOf("a/b/c")).toBe("a/b");
    expect(await store.originOf("a")).toBe("a");
  });

  test("recordRun writes to the origin: the deepest directory on the path whose own set has rows", async () => {
    const store = new ProfileStore(dir, { now: () => NOW });
    await store.set({ rows: [{ id: "unit" }] });
    // A deeper record set without `rows` (written by another tool) is not the origin …
    mkdirSync(join(dir, "verification-profiles.d", "pkg"), { recursive: true });
    writeFileSync(sub("pkg"), JSON.stringify({ schemaVersion: 1, note: "no rows" }));
    expect(await store.originOf("pkg/src")).toBe(".");
    const row = await store.recordRun("unit", { durationMs: 3 }, "pkg/src");
    expect(row?.timings?.recentWarmMs).toEqual([3]);
    expect(JSON.parse(readFileSync(sub("pkg"), "utf8"))).toEqual({
      schemaVersion: 1,
      note: "no rows",
    });
    // … one with rows is, and shadows the root's rows: an id only the root has is not found.
    await store.set({ rows: [] }, "pkg");
    const pkgBefore = readFileSync(sub("pkg"), "utf8");
    expect(await store.originOf("pkg/src")).toBe("pkg");
    expect(await store.recordRun("unit", { durationMs: 5 }, "pkg/src")).toBeNull();
    expect(readFileSync(sub("pkg"), "utf8")).toBe(pkgBefore);
    // Without a deeper record set, recording from a subdirectory updates the root's row.
    const other = await store.recordRun("unit", { durationMs: 7 }, "lib/deep");
    expect(other?.timings).toEqual({
      recentWarmMs: [3, 7],
      warmMs: { p50: 3, p95: 7, p99: 7 },
      samples: 2,
    });
    expect((await store.readOwn())?.rows).toEqual([other]);
    expect(existsSync(join(dir, "verification-profiles.d", "lib"))).toBe(false);
  });

  test("a directory leaving the store root is a typed error naming dir", async () => {
    const store = new ProfileStore(dir);
    for (const [bad, why] of [
      ["../x", "must not contain .."],
      ["a/../../x", "must not contain .."],
      ["/etc", "must be relative to the store root"],
      ["a\\b", "must use / between components"],
    ] as const) {
      const error = await store.read(bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TurngateValidationError);
      expect((error as TurngateValidationError).path).toBe("dir");
      expect((error as Error).message).toContain(why);
      await expect(store.recordRun("r", { durationMs: 1 }, bad)).rejects.toBeInstanceOf(
        TurngateValidationError,
      );
      await expect(store.set({ rows: [] }, bad)).rejects.toBeInstanceOf(TurngateValidationError);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a corrupt record set in a parent directory is an error naming that file, also when read from below", async () => {
    const store = new ProfileStore(dir);
    await store.set({ rows: [] }, "a/b");
    mkdirSync(join(dir, "verification-profiles.d", "a"), { recursive: true });
    writeFileSync(sub("a"), "[1]");
    const error = await store.read("a/b").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProfileStoreError);
    expect((error as ProfileStoreError).file).toBe(sub("a"));
    expect(readFileSync(sub("a"), "utf8")).toBe("[1]");
  });
});
