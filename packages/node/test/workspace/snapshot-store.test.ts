import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, test as fcTest } from "@fast-check/vitest";
import { afterEach, describe, expect, test } from "vitest";
import {
  decodeSnapshotEntries,
  type EntryState,
  encodeSnapshotEntries,
  loadSnapshot,
  type OutsideEntry,
  pruneSnapshots,
  serializeSnapshot,
  storeSnapshot,
  type WorkspaceSnapshot,
} from "../../src/workspace/index.js";

// Issue 33 item 3: the compact store of a baseline's or turn chain's entries.

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), "turngate-snapshot-store-"));
  dirs.push(dir);
  return dir;
}

const DIGEST = "ab".repeat(32);
function entry(over: Partial<EntryState> = {}): EntryState {
  return {
    kind: "file",
    content_digest: DIGEST,
    size: 4096,
    mtime_ms: 1_796_000_000_123.456,
    ctime_ms: 1_796_000_000_124.789,
    ino: 123_456_789,
    mode: 0o100644,
    ...over,
  };
}
function snapshotOf(
  entries: [string, EntryState][],
  outside: [string, OutsideEntry][] = [],
): WorkspaceSnapshot {
  return {
    root: "/ws",
    taken_at_ms: 1_796_000_000_000.5,
    git: true,
    entries: new Map(entries),
    outside: new Map(outside),
    unreadable: ["fifo"],
    unreadable_reasons: { fifo: "a special file" },
  };
}

describe("snapshot entries: the binary form", () => {
  test("62 bytes per entry plus the path and one length byte; exact values back, wide values too", () => {
    const snapshot = snapshotOf(
      [
        ["src/a.ts", entry()],
        [
          "ü/ß link",
          entry({ kind: "symlink", mode: 0o120777, size: 7, content_digest: "cd".repeat(32) }),
        ],
        ["big.bin", entry({ size: 2 ** 41 + 3, ino: 2 ** 50 })],
      ],
      [
        ["node_modules/x.js", { ...entry(), scope: "ignored", hashed: false, content_digest: "" }],
        [".git/config", { ...entry(), scope: "harness", hashed: true }],
      ],
    );
    const bytes = encodeSnapshotEntries(snapshot);
    const pathBytes = ["src/a.ts", "ü/ß link", "big.bin", "node_modules/x.js", ".git/config"]
      .map((p) => Buffer.byteLength(p) + 1)
      .reduce((a, b) => a + b, 0);
    // 16 header bytes, 62 per entry, 5 more for the one wide entry.
    expect(bytes.length).toBe(16 + 5 * 62 + 5 + pathBytes);
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("TGSE");
    const back = decodeSnapshotEntries(bytes);
    expect(back.entries).toEqual(snapshot.entries);
    expect(back.outside).toEqual(snapshot.outside);
    expect([...back.entries.keys()]).toEqual(["big.bin", "src/a.ts", "ü/ß link"]);
  });

  test("sizes and inodes past 32 bits but under the wide limits keep every bit; sorted and unsorted maps encode alike", () => {
    const large = entry({ size: 2 ** 40 - 1, ino: 2 ** 48 - 1 });
    const mid = entry({ size: 2 ** 32 + 5, ino: 2 ** 33 + 7 });
    const sorted = snapshotOf([
      ["a/large", large],
      ["b/mid", mid],
      ["c/small", entry({ size: 0, ino: 0 })],
    ]);
    const unsorted = snapshotOf([
      ["c/small", entry({ size: 0, ino: 0 })],
      ["a/large", large],
      ["b/mid", mid],
    ]);
    const bytes = encodeSnapshotEntries(sorted);
    // Not wide: 62 bytes per entry.
    expect(bytes.length).toBe(
      16 + 3 * 62 + 3 + "a/large".length + "b/mid".length + "c/small".length,
    );
    expect(encodeSnapshotEntries(unsorted).equals(bytes)).toBe(true);
    const back = decodeSnapshotEntries(bytes);
    expect(back.entries.get("a/large")).toEqual(large);
    expect(back.entries.get("b/mid")).toEqual(mid);
    expect(back.entries.get("c/small")?.size).toBe(0);
    expect([...back.entries.keys()]).toEqual(["a/large", "b/mid", "c/small"]);
  });

  test("a damaged file is refused, naming what is wrong", () => {
    const bytes = encodeSnapshotEntries(
      snapshotOf([
        ["a", entry()],
        ["b", entry()],
      ]),
    );
    const cases: Array<[Buffer, RegExp]> = [
      [Buffer.from("JSON"), /no TGSE header/],
      [Buffer.concat([bytes.subarray(0, 4), Buffer.from([2]), bytes.subarray(5)]), /version 2/],
      [bytes.subarray(0, bytes.length - 1), /entries\[1\]: cut short/],
      [Buffer.concat([bytes, Buffer.from([0])]), /1 trailing bytes/],
    ];
    // Two records swapped in place: out of order.
    const swapped = Buffer.from(bytes);
    swapped[16 + 62 + 1] = "b".charCodeAt(0);
    swapped[16 + 2 * (62 + 2) - 1] = "a".charCodeAt(0);
    cases.push([swapped, /entries\[1\]: "a" is out of order or a duplicate/]);
    for (const [damaged, message] of cases) {
      expect(() => decodeSnapshotEntries(damaged)).toThrow(message);
    }
  });

  const arbEntry = fc.record({
    kind: fc.constantFrom("file" as const, "symlink" as const),
    content_digest: fc.stringMatching(/^[0-9a-f]{64}$/),
    size: fc.oneof(fc.nat(), fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER })),
    mtime_ms: fc.double({ noNaN: true, noDefaultInfinity: true }),
    ctime_ms: fc.double({ noNaN: true, noDefaultInfinity: true }),
    ino: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    mode: fc.integer({ min: 0, max: 0xffff }),
  });
  const arbPath = fc
    .array(fc.string({ minLength: 1, maxLength: 8, unit: "grapheme" }), {
      minLength: 1,
      maxLength: 4,
    })
    .map((parts) => parts.join("/"))
    .filter((p) => !p.startsWith("/") && Buffer.from(p, "utf8").toString("utf8") === p);
  fcTest.prop([fc.dictionary(arbPath, arbEntry, { maxKeys: 40 })], { numRuns: 200 })(
    "any snapshot's entries come back exactly",
    (dict) => {
      const snapshot = snapshotOf(Object.entries(dict));
      expect(decodeSnapshotEntries(encodeSnapshotEntries(snapshot)).entries).toEqual(
        snapshot.entries,
      );
    },
  );
});

describe("snapshot store", () => {
  test("stores the entries content-addressed beside a record without them; loads them back; not written again when unchanged; prunes the others", async () => {
    const dir = temp();
    const snapshot = snapshotOf([["src/a.ts", entry()]]);
    const stored = await storeSnapshot(dir, snapshot);
    const file = join(dir, `${stored.entries_file?.sha256}.bin`);
    expect(stored.entries).toEqual([]);
    expect(stored.outside).toEqual([]);
    expect(stored.entries_file).toEqual({
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      entries: 1,
      outside: 0,
    });
    expect(stored.unreadable).toEqual(["fifo"]);
    const loaded = await loadSnapshot(dir, JSON.parse(JSON.stringify(stored)));
    expect(loaded).toEqual(snapshot);
    const before = statSync(file);
    await storeSnapshot(dir, snapshot);
    expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
    expect(statSync(file).ino).toBe(before.ino);
    const other = await storeSnapshot(dir, snapshotOf([["src/b.ts", entry()]]));
    expect(readdirSync(dir).sort()).toHaveLength(2);
    await pruneSnapshots(dir, [other.entries_file?.sha256 as string]);
    expect(readdirSync(dir)).toEqual([`${other.entries_file?.sha256}.bin`]);
  });

  test("an entries file altered, replaced or removed is refused with the fix; inline entries (an older record) still load", async () => {
    const dir = temp();
    const stored = await storeSnapshot(dir, snapshotOf([["src/a.ts", entry()]]));
    const file = join(dir, `${stored.entries_file?.sha256}.bin`);
    const good = readFileSync(file);
    // The same bytes but another file's size for src/a.ts: a forged unchanged stat.
    const forged = encodeSnapshotEntries(snapshotOf([["src/a.ts", entry({ size: 1 })]]));
    writeFileSync(file, forged);
    await expect(loadSnapshot(dir, stored)).rejects.toThrow(
      /does not hash to the digest its record names: it was altered or replaced; take a new baseline \(turngate baseline\)/,
    );
    rmSync(file);
    await expect(loadSnapshot(dir, stored)).rejects.toThrow(
      /cannot read .*ENOENT.*take a new baseline/,
    );
    writeFileSync(file, good);
    await expect(
      loadSnapshot(dir, { ...stored, entries_file: { ...stored.entries_file, entries: 2 } }),
    ).rejects.toThrow(/holds 1 entries and 0 outside entries, its record names 2 and 0/);
    await expect(
      loadSnapshot(dir, { ...stored, entries_file: { ...stored.entries_file, sha256: "x" } }),
    ).rejects.toThrow(/snapshot.entries_file.sha256: must be 64 lowercase hex characters/);
    const inline = serializeSnapshot(snapshotOf([["src/a.ts", entry()]]));
    expect((await loadSnapshot(dir, inline)).entries.get("src/a.ts")).toEqual(entry());
  });
});
