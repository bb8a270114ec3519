/**
 * `facts.file_hash_snapshot` through the real stdio server (it reads files, so only the
 * server serves it). FNV-1a 64 values are Harn's reference vectors (harn-verification.md
 * §3.1) or computed outside the implementation with the §3.1 loop in Python
 * (`h ^= byte; h = h * 0x100000001b3 % 2**64` from 0xcbf29ce484222325); SHA-256 with
 * `printf 'hello world' | sha256sum`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { statelessMethodNames } from "@turngate/bridge/pure";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BridgeProcess } from "./helpers/bridge-process.js";

const FNV_EMPTY = "14695981039346656037";
const FNV_HELLO_WORLD = "8618312879776256743";
/** UTF-8 bytes of "héllo wörld" (two 2-byte characters). */
const FNV_HELLO_WORLD_ACCENTED = "1261653000850579490";
const SHA256_HELLO_WORLD = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9";

describe("facts.file_hash_snapshot over stdio", () => {
  let bridge: BridgeProcess;
  let root: string;
  let outside: string;

  beforeAll(() => {
    bridge = new BridgeProcess();
    root = mkdtempSync(join(tmpdir(), "turngate-facts-"));
    outside = mkdtempSync(join(tmpdir(), "turngate-facts-outside-"));
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "hello.txt"), "hello world");
    writeFileSync(join(root, "empty.txt"), "");
    writeFileSync(join(root, "src", "accent.txt"), "héllo wörld");
    writeFileSync(join(outside, "secret.txt"), "hello world");
  });
  afterAll(() => {
    bridge.kill();
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  test("hashes files as Harn's decimal FNV-1a 64 by default; absent and escaping paths are missing", async () => {
    const escaping = join("..", outside.split(/[\\/]/).pop() as string, "secret.txt");
    const snap = await bridge.call<Record<string, unknown>>("facts.file_hash_snapshot", {
      root,
      paths: ["hello.txt", "empty.txt", "src/accent.txt", "gone.txt", escaping],
    });
    expect(snap.algorithm).toBe("fnv1a64");
    expect(snap.seq).toBe(0);
    expect(snap.snapshot).toEqual({
      "hello.txt": FNV_HELLO_WORLD,
      "empty.txt": FNV_EMPTY,
      "src/accent.txt": FNV_HELLO_WORLD_ACCENTED,
    });
    expect(snap.missing).toEqual(["gone.txt", escaping]);
    const files = snap.files as Array<Record<string, unknown>>;
    expect(files.map((f) => [f.path, f.readable, f.hash_source, f.size])).toEqual([
      ["hello.txt", true, "disk", 11],
      ["empty.txt", true, "disk", 0],
      ["src/accent.txt", true, "disk", 13],
      ["gone.txt", false, "missing", null],
      [escaping, false, "missing", null],
    ]);
  });

  test("sha256 is lowercase hex", async () => {
    const snap = await bridge.call<Record<string, unknown>>("facts.file_hash_snapshot", {
      root,
      paths: ["hello.txt"],
      algorithm: "sha256",
    });
    expect([snap.algorithm, snap.snapshot]).toEqual([
      "sha256",
      { "hello.txt": SHA256_HELLO_WORLD },
    ]);
  });

  test("no paths, an unknown algorithm and a root that is a file are invalid_params naming the field", async () => {
    const codes = async (params: unknown) =>
      (await bridge.request("facts.file_hash_snapshot", params)).error?.data;
    expect(await codes({ root, paths: [] })).toMatchObject({
      code: "invalid_params",
      path: "paths",
    });
    expect(await codes({ root, paths: ["a"], algorithm: "md5" })).toMatchObject({
      code: "invalid_params",
      path: "algorithm",
    });
    expect(await codes({ root: join(root, "hello.txt"), paths: ["a"] })).toMatchObject({
      code: "invalid_params",
      path: "root",
      message: "invalid file-hash snapshot request at root: must be a directory",
    });
  });

  test("is served by the stdio server only, not in-process", () => {
    expect(statelessMethodNames()).not.toContain("facts.file_hash_snapshot");
    expect(statelessMethodNames()).toContain("facts.parse_diagnostics");
  });
});
