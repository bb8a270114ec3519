import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VerificationFileHashSnapshotSchema } from "@turngate/core/schemas";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { fileHashSnapshot } from "../../src/index.js";

let base: string;
let root: string;
const now = () => 1_700_000_000_123;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), "turngate-fhs-"));
  root = join(base, "ws");
  mkdirSync(join(root, "sub"), { recursive: true });
  writeFileSync(join(root, "a.txt"), "hello world");
  writeFileSync(join(root, "sub", "b.md"), "# project\n");
  writeFileSync(join(base, "secret.txt"), "outside");
  utimesSync(join(root, "a.txt"), 1_600_000_000, 1_600_000_000.5);
  symlinkSync(join(root, "a.txt"), join(root, "link-in.txt"));
  symlinkSync(join(base, "secret.txt"), join(root, "link-out.txt"));
  symlinkSync(base, join(root, "dir-out"));
  execFileSync("mkfifo", [join(root, "pipe")]);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("fileHashSnapshot", () => {
  test("hashes readable files with FNV-1a 64 in Harn's shape", async () => {
    const snap = await fileHashSnapshot(root, ["a.txt", "sub/b.md", "nope.txt"], { now });
    expect(VerificationFileHashSnapshotSchema.parse(snap)).toEqual(snap);
    expect(snap).toEqual({
      seq: 0,
      captured_at_ms: 1_700_000_000_123,
      algorithm: "fnv1a64",
      snapshot: { "a.txt": "8618312879776256743", "sub/b.md": "3395764039283917591" },
      missing: ["nope.txt"],
      files: [
        {
          path: "a.txt",
          known: false,
          readable: true,
          hash: "8618312879776256743",
          hash_source: "disk",
          size: 11,
          mtime_ms: 1_600_000_000_500,
          indexed_hash: null,
          indexed_mtime_ms: null,
          last_edit_seq: 0,
        },
        expect.objectContaining({
          path: "sub/b.md",
          readable: true,
          size: 10,
          hash_source: "disk",
        }),
        {
          path: "nope.txt",
          known: false,
          readable: false,
          hash: null,
          hash_source: "missing",
          size: null,
          mtime_ms: null,
          indexed_hash: null,
          indexed_mtime_ms: null,
          last_edit_seq: 0,
        },
      ],
    });
  });

  test("sha256 gives lowercase hex", async () => {
    const snap = await fileHashSnapshot(root, ["a.txt"], { algorithm: "sha256", now });
    expect(snap.algorithm).toBe("sha256");
    expect(snap.snapshot).toEqual({
      "a.txt": "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9",
    });
  });

  test("paths escaping the root, lexically or through a symlink, are missing and never read", async () => {
    const outside = join(base, "secret.txt");
    const snap = await fileHashSnapshot(
      root,
      ["../secret.txt", outside, "link-out.txt", "dir-out/secret.txt", "link-in.txt"],
      {
        now,
      },
    );
    expect(snap.missing).toEqual(["../secret.txt", outside, "link-out.txt", "dir-out/secret.txt"]);
    expect(snap.snapshot).toEqual({ "link-in.txt": "8618312879776256743" });
  });

  test("absolute paths inside the root get workspace-relative keys; directories and FIFOs are missing", async () => {
    const snap = await fileHashSnapshot(
      root,
      [join(root, "sub", "b.md"), "./sub/../a.txt", "sub", "pipe", "a.txt"],
      { now },
    );
    expect(snap.files.map((f) => [f.path, f.hash_source])).toEqual([
      ["sub/b.md", "disk"],
      ["a.txt", "disk"],
      ["sub", "missing"],
      ["pipe", "missing"],
      ["a.txt", "disk"],
    ]);
    expect(snap.missing).toEqual(["sub", "pipe"]);
  });

  test("bad arguments are typed errors naming the field", async () => {
    const err = (path: string) => expect.objectContaining({ code: "invalid_input", path });
    await expect(fileHashSnapshot(root, [])).rejects.toThrow(err("paths"));
    await expect(fileHashSnapshot(root, [])).rejects.toThrow("must contain at least one path");
    await expect(fileHashSnapshot(root, new Array(4097).fill("a.txt"))).rejects.toThrow(
      "must contain at most 4096 paths",
    );
    await expect(fileHashSnapshot(root, ["a.txt", ""])).rejects.toThrow(err("paths.1"));
    await expect(fileHashSnapshot(root, ["a.txt", 7 as unknown as string])).rejects.toThrow(
      err("paths.1"),
    );
    await expect(
      fileHashSnapshot(root, ["a.txt"], { algorithm: "md5" as "sha256" }),
    ).rejects.toThrow(err("options.algorithm"));
    await expect(fileHashSnapshot(join(root, "a.txt"), ["a.txt"])).rejects.toThrow(err("root"));
    await expect(fileHashSnapshot(join(base, "no-such-dir"), ["a.txt"])).rejects.toThrow(
      err("root"),
    );
    const full = await fileHashSnapshot(root, new Array(4096).fill("a.txt"), { now });
    expect(full.files).toHaveLength(4096);
  });
});
