/**
 * Issue 17: the stat-only listings of the user-level fingerprints (`PATH` folders outside
 * the home directory the user can alter, ancestor `node_modules/`) give the same labels and
 * digests on the addon (`statDigestListing`) and in TypeScript, entry kind by entry kind.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { fingerprintUserFiles, pathStatDigest } from "../../src/environment/user-files.js";
import type { NativeAddon } from "../../src/native/select.js";
import { makeTempDir, removeDir } from "../workspace/helpers.js";

const addon = createRequire(import.meta.url)("@turngate/native") as NativeAddon;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) removeDir(dir);
});

describe("issue 17: user-level fingerprints on both paths", () => {
  test("a writable PATH folder outside home: the same labels and digests with TURNGATE_NATIVE=1 and =0", () => {
    expect(addon.available).toBe(true);
    const base = makeTempDir("tg-userfiles-");
    dirs.push(base);
    const home = join(base, "home");
    const tools = join(base, "tools");
    mkdirSync(home);
    mkdirSync(tools);
    writeFileSync(join(tools, "prog"), "#!/bin/sh\n");
    chmodSync(join(tools, "prog"), 0o755);
    writeFileSync(join(tools, "empty"), "");
    mkdirSync(join(tools, "sub"));
    symlinkSync("prog", join(tools, "link"));
    symlinkSync("/nowhere/at/all", join(tools, "dangling"));
    execFileSync("mkfifo", [join(tools, "fifo")]);
    writeFileSync(join(tools, "名前 with space"), "x");
    // A name that is not UTF-8: both paths see it as Node's readdirSync decodes it (U+FFFD),
    // whose lstat then fails, so both leave it out (no check can name it either).
    writeFileSync(Buffer.from(`${tools}/bad-\xff-name`, "latin1"), "y");
    const run = (mode: string) =>
      fingerprintUserFiles({ env: { HOME: home, PATH: tools, TURNGATE_NATIVE: mode }, home });
    const ts = run("0");
    const native = run("1");
    expect(native).toEqual(ts);
    const labels = Object.keys(ts).filter((label) => label.startsWith(`${tools}/`));
    expect(labels.map((label) => label.slice(tools.length + 1)).sort()).toEqual(
      ["dangling", "empty", "fifo", "link", "prog", "sub", "名前 with space"].sort(),
    );
    const st = lstatSync(join(tools, "prog"), { bigint: true });
    expect(native[`${tools}/prog`]).toBe(
      pathStatDigest({
        type: "f",
        mode: st.mode,
        size: st.size,
        mtimeNs: st.mtimeNs,
        ctimeNs: st.ctimeNs,
        ino: st.ino,
      }),
    );
  });

  test("statDigestListing: [] for a folder that cannot be read, typed errors for bad arguments", () => {
    expect(addon.statDigestListing("/no/such/folder/here", 10)).toEqual([]);
    const refused = (folder: unknown, max: unknown) => {
      try {
        addon.statDigestListing(folder as string, max as number);
      } catch (error) {
        const e = error as { name: string; code: string; path: string };
        return { name: e.name, code: e.code, path: e.path };
      }
      return undefined;
    };
    const invalid = (path: string) => ({
      name: "NativeError",
      code: "ERR_TURNGATE_INVALID_ARG",
      path,
    });
    expect(refused("relative", 1)).toEqual(invalid("folder"));
    expect(refused("/tmp\0x", 1)).toEqual(invalid("folder"));
    expect(refused("/tmp", -1)).toEqual(invalid("max"));
    expect(refused("/tmp", 1.5)).toEqual(invalid("max"));
  });
});
