/**
 * Issue 17 item 3: the native path and the TypeScript path give byte-identical results.
 * A property test (fast-check) builds random trees — odd names (spaces, newlines, `|`, `\`,
 * NFC and NFD spellings of one name, emoji), symlinks (relative, absolute, dangling, to a
 * directory), empty files, files larger than the 256 KiB read chunk, files without read
 * permission, FIFOs — and compares every field of what both paths report: the addon's
 * `statTree`/`hashFiles` against `lstat`/the TypeScript hashers, and whole observer
 * snapshots and deltas (walk mode and git mode) from `native: true` and `native: false`.
 * The ledger's three SHA-256s (noble, node:crypto, native) are compared on random texts,
 * lone surrogates included, and the addon's `ledgerDigest` (order and effect digest in one
 * call) against the pure core's sort and digest on random rows.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { effectDigest, MutationLedger, NOBLE_CONTENT_HASHER, sortRecords } from "@turngate/core";
import fc from "fast-check";
import { afterAll, describe, expect, onTestFinished, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import {
  NODE_CRYPTO_CONTENT_HASHER,
  nativeContentHasher,
  WorkspaceObserver,
  type WorkspaceSnapshot,
} from "../../src/index.js";
import type { NativeAddon } from "../../src/native/select.js";
import { hashRegularFileSync, hashSymlink } from "../../src/workspace/hash/hash.js";
import { lstatInto, RAW_STAT_FIELDS } from "../../src/workspace/stat/raw-stat.js";
import { git, makeTempDir, removeDir } from "../workspace/helpers.js";
import { permissionTrickUnavailable, withPermissionsEnforced } from "../workspace/unprivileged.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(300_000), hookTimeout: testTimeout(300_000) });

const addon = createRequire(import.meta.url)("@turngate/native") as NativeAddon;
const RUNS = Number(process.env.TURNGATE_PARITY_RUNS ?? 20);
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) {
    execFileSync("chmod", ["-R", "u+rwX", d]);
    removeDir(d);
  }
});

const NAMES = [
  "a.txt",
  "with space",
  "new\nline",
  "pipe|bar",
  "back\\slash",
  "-dash",
  ".hidden",
  "\u00e9t\u00e9", // NFC
  "e\u0301te\u0301", // NFD spelling of the same key
  "名前.ts",
  "emoji😀",
  "tab\tname",
  "$(echo x)",
  "*",
  "node_modules",
  "build",
];

type Node =
  | { kind: "file"; bytes: "empty" | "small" | "large"; seed: number; unreadable: boolean }
  | { kind: "symlink"; target: string }
  | { kind: "fifo" };

const nodeArb: fc.Arbitrary<Node> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("file" as const),
      bytes: fc.constantFrom(
        "empty" as const,
        "small" as const,
        "small" as const,
        "large" as const,
      ),
      seed: fc.nat(1000),
      unreadable: fc.boolean().map((b) => b && Math.random() < 0.3),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("symlink" as const),
      target: fc.constantFrom("a.txt", "../outside", "/etc/hostname", "missing", "sub", "名前.ts"),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "fifo" as const }) },
);

const treeArb = fc.record({
  entries: fc.uniqueArray(
    fc.tuple(
      fc.constantFrom("", "sub", "sub/deep", "名前", "with space"),
      fc.constantFrom(...NAMES),
      nodeArb,
    ),
    { minLength: 1, maxLength: 14, selector: ([d, n]) => `${d}/${n}` },
  ),
  git: fc.boolean(),
  ignores: fc.constantFrom([] as string[], ["build/"], ["*.txt", "!a.txt"]),
});

function bytesOf(node: Extract<Node, { kind: "file" }>): Buffer {
  if (node.bytes === "empty") return Buffer.alloc(0);
  const n = node.bytes === "small" ? 1 + (node.seed % 5000) : 256 * 1024 + 1 + node.seed * 97;
  const out = Buffer.allocUnsafe(n);
  let x = node.seed + 1;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** Builds the tree; returns the relative paths made and those made unreadable. */
function build(
  root: string,
  entries: ReadonlyArray<[string, string, Node]>,
): { paths: string[]; locked: string[] } {
  const paths: string[] = [];
  const locked: string[] = [];
  for (const [dir, name, node] of entries) {
    const rel = dir === "" ? name : `${dir}/${name}`;
    const abs = join(root, rel);
    try {
      mkdirSync(dirname(abs), { recursive: true });
      if (node.kind === "file") {
        writeFileSync(abs, bytesOf(node));
        if (node.unreadable) locked.push(rel);
      } else if (node.kind === "symlink") symlinkSync(node.target, abs);
      else execFileSync("mkfifo", [abs]);
      paths.push(rel);
    } catch {
      // a name already taken by a directory of another entry: skip it
    }
  }
  return { paths, locked };
}

/** Every field of a snapshot, as plain data (Maps as sorted entry lists). */
function plain(snapshot: WorkspaceSnapshot): unknown {
  const sorted = <T>(m: ReadonlyMap<string, T>) =>
    [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    ...snapshot,
    taken_at_ms: 0,
    ...(snapshot.ignore_state
      ? { ignore_state: { ...snapshot.ignore_state, taken_at_ms: 0 } }
      : {}),
    entries: sorted(snapshot.entries),
    outside: sorted(snapshot.outside),
  };
}

/** The TypeScript path's raw stat records (`lstatInto`) of `root/path` for each path. */
function lstatRecords(root: string, probe: readonly string[]): Float64Array {
  const out = new Float64Array(probe.length * RAW_STAT_FIELDS);
  lstatInto(
    probe.map((p) => join(root, p)),
    0,
    probe.length,
    out,
    0,
  );
  return out;
}

const noPermissionTrick = permissionTrickUnavailable();

describe("issue 17: native and TypeScript paths give identical results", () => {
  test("the observer under test really switches path (stat service and hasher)", () => {
    const root = makeTempDir();
    dirs.push(root);
    expect(addon.available).toBe(true);
    expect(new WorkspaceObserver(root, { native: true }).native).toBe(true);
    expect(new WorkspaceObserver(root, { native: false }).native).toBe(false);
  });

  test("property: statTree and hashFiles equal lstat and the TypeScript hashers on random trees, field by field", async () => {
    await fc.assert(
      fc.asyncProperty(treeArb, async ({ entries }) => {
        const root = makeTempDir("tg-parity-");
        dirs.push(root);
        const { paths } = build(root, entries);
        const probe = [...paths, "missing", "a.txt/x"];
        const st = await addon.statTree(root, probe);
        const ts = lstatRecords(root, probe);
        expect([...st.records]).toEqual([...ts]);
        const hashed = await addon.hashFiles(root, probe);
        const buffer = Buffer.allocUnsafe(4096);
        probe.forEach((p, i) => {
          const abs = join(root, p);
          let expected: string | null = null;
          let record = [0, 0, 0, 0, 0, 0];
          try {
            const l = lstatSync(abs);
            if (l.isSymbolicLink()) {
              expected = hashSymlink(abs);
              record = [2, l.size, l.mtimeMs, l.ctimeMs, l.ino, l.mode];
            } else {
              const { digest, stat } = hashRegularFileSync(abs, buffer);
              expected = digest;
              record = [1, stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, stat.mode];
            }
          } catch {
            expected = null;
          }
          expect({ p, digest: hashed.digests[i] }).toEqual({ p, digest: expected });
          expect([...hashed.records.subarray(i * 6, i * 6 + 6)]).toEqual(record);
        });
        expect(hashed.errors.map((e) => e.path)).toEqual(
          probe.filter((_, i) => hashed.digests[i] === null),
        );
      }),
      { numRuns: RUNS },
    );
  });

  test("statTree's per-directory fstatat runs give lstat's records: long runs, symlinked and missing parents, a file as parent, trailing slashes, a FIFO", async () => {
    const root = makeTempDir("tg-parity-");
    dirs.push(root);
    mkdirSync(join(root, "big"));
    const big = Array.from({ length: 600 }, (_, i) => `big/f${i}`); // crosses the 256-path runs
    for (const path of big) writeFileSync(join(root, path), path);
    mkdirSync(join(root, "d/e"), { recursive: true });
    writeFileSync(join(root, "d/e/x"), "x");
    symlinkSync("d", join(root, "link")); // a parent that is a symlink to a directory
    symlinkSync("big/f1", join(root, "file-link"));
    execFileSync("mkfifo", [join(root, "d/fifo")]);
    const probe = [
      ...big.slice(0, 300),
      "link/e/x",
      "link/e",
      "d/e/x",
      ...big.slice(300),
      "file-link",
      "file-link/x", // parent is a symlink to a file
      "big/f2/x", // parent is a file
      "nope/x", // parent missing
      "d/e/",
      "d/.",
      "d/fifo",
      "x-at-root",
      "link",
    ];
    const st = await addon.statTree(root, probe);
    const ts = lstatRecords(root, probe);
    const rows = (records: Float64Array) =>
      probe.map((p, i) => [p, ...records.subarray(i * RAW_STAT_FIELDS, (i + 1) * RAW_STAT_FIELDS)]);
    expect(rows(st.records)).toEqual(rows(ts));
    // Spot checks of what lstat gives there (kind codes: 0 absent, 1 file, 2 symlink, 3 dir, 4 special).
    const kind = (p: string) => st.records[probe.indexOf(p) * RAW_STAT_FIELDS];
    expect(
      ["link/e/x", "file-link", "file-link/x", "big/f2/x", "d/e/", "d/fifo", "link"].map(kind),
    ).toEqual([1, 2, 0, 0, 3, 4, 2]);
    expect(st.errors).toEqual([]);
  });

  test("a path of PATH_MAX bytes or more fails on both paths (ENAMETOOLONG), though its parent can be opened", async () => {
    const root = makeTempDir("tg-parity-");
    dirs.push(root);
    const rel = Array.from({ length: 20 }, () => "c".repeat(200)).join("/");
    const dir = join(root, rel);
    mkdirSync(dir, { recursive: true });
    expect(dir.length).toBeLessThan(4096);
    // The file's whole path is too long to create it by name: write it from inside its folder.
    execFileSync("sh", ["-c", `printf hello > ${"f".repeat(100)} && printf ok > s`], { cwd: dir });
    // Removed from inside its folder too: the temp-dir cleanup cannot unlink it by name.
    onTestFinished(() => {
      execFileSync("rm", ["-f", "f".repeat(100)], { cwd: dir });
    });
    const long = `${rel}/${"f".repeat(100)}`; // root/long is over 4,096 bytes, its parent is not
    const probe = [`${rel}/s`, long];
    expect(join(root, long).length).toBeGreaterThanOrEqual(4096);
    const st = await addon.statTree(root, probe);
    const ts = lstatRecords(root, probe);
    expect([...st.records]).toEqual([...ts]);
    expect([st.records[0], st.records[RAW_STAT_FIELDS]]).toEqual([1, 5]); // a file; an error
    expect(st.errors.map((e) => [e.index, e.code])).toEqual([[1, "ENAMETOOLONG"]]);
    const hashed = await addon.hashFiles(root, probe);
    expect(hashed.digests).toEqual([createHash("sha256").update("ok").digest("hex"), null]);
    expect(hashed.errors.map((e) => [e.index, e.code])).toEqual([[1, "ENAMETOOLONG"]]);
    expect(() => hashRegularFileSync(join(root, long), Buffer.allocUnsafe(4096))).toThrow(
      expect.objectContaining({ code: "ENAMETOOLONG" }),
    );
  });

  test("hashFiles and hashRegularFileSync stop at a short read that reaches the fstat size: exact digests at the chunk boundaries", async () => {
    const root = makeTempDir("tg-parity-");
    dirs.push(root);
    const chunk = 256 * 1024; // both hashers read in 256 KiB chunks
    const sizes = [0, 1, 4095, 4096, chunk - 1, chunk, chunk + 1, 2 * chunk, 2 * chunk + 7];
    const names = sizes.map((size) => `f${size}.bin`);
    const expected = sizes.map((size, i) => {
      const bytes = Buffer.alloc(size);
      for (let k = 0; k < size; k++) bytes[k] = (k * 31 + size) & 0xff;
      writeFileSync(join(root, names[i] as string), bytes);
      return createHash("sha256").update(bytes).digest("hex");
    });
    const hashed = await addon.hashFiles(root, names);
    expect(hashed.digests).toEqual(expected);
    expect(hashed.errors).toEqual([]);
    const buffer = Buffer.allocUnsafe(chunk);
    expect(names.map((name) => hashRegularFileSync(join(root, name), buffer).digest)).toEqual(
      expected,
    );
    // A 4 KiB read buffer: files of exactly 1 and 2 buffers, and a short last read.
    const small = Buffer.allocUnsafe(4096);
    expect(names.map((name) => hashRegularFileSync(join(root, name), small).digest)).toEqual(
      expected,
    );
  });

  test.skipIf(noPermissionTrick !== undefined)(
    "property: observer baselines and deltas (walk and git mode, ignores, unreadable files) are identical on both paths",
    async () => {
      await fc.assert(
        fc.asyncProperty(treeArb, fc.nat(20), async ({ entries, git: useGit, ignores }, edit) => {
          const dir = makeTempDir("tg-parity-");
          dirs.push(dir);
          chmodSync(dir, 0o755);
          const root = join(dir, "ws");
          mkdirSync(root);
          const { paths, locked } = build(root, entries);
          if (useGit) {
            git(root, "init", "-q", "-b", "main", ".");
            git(root, "add", "-A");
            git(root, "commit", "-q", "--allow-empty", "-m", "t");
          }
          await withPermissionsEnforced(dir, dir, async () => {
            for (const rel of locked) chmodSync(join(root, rel), 0);
            const on = new WorkspaceObserver(root, { native: true, ignores });
            const off = new WorkspaceObserver(root, { native: false, ignores });
            expect(plain(await on.baseline())).toEqual(plain(await off.baseline()));
            // An edit: rewrite one file, add one, remove one.
            const target = paths[edit % Math.max(paths.length, 1)];
            if (
              target !== undefined &&
              lstatSync(join(root, target)).isFile() &&
              !locked.includes(target)
            ) {
              writeFileSync(join(root, target), `edited ${edit}\n`);
            }
            writeFileSync(join(root, `new file ${edit}`), "");
            expect(await on.delta()).toEqual(await off.delta());
            expect(plain(await on.snapshot())).toEqual(plain(await off.snapshot()));
          });
        }),
        { numRuns: RUNS },
      );
    },
    600_000,
  );

  test("property: the ledger's SHA-256s agree (noble, node:crypto, native) on any text, lone surrogates included", () => {
    const native = nativeContentHasher(addon);
    // ASCII texts of up to 70 units cross noble's one-block path (at most 55) and its edge.
    const anyText = fc.oneof(
      fc.string({ unit: "binary", maxLength: 300 }),
      fc
        .integer({ min: 0, max: 70 })
        .chain((n) => fc.string({ unit: "binary-ascii", minLength: n, maxLength: n })),
    );
    fc.assert(
      fc.property(fc.array(anyText, { maxLength: 40 }), (texts) => {
        for (const text of texts) {
          const expected = NOBLE_CONTENT_HASHER.sha256Hex(text);
          expect(NODE_CRYPTO_CONTENT_HASHER.sha256Hex(text)).toBe(expected);
          expect(native.sha256Hex(text)).toBe(expected);
        }
        const ledgers = [NOBLE_CONTENT_HASHER, NODE_CRYPTO_CONTENT_HASHER, native].map((hasher) => {
          const ledger = new MutationLedger({ hasher });
          texts.forEach((after, i) => {
            ledger.observeTool("write", 0, { file_path: `f${i}|${after.slice(0, 5)}`, after });
          });
          return ledger.toJSON();
        });
        expect(ledgers[1]).toEqual(ledgers[0]);
        expect(ledgers[2]).toEqual(ledgers[0]);
      }),
      { numRuns: 200 },
    );
  });

  /** Units a ledger field is made of: plain, escaped, controls, surrogates (paired and lone). */
  const FIELD_UNITS = [
    "a",
    "b",
    "/",
    ".",
    " ",
    "~",
    "|",
    "\\",
    "\n",
    "\r",
    "\t",
    "\u0000",
    "\u007f",
    "\u0085",
    "é",
    "名",
    "\ud800",
    "\udc00",
    "😀",
    "\ue000",
    "\uffff",
  ];
  const field = fc.string({ unit: fc.constantFrom(...FIELD_UNITS), maxLength: 6 });
  const row = fc.record({
    tool: fc.oneof(fc.constantFrom("write", "edit", "workspace", "Write"), field),
    path: field,
    content_digest: fc.oneof(fc.constant("d".repeat(64)), field),
  });

  test("property: ledgerDigest gives the pure core's order and effect digest for any rows (odd fields, ties, lone surrogates)", () => {
    fc.assert(
      fc.property(fc.array(row, { maxLength: 60 }), (rows) => {
        const got = addon.ledgerDigest(rows);
        const indexed = rows.map((r, index) => ({ ...r, index }));
        expect(Array.from(got.order)).toEqual(sortRecords(indexed).map((r) => r.index));
        expect(got.digest).toBe(effectDigest(rows));
      }),
      { numRuns: 300 },
    );
  });

  test("property: ledgerDigest on large ledgers (rendered in 8,192-row chunks, sorted on the thread pool) gives the pure core's order and digest", () => {
    // Sizes around the chunk (8,192 rows) and parallel-sort (4,096) thresholds, with many
    // ties and odd fields, so rows of different chunks compare and the stable order shows.
    fc.assert(
      fc.property(
        fc.constantFrom(4095, 4096, 8192, 8193, 20_000),
        fc.array(row, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        (n, pool, seed) => {
          let v = seed;
          const next = () => {
            v ^= v << 13;
            v ^= v >>> 17;
            v ^= v << 5;
            return (v >>> 0) % pool.length;
          };
          const rows = Array.from({ length: n }, () => pool[next()] as (typeof pool)[number]);
          const got = addon.ledgerDigest(rows);
          const indexed = rows.map((r, index) => ({ ...r, index }));
          expect(Array.from(got.order)).toEqual(sortRecords(indexed).map((r) => r.index));
          expect(got.digest).toBe(effectDigest(rows));
        },
      ),
      { numRuns: 12 },
    );
  });

  test("property: ledgerDigest's fields crossing in many short strings (chunkUnits 1 to 9, fields longer than a chunk alone) give the pure core's order and digest", () => {
    fc.assert(
      fc.property(
        fc.array(row, { maxLength: 40 }),
        fc.integer({ min: 1, max: 9 }),
        (rows, chunkUnits) => {
          const got = addon.ledgerDigest(rows, { chunkUnits });
          const indexed = rows.map((r, index) => ({ ...r, index }));
          expect(Array.from(got.order)).toEqual(sortRecords(indexed).map((r) => r.index));
          expect(got.digest).toBe(effectDigest(rows));
        },
      ),
      { numRuns: 300 },
    );
    const refused = (chunkUnits: number) => {
      try {
        addon.ledgerDigest([], { chunkUnits });
      } catch (error) {
        const e = error as { code: string; path: string };
        return [e.code, e.path];
      }
      return undefined;
    };
    expect(refused(0)).toEqual(["ERR_TURNGATE_INVALID_ARG", "options.chunkUnits"]);
    expect(refused(1.5)).toEqual(["ERR_TURNGATE_INVALID_ARG", "options.chunkUnits"]);
  });

  test("property: a ledger with the native hasher equals the pure one across reads (ledgerDigest on fresh and merged rows)", () => {
    const native = nativeContentHasher(addon);
    fc.assert(
      fc.property(
        fc.array(fc.array(row, { maxLength: 20 }), { minLength: 1, maxLength: 4 }),
        (batches) => {
          const ledgers = [new MutationLedger(), new MutationLedger({ hasher: native })];
          const seen: unknown[][] = [[], []];
          ledgers.forEach((ledger, k) => {
            for (const batch of batches) {
              ledger.observeUnseenPaths(
                batch.map((r) => ({ path: r.path, contentDigest: r.content_digest })),
              );
              seen[k]?.push(ledger.digest, ledger.records);
            }
          });
          expect(seen[1]).toEqual(seen[0]);
        },
      ),
      { numRuns: 200 },
    );
  });
});
