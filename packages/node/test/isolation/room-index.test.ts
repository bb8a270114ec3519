/**
 * The clean room's index update (docs/design.md §3b "Clean room", `isolation/room-git.ts`,
 * `@turngate/native`'s `roomIndexUpdate`): the in-process update (gitoxide, new blobs as one
 * pack) and git's (`fast-import` + `update-index --add --remove --replace`) leave the same
 * index and objects, in SHA-1 and SHA-256 repositories, for changed, new, removed and
 * executable files, symlinks, a file where a folder was and a folder where a file was.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { readBaselineHead, updateRoomIndex } from "../../src/isolation/index.js";
import { selectNative } from "../../src/native/select.js";

const native = selectNative({});
let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}
function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "core.fsync=none", ...args],
    { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } },
  );
}
function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** A committed workspace and two clones of it (the rooms), each changed the same way. */
function rooms(format: "sha1" | "sha256"): { ws: string; a: string; b: string } {
  const ws = temp("tg-idx-ws-");
  git(ws, "init", "-q", `--object-format=${format}`);
  write(ws, "a.js", "a\n");
  write(ws, "src/b.js", "b\n");
  write(ws, "dir/x.js", "x\n");
  write(ws, "f", "file f\n");
  write(ws, "bin/run.sh", "#!/bin/sh\n");
  symlinkSync("a.js", join(ws, "link"));
  git(ws, "add", "-A");
  git(ws, "commit", "-q", "--no-gpg-sign", "-m", "base");
  const made = [temp("tg-idx-a-"), temp("tg-idx-b-")];
  for (const room of made) {
    git(room, "clone", "-q", "--no-local", `file://${ws}`, ".");
    write(room, "a.js", "a changed\n");
    rmSync(join(room, "src/b.js"));
    write(room, "new.js", "new\n");
    rmSync(join(room, "dir"), { recursive: true });
    write(room, "dir", "a file where a folder was\n");
    unlinkSync(join(room, "f"));
    write(room, "f/y.js", "a folder where a file was\n");
    chmodSync(join(room, "bin/run.sh"), 0o755);
    unlinkSync(join(room, "link"));
    symlinkSync("new.js", join(room, "link"));
    symlinkSync("../a.js", join(room, "l2"));
  }
  return { ws, a: made[0] as string, b: made[1] as string };
}

const written = ["a.js", "bin/run.sh", "dir", "f/y.js", "l2", "link", "missing.js", "new.js"];
const gone = ["dir/x.js", "f", "src/b.js"];

describe.skipIf(native === undefined)("roomIndexUpdate (native) and git", () => {
  for (const format of ["sha1", "sha256"] as const) {
    test(`leave the same index entries and objects (${format})`, async () => {
      const { ws, a, b } = rooms(format);
      const head = await readBaselineHead(ws);
      expect(head).not.toBeNull();
      const done = await native?.roomIndexUpdate(a, written, gone);
      expect(done).toEqual({ objects: 6, entries: 7 });
      if (head === null) return;
      await updateRoomIndex(b, head, written, false, { TURNGATE_NATIVE: "0" }, gone);

      const listed = git(a, "ls-files", "-s");
      expect(listed).toBe(git(b, "ls-files", "-s"));
      expect(listed.split("\n").map((line) => line.replace(/ [0-9a-f]+ /, " <id> "))).toEqual([
        "100644 <id> 0\ta.js",
        "100755 <id> 0\tbin/run.sh",
        "100644 <id> 0\tdir",
        "100644 <id> 0\tf/y.js",
        "120000 <id> 0\tl2",
        "120000 <id> 0\tlink",
        "100644 <id> 0\tnew.js",
        "",
      ]);
      for (const path of ["a.js", "dir", "f/y.js", "new.js"]) {
        expect(git(a, "ls-files", "-s", path).split(/\s+/)[1]).toBe(
          git(a, "hash-object", path).trim(),
        );
      }
      // The entries' stat is the room's: git finds no file to re-read, and the blobs exist.
      expect(git(a, "diff-files", "--name-only")).toBe("");
      expect(git(a, "status", "--porcelain")).toBe(git(b, "status", "--porcelain"));
      expect(git(a, "fsck", "--strict", "--no-dangling", "--no-progress")).toBe("");
      expect(git(a, "count-objects", "-v")).toMatch(/^count: 0$/m);
      expect(git(a, "cat-file", "-p", ":new.js")).toBe("new\n");
    });
  }

  for (const format of ["sha1", "sha256"] as const) {
    test(`paths the index holds, changed in place, have their entries updated where they are, as git updates them (${format})`, async () => {
      const ws = temp("tg-idx-ws-");
      git(ws, "init", "-q", `--object-format=${format}`);
      write(ws, "a.js", "a\n");
      write(ws, "src/b.js", "b\n");
      write(ws, "bin/run.sh", "#!/bin/sh\n");
      symlinkSync("a.js", join(ws, "link"));
      git(ws, "add", "-A");
      git(ws, "commit", "-q", "--no-gpg-sign", "-m", "base");
      const head = await readBaselineHead(ws);
      const pair = [temp("tg-idx-a-"), temp("tg-idx-b-")];
      for (const room of pair) {
        git(room, "clone", "-q", "--no-local", `file://${ws}`, ".");
        write(room, "src/b.js", "b changed\n");
        chmodSync(join(room, "bin/run.sh"), 0o755);
        unlinkSync(join(room, "link"));
        symlinkSync("src/b.js", join(room, "link"));
      }
      const [a, b] = pair as [string, string];
      const changed = ["bin/run.sh", "link", "src/b.js"];
      expect(await native?.roomIndexUpdate(a, changed, [])).toEqual({ objects: 2, entries: 4 });
      if (head === null) throw new Error("no baseline head");
      await updateRoomIndex(b, head, changed, false, { TURNGATE_NATIVE: "0" }, []);
      const listed = git(a, "ls-files", "-s");
      expect(listed).toBe(git(b, "ls-files", "-s"));
      expect(listed.split("\n").map((line) => line.replace(/ [0-9a-f]+ /, " <id> "))).toEqual([
        "100644 <id> 0\ta.js",
        "100755 <id> 0\tbin/run.sh",
        "120000 <id> 0\tlink",
        "100644 <id> 0\tsrc/b.js",
        "",
      ]);
      expect(git(a, "ls-files", "-s", "src/b.js").split(/\s+/)[1]).toBe(
        git(a, "hash-object", "src/b.js").trim(),
      );
      expect(git(a, "diff-files", "--name-only")).toBe("");
      expect(git(a, "status", "--porcelain")).toBe("M  bin/run.sh\nM  link\nM  src/b.js\n");
      expect(git(a, "fsck", "--strict", "--no-dangling", "--no-progress")).toBe("");
    });
  }

  test("a room whose .git is a link is refused: the index and objects are never written where it points", async () => {
    const { a } = rooms("sha1");
    const elsewhere = temp("tg-idx-elsewhere-");
    execFileSync("cp", ["-a", join(a, ".git"), join(elsewhere, "git")]);
    rmSync(join(a, ".git"), { recursive: true });
    symlinkSync(join(elsewhere, "git"), join(a, ".git"));
    const index = readFileSync(join(elsewhere, "git", "index"));
    await expect(native?.roomIndexUpdate(a, ["a.js"], [])).rejects.toMatchObject({
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "room",
    });
    expect(readFileSync(join(elsewhere, "git", "index")).equals(index)).toBe(true);
  });

  test("a room with a .gitattributes is left to git (it converts the bytes it stores): the addon refuses, updateRoomIndex gives git's entries", async () => {
    const ws = temp("tg-idx-ws-");
    git(ws, "init", "-q");
    write(ws, ".gitattributes", "* text=auto\n");
    write(ws, "a.txt", "one\n");
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "--no-gpg-sign", "-m", "base");
    const room = temp("tg-idx-a-");
    git(room, "clone", "-q", "--no-local", `file://${ws}`, ".");
    writeFileSync(join(room, "a.txt"), "one\r\ntwo\r\n");
    await expect(native?.roomIndexUpdate(room, ["a.txt"], [])).rejects.toMatchObject({
      code: "ERR_TURNGATE_ROOM_GIT",
      message: "the room has a .gitattributes: git writes its index",
    });
    const head = await readBaselineHead(ws);
    if (head === null) throw new Error("no head");
    await updateRoomIndex(room, head, ["a.txt"], false, {}, []);
    // git stored the normalized text (LF), as a clone would see it.
    expect(git(room, "cat-file", "-p", ":a.txt")).toBe("one\ntwo\n");
    expect(git(room, "diff-files", "--name-only")).toBe("");
  });

  test("a second update with nothing new writes no pack; a bad path is refused by name", async () => {
    const { a } = rooms("sha1");
    await native?.roomIndexUpdate(a, written, gone);
    const packs = git(a, "count-objects", "-v");
    expect(await native?.roomIndexUpdate(a, ["a.js"], [])).toEqual({ objects: 0, entries: 7 });
    expect(git(a, "count-objects", "-v")).toBe(packs);
    await expect(native?.roomIndexUpdate(a, ["../escape"], [])).rejects.toMatchObject({
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "written[0]",
    });
    await expect(native?.roomIndexUpdate(join(a, "src-none"), [], [])).rejects.toMatchObject({
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "room",
    });
  });
});
