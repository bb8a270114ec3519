/**
 * The clean room's rules (docs/design.md §3b, `isolation/room-files.ts`, `room-kept.ts`,
 * `clean-room.ts`): exactly the snapshot's entries, proven by lstat with ctime and inode,
 * racy entries re-hashed, check outputs pruned, kept caches proven, turngate's own mtimes,
 * the workspace re-hashed on copy, and a `.git` cloned at the baseline commit whose index
 * holds the room's files.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  beginRoomProof,
  CleanRoom,
  decodeRoomManifest,
  encodeRoomManifest,
  NO_DIRS,
  NO_RECORDS,
  proveRoom,
  proveRoomTs,
  type RoomProof,
  RoomSourceChangedError,
  readBaselineHead,
  readRecord,
  syncRoomFiles,
  writeRecord,
} from "../../src/isolation/index.js";
import { prunedEntries } from "../../src/isolation/room-files.js";
import { type NativeAddon, selectNative } from "../../src/native/select.js";
import type { EntryState } from "../../src/workspace/snapshot.js";

const sha = (data: string) => createHash("sha256").update(data).digest("hex");
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
function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
function fileEntry(text: string, mode = 0o100644): EntryState {
  return {
    kind: "file",
    content_digest: sha(text),
    size: text.length,
    mtime_ms: 0,
    ctime_ms: 0,
    ino: 0,
    mode,
  };
}
/** The first sync of `room` from `ws`: nothing recorded, no stamp, no earlier mtime. */
function syncFromEmpty(room: string, ws: string, named: Map<string, EntryState>) {
  return syncRoomFiles({
    room,
    workspace: ws,
    entries: named,
    recorded: NO_RECORDS,
    stampNs: 0n,
    lastMtimeS: 0,
  });
}
/** Entries of `files` as a snapshot would name them (stat fields unused by the room). */
function entries(files: Record<string, string>): Map<string, EntryState> {
  return new Map(Object.entries(files).map(([p, t]) => [p, fileEntry(t)]));
}

describe("syncRoomFiles", () => {
  test("the room holds exactly the named entries: check outputs and stray folders are pruned, caches kept", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    const files = { "a.js": "a\n", "src/b.js": "b\n", "Cargo.toml": "[package]\n" };
    for (const [p, t] of Object.entries(files)) write(ws, p, t);
    const first = await syncRoomFiles({
      room,
      workspace: ws,
      entries: entries(files),
      recorded: NO_RECORDS,
      stampNs: 0n,
      lastMtimeS: 0,
    });
    expect(first.written).toEqual(["Cargo.toml", "a.js", "src/b.js"]);
    write(room, "coverage/impl.js", "planted");
    write(room, "src/__pycache__/b.pyc", "bytecode");
    write(room, "target/debug/x", "build");
    write(room, "stray.txt", "x");
    const second = await syncRoomFiles({
      room,
      workspace: ws,
      entries: entries(files),
      recorded: first.recorded,
      stampNs: BigInt(Date.now() + 60_000) * 1_000_000n,
      lastMtimeS: first.mtimeS,
    });
    expect(second.removed).toEqual(["coverage", "stray.txt"]);
    expect(second.written).toEqual([]);
    expect(existsSync(join(room, "src/__pycache__/b.pyc"))).toBe(true);
    expect(existsSync(join(room, "target/debug/x"))).toBe(true);
  });

  test("a room file rewritten with the same size and mtime is found by its ctime and copied again", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "a.js", "good\n");
    const first = await syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.js": "good\n" }),
      recorded: NO_RECORDS,
      stampNs: 0n,
      lastMtimeS: 0,
    });
    const before = lstatSync(join(room, "a.js"));
    writeFileSync(join(room, "a.js"), "evil\n");
    utimesSync(join(room, "a.js"), before.atime, before.mtime);
    const far = BigInt(Date.now() + 60_000) * 1_000_000n;
    const second = await syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.js": "good\n" }),
      recorded: first.recorded,
      stampNs: far,
      lastMtimeS: first.mtimeS,
    });
    expect(second.written).toEqual(["a.js"]);
    expect(readFileSync(join(room, "a.js"), "utf8")).toBe("good\n");
  });

  test("a racily clean entry (ctime at or after the stamp) is re-hashed, and kept when its bytes are right", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "a.js", "good\n");
    const first = await syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.js": "good\n" }),
      recorded: NO_RECORDS,
      stampNs: 0n,
      lastMtimeS: 0,
    });
    const second = await syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.js": "good\n" }),
      recorded: first.recorded,
      stampNs: 0n,
      lastMtimeS: first.mtimeS,
    });
    expect(second.rehashed).toBe(1);
    expect(second.written).toEqual([]);
  });

  test("every sync that writes gives its files one mtime, whole seconds, later than any earlier sync's", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "a.py", "x = 1\n");
    const one = await syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.py": "x = 1\n" }),
      recorded: NO_RECORDS,
      stampNs: 0n,
      lastMtimeS: 0,
    });
    write(ws, "a.py", "x = 2\n");
    const two = await syncRoomFiles({
      room,
      workspace: ws,
      entries: entries({ "a.py": "x = 2\n" }),
      recorded: one.recorded,
      stampNs: 0n,
      lastMtimeS: one.mtimeS,
    });
    expect(two.mtimeS).toBeGreaterThan(one.mtimeS);
    expect(lstatSync(join(room, "a.py")).mtimeMs).toBe(two.mtimeS * 1000);
    // Python's bytecode keeps the source's mtime in whole seconds: it always differs now.
    expect(Math.floor(lstatSync(join(room, "a.py")).mtimeMs / 1000)).not.toBe(one.mtimeS);
  });

  test("bytes that changed in the workspace after the snapshot are refused, naming the path", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "a.js", "later\n");
    await expect(
      syncRoomFiles({
        room,
        workspace: ws,
        entries: entries({ "a.js": "observed\n" }),
        recorded: NO_RECORDS,
        stampNs: 0n,
        lastMtimeS: 0,
      }),
    ).rejects.toThrow(new RoomSourceChangedError("a.js"));
  });

  test("symlinks are copied as links, never followed; executable bits are kept", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "run.sh", "#!/bin/sh\n");
    execFileSync("chmod", ["755", join(ws, "run.sh")]);
    symlinkSync("/etc/passwd", join(ws, "link"));
    const named = new Map<string, EntryState>([
      ["run.sh", fileEntry("#!/bin/sh\n", 0o100755)],
      ["link", { ...fileEntry("/etc/passwd"), kind: "symlink" }],
    ]);
    await syncFromEmpty(room, ws, named);
    expect(readlinkSync(join(room, "link"))).toBe("/etc/passwd");
    expect(lstatSync(join(room, "run.sh")).mode & 0o777).toBe(0o755);
  });
});

describe("room copies, native and TypeScript", () => {
  /** The room's files, links and folders under `root`: path → kind, mode and content. */
  function tree(root: string, rel = ""): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel === "" ? name : `${rel}/${name}`;
      const stat = lstatSync(join(root, path));
      if (stat.isDirectory()) {
        out[path] = `dir ${(stat.mode & 0o777).toString(8)}`;
        Object.assign(out, tree(root, path));
      } else if (stat.isSymbolicLink()) {
        out[path] = `link ${readlinkSync(join(root, path))}`;
      } else {
        out[path] =
          `file ${(stat.mode & 0o777).toString(8)} ${readFileSync(join(root, path), "utf8")}`;
      }
    }
    return out;
  }

  test("both copy the same bytes, links, modes and mtimes over what is in the way, and record the same fields", async () => {
    const ws = temp("tg-ws-");
    write(ws, "a.js", "a\n");
    write(ws, "deep/er/b.js", "b\n");
    write(ws, "run.sh", "#!/bin/sh\n");
    chmodSync(join(ws, "run.sh"), 0o755);
    write(ws, "was-dir", "now a file\n");
    write(ws, "was-file/c.js", "c\n");
    write(ws, "via-link/d.js", "d\n");
    symlinkSync("../outside", join(ws, "ln"));
    const named = new Map<string, EntryState>([
      ["a.js", fileEntry("a\n")],
      ["deep/er/b.js", fileEntry("b\n")],
      ["run.sh", fileEntry("#!/bin/sh\n", 0o100755)],
      ["was-dir", fileEntry("now a file\n")],
      ["was-file/c.js", fileEntry("c\n")],
      ["via-link/d.js", fileEntry("d\n")],
      ["ln", { ...fileEntry("../outside"), kind: "symlink" }],
    ]);
    const outcomes = [];
    for (const TURNGATE_NATIVE of ["1", "0"]) {
      const room = temp("tg-room-");
      const elsewhere = temp("tg-elsewhere-");
      // In the way: a folder where a file goes, a file where a folder goes, a link where a
      // folder goes, and stale bytes where a file goes.
      write(room, "was-dir/old.txt", "old");
      write(room, "was-file", "a file, not a folder");
      symlinkSync(elsewhere, join(room, "via-link"));
      write(room, "a.js", "stale bytes");
      const synced = await syncRoomFiles(
        {
          room,
          workspace: ws,
          entries: named,
          recorded: NO_RECORDS,
          stampNs: 0n,
          lastMtimeS: 2_000_000_000, // later than now: the sync writes the next second
        },
        { TURNGATE_NATIVE },
      );
      expect(readdirSync(elsewhere)).toEqual([]); // nothing written through the link
      const records = [...named.keys()].map((_, index) => {
        // A link's mtime is when it was made: the sync sets only files' mtimes.
        const { ino, ctimeNs, mtimeNs, ...kept } = readRecord(synced.recorded.records, index);
        return kept.kind === "symlink" ? kept : { ...kept, mtimeNs };
      });
      for (const [index, path] of [...named.keys()].entries()) {
        const stat = lstatSync(join(room, path), { bigint: true });
        const record = readRecord(synced.recorded.records, index);
        expect([record.ino, record.ctimeNs]).toEqual([stat.ino, stat.ctimeNs]);
      }
      outcomes.push({ tree: tree(room), records, written: synced.written, mtimeS: synced.mtimeS });
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(outcomes[0]?.tree).toEqual({
      "a.js": "file 644 a\n",
      deep: "dir 755",
      "deep/er": "dir 755",
      "deep/er/b.js": "file 644 b\n",
      ln: "link ../outside",
      "run.sh": "file 755 #!/bin/sh\n",
      "via-link": "dir 755",
      "via-link/d.js": "file 644 d\n",
      "was-dir": "file 644 now a file\n",
      "was-file": "dir 755",
      "was-file/c.js": "file 644 c\n",
    });
    expect(outcomes[0]?.records[0]).toEqual({
      kind: "file",
      digest: sha("a\n"),
      size: 2n,
      mtimeNs: 2_000_000_001n * 1_000_000_000n,
      mode: 0o100644,
    });
  });

  test("the native proof copies what it can tell changed while it proves the rest: the same room as the TypeScript path, never written through a link or over another kind", async () => {
    const ws = temp("tg-ws-");
    const before = {
      "a.js": "a\n",
      "b.js": "b\n",
      "sub/c.js": "c\n",
      "sub2/d.js": "d\n",
      "e.js": "e\n",
    };
    const after = {
      "a.js": "a changed\n",
      "b.js": "b\n",
      "sub/c.js": "c changed\n",
      "sub2/d.js": "d changed\n",
      "e.js": "e changed\n",
    };
    const named = (files: Record<string, string>, target: string) =>
      new Map<string, EntryState>([
        ...entries(files),
        ["ln", { ...fileEntry(target), kind: "symlink" }],
      ]);
    for (const [p, t] of Object.entries(before)) write(ws, p, t);
    symlinkSync("a.js", join(ws, "ln"));
    const outcomes = [];
    const rooms: string[] = [];
    for (const TURNGATE_NATIVE of ["1", "0"]) {
      const env = { TURNGATE_NATIVE };
      const room = temp("tg-room-");
      rooms.push(room);
      for (const [p, t] of Object.entries(before)) write(ws, p, t);
      rmSync(join(ws, "ln"));
      symlinkSync("a.js", join(ws, "ln"));
      const first = await syncRoomFiles(
        {
          room,
          workspace: ws,
          entries: named(before, "a.js"),
          recorded: NO_RECORDS,
          stampNs: 0n,
          lastMtimeS: 0,
        },
        env,
      );
      // The turn: every file and the link change in the workspace; in the room, sub2 becomes
      // a link to a folder elsewhere and e.js a FIFO.
      for (const [p, t] of Object.entries(after)) write(ws, p, t);
      rmSync(join(ws, "ln"));
      symlinkSync("b.js", join(ws, "ln"));
      const elsewhere = temp("tg-elsewhere-");
      write(elsewhere, "d.js", "elsewhere\n");
      rmSync(join(room, "sub2"), { recursive: true });
      symlinkSync(elsewhere, join(room, "sub2"));
      rmSync(join(room, "e.js"));
      execFileSync("mkfifo", [join(room, "e.js")]);
      const input = {
        room,
        workspace: ws,
        // In another order than the first sync's (changed entries come last in a snapshot).
        entries: new Map([...named(after, "b.js")].reverse()),
        recorded: first.recorded,
        recordedDirs: first.dirs,
        stampNs: BigInt(Date.now() + 60_000) * 1_000_000n,
        lastMtimeS: first.mtimeS,
      };
      if (TURNGATE_NATIVE === "1") {
        // What the proof copies itself: the changed entries whose folders are real folders
        // and whose room path holds their kind; not sub2/d.js (a link above it), not e.js (a
        // FIFO there). It is a proof only: run it on a copy of the room.
        const twin = temp("tg-twin-");
        execFileSync("cp", ["-a", `${room}/.`, twin]);
        const list = [...input.entries].map(([p, st]) => [p, st.kind, st.content_digest] as const);
        const proof = await proveRoom(
          twin,
          first.recorded,
          list,
          input.stampNs,
          env,
          first.dirs,
          0n,
          { workspace: ws, modes: list.map(() => 0o100644), mtimeS: 2_000_000_000 },
        );
        expect(proof.copied.map((i) => list[i]?.[0]).sort()).toEqual(["a.js", "ln", "sub/c.js"]);
        expect(proof.copy.map((i) => list[i]?.[0]).sort()).toEqual(["e.js", "sub2/d.js"]);
        expect(readFileSync(join(twin, "a.js"), "utf8")).toBe("a changed\n");
        expect(readlinkSync(join(twin, "ln"))).toBe("b.js");
        const a = list.findIndex(([p]) => p === "a.js");
        expect(readRecord(proof.records, a)).toMatchObject({
          kind: "file",
          digest: sha("a changed\n"),
          mtimeNs: 2_000_000_000n * 1_000_000_000n,
        });
      }
      const second = await syncRoomFiles(input, env);
      expect(readFileSync(join(elsewhere, "d.js"), "utf8")).toBe("elsewhere\n");
      outcomes.push({ tree: tree(room), written: second.written, removed: second.removed });
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(outcomes[0]).toEqual({
      tree: {
        "a.js": "file 644 a changed\n",
        "b.js": "file 644 b\n",
        "e.js": "file 644 e changed\n",
        ln: "link b.js",
        sub: "dir 755",
        "sub/c.js": "file 644 c changed\n",
        sub2: "dir 755",
        "sub2/d.js": "file 644 d changed\n",
      },
      written: ["a.js", "e.js", "ln", "sub/c.js", "sub2/d.js"],
      removed: ["e.js", "sub2"],
    });
  });

  test("an early copy whose workspace bytes are not the snapshot's fails the sync, naming the path", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "a.js", "a\n");
    const env = { TURNGATE_NATIVE: "1" };
    const first = await syncRoomFiles(
      {
        room,
        workspace: ws,
        entries: entries({ "a.js": "a\n" }),
        recorded: NO_RECORDS,
        stampNs: 0n,
        lastMtimeS: 0,
      },
      env,
    );
    write(ws, "a.js", "changed after the snapshot\n");
    await expect(
      syncRoomFiles(
        {
          room,
          workspace: ws,
          entries: entries({ "a.js": "as observed\n" }),
          recorded: first.recorded,
          stampNs: 0n,
          lastMtimeS: first.mtimeS,
        },
        env,
      ),
    ).rejects.toThrow(new RoomSourceChangedError("a.js"));
  });

  test("the native copy refuses malformed input with a typed error naming the field", async () => {
    const native = selectNative({ TURNGATE_NATIVE: "1" }) as NativeAddon;
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    const cases: Array<
      [ReadonlyArray<readonly [string, string, string, number]>, number, string, string]
    > = [
      [
        [["a.js", "file", "not-a-digest", 0o644]],
        1,
        "entries[0]",
        "entries[0]: expected a SHA-256 in hex",
      ],
      [
        [["a.js", "fifo", sha("a"), 0o644]],
        1,
        "entries[0]",
        "entries[0]: kind: expected file or symlink",
      ],
      [
        [["../a.js", "file", sha("a"), 0o644]],
        1,
        "entries[0]",
        "entries[0]: must be a non-empty relative path without NUL bytes or '..' segments",
      ],
      [
        [["a.js", "file", sha("a"), -1]],
        1,
        "entries[0]",
        "entries[0]: expected [path, kind, digest, mode] (mode a whole number)",
      ],
      [[], -1, "mtimeS", "mtimeS: expected whole seconds since the epoch"],
    ];
    for (const [items, mtimeS, path, message] of cases) {
      await expect(native.roomCopy(ws, room, items, mtimeS)).rejects.toMatchObject({
        code: "ERR_TURNGATE_INVALID_ARG",
        path,
        message,
      });
    }
    expect(readdirSync(room)).toEqual([]);
  });

  test("both refuse workspace bytes that are not the snapshot's, naming the first such path", async () => {
    const ws = temp("tg-ws-");
    write(ws, "a.js", "as observed\n");
    write(ws, "b.js", "changed later\n");
    write(ws, "c.js", "changed later\n");
    symlinkSync("elsewhere", join(ws, "d"));
    const named = new Map<string, EntryState>([
      ["a.js", fileEntry("as observed\n")],
      ["b.js", fileEntry("as observed\n")],
      ["c.js", fileEntry("as observed\n")],
      ["d", { ...fileEntry("observed target"), kind: "symlink" }],
    ]);
    for (const TURNGATE_NATIVE of ["1", "0"]) {
      const input = {
        room: temp("tg-room-"),
        workspace: ws,
        entries: named,
        recorded: NO_RECORDS,
        stampNs: 0n,
        lastMtimeS: 0,
      };
      await expect(syncRoomFiles(input, { TURNGATE_NATIVE })).rejects.toThrow(
        new RoomSourceChangedError("b.js"),
      );
      await expect(
        syncRoomFiles({ ...input, entries: new Map([...named].slice(3)) }, { TURNGATE_NATIVE }),
      ).rejects.toThrow(new RoomSourceChangedError("d"));
    }
  });
});

/** A proof with its unordered lists sorted (folder records by path). */
function sorted(p: RoomProof) {
  const dirs = p.dirs.paths
    .map((path, i) => [path, p.dirs.records.subarray(i * 32, (i + 1) * 32).toString("hex")])
    .sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));
  return {
    ...p,
    extraFiles: [...p.extraFiles].sort(),
    extraDirs: [...p.extraDirs].sort(),
    gone: [...p.gone].sort(),
    dirs,
  };
}

describe("proveRoom", () => {
  test("the native and TypeScript proofs give the same result on a tampered room: proven, racy, rewritten, missing, wrong kind, symlink, extras, caches, gone", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    const files = {
      "a.js": "a\n",
      "b.js": "b\n",
      "c.js": "c\n",
      "d.js": "d\n",
      "e.js": "e\n",
      "src/f.js": "f\n",
      "old.js": "old\n",
    };
    for (const [p, t] of Object.entries(files)) write(ws, p, t);
    symlinkSync("a.js", join(ws, "link"));
    const named = entries(files);
    named.set("link", { ...fileEntry("a.js"), kind: "symlink" });
    const first = await syncFromEmpty(room, ws, named);
    // Tamper: b.js rewritten, c.js removed, d.js replaced by a folder, e.js touched with its
    // own bytes (racy, same bytes), plants and caches; old.js leaves the snapshot.
    writeFileSync(join(room, "b.js"), "evil\n");
    rmSync(join(room, "c.js"));
    rmSync(join(room, "d.js"));
    mkdirSync(join(room, "d.js"));
    writeFileSync(join(room, "e.js"), "e\n");
    write(room, "coverage/impl.js", "planted");
    write(room, "src/__pycache__/f.pyc", "bytecode");
    write(room, "src/stray.txt", "x");
    const next = new Map(named);
    next.delete("old.js");
    const list = [...next].map(([p, st]) => [p, st.kind, st.content_digest] as const);
    // The stamp is after every write above: only e.js is racy by ctime, and a.js (untouched)
    // is proven from its record only when the stamp is later than its ctime.
    const stamp = BigInt(Date.now() + 60_000) * 1_000_000n;
    const native = await proveRoom(room, first.recorded, list, stamp, { TURNGATE_NATIVE: "1" });
    const ts = proveRoomTs(room, first.recorded, list, stamp);
    expect(sorted(native)).toEqual(sorted(ts));
    const order = list.map(([p]) => p);
    expect(native.copy.map((i) => order[i])).toEqual(["b.js", "c.js", "d.js"]);
    expect(native.rehashed.map((i) => order[i])).toEqual(["e.js"]);
    expect(sorted(native).extraFiles).toEqual(["old.js", "src/stray.txt"]);
    expect(sorted(native).extraDirs).toEqual(["coverage", "d.js", "src/__pycache__"]);
    expect(native.gone).toEqual(["old.js"]);
    // Proven entries keep their records byte for byte; the copied ones are zeros.
    const at = (path: string) => order.indexOf(path);
    expect(readRecord(native.records, at("a.js"))).toEqual(
      readRecord(first.recorded.records, [...named.keys()].indexOf("a.js")),
    );
    expect(readRecord(native.records, at("b.js")).kind).toBeNull();
    expect(readRecord(native.records, at("link")).kind).toBe("symlink");
    // A path gone: the recorded path block no longer stands for the entries.
    expect([native.aligned, ts.aligned]).toEqual([false, false]);
    const all = [...named].map(([p, st]) => [p, st.kind, st.content_digest] as const);
    for (const [entries, aligned] of [
      [all, true],
      [[...all].reverse(), false], // the same paths in another order
      [[...all, ["new.js", "file", sha("n")] as const], false],
    ] as const) {
      const proofs = [
        await proveRoom(room, first.recorded, entries, stamp, { TURNGATE_NATIVE: "1" }),
        proveRoomTs(room, first.recorded, entries, stamp),
      ];
      expect(proofs.map((p) => p.aligned)).toEqual([aligned, aligned]);
    }
  });

  test("the recorded paths' lstats begun ahead (beginRoomProof) are the ones the native proof uses; a handle for another room or record, a refused block, or one used already is ignored", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    const files = { "a.js": "a\n", "b.js": "b\n", "src/c.js": "c\n" };
    for (const [p, t] of Object.entries(files)) write(ws, p, t);
    const named = entries(files);
    const env = { TURNGATE_NATIVE: "1" };
    const first = await syncFromEmpty(room, ws, named);
    const list = [...named].map(([p, st]) => [p, st.kind, st.content_digest] as const);
    const stamp = BigInt(Date.now() + 60_000) * 1_000_000n;
    const copied = async (ahead?: ReturnType<typeof beginRoomProof>) =>
      (await proveRoom(room, first.recorded, list, stamp, env, NO_DIRS, 0n, undefined, ahead)).copy
        .map((i) => list[i]?.[0])
        .sort();

    // The stats are as of beginRoomProof: a.js rewritten after them (and before the proof)
    // is proven from them, where a proof of its own finds the new inode and copies it.
    const ahead = beginRoomProof(room, first.recorded, env);
    expect(ahead.prestat?.settle()).toBe(3);
    writeFileSync(join(room, "a.js"), "evil\n");
    expect(await copied(ahead)).toEqual([]);
    expect(await copied()).toEqual(["a.js"]);
    // One proof per handle: taken, it covers nothing and the next proof stats everything.
    expect(ahead.prestat?.settle()).toBe(0);
    expect(await copied(ahead)).toEqual(["a.js"]);

    // Begun for another room, or another record block: ignored.
    const other = temp("tg-room-");
    write(other, "a.js", "a\n");
    const elsewhere = beginRoomProof(other, first.recorded, env);
    expect(elsewhere.prestat?.settle()).toBe(3);
    expect(await copied(elsewhere)).toEqual(["a.js"]);
    const shorter = { ...first.recorded, paths: Buffer.from("a.js\0b.js\0src/c.jsx") };
    const stale = beginRoomProof(room, shorter, env);
    expect(stale.prestat?.settle()).toBe(3);
    expect(await copied(stale)).toEqual(["a.js"]);
    // A block that is not `count` safe relative paths is not read at all.
    for (const paths of ["a.js\0b.js", "a.js\0../b.js\0src/c.js", "a.js\0/etc/passwd\0c"]) {
      const refused = beginRoomProof(room, { ...first.recorded, paths: Buffer.from(paths) }, env);
      expect(refused.prestat?.settle()).toBe(0);
    }
    // Nothing to begin on the TypeScript path or for an empty record.
    expect(beginRoomProof(room, first.recorded, { TURNGATE_NATIVE: "0" })).toEqual({});
    expect(beginRoomProof(room, NO_RECORDS, env)).toEqual({});

    // A named file replaced by a folder after its stat: proven from the stat, and the walk
    // lists the folder for removal; the prune then names the entry to copy anew (the
    // attack review's case: else the sync removed it and never copied it back).
    write(room, "a.js", "a\n");
    const fresh = await syncFromEmpty(room, ws, named);
    const before = beginRoomProof(room, fresh.recorded, env);
    expect(before.prestat?.settle()).toBe(3);
    rmSync(join(room, "b.js"));
    mkdirSync(join(room, "b.js"));
    const proof = await proveRoom(
      room,
      fresh.recorded,
      list,
      stamp,
      env,
      NO_DIRS,
      0n,
      undefined,
      before,
    );
    expect(proof.copy).toEqual([]);
    expect(proof.extraDirs).toEqual(["b.js"]);
    const paths = list.map(([p]) => p);
    expect(prunedEntries(paths.length, (i) => paths[i] as string, proof.extraDirs)).toEqual([
      paths.indexOf("b.js"),
    ]);
  });

  test("the prune's entries to copy anew: at a removed path or below one, not beside it", () => {
    const paths = ["a.js", "ab/c.js", "b.js", "b/c.js", "b/d/e.js", "bc/x.js", "src/b.js"];
    const at = (i: number) => paths[i] as string;
    expect(prunedEntries(paths.length, at, [])).toEqual([]);
    expect(prunedEntries(paths.length, at, ["b"])).toEqual([3, 4]);
    expect(prunedEntries(paths.length, at, ["b.js", "b/d"])).toEqual([2, 4]);
    expect(prunedEntries(paths.length, at, ["a"])).toEqual([]);
  });

  test("folder records: an unchanged clean folder is not read, yet every change to a folder's names is found as the full walk finds it", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    const files = {
      "a.js": "a\n",
      "src/b.js": "b\n",
      "src/c.js": "c\n",
      "src/sub/d.js": "d\n",
      "lib/e.js": "e\n",
      "lib/f.js": "f\n",
      "doc/g.md": "g\n",
    };
    for (const [p, t] of Object.entries(files)) write(ws, p, t);
    const named = entries(files);
    const future = BigInt(Date.now() + 60_000) * 1_000_000n;
    const sync = (recorded: typeof NO_RECORDS, recordedDirs: RoomProof["dirs"], map = named) =>
      syncRoomFiles(
        {
          room,
          workspace: ws,
          entries: map,
          recorded,
          recordedDirs,
          stampNs: future,
          freshNs: future,
          lastMtimeS: 0,
        },
        { TURNGATE_NATIVE: "1" },
      );
    const flags = (dirs: RoomProof["dirs"]) =>
      Object.fromEntries(dirs.paths.map((p, i) => [p, dirs.records.readUInt32LE(i * 32 + 24)]));
    const first = await sync(NO_RECORDS, NO_DIRS);
    // An empty room: only its root was read, and written into (not clean); the next sync
    // reads every folder and records it clean.
    expect(flags(first.dirs)).toEqual({ "": 0 });
    const second = await sync(first.recorded, first.dirs);
    expect(flags(second.dirs)).toEqual({ "": 1, doc: 1, lib: 1, src: 1, "src/sub": 1 });

    // Changes of names: a file planted in src (its ctime moves), doc/g.md leaves the
    // snapshot (doc is unchanged: its record says what it holds), src/sub leaves it whole,
    // lib replaced by another folder with the same names.
    write(room, "src/stray.js", "planted");
    rmSync(join(room, "lib"), { recursive: true });
    write(room, "lib/e.js", "e\n");
    write(room, "lib/f.js", "f\n");
    const next = new Map(named);
    next.delete("doc/g.md");
    next.delete("src/sub/d.js");
    next.set("doc/h.md", fileEntry("h\n"));
    write(ws, "doc/h.md", "h\n");
    const list = [...next].map(([p, st]) => [p, st.kind, st.content_digest] as const);
    const native = await proveRoom(
      room,
      second.recorded,
      list,
      future,
      { TURNGATE_NATIVE: "1" },
      second.dirs,
      future,
    );
    const ts = proveRoomTs(room, second.recorded, list, future, future);
    expect(sorted(native)).toEqual(sorted(ts));
    expect(sorted(native).extraFiles).toEqual(["doc/g.md", "src/stray.js"]);
    expect(sorted(native).extraDirs).toEqual(["src/sub"]);
    expect(native.copy.map((i) => list[i]?.[0])).toEqual(["doc/h.md"]);
    // lib's files are new inodes with the snapshot's bytes: re-hashed and kept.
    expect(native.rehashed.map((i) => list[i]?.[0]).sort()).toEqual(["lib/e.js", "lib/f.js"]);

    // The skip is real: a record forged to match a planted name hides it from the native
    // walk only (which is why a manifest written during the turn is not trusted at all).
    const forgedDirs = { records: Buffer.from(native.dirs.records), paths: [...native.dirs.paths] };
    write(room, "lib/planted.js", "x");
    const at = forgedDirs.paths.indexOf("lib");
    const libStat = lstatSync(join(room, "lib"), { bigint: true });
    forgedDirs.records.writeBigUInt64LE(libStat.ino, at * 32);
    forgedDirs.records.writeBigInt64LE(libStat.mtimeNs, at * 32 + 8);
    forgedDirs.records.writeBigInt64LE(libStat.ctimeNs, at * 32 + 16);
    forgedDirs.records.writeUInt32LE(1, at * 32 + 24);
    const skipped = await proveRoom(
      room,
      second.recorded,
      list,
      future,
      { TURNGATE_NATIVE: "1" },
      forgedDirs,
      future,
    );
    expect(skipped.extraFiles).not.toContain("lib/planted.js");
    expect(proveRoomTs(room, second.recorded, list, future).extraFiles).toContain("lib/planted.js");
    // A stamp at or before the folder's ctime: the record proves nothing, the folder is read.
    const racy = await proveRoom(
      room,
      second.recorded,
      list,
      libStat.ctimeNs,
      { TURNGATE_NATIVE: "1" },
      forgedDirs,
    );
    expect(racy.extraFiles).toContain("lib/planted.js");
  });

  test("a room file whose executable bit is not the snapshot's is copied again, in both directions", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    write(ws, "run.sh", "#!/bin/sh\n");
    write(ws, "lib.js", "x\n");
    const named = new Map([
      ["run.sh", fileEntry("#!/bin/sh\n", 0o100755)],
      ["lib.js", fileEntry("x\n", 0o100644)],
    ]);
    const future = BigInt(Date.now() + 60_000) * 1_000_000n;
    const sync = (recorded = NO_RECORDS) =>
      syncRoomFiles({
        room,
        workspace: ws,
        entries: named,
        recorded,
        stampNs: future,
        lastMtimeS: 0,
      });
    const first = await sync();
    expect(first.written).toEqual(["lib.js", "run.sh"]);
    chmodSync(join(room, "run.sh"), 0o644);
    chmodSync(join(room, "lib.js"), 0o755);
    const second = await sync(first.recorded);
    expect(second.written).toEqual(["lib.js", "run.sh"]);
    expect(lstatSync(join(room, "run.sh")).mode & 0o111).toBe(0o111 & ~process.umask());
    expect(lstatSync(join(room, "lib.js")).mode & 0o111).toBe(0);
    expect((await sync(second.recorded)).written).toEqual([]);
  });

  test("folder records: a sub-folder the last sync wrote into is read again under a parent skipped as unchanged; a folder newer than the fresh stamp is not recorded clean", async () => {
    const ws = temp("tg-ws-");
    const room = temp("tg-room-");
    const files = { "d/e/a.txt": "a\n", "d/b.txt": "b\n" };
    for (const [p, t] of Object.entries(files)) write(ws, p, t);
    const future = BigInt(Date.now() + 60_000) * 1_000_000n;
    const sync = async (map: Map<string, EntryState>, recorded = NO_RECORDS, dirs = NO_DIRS) =>
      syncRoomFiles(
        {
          room,
          workspace: ws,
          entries: map,
          recorded,
          recordedDirs: dirs,
          stampNs: future,
          freshNs: future,
          lastMtimeS: 0,
        },
        { TURNGATE_NATIVE: "1" },
      );
    const one = await sync(entries(files));
    const two = await sync(entries(files), one.recorded, one.dirs);
    // The turn edits d/e/a.txt: the sync writes it, d/e's names change (not d's).
    const edited = { ...files, "d/e/a.txt": "a2\n" };
    write(ws, "d/e/a.txt", "a2\n");
    const three = await sync(entries(edited), two.recorded, two.dirs);
    expect(three.written).toEqual(["d/e/a.txt"]);
    // Between turns, the agent plants a file in d/e: d's ctime does not move.
    write(room, "d/e/conftest.py", "planted\n");
    const list = [...entries(edited)].map(([p, st]) => [p, st.kind, st.content_digest] as const);
    const prove = (freshNs: bigint) =>
      proveRoom(room, three.recorded, list, future, { TURNGATE_NATIVE: "1" }, three.dirs, freshNs);
    const native = await prove(future);
    expect(native.extraFiles).toEqual(["d/e/conftest.py"]);
    expect(sorted(native)).toEqual(sorted(proveRoomTs(room, three.recorded, list, future, future)));
    // A fresh stamp older than the folders: nothing is recorded clean, so nothing is skipped.
    const stale = await prove(1n);
    expect(stale.dirs.paths.map((_, i) => stale.dirs.records.readUInt32LE(i * 32 + 24))).toEqual(
      stale.dirs.paths.map(() => 0),
    );
  });

  test("the native proof refuses malformed input with a typed error naming the field", async () => {
    const room = temp("tg-room-");
    const env = { TURNGATE_NATIVE: "1" };
    await expect(
      proveRoom(room, NO_RECORDS, [["a.js", "file", "not-a-digest"]], 0n, env),
    ).rejects.toMatchObject({
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "entries[0]",
      message: "entries[0]: expected a SHA-256 in hex",
    });
    await expect(proveRoom(room, { ...NO_RECORDS, count: 1 }, [], 0n, env)).rejects.toMatchObject({
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "records",
    });
    await expect(
      proveRoom(room, NO_RECORDS, [["../x", "file", sha("x")]], 0n, env),
    ).rejects.toMatchObject({ code: "ERR_TURNGATE_INVALID_ARG", path: "entries[0]" });
    // The flat form is checked field by field too.
    await expect(
      proveRoom(room, NO_RECORDS, { flat: ["../x", "file", sha("x")] }, 0n, env),
    ).rejects.toMatchObject({ code: "ERR_TURNGATE_INVALID_ARG", path: "entries[0]" });
    await expect(
      proveRoom(room, NO_RECORDS, { flat: ["a.js", "file"] }, 0n, env),
    ).rejects.toMatchObject({
      code: "ERR_TURNGATE_INVALID_ARG",
      path: "entries",
      message: "entries: expected an array of [path, kind, digest] or { joined, count }",
    });
  });
});

describe("CleanRoom", () => {
  function repo(files: Record<string, string>): string {
    const ws = temp("tg-ws-");
    for (const [p, t] of Object.entries(files)) write(ws, p, t);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
        cwd: ws,
        stdio: "pipe",
      });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "--no-gpg-sign", "-m", "base");
    git("tag", "v1.2.3");
    return ws;
  }
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", args, {
      cwd,
      encoding: "utf8",
      env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
    });

  test("the room's .git is a clone at the baseline commit with its tags, none of the workspace's own files, and an index of the digest's files", async () => {
    const ws = repo({ "a.js": "a\n", "tests/t.sh": "true\n" });
    const head = await readBaselineHead(ws);
    expect(head?.ref).toBe(git(ws, "symbolic-ref", "HEAD").trim());
    // The agent's turn: a changed file, a test dropped from the index, code in .git/logs.
    write(ws, "a.js", "b\n");
    git(ws, "rm", "-q", "--cached", "tests/t.sh");
    write(ws, ".git/logs/impl.js", "planted\n");
    const room = await CleanRoom.open(ws, join(temp("tg-rooms-"), "r"));
    try {
      const prepared = await room.prepare(entries({ "a.js": "b\n", "tests/t.sh": "true\n" }), head);
      expect(prepared.cloned).toBe(true);
      expect(git(room.tree, "rev-parse", "HEAD").trim()).toBe(head?.commit);
      expect(git(room.tree, "describe", "--tags").trim()).toBe("v1.2.3");
      expect(git(room.tree, "ls-files").split("\n").filter(Boolean)).toEqual([
        "a.js",
        "tests/t.sh",
      ]);
      expect(git(room.tree, "status", "--porcelain")).toBe("M  a.js\n");
      expect(existsSync(join(room.tree, ".git/logs/impl.js"))).toBe(false);
    } finally {
      await room.close();
    }
  });

  test("a room .git written between turns is cloned again; build caches live for one turn and are dropped when not what the last check left", async () => {
    const ws = repo({ "a.py": "x = 1\n" });
    const head = await readBaselineHead(ws);
    const roomDir = join(temp("tg-rooms-"), "r");
    const named = entries({ "a.py": "x = 1\n" });
    let room = await CleanRoom.open(ws, roomDir);
    await room.prepare(named, head);
    write(room.tree, "__pycache__/a.cpython-311.pyc", "left by the check");
    await room.afterCheck();
    // The next check of the same turn keeps what the last check left...
    const same = await room.prepare(named, head);
    expect(same.dropped).toEqual([]);
    expect(readFileSync(join(room.tree, "__pycache__/a.cpython-311.pyc"), "utf8")).toBe(
      "left by the check",
    );
    // ...and drops what someone else wrote since.
    write(room.tree, "__pycache__/a.cpython-311.pyc", "planted between checks");
    const planted = await room.prepare(named, head);
    expect(planted.dropped).toEqual(["__pycache__"]);
    write(room.tree, "__pycache__/a.cpython-311.pyc", "left by the check");
    await room.afterCheck();
    await room.close();
    // Between turns, something plants a hook in the room's .git.
    write(room.tree, ".git/hooks/pre-commit", "#!/bin/sh\nexit 0\n");
    await new Promise((resolve) => setTimeout(resolve, 100));
    room = await CleanRoom.open(ws, roomDir);
    try {
      const next = await room.prepare(named, head);
      expect(next.dropped).toEqual([".git", "__pycache__"]);
      expect(next.cloned).toBe(true);
      expect(existsSync(join(room.tree, ".git/hooks/pre-commit"))).toBe(false);
      expect(existsSync(join(room.tree, "__pycache__"))).toBe(false);
    } finally {
      await room.close();
    }
  });

  /**
   * A workspace holding `lib.js` = "good", its room prepared and closed by an earlier turn,
   * and the start of the next turn (100 ms later, so the room's state predates it).
   */
  async function roomAfterOneTurn() {
    const ws = repo({ "lib.js": "good\n" });
    const head = await readBaselineHead(ws);
    const roomDir = join(temp("tg-rooms-"), "r");
    const room = await CleanRoom.open(ws, roomDir);
    await room.prepare(entries({ "lib.js": "good\n" }), head);
    await room.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    return { ws, head, roomDir, turnStart: Date.now() };
  }

  test("a manifest forged during the turn proves nothing: the room's files are re-hashed against the snapshot", async () => {
    const { ws, head, roomDir, turnStart } = await roomAfterOneTurn();
    let room: CleanRoom;
    // The agent's turn: broken bytes in the workspace, and a manifest claiming the room's
    // good lib.js holds them (with its exact stat and a stamp far in the future).
    write(ws, "lib.js", "broken\n");
    const stat = lstatSync(join(roomDir, "tree/lib.js"), { bigint: true });
    const decoded = decodeRoomManifest(readFileSync(join(roomDir, "manifest.bin")));
    if (decoded === undefined) throw new Error("the room's manifest does not decode");
    const records = Buffer.from(decoded.entries.records);
    writeRecord(records, 0, "file", sha("broken\n"), stat);
    const forged = encodeRoomManifest(
      { ...decoded.header, stamp_ns: "99999999999999999999" },
      { ...decoded.entries, records },
    );
    writeFileSync(join(roomDir, "manifest.bin"), forged);
    room = await CleanRoom.open(ws, roomDir, process.env, turnStart);
    try {
      const prepared = await room.prepare(entries({ "lib.js": "broken\n" }), head);
      expect(prepared.written).toEqual(["lib.js"]);
      expect(readFileSync(join(room.tree, "lib.js"), "utf8")).toBe("broken\n");
    } finally {
      await room.close();
    }
  });

  test("a file planted between turns in a room folder whose record says unchanged is found and removed: planting moved the folder's ctime", async () => {
    const files = { "lib.js": "good\n", "src/a.js": "a\n", "src/b.js": "b\n" };
    const ws = repo(files);
    const head = await readBaselineHead(ws);
    const roomDir = join(temp("tg-rooms-"), "r");
    for (let turn = 0; turn < 2; turn += 1) {
      const room = await CleanRoom.open(ws, roomDir);
      await room.prepare(entries(files), head);
      await room.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const decoded = decodeRoomManifest(readFileSync(join(roomDir, "manifest.bin")));
    expect([...(decoded?.dirs.paths ?? [])].sort()).toEqual(["", "src"]);
    write(roomDir, "tree/src/planted.js", "module.exports = 1;\n");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const room = await CleanRoom.open(ws, roomDir);
    try {
      const prepared = await room.prepare(entries(files), head);
      expect(prepared.removed).toEqual(["src/planted.js"]);
      expect(existsSync(join(room.tree, "src/planted.js"))).toBe(false);
    } finally {
      await room.close();
    }
  });

  test("a room folder replaced by a link between turns is made a real folder again: nothing is proven, pruned or written through the link", async () => {
    const { ws, head, roomDir } = await roomAfterOneTurn();
    const elsewhere = temp("tg-elsewhere-");
    write(elsewhere, "lib.js", "good\n");
    write(elsewhere, "keep.txt", "not the room's\n");
    rmSync(join(roomDir, "tree"), { recursive: true });
    symlinkSync(elsewhere, join(roomDir, "tree"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const room = await CleanRoom.open(ws, roomDir);
    try {
      const prepared = await room.prepare(entries({ "lib.js": "good\n" }), head);
      expect(lstatSync(join(roomDir, "tree")).isDirectory()).toBe(true);
      expect(prepared.written).toEqual(["lib.js"]);
      expect(readFileSync(join(elsewhere, "keep.txt"), "utf8")).toBe("not the room's\n");
    } finally {
      await room.close();
    }
  });

  test("the manifest keeps folder records; one written without them (an earlier format) still reads, with none", () => {
    const header = {
      schema: "turngate.clean_room.v2",
      workspace: "/w",
      mtime_s: 1,
      stamp_ns: "2",
      git: null,
      head: null,
    };
    const dirs = { records: Buffer.alloc(64, 7), paths: ["", "src"] };
    const bytes = encodeRoomManifest(header, NO_RECORDS, dirs);
    expect(decodeRoomManifest(bytes)?.dirs).toEqual(dirs);
    const without = bytes.subarray(0, bytes.length - (8 + 64 + 4));
    expect(decodeRoomManifest(without)?.dirs).toEqual(NO_DIRS);
    expect(decodeRoomManifest(bytes.subarray(0, bytes.length - 1))).toBeUndefined();
    expect(() =>
      encodeRoomManifest(header, NO_RECORDS, { records: Buffer.alloc(3), paths: [""] }),
    ).toThrow("room manifest: folder records hold 3 bytes, expected 1 × 32");
  });

  test("the room's manifest, fresh and stamp files are never read or written through a link: a linked manifest proves nothing and is replaced, the link targets keep their bytes", async () => {
    const { ws, head, roomDir, turnStart } = await roomAfterOneTurn();
    const evil = temp("tg-evil-");
    // The agent's turn: the manifest moved out of the room behind a link (it would edit the
    // target later), and the stamp files linked to files of the user's.
    const manifestCopy = join(evil, "m.bin");
    writeFileSync(manifestCopy, readFileSync(join(roomDir, "manifest.bin")));
    rmSync(join(roomDir, "manifest.bin"));
    symlinkSync(manifestCopy, join(roomDir, "manifest.bin"));
    for (const name of ["fresh", "stamp"]) {
      writeFileSync(join(evil, name), `the user's ${name}\n`);
      rmSync(join(roomDir, name), { force: true });
      symlinkSync(join(evil, name), join(roomDir, name));
    }
    const before = readFileSync(manifestCopy);
    write(ws, "lib.js", "changed\n");
    const room = await CleanRoom.open(ws, roomDir, process.env, turnStart);
    try {
      const prepared = await room.prepare(entries({ "lib.js": "changed\n" }), head);
      // Not trusted: the room starts empty and its .git is cloned again.
      expect(prepared.cloned).toBe(true);
      expect(readFileSync(join(room.tree, "lib.js"), "utf8")).toBe("changed\n");
    } finally {
      await room.close();
    }
    for (const name of ["manifest.bin", "fresh", "stamp"]) {
      expect(lstatSync(join(roomDir, name)).isFile()).toBe(true);
    }
    expect(readFileSync(manifestCopy).equals(before)).toBe(true);
    expect(readFileSync(join(evil, "fresh"), "utf8")).toBe("the user's fresh\n");
    expect(readFileSync(join(evil, "stamp"), "utf8")).toBe("the user's stamp\n");
  });

  test("a room .git replaced by a link between turns is cloned again as a folder; nothing is written where the link points", async () => {
    const { ws, head, roomDir, turnStart } = await roomAfterOneTurn();
    const elsewhere = temp("tg-elsewhere-");
    const gitDir = join(roomDir, "tree", ".git");
    execFileSync("cp", ["-a", gitDir, join(elsewhere, "git")]);
    rmSync(gitDir, { recursive: true });
    symlinkSync(join(elsewhere, "git"), gitDir);
    const index = readFileSync(join(elsewhere, "git", "index"));
    write(ws, "lib.js", "changed\n");
    const room = await CleanRoom.open(ws, roomDir, process.env, turnStart);
    try {
      const prepared = await room.prepare(entries({ "lib.js": "changed\n" }), head);
      expect([prepared.cloned, prepared.dropped]).toEqual([true, [".git"]]);
      expect(lstatSync(gitDir).isDirectory()).toBe(true);
      expect(git(room.tree, "status", "--porcelain")).toBe("M  lib.js\n");
    } finally {
      await room.close();
    }
    expect(readFileSync(join(elsewhere, "git", "index")).equals(index)).toBe(true);
  });

  test("a changed file the proof copies itself is indexed in the same call: its blob and stat are in the room's index, as git would write them", async () => {
    const { ws, head, roomDir, turnStart } = await roomAfterOneTurn();
    write(ws, "lib.js", "changed\n");
    const room = await CleanRoom.open(
      ws,
      roomDir,
      { ...process.env, TURNGATE_NATIVE: "1" },
      turnStart,
    );
    try {
      const prepared = await room.prepare(entries({ "lib.js": "changed\n" }), head);
      expect([prepared.cloned, prepared.written, prepared.unindexed]).toEqual([
        false,
        ["lib.js"],
        [],
      ]);
      expect(git(room.tree, "ls-files", "-s", "lib.js").split(/\s+/)[1]).toBe(
        git(room.tree, "hash-object", "lib.js").trim(),
      );
      // The entry's stat is the copy's: git finds nothing to re-read.
      expect(git(room.tree, "diff-files", "--name-only")).toBe("");
      expect(git(room.tree, "status", "--porcelain")).toBe("M  lib.js\n");
      expect(git(room.tree, "fsck", "--strict", "--no-dangling", "--no-progress")).toBe("");
    } finally {
      await room.close();
    }
  });

  test("bytes planted in the room between turns that equal the snapshot's still reach the room's index (a new file is listed, a changed one has its new blob)", async () => {
    const { ws, head, roomDir, turnStart } = await roomAfterOneTurn();
    let room: CleanRoom;
    // The agent's turn: a new util.js and a changed lib.js in the workspace, and the same
    // bytes planted in the room, so the proof accepts them by re-hashing.
    write(ws, "util.js", "module.exports = function ( {\n");
    write(ws, "lib.js", "changed\n");
    write(roomDir, "tree/util.js", "module.exports = function ( {\n");
    write(roomDir, "tree/lib.js", "changed\n");
    room = await CleanRoom.open(ws, roomDir, process.env, turnStart);
    try {
      const prepared = await room.prepare(
        entries({ "lib.js": "changed\n", "util.js": "module.exports = function ( {\n" }),
        head,
      );
      expect(prepared.cloned).toBe(false);
      // lib.js was recorded with other bytes: the native proof copies it while it proves the
      // rest (the planted bytes are the same); the TypeScript path re-hashes it.
      const native = selectNative(process.env) !== undefined;
      expect([prepared.written, prepared.rehashedPaths]).toEqual(
        native ? [["lib.js"], ["util.js"]] : [[], ["lib.js", "util.js"]],
      );
      expect(git(room.tree, "ls-files").split("\n").filter(Boolean)).toEqual(["lib.js", "util.js"]);
      for (const path of ["lib.js", "util.js"]) {
        expect(git(room.tree, "ls-files", "-s", path).split(/\s+/)[1]).toBe(
          git(room.tree, "hash-object", path).trim(),
        );
      }
      expect(git(room.tree, "status", "--porcelain")).toBe("M  lib.js\nA  util.js\n");
    } finally {
      await room.close();
    }
  });

  test("a workspace that is not a repository's top level gets a room without .git", async () => {
    const ws = repo({ "sub/a.js": "a\n" });
    expect(await readBaselineHead(join(ws, "sub"))).toBeNull();
    const plain = temp("tg-plain-");
    expect(await readBaselineHead(plain)).toBeNull();
  });
});
