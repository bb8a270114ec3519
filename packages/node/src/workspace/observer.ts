import { statSync } from "node:fs";
import { resolve } from "node:path";
import ignore from "ignore";
import { type NativeAddon, selectNative } from "../native/select.js";
import { diffSnapshots, type WorkspaceDelta } from "./diff/diff.js";
import { WorkspaceObserverError } from "./errors.js";
import { type NativeHasher, nativeFileHasher, toNativeHasher } from "./hash/native-hasher.js";
import { isInsideGitWorkTree } from "./listing/git.js";
import type { PathFilter } from "./listing/listing.js";
import { observe } from "./observe.js";
import { OutputLocations } from "./scope/output-locations.js";
import { DirListingCache } from "./scope/outside-listing.js";
import type { WorkspaceSnapshot } from "./snapshot.js";
import { StatCache } from "./stat/stat-cache.js";
import { StatService } from "./stat/stat-service.js";

/** Options of {@link WorkspaceObserver}. */
export interface WorkspaceObserverOptions {
  /** Extra gitignore-syntax patterns, applied in git mode and in walk mode. */
  ignores?: string[];
  /** true: require git (throws if `root` is not in a work tree); false: always walk;
   * undefined: use git when `root` is inside a git work tree. */
  useGit?: boolean;
  /** Optional accelerator; see {@link NativeHasher}. Validated at construction. Given, it
   * replaces the addon's hasher (the stat service and walk still follow `native`). */
  nativeHasher?: unknown;
  /**
   * `@turngate/native` for hashing, `lstat` and the walk (issue 17): true requires it
   * (throws `native_unavailable` without it), false uses the TypeScript path, undefined
   * lets `TURNGATE_NATIVE` decide (`1` require, `0` TypeScript, unset: the addon when it is
   * built). Both paths give byte-identical snapshots.
   */
  native?: boolean;
  /**
   * Extra output locations (gitignore syntax, relative to the root; config `outputs`):
   * untracked files there are outside the source scope (`scope: "output"`).
   */
  outputs?: string[];
  /** Use `DEFAULT_OUTPUT_LOCATIONS` (config `default_outputs`); default true. */
  defaultOutputs?: boolean;
}

/**
 * Observes a workspace directory: takes a baseline and later reports the delta against it
 * (issue 3 item 1; docs/design.md §3; reference §2.3 and §2.5 without A3S's 4,096-entry cap and
 * with content digests, so a same-size rewrite is seen).
 *
 * In a git work tree it covers tracked files plus untracked files git does not ignore, and —
 * against a baseline — also what ignore rules changed since the baseline hide (files the
 * baseline's rules showed) and baseline files that became ignored (see `observe`);
 * elsewhere it walks everything except `.git` (at any depth) and the root's `.turngate`,
 * `.a3s`, `.a3s-code` (the same harness rule applies to git listings).
 * Configured `ignores` apply in both modes. A stat cache (size, mtime, ctime, inode, mode)
 * limits hashing to files whose stat changed or is racy. Calls on one observer run one at
 * a time (they queue).
 *
 * Outside the source scope (issue 10) it follows, in `snapshot.outside`: the files git
 * ignores, untracked files at output locations (`outputs`, `defaultOutputs`), and the
 * harness files of the root's `.git/` and `.turngate/` that can change what git or a check
 * does; their changes are delta changes with their `scope`.
 *
 * Throws {@link WorkspaceObserverError}: `invalid_root` (constructor: not a directory),
 * `invalid_option` (constructor: bad option, field named); `TurngateError`
 * `native_unavailable` / `invalid_env` (constructor: `native: true` or `TURNGATE_NATIVE=1`
 * without the addon, or a bad `TURNGATE_NATIVE`).
 */
export class WorkspaceObserver {
  /** Absolute path of the observed directory. */
  readonly root: string;
  readonly #filter: PathFilter;
  readonly #configuredIgnores: boolean;
  readonly #useGit: boolean | undefined;
  readonly #nativeHasher: NativeHasher | undefined;
  readonly #cache: StatCache;
  /** Stat cache of the outside entries (ignored, output, harness). */
  readonly #outsideCache: StatCache;
  readonly #outputs: OutputLocations;
  readonly #outsideDirs = new DirListingCache();
  readonly #native: NativeAddon | undefined;
  readonly #stats: StatService;
  #git: Promise<boolean> | undefined;
  #baseline: WorkspaceSnapshot | undefined;
  /** Baseline paths the last observation did not find (see ObserveContext.baselineGone). */
  #baselineGone = new Set<string>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(root: string, options: WorkspaceObserverOptions = {}) {
    if (typeof root !== "string" || root.trim() === "") {
      throw new WorkspaceObserverError("invalid_root", "root must be a non-empty path", "root");
    }
    this.root = resolve(root);
    this.#cache = new StatCache(this.root);
    this.#outsideCache = new StatCache(this.root);
    let isDir = false;
    try {
      isDir = statSync(this.root).isDirectory();
    } catch {
      isDir = false;
    }
    if (!isDir) {
      throw new WorkspaceObserverError(
        "invalid_root",
        `root is not a directory: ${this.root}`,
        "root",
      );
    }
    if (typeof options !== "object" || options === null) {
      throw new WorkspaceObserverError("invalid_option", "options must be an object", "options");
    }
    const ignores = options.ignores ?? [];
    if (!Array.isArray(ignores) || ignores.some((p) => typeof p !== "string")) {
      throw new WorkspaceObserverError(
        "invalid_option",
        "options.ignores must be an array of strings",
        "ignores",
      );
    }
    if (options.useGit !== undefined && typeof options.useGit !== "boolean") {
      throw new WorkspaceObserverError(
        "invalid_option",
        "options.useGit must be a boolean",
        "useGit",
      );
    }
    this.#useGit = options.useGit;
    this.#outputs = new OutputLocations({
      root: this.root,
      ...(options.outputs !== undefined ? { patterns: options.outputs } : {}),
      ...(options.defaultOutputs !== undefined ? { defaults: options.defaultOutputs } : {}),
    });
    if (options.native !== undefined && typeof options.native !== "boolean") {
      throw new WorkspaceObserverError(
        "invalid_option",
        "options.native must be a boolean",
        "native",
      );
    }
    this.#native =
      options.native === false
        ? undefined
        : selectNative(options.native === true ? { TURNGATE_NATIVE: "1" } : process.env);
    this.#stats = new StatService({ native: this.#native });
    this.#nativeHasher =
      toNativeHasher(options.nativeHasher) ??
      (this.#native === undefined ? undefined : nativeFileHasher(this.#native));
    this.#configuredIgnores = ignores.length > 0;
    const matcher = ignore().add(ignores);
    this.#filter =
      ignores.length === 0 ? () => false : (key, isDir) => matcher.ignores(isDir ? `${key}/` : key);
  }

  /**
   * Takes a snapshot, stores it as the baseline (replacing any previous one) and returns
   * it. Throws `git_failed` when git mode is in use and `git ls-files` fails.
   */
  baseline(): Promise<WorkspaceSnapshot> {
    return this.#serial(async () => {
      const snapshot = await this.#observe(true);
      this.#baseline = snapshot;
      this.#baselineGone = new Set();
      return snapshot;
    });
  }

  /**
   * Uses a previously taken snapshot (e.g. `deserializeSnapshot` of a stored baseline) as
   * the baseline, and seeds the stat cache from it so the next delta is warm. Throws
   * `invalid_snapshot` (field `root`) if it was taken of a different root.
   */
  restoreBaseline(snapshot: WorkspaceSnapshot): void {
    if (snapshot.root !== this.root) {
      throw new WorkspaceObserverError(
        "invalid_snapshot",
        `snapshot.root is ${snapshot.root}, but this observer watches ${this.root}`,
        "root",
      );
    }
    this.#baseline = snapshot;
    this.#baselineGone = new Set();
    this.#cache.seed(snapshot);
    this.#outsideCache.seedEntries(snapshot.outside, snapshot.taken_at_ms);
  }

  /** True when this observer hashes, stats and walks with `@turngate/native` (issue 17). */
  get native(): boolean {
    return this.#native !== undefined;
  }

  /** True when configured `ignores` hide files from the source scope (git still lists them). */
  get configuredIgnores(): boolean {
    return this.#configuredIgnores;
  }

  /** The stored baseline, or undefined before `baseline()`/`restoreBaseline()`. */
  get currentBaseline(): WorkspaceSnapshot | undefined {
    return this.#baseline;
  }

  /**
   * Takes a fresh snapshot and returns its difference from the stored baseline (which is
   * not moved). Throws `no_baseline` before a baseline exists; `git_failed` as above.
   */
  delta(): Promise<WorkspaceDelta> {
    return this.#serial(async () => {
      const before = this.#baseline;
      if (before === undefined) {
        throw new WorkspaceObserverError(
          "no_baseline",
          "delta() needs a baseline: call baseline() or restoreBaseline() first",
        );
      }
      return diffSnapshots(before, await this.#observe());
    });
  }

  /** Takes a fresh full snapshot (reusing the stat cache) without touching the baseline. */
  snapshot(): Promise<WorkspaceSnapshot> {
    return this.#serial(() => this.#observe());
  }

  /**
   * Stops the helper thread that shares large stat batches (it never keeps the process
   * alive while idle, so calling this is optional). The observer stays usable.
   */
  close(): Promise<void> {
    return this.#serial(() => this.#stats.close());
  }

  /** Difference between two snapshots; see {@link diffSnapshots}. */
  static diff(before: WorkspaceSnapshot, after: WorkspaceSnapshot): WorkspaceDelta {
    return diffSnapshots(before, after);
  }

  /** One observation: for a baseline (records the ignore rules) or against the baseline. */
  async #observe(forBaseline = false): Promise<WorkspaceSnapshot> {
    const git = await this.#detectGit();
    return observe({
      root: this.root,
      git,
      filter: this.#filter,
      cache: this.#cache,
      stats: this.#stats,
      nativeHasher: this.#nativeHasher,
      native: this.#native,
      baseline: forBaseline ? undefined : this.#baseline,
      baselineGone: this.#baselineGone,
      recordIgnoreState: forBaseline,
      outputs: this.#outputs,
      outsideCache: this.#outsideCache,
      hashNewOutside: !forBaseline,
      outsideDirs: this.#outsideDirs,
    });
  }

  #detectGit(): Promise<boolean> {
    if (this.#git === undefined) {
      const useGit = this.#useGit;
      this.#git =
        useGit === false
          ? Promise.resolve(false)
          : isInsideGitWorkTree(this.root).then((inside) => {
              if (useGit === true && !inside) {
                throw new WorkspaceObserverError(
                  "git_failed",
                  `useGit is true but ${this.root} is not inside a git work tree`,
                  "useGit",
                );
              }
              return inside;
            });
      this.#git.catch(() => {
        this.#git = undefined; // let a later call retry
      });
    }
    return this.#git;
  }

  #serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }
}
