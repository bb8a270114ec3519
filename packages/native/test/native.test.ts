/**
 * `@turngate/native` (issue 10, "Child subreaper"): the built addon toggles this process's
 * child-subreaper attribute, reaps only the pid it is given, and the loader reports an
 * absent addon (`available: false`, `reason`, typed error) instead of failing to import.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const native = createRequire(import.meta.url)("../index.js") as typeof import("../index.js");

describe("@turngate/native", () => {
  test("the addon is built and loads on this platform", () => {
    expect({ available: native.available, reason: native.reason }).toEqual({
      available: true,
      reason: null,
    });
  });

  test("setChildSubreaper turns PR_SET_CHILD_SUBREAPER on and off and returns the previous state", () => {
    expect(native.isChildSubreaper()).toBe(false);
    expect(native.setChildSubreaper(true)).toBe(false);
    expect(native.isChildSubreaper()).toBe(true);
    expect(native.setChildSubreaper(false)).toBe(true);
    expect(native.isChildSubreaper()).toBe(false);
  });

  test("reapChild waits only for the pid it is given: not_child for another process, a typed error for pid 0", () => {
    expect(native.reapChild(process.ppid)).toEqual({ state: "not_child" });
    expect(() => native.reapChild(0)).toThrow("pid: must be a positive integer");
  });

  test("without the built addon the loader reports why and every function throws ERR_TURNGATE_NATIVE_UNAVAILABLE", () => {
    const script = `const n = require(${JSON.stringify(join(here, "../index.js"))});
let code = null; try { n.setChildSubreaper(true); } catch (e) { code = e.code + ": " + e.message; }
console.log(JSON.stringify({ available: n.available, reason: n.reason, code }));`;
    const out = spawnSync(process.execPath, ["-e", script], {
      env: { ...process.env, TURNGATE_NATIVE_DISABLE: "1" },
      encoding: "utf8",
    });
    expect(JSON.parse(out.stdout)).toEqual({
      available: false,
      reason: "disabled by TURNGATE_NATIVE_DISABLE=1",
      code: "ERR_TURNGATE_NATIVE_UNAVAILABLE: @turngate/native is unavailable: disabled by TURNGATE_NATIVE_DISABLE=1",
    });
  });
});

/** A fresh temporary tree for the issue-17 functions. */
function tree(): string {
  const root = mkdtempSync(join(tmpdir(), "turngate-native-"));
  mkdirSync(join(root, "src/deep"), { recursive: true });
  writeFileSync(join(root, "src/a.txt"), "abc");
  writeFileSync(join(root, "src/empty"), "");
  writeFileSync(join(root, "src/deep/b.txt"), "hello world");
  symlinkSync("../outside/secret", join(root, "src/link"));
  mkdirSync(join(root, "node_modules/pkg"), { recursive: true });
  writeFileSync(join(root, "node_modules/pkg/index.js"), "x");
  mkdirSync(join(root, ".git"));
  writeFileSync(join(root, ".git/HEAD"), "ref: refs/heads/main\n");
  mkdirSync(join(root, ".turngate"));
  writeFileSync(join(root, ".turngate/baseline.json"), "{}");
  mkdirSync(join(root, "src/.turngate"));
  writeFileSync(join(root, "src/.turngate/kept"), "k");
  return root;
}

const SHA_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
const SHA_EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const SHA_HELLO = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9";

/** mkfifo(1): Node has no mkfifo of its own. */
function mkfifoSync(path: string): void {
  const out = spawnSync("mkfifo", [path]);
  if (out.status !== 0) throw new Error(`mkfifo ${path} failed`);
}

describe("@turngate/native issue 17: statTree, hashFiles, batches", () => {
  test("hashFiles: SHA-256 and FNV-1a 64 of bytes, symlinks by link text, the fstat record, per-path errors", async () => {
    const root = tree();
    mkfifoSync(join(root, "src/fifo"));
    const paths = ["src/a.txt", "src/empty", "src/link", "src/deep", "src/fifo", "src/missing"];
    const sha = await native.hashFiles(root, paths);
    const link = createHash("sha256").update("../outside/secret").digest("hex");
    expect(sha.digests).toEqual([SHA_ABC, SHA_EMPTY, link, null, null, null]);
    const st = lstatSync(join(root, "src/a.txt"));
    expect([...sha.records.subarray(0, 6)]).toEqual([
      1,
      3,
      st.mtimeMs,
      st.ctimeMs,
      st.ino,
      st.mode,
    ]);
    const ln = lstatSync(join(root, "src/link"));
    expect([...sha.records.subarray(12, 18)]).toEqual([
      2,
      ln.size,
      ln.mtimeMs,
      ln.ctimeMs,
      ln.ino,
      ln.mode,
    ]);
    expect(sha.errors).toEqual([
      {
        index: 3,
        code: "ENOTREGULAR",
        path: "src/deep",
        message: "ENOTREGULAR: not a regular file, open 'src/deep'",
      },
      {
        index: 4,
        code: "ENOTREGULAR",
        path: "src/fifo",
        message: "ENOTREGULAR: not a regular file, open 'src/fifo'",
      },
      {
        index: 5,
        code: "ENOENT",
        path: "src/missing",
        message: "ENOENT: no such file or directory, open 'src/missing'",
      },
    ]);
    const fnv = await native.hashFiles(root, ["src/empty", "src/deep/b.txt"], {
      algorithm: "fnv1a64",
    });
    expect(fnv.digests).toEqual(["14695981039346656037", "8618312879776256743"]);
  });

  test("hashFiles streams a file larger than its 256 KiB chunk to the exact SHA-256", async () => {
    const root = tree();
    const bytes = Buffer.alloc(3 * 256 * 1024 + 17, 7);
    writeFileSync(join(root, "big.bin"), bytes);
    const result = await native.hashFiles(root, ["big.bin"]);
    expect(result.digests).toEqual([createHash("sha256").update(bytes).digest("hex")]);
  });

  test("bad arguments are NativeError with code ERR_TURNGATE_INVALID_ARG naming the field", async () => {
    const root = tree();
    const refused = async (p: Promise<unknown>) => {
      const e = (await p.then(
        () => undefined,
        (error: unknown) => error,
      )) as { name: string; code: string; path: string; message: string };
      return { name: e.name, code: e.code, path: e.path, message: e.message };
    };
    expect(await refused(native.hashFiles(root, ["src/../../etc/passwd"]))).toEqual({
      name: "NativeError",
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "paths[0]",
      message: "paths[0]: must be a non-empty relative path without NUL bytes or '..' segments",
    });
    expect(await refused(native.hashFiles("relative/root", ["a"]))).toMatchObject({ path: "root" });
    expect(await refused(native.statTree(root, ["ok", 7 as unknown as string]))).toMatchObject({
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "paths[1]",
    });
    expect(
      await refused(native.hashFiles(root, ["a"], { algorithm: "md5" as "sha256" })),
    ).toMatchObject({
      path: "algorithm",
    });
    expect(() => native.sha256Batch([1 as unknown as string])).toThrow(
      "inputs[0]: expected a string or a Uint8Array",
    );
  });

  test("statTree of a path list: Node's lstat numbers, absent for ENOENT/ENOTDIR, nanoseconds beside", async () => {
    const root = tree();
    const result = await native.statTree(root, [
      "src/a.txt",
      "src/link",
      "src/deep",
      "nope",
      "src/a.txt/x",
    ]);
    const expectRecord = (i: number, kind: number, rel: string) => {
      const st = lstatSync(join(root, rel), { bigint: true });
      const ms = lstatSync(join(root, rel));
      expect([...result.records.subarray(i * 6, i * 6 + 6)]).toEqual([
        kind,
        ms.size,
        ms.mtimeMs,
        ms.ctimeMs,
        ms.ino,
        ms.mode,
      ]);
      expect([...result.nanos.subarray(i * 2, i * 2 + 2)]).toEqual([st.mtimeNs, st.ctimeNs]);
    };
    expectRecord(0, 1, "src/a.txt");
    expectRecord(1, 2, "src/link");
    expectRecord(2, 3, "src/deep");
    expect([...result.records.subarray(18, 30)]).toEqual(new Array(12).fill(0));
    expect(result.errors).toEqual([]);
  });

  test("statTree walk: harness directories skipped, the filter prunes ignored directories before they are read", async () => {
    const root = tree();
    const asked: string[] = [];
    const result = await native.statTree(root, {
      walk: {
        filter: (path: string, isDir: boolean) => {
          asked.push(`${path}${isDir ? "/" : ""}`);
          return path === "node_modules";
        },
      },
    });
    expect([...result.paths].sort()).toEqual([
      "src/.turngate/kept",
      "src/a.txt",
      "src/deep/b.txt",
      "src/empty",
      "src/link",
    ]);
    expect(asked).not.toContain("node_modules/pkg/");
    expect(asked).not.toContain(".git/");
    expect(asked).toContain("node_modules/");
    const i = result.paths.indexOf("src/link");
    expect(result.records[i * 6]).toBe(2);
  });

  test("sha256Batch, fnv1a64Batch, sha256, sha256Concat: exact digests; strings as UTF-8, a lone surrogate as U+FFFD", () => {
    expect(
      native.sha256Batch(["", "abc", Buffer.from("abc"), new Uint8Array([97, 98, 99])]),
    ).toEqual([SHA_EMPTY, SHA_ABC, SHA_ABC, SHA_ABC]);
    expect(native.sha256("\ud800x")).toBe(createHash("sha256").update("\ufffdx").digest("hex"));
    expect(native.sha256("héllo")).toBe(
      createHash("sha256").update(Buffer.from("héllo", "utf8")).digest("hex"),
    );
    expect(native.fnv1a64Batch(["", "hello world"])).toEqual([
      "14695981039346656037",
      "8618312879776256743",
    ]);
    expect(native.sha256Concat(["hello", " ", "world"])).toBe(SHA_HELLO);
  });

  test("ledgerDigest: the ledger order (path, then tool, code points, stable) and the SHA-256 of the escaped text", () => {
    const rows = [
      { tool: "write", path: "b|c", content_digest: "x" },
      { tool: "edit", path: "a\n", content_digest: "" },
      { tool: "bash", path: "a\n", content_digest: "\ud800" },
      { tool: "write", path: "😀", content_digest: "e" },
      { tool: "write", path: "\ue000", content_digest: "d" },
      { tool: "bash", path: "a\n", content_digest: "again" },
    ];
    const result = native.ledgerDigest(rows);
    // U+E000 sorts before U+1F600 (code points), although its UTF-16 unit is higher.
    expect(Array.from(result.order)).toEqual([2, 5, 1, 0, 4, 3]);
    const text =
      "bash|a\\n|\\ud800\nbash|a\\n|again\nedit|a\\n|\nwrite|b\\|c|x\nwrite|\ue000|d\nwrite|😀|e";
    expect(result.digest).toBe(createHash("sha256").update(text, "utf8").digest("hex"));
    expect(native.ledgerDigest([])).toEqual({ order: new Uint32Array(0), digest: "" });
  });

  test("ledgerDigest refuses malformed rows with ERR_TURNGATE_INVALID_ARG naming the field", () => {
    const fail = (rows: unknown) => {
      try {
        native.ledgerDigest(rows as Parameters<typeof native.ledgerDigest>[0]);
      } catch (error) {
        const e = error as { name: string; code: string; path: string };
        return { name: e.name, code: e.code, path: e.path };
      }
      return undefined;
    };
    expect(fail("rows")).toEqual({
      name: "NativeError",
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "rows",
    });
    expect(fail([{ tool: "t", path: "p", content_digest: "d" }, { tool: 1 }])).toEqual({
      name: "NativeError",
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "rows[1].tool",
    });
    expect(fail([{ tool: "t", path: "p" }])).toEqual({
      name: "NativeError",
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "rows[0].content_digest",
    });
  });
});
