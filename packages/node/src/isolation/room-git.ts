import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
} from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { selectNative } from "../native/select.js";
import { runGit } from "../workspace/listing/git.js";

/**
 * The clean room's `.git` (docs/design.md §3b): a real clone of the workspace repository at
 * the baseline commit, made through git's own transport (`file://`, the pack protocol), which
 * carries only valid objects reachable from refs, never the workspace's config, hooks, logs
 * or loose files (a file under a loose-object name can be code). Tags come along, so
 * `git describe` and setuptools-scm answer as in a clean clone. HEAD is the baseline commit
 * (on the baseline's branch, or detached when the baseline was); the index holds the room's
 * files, so `git ls-files` in a check lists what the digest names even when the agent ran
 * `git rm --cached`.
 *
 * Every git call here runs with turngate's safety options (`runGit`: no fsmonitor, hooks or
 * untracked cache) and with no user or system configuration (`GIT_CONFIG_GLOBAL=/dev/null`,
 * `GIT_CONFIG_NOSYSTEM=1`), so no filter, alias or helper the agent configured runs.
 */

/** The baseline's HEAD: its commit (null on an unborn branch) and symbolic ref (null when detached). */
export interface BaselineHead {
  commit: string | null;
  ref: string | null;
}

/** The room's git could not be made; `message` says what git said. */
export class RoomGitError extends Error {
  readonly code = "room_git_failed";
  constructor(message: string) {
    super(`clean room: ${message}`);
    this.name = "RoomGitError";
  }
}

/** The environment of the room's own git calls (no user or system config). */
export function roomGitEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { GIT_DIR: _d, GIT_WORK_TREE: _w, GIT_INDEX_FILE: _i, ...rest } = env;
  return { ...rest, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
}

/**
 * Read the workspace's HEAD at baseline time: one `git rev-parse --show-toplevel HEAD
 * --symbolic-full-name HEAD` (a second, `--show-toplevel` alone, on an unborn branch).
 * Output: `{commit, ref}` (`ref` a `refs/heads/…` name, null when detached); an unborn HEAD
 * gives `{commit: null, ref: null}`; null when `root` is not the top level of a git work
 * tree (a folder inside a repository, no repository, git missing): the room then has no
 * `.git`.
 */
export async function readBaselineHead(
  root: string,
  env?: NodeJS.ProcessEnv,
): Promise<BaselineHead | null> {
  const run = (args: string[]) =>
    runGit(args, root, { env: roomGitEnv(env) }).catch(() => undefined);
  const isRoot = (top: string | undefined) => {
    try {
      return top !== undefined && realpathSync(top) === realpathSync(root);
    } catch {
      return false;
    }
  };
  const result = await run([
    "rev-parse",
    "--show-toplevel",
    "HEAD",
    "--symbolic-full-name",
    "HEAD",
  ]);
  const lines = result?.stdout.toString("utf8").trim().split("\n") ?? [];
  if (result?.code === 0 && /^[0-9a-f]{40,64}$/.test(lines[1] ?? "")) {
    if (!isRoot(lines[0])) return null;
    const ref = lines[2] ?? "HEAD";
    return { commit: lines[1] as string, ref: ref.startsWith("refs/heads/") ? ref : null };
  }
  const top = await run(["rev-parse", "--show-toplevel"]);
  if (top?.code === 0 && isRoot(top.stdout.toString("utf8").trim())) {
    return { commit: null, ref: null };
  }
  return null;
}

async function git(args: string[], cwd: string, env: NodeJS.ProcessEnv, input?: Buffer) {
  const result = await runGit(args, cwd, {
    env: roomGitEnv(env),
    ...(input !== undefined ? { input } : {}),
  });
  if (result.code !== 0) {
    const command = args.find((arg, i) => arg !== "-c" && args[i - 1] !== "-c");
    throw new RoomGitError(`git ${command} failed: ${result.stderr || `exit ${result.code}`}`);
  }
  return result;
}

/**
 * Make `room/.git` a clone of `workspace` (through `file://`), or fetch into it when the
 * baseline commit is not there yet. Then point HEAD at `head`. Output: true when the clone
 * is new (its index must be built from every path). Errors: {@link RoomGitError}.
 */
export async function ensureRoomClone(
  room: string,
  workspace: string,
  head: BaselineHead,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const dotGit = join(room, ".git");
  const url = pathToFileURL(workspace).href;
  let fresh = false;
  if (!existsSync(dotGit)) {
    const scratch = mkdtempSync(join(room, "..", "clone-"));
    try {
      await git(
        ["-c", "protocol.file.allow=always", "clone", "--quiet", "--no-checkout", url, "r"],
        scratch,
        env,
      );
      renameSync(join(scratch, "r", ".git"), dotGit);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    fresh = true;
  }
  if (head.commit === null) return fresh;
  const has = await runGit(["cat-file", "-e", `${head.commit}^{commit}`], room, {
    env: roomGitEnv(env),
  });
  if (has.code !== 0) {
    await git(
      [
        "-c",
        "protocol.file.allow=always",
        "fetch",
        "--quiet",
        "--tags",
        url,
        "+HEAD:refs/turngate/workspace-head",
        "+refs/heads/*:refs/remotes/origin/*",
      ],
      room,
      env,
    );
    const again = await runGit(["cat-file", "-e", `${head.commit}^{commit}`], room, {
      env: roomGitEnv(env),
    });
    if (again.code !== 0) {
      throw new RoomGitError(
        `the baseline commit ${head.commit} is not reachable from the workspace's refs any more`,
      );
    }
  }
  if (head.ref !== null) {
    await git(["update-ref", head.ref, head.commit], room, env);
    await git(["symbolic-ref", "HEAD", head.ref], room, env);
  } else {
    await git(["update-ref", "--no-deref", "HEAD", head.commit], room, env);
  }
  return fresh;
}

/** `-c` options that turn git's fsync off (`core.fsync`, git 2.36; older gits ignore the key). */
const NO_FSYNC = ["-c", "core.fsync=none"];

/** Above this many bytes of changed blobs, git writes them as loose objects (no pack in memory). */
const PACK_MAX_BYTES = 64 * 2 ** 20;

/** Packs in the room's `.git` from which they are merged into one (`git repack -a -d`). */
const MAX_PACKS = 32;

/**
 * Make the room's index hold `paths` as they are in the room: with `rebuild`, start from
 * the baseline tree (`read-tree`, or an empty index on an unborn branch) and add every path
 * of `paths` plus drop the ones the tree has and the room does not; otherwise update only
 * `paths` (added or changed) and drop `gone` (paths no longer in the room, removed from the
 * index whatever is on disk there now). A file where a folder of the index was, or the other
 * way round, replaces its entries. Without `rebuild`, with `@turngate/native` (when
 * {@link selectNative} picks it) the update runs in-process with gitoxide and no git process
 * (`roomIndexUpdate`: the new blobs are written as one pack; over {@link MAX_PACKS} packs
 * they are merged with `git repack -a -d`, and once `gitObjects`, the count of objects in
 * the room's `.git` the caller's fingerprint saw, passes {@link GIT_OBJECTS_TIDY}, loose
 * objects are packed with `git repack -d`); should the addon fail, git does it. Otherwise
 * one to three git processes. Errors: {@link RoomGitError}.
 */
export async function updateRoomIndex(
  room: string,
  head: BaselineHead,
  paths: readonly string[],
  rebuild: boolean,
  env: NodeJS.ProcessEnv,
  gone: readonly string[] = [],
  gitObjects = 0,
): Promise<void> {
  let all = paths;
  let removed: readonly string[] = gone;
  if (!rebuild && (await updateNatively(room, paths, gone, env))) {
    if (packCount(room) > MAX_PACKS)
      await git([...NO_FSYNC, "repack", "-a", "-d", "-q"], room, env);
    else if (gitObjects > GIT_OBJECTS_TIDY)
      await git([...NO_FSYNC, "repack", "-d", "-q"], room, env);
    return;
  }
  if (rebuild) {
    if (head.commit !== null) {
      await git(["read-tree", head.commit], room, env);
      const listed = await git(["ls-files", "-z"], room, env);
      const keep = new Set(paths);
      removed = listed.stdout
        .toString("utf8")
        .split("\0")
        .filter((name) => name !== "" && !keep.has(name));
    } else {
      rmSync(join(room, ".git", "index"), { force: true });
      removed = [];
    }
  }
  // Entries of paths gone from the room leave the index whatever is on disk there now (a
  // folder where a file was: `--remove` refused it with "is a directory").
  if (removed.length > 0) {
    const names = Buffer.from(`${removed.join("\0")}\0`, "utf8");
    await git([...NO_FSYNC, "update-index", "--force-remove", "-z", "--stdin"], room, env, names);
  }
  const dropped = new Set(removed);
  all = all.filter((path) => !dropped.has(path));
  if (all.length === 0) return;
  if (!rebuild) await packBlobs(room, all, env);
  const input = Buffer.from(`${all.join("\0")}\0`, "utf8");
  // The room's .git is disposable (cloned again on any doubt): nothing in it is fsynced.
  // --replace: a file where a folder of the index was (or the other way round) replaces its
  // entries (it failed the turn with io_error: attack round).
  await git(
    [...NO_FSYNC, "update-index", "--add", "--remove", "--replace", "-z", "--stdin"],
    room,
    env,
    input,
  );
}

/** Objects in the room's `.git` (files and folders) above which its loose objects are packed. */
export const GIT_OBJECTS_TIDY = 512;

/**
 * The room's index updated in-process (`@turngate/native`'s `roomIndexUpdate`) for `paths`
 * (added or changed) after dropping `gone`. Output: false when there is no addon or it
 * failed (the caller then runs git, which reports what is wrong).
 */
async function updateNatively(
  room: string,
  paths: readonly string[],
  gone: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const native = selectNative(env);
  if (native === undefined) return false;
  // Nothing to add or drop (the proof indexed what it copied): the index stays as it is.
  if (paths.length === 0 && gone.length === 0) return true;
  const dropped = new Set(gone);
  try {
    await native.roomIndexUpdate(
      room,
      paths.filter((path) => !dropped.has(path)),
      gone,
    );
    return true;
  } catch {
    return false;
  }
}

function packCount(room: string): number {
  try {
    return readdirSync(join(room, ".git", "objects", "pack")).filter((n) => n.endsWith(".pack"))
      .length;
  } catch {
    return 0; // no pack folder yet
  }
}

/**
 * Write the blobs of the room's files and symlinks among `paths` into the room's `.git` as
 * one pack (`git fast-import`), so that `update-index` finds them and writes no loose
 * object: a loose object is a new file per changed file, and creating files in `objects/xx/`
 * is the slowest step of an incremental update. Blobs the repository has are not written
 * again. More than {@link PACK_MAX_BYTES} bytes: nothing is packed (git writes loose objects).
 * Over {@link MAX_PACKS} packs are merged first. Errors: {@link RoomGitError}.
 */
async function packBlobs(room: string, paths: readonly string[], env: NodeJS.ProcessEnv) {
  const chunks: Buffer[] = [];
  let total = 0;
  for (const path of paths) {
    const abs = join(room, path);
    let bytes: Buffer;
    try {
      const stat = lstatSync(abs);
      if (stat.isSymbolicLink()) bytes = readlinkSync(abs, { encoding: "buffer" });
      else if (stat.isFile()) bytes = readFileSync(abs);
      else continue;
    } catch {
      continue; // removed: only its index entry goes
    }
    total += bytes.length;
    if (total > PACK_MAX_BYTES) return;
    chunks.push(Buffer.from(`blob\ndata ${bytes.length}\n`, "latin1"), bytes, NEWLINE);
  }
  if (chunks.length === 0) return;
  if (packCount(room) > MAX_PACKS) await git([...NO_FSYNC, "repack", "-a", "-d", "-q"], room, env);
  // unpackLimit 0: fast-import keeps even a few objects as a pack (the default unpacks under 100).
  await git(
    [...NO_FSYNC, "-c", "fastimport.unpackLimit=0", "fast-import", "--quiet"],
    room,
    env,
    Buffer.concat(chunks),
  );
}

const NEWLINE = Buffer.from("\n");
