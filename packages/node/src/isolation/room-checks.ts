import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { EntryState } from "../workspace/snapshot.js";
import { CleanRoom, cleanRoomDir, type RoomPreparation } from "./clean-room.js";
import {
  dependencyFileMounts,
  dependencyMounts,
  findDependencyFiles,
  findDependencyFolders,
} from "./dependency-folders.js";
import type { BaselineHead } from "./room-git.js";
import {
  SetupCache,
  type SetupConfig,
  type SetupNeed,
  type SetupResult,
  setupKey,
  setupNeed,
  toolchainFingerprint,
} from "./room-setup.js";
import { bwrapArgs, type SandboxBind, toolchainBinds } from "./sandbox.js";

/**
 * The checks of one clean-room turn (docs/design.md §3b): the room, locked for the turn,
 * prepared before each check, and the launcher that runs each check in the sandbox with the
 * room at the workspace's path. Used by `Session.verifyCommands` in `clean-room` mode.
 */

/** What {@link RoomChecks.open} needs. */
export interface RoomChecksOptions {
  /** The workspace root (any path; its real path is where the room is mounted). */
  root: string;
  /** bubblewrap's absolute path (from a successful `probeSandbox`). */
  bwrap: string;
  /** The baseline's HEAD (`readBaselineHead`), null when the workspace is not a repository's top level. */
  head: BaselineHead | null;
  /** The room's folder; default `cleanRoomDir`. */
  roomDir?: string;
  /** The host environment (`HOME`, `XDG_CACHE_HOME`, `TURNGATE_ROOM_DIR`). */
  env: NodeJS.ProcessEnv;
  /** The checks' `PATH` (fixed at baseline time): its folders outside the system are bound read-only. */
  checkPath: string;
  /** Folders never bound into the sandbox (turngate's state folder). */
  exclude: readonly string[];
  /** Whether the checks may reach the network (config `"network": true`). */
  network?: boolean;
  /**
   * When the turn started (the baseline was taken), ms since the epoch: room state written
   * from then on may be the agent's and is not trusted (`CleanRoom.open`). Default now.
   */
  turnStartMs?: number;
  /**
   * The turn-start configuration's `"setup"` (`room-setup.ts`): a command, `false` (never
   * run one: a changed dependency folder stays hidden), undefined (the preset default).
   */
  setup?: SetupConfig;
}

/** The dependency setup a turn's checks need (`RoomChecks.planSetup`). */
export interface RoomSetupPlan extends SetupNeed {
  /** The cache key ({@link setupKey}). */
  key: string;
  /** The proven cached result, when the cache hits. */
  cached?: SetupResult;
}

/** One turn's clean-room checks; `close()` when the checks are done. */
export class RoomChecks {
  readonly #room: CleanRoom;
  readonly #options: RoomChecksOptions;
  readonly #workspace: string;
  readonly #toolchains: SandboxBind[];
  readonly #home: string | undefined;
  readonly #setupCache: SetupCache;
  #entries: ReadonlyMap<string, EntryState> = new Map();
  #changed: readonly string[] = [];
  /** The setup result the checks of this turn see instead of the workspace's folders. */
  #setupResult: SetupResult | undefined;
  /** The last preparation, while nothing has run in the room since (see `prepare`). */
  #prepared:
    | { entries: ReadonlyMap<string, EntryState>; changed: string[]; result: RoomPreparation }
    | undefined;

  private constructor(room: CleanRoom, options: RoomChecksOptions, workspace: string) {
    this.#room = room;
    this.#options = options;
    this.#workspace = workspace;
    const turnStartMs = options.turnStartMs ?? Date.now();
    this.#setupCache = new SetupCache(
      join(room.dir, "setup"),
      BigInt(Math.floor(turnStartMs) - 50) * 1_000_000n,
    );
    this.#home = options.env.HOME ?? homedir();
    this.#toolchains = toolchainBinds(
      this.#home,
      options.checkPath,
      [workspace, room.dir, ...options.exclude],
      options.env,
    );
  }

  /**
   * Open and lock the workspace's room. Errors: `fs` errors (the room's folder cannot be
   * made), the lock's `ELOCKED` when another turn holds it for more than ~10 s.
   */
  static async open(options: RoomChecksOptions): Promise<RoomChecks> {
    const workspace = realpathSync(options.root);
    const dir = options.roomDir ?? cleanRoomDir(workspace, options.env);
    const room = await CleanRoom.open(workspace, dir, options.env, options.turnStartMs);
    return new RoomChecks(room, options, workspace);
  }

  /** The room's folder on the host. */
  get tree(): string {
    return this.#room.tree;
  }

  /**
   * Where reports named by the configuration's `outputs` are copied after each check:
   * `<room's folder>/outputs`, outside the workspace (the room is never inside it).
   */
  get outputsDir(): string {
    return join(this.#room.dir, "outputs");
  }

  /** The workspace's real path (the room's mount point inside the sandbox). */
  get workspace(): string {
    return this.#workspace;
  }

  /**
   * Make the room hold `entries` before a check (`CleanRoom.prepare`); `changed` are the
   * turn's ledger paths (a dependency folder with a row below it is not shown). A second
   * call with the same entries and paths while nothing has run in the room since (no
   * launcher, setup adoption or `afterCheck` in between) returns the first's result without
   * work. Errors:
   * `RoomSourceChangedError`, `RoomGitError`, `fs` errors.
   */
  async prepare(
    entries: ReadonlyMap<string, EntryState>,
    changed: readonly string[],
  ): Promise<RoomPreparation> {
    const last = this.#prepared;
    if (
      last !== undefined &&
      last.entries === entries &&
      last.changed.length === changed.length &&
      last.changed.every((path, i) => path === changed[i])
    ) {
      // Nothing ran in the room since it was made to hold these entries (the setup had
      // nothing to do): it is ready as it is.
      return last.result;
    }
    this.#prepared = undefined;
    this.#entries = entries;
    this.#changed = changed;
    const result = await this.#room.prepare(entries, this.#options.head);
    this.#prepared = { entries, changed: [...changed], result };
    return result;
  }

  /**
   * The dependency setup this turn's checks need, after a `prepare` (`room-setup.ts`): none
   * (undefined) when no dependency folder changed and none is missing, or no setup applies;
   * else the command, why, its cache key and the proven cached result when there is one.
   * A hit is adopted at once (the checks see it). Never throws.
   */
  planSetup(): RoomSetupPlan | undefined {
    const need = setupNeed(
      this.#workspace,
      this.#room.tree,
      this.#entries,
      this.#changed,
      this.#options.setup,
    );
    if (need === undefined) return undefined;
    const key = setupKey(
      need.setup,
      this.#entries,
      toolchainFingerprint(need.setup, this.#options.checkPath),
    );
    const cached = this.#setupCache.lookup(key);
    if (cached !== undefined) this.#setupResult = cached;
    return { ...need, key, ...(cached !== undefined ? { cached } : {}) };
  }

  /**
   * The `launch` wrapper of the setup command: the sandbox of a check, **with** network, the
   * room at the workspace path and no dependency folder mounted (the setup builds them from
   * the in-scope bytes alone); `writable` as for {@link launcher}.
   */
  setupLauncher(
    writable: readonly string[],
  ): (program: { file: string; args: string[] }) => { file: string; args: string[] } {
    this.#prepared = undefined;
    const args = bwrapArgs({
      room: this.#room.tree,
      workspace: this.#workspace,
      cwd: this.#workspace,
      home: this.#home,
      readOnly: this.#toolchains,
      inside: [],
      writable: writable.map((dir) => ({ src: dir, dest: dir })),
      network: true,
    });
    return (program) => ({
      file: this.#options.bwrap,
      args: [...args, program.file, ...program.args],
    });
  }

  /**
   * After the setup of `plan` passed: move the dependency folders it produced out of the
   * room into the cache and seal them (`SetupCache.adopt`); the checks then see them.
   * Errors: `fs` errors.
   */
  async adoptSetup(plan: RoomSetupPlan): Promise<SetupResult> {
    this.#prepared = undefined;
    const candidates = findDependencyFolders(this.#room.tree, this.#entries.keys(), []).map(
      (folder) => folder.path,
    );
    const result = await this.#setupCache.adopt(
      plan.key,
      plan.setup.command,
      this.#room.tree,
      candidates,
    );
    this.#setupResult = result;
    return result;
  }

  /** Record what the check left in the room's caches (`CleanRoom.afterCheck`). */
  async afterCheck(): Promise<void> {
    this.#prepared = undefined;
    await this.#room.afterCheck();
  }

  /**
   * The `launch` wrapper of one check: bubblewrap with the plan of `sandbox.ts`, the room at
   * the workspace path, the unchanged dependency folders and ignored lockfiles, the toolchains under home, and
   * `writable` folders (the check environment's fresh folder) bound read-write; `cwd` is the
   * check's folder (under the workspace's real path).
   */
  launcher(
    cwd: string,
    writable: readonly string[],
  ): (program: { file: string; args: string[] }) => { file: string; args: string[] } {
    this.#prepared = undefined;
    const folders = findDependencyFolders(this.#workspace, this.#entries.keys(), this.#changed);
    const result = this.#setupResult;
    if (result !== undefined) {
      // The setup's folders replace the workspace's (changed or not: one consistent install).
      const produced = new Set(result.folders);
      for (const folder of folders) {
        if (produced.has(folder.path)) folder.src = join(result.dir, folder.path);
      }
      for (const path of result.folders) {
        if (!folders.some((folder) => folder.path === path)) {
          folders.push({ path, visible: false, src: join(result.dir, path) });
        }
      }
    }
    const files = findDependencyFiles(this.#workspace, this.#entries.keys(), this.#changed);
    const args = bwrapArgs({
      room: this.#room.tree,
      workspace: this.#workspace,
      cwd,
      home: this.#home,
      readOnly: this.#toolchains,
      inside: [
        ...dependencyMounts(this.#workspace, folders),
        ...dependencyFileMounts(this.#workspace, files),
      ],
      writable: writable.map((dir) => ({ src: dir, dest: dir })),
      network: this.#options.network === true,
    });
    return (program) => ({
      file: this.#options.bwrap,
      args: [...args, program.file, ...program.args],
    });
  }

  /** Release the room's lock. */
  async close(): Promise<void> {
    await this.#room.close();
  }

  /** `CleanRoom.sealedMs` of the room (ms; undefined: no manifest written by this turn yet). */
  get sealedMs(): number | undefined {
    return this.#room.sealedMs;
  }
}

/**
 * The check environment in the clean room: bytecode and cargo's target go to the room's
 * kept caches (`__pycache__/`, `target/`, revalidated against the mtimes turngate sets), so
 * `PYTHONPYCACHEPREFIX` and `CARGO_TARGET_DIR` are removed; `GIT_OPTIONAL_LOCKS=0` keeps a
 * check's `git status` from rewriting the room's index (any change to the room's `.git`
 * makes the next check clone it again). `TMPDIR` is the sandbox's private `/tmp`. `home` is
 * the HOME allow-list read at baseline time (`home-values.ts`), added as values.
 */
export function roomCheckEnv(
  env: NodeJS.ProcessEnv,
  home: Readonly<Record<string, string>> = {},
): NodeJS.ProcessEnv {
  const { PYTHONPYCACHEPREFIX: _p, CARGO_TARGET_DIR: _c, ...rest } = env;
  return { ...home, ...rest, GIT_OPTIONAL_LOCKS: "0", TMPDIR: "/tmp" };
}
