import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  ContentAddressedLog,
  ensureDirectory,
  TURNGATE_GITIGNORE,
  turngatePaths,
  writeJsonAtomic,
} from "../../src/index.js";

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "turngate-ensure-dir-"));
  dirs.push(dir);
  return dir;
}

describe("ensureDirectory", () => {
  test("creating .turngate/ writes .gitignore holding * (and nothing else besides the target)", async () => {
    const root = tempDir();
    await ensureDirectory(turngatePaths(root).proofs);
    expect(TURNGATE_GITIGNORE).toBe("*\n");
    expect(readFileSync(join(root, ".turngate/.gitignore"), "utf8")).toBe("*\n");
    expect(readdirSync(join(root, ".turngate")).sort()).toEqual([".gitignore", "proofs"]);
  });

  test("an existing .turngate/ is left alone: no .gitignore is added or rewritten", async () => {
    const root = tempDir();
    mkdirSync(join(root, ".turngate"));
    await ensureDirectory(turngatePaths(root).logs);
    expect(existsSync(join(root, ".turngate/.gitignore"))).toBe(false);
    expect(readdirSync(join(root, ".turngate"))).toEqual(["logs"]);
  });

  test("folders not named .turngate get no .gitignore", async () => {
    const root = tempDir();
    await ensureDirectory(join(root, "a/b/c"));
    expect(existsSync(join(root, "a/b/c"))).toBe(true);
    for (const dir of ["a", "a/b", "a/b/c"]) {
      expect(existsSync(join(root, dir, ".gitignore"))).toBe(false);
    }
  });

  test("after a proof and a log are written, git status shows nothing of .turngate/", async () => {
    const root = tempDir();
    execFileSync("git", ["init", "-q"], { cwd: root });
    await writeJsonAtomic(join(turngatePaths(root).proofs, "p.json"), { ok: true });
    const log = await ContentAddressedLog.open(turngatePaths(root).logs);
    log.write(Buffer.from("output\n"));
    await log.commit();
    expect(
      execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
        cwd: root,
        encoding: "utf8",
      }),
    ).toBe("");
    expect(readFileSync(join(root, ".turngate/.gitignore"), "utf8")).toBe("*\n");
  });
});
