/**
 * `hashFileFollowingSync` (issue 10 "Hash files by streaming"): the SHA-256 of a file's
 * bytes read in buffer-sized chunks, through a symlink as git reads its config files;
 * digests computed here with node:crypto over the whole bytes.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { hashFileFollowingSync } from "../../src/workspace/hash/hash.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("hashFileFollowingSync", () => {
  test("chunked reads give the whole-file digest; a symlink is followed; a missing file throws ENOENT", () => {
    dir = mkdtempSync(join(tmpdir(), "turngate-hash-"));
    const bytes = Buffer.from(Array.from({ length: 100_003 }, (_, i) => i % 251));
    writeFileSync(join(dir, "data.bin"), bytes);
    symlinkSync("data.bin", join(dir, "link"));
    const expected = createHash("sha256").update(bytes).digest("hex");
    expect(hashFileFollowingSync(join(dir, "data.bin"), Buffer.alloc(7))).toBe(expected);
    expect(hashFileFollowingSync(join(dir, "link"))).toBe(expected);
    writeFileSync(join(dir, "empty"), "");
    expect(hashFileFollowingSync(join(dir, "empty"))).toBe(createHash("sha256").digest("hex"));
    expect(() => hashFileFollowingSync(join(dir, "missing"))).toThrow(
      expect.objectContaining({ code: "ENOENT" }),
    );
  });
});
