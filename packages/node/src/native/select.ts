import { createRequire } from "node:module";
import { TurngateError } from "@turngate/core";

/** `roomPrestat`'s handle: the recorded paths' `lstat`s under way, for one `roomProve`. */
export interface RoomPrestatHandle {
  /** Wait for the stats; how many recorded paths they cover (0: refused, or already taken). */
  settle(): number;
}

/** The parts of `@turngate/native` the Node host uses (issue 17). */
export interface NativeAddon {
  available: boolean;
  reason: string | null;
  statTree(
    root: string,
    input: readonly string[] | { walk: NativeWalkOptions },
  ): Promise<NativeStatTreeResult>;
  hashFiles(
    root: string,
    paths: readonly string[],
    options?: { algorithm?: "sha256" | "fnv1a64" },
  ): Promise<NativeHashFilesResult>;
  sha256Batch(inputs: ReadonlyArray<string | Uint8Array>): string[];
  fnv1a64Batch(inputs: ReadonlyArray<string | Uint8Array>): string[];
  sha256(text: string): string;
  sha256Concat(parts: readonly string[]): string;
  ledgerDigest(
    rows: ReadonlyArray<{ tool: string; path: string; content_digest: string }>,
    options?: { chunkUnits?: number },
  ): {
    order: Uint32Array;
    digest: string;
  };
  statDigestListing(folder: string, max: number): string[];
  roomProve(
    room: string,
    recorded: { count: number; records: Buffer; paths: Buffer },
    entries: ReadonlyArray<readonly [string, string, string]> | { joined: string; count: number },
    stampNs: bigint,
    dirs?: { records: Buffer; paths: readonly string[] },
    freshNs?: bigint,
    early?: { workspace: string; modes: ArrayLike<number>; mtimeS: number; index?: boolean },
    prestat?: RoomPrestatHandle,
  ): Promise<{
    records: Buffer;
    copy: number[];
    rehashed: number[];
    extraFiles: string[];
    extraDirs: string[];
    gone: string[];
    dirRecords: Buffer;
    dirPaths: string[];
    aligned: boolean;
    copied: number[];
    modesChecked: boolean;
    indexed: boolean;
  }>;
  roomPrestat(
    room: string,
    recorded: { count: number; records: Buffer; paths: Buffer },
  ): RoomPrestatHandle;
  roomCopy(
    workspace: string,
    room: string,
    entries: ReadonlyArray<readonly [string, string, string, number]>,
    mtimeS: number,
  ): Promise<{ records: Buffer; created: string[] }>;
  roomIndexUpdate(
    room: string,
    written: readonly string[],
    gone: readonly string[],
  ): Promise<{ objects: number; entries: number }>;
  gitListing(
    root: string,
    options?: { dir?: string },
  ): Promise<NativeGitListing | NativeGitFallback>;
  /** The egress bootstrap program's path, or null (not built). Absent in older builds. */
  EGRESS_HELPER?: string | null;
  /** A unix socket pair `[host, sandbox]` for the egress bootstrap. */
  egressChannel?(): [number, number];
  /** The descriptor the bootstrap sends over the host end `fd`, waited for `timeoutMs` ms. */
  egressReceive?(fd: number, timeoutMs: number): Promise<number>;
}

/** `gitListing` names: `count` names in `names`, each followed by a NUL (raw bytes). */
export interface NativeGitNames {
  count: number;
  names: Buffer;
}

/** `gitListing` result (see `@turngate/native`'s `GitListing`). */
export interface NativeGitListing {
  objectFormat: "sha1" | "sha256";
  prefix: string;
  indexVersion: number;
  indexFeatures: number;
  tracked: NativeGitNames & {
    modes: Uint32Array;
    flags: Uint8Array;
    ids: Buffer;
    stats: Uint32Array;
  };
  untracked: NativeGitNames;
  ignored: NativeGitNames;
}

/** `gitListing` left the repository to git: the code and the sentence for the notes. */
export interface NativeGitFallback {
  fallback: string;
  reason: string;
}

/** A per-path failure reported by the addon. */
export interface NativePathError {
  index: number;
  code: string;
  path: string;
  message: string;
}

/** `statTree` walk options (see `@turngate/native`). */
export interface NativeWalkOptions {
  dir?: string;
  filter?: (path: string, isDir: boolean) => boolean;
  stat?: boolean;
}

/** `statTree` result: six float64 per path (kind, size, mtime_ms, ctime_ms, ino, mode). */
export interface NativeStatTreeResult {
  paths: string[];
  records: Float64Array;
  nanos: BigInt64Array;
  errors: NativePathError[];
  unreadable: string[];
}

/** `hashFiles` result: one digest (or null) and one six-field record per path. */
export interface NativeHashFilesResult {
  digests: Array<string | null>;
  records: Float64Array;
  errors: NativePathError[];
}

/** How `TURNGATE_NATIVE` selects the accelerated path. */
export type NativeMode = "auto" | "native" | "typescript";

/** The environment variable that forces one path: `1` native, `0` TypeScript. */
export const NATIVE_ENV = "TURNGATE_NATIVE";

/**
 * Reads {@link NATIVE_ENV}: unset or empty → `auto` (the addon when it is built), `1` →
 * `native` (required), `0` → `typescript`. Throws `TurngateError` `invalid_env` for any
 * other value, naming the variable and the values it takes.
 */
export function nativeMode(env: NodeJS.ProcessEnv = process.env): NativeMode {
  const value = env[NATIVE_ENV];
  if (value === undefined || value === "") return "auto";
  if (value === "1") return "native";
  if (value === "0") return "typescript";
  throw new TurngateError(
    "invalid_env",
    `${NATIVE_ENV}=${JSON.stringify(value)} is not understood: use 1 (require @turngate/native), 0 (TypeScript path) or leave it unset (native when built)`,
  );
}

let loaded: { addon: NativeAddon | undefined; reason: string } | undefined;

function load(): { addon: NativeAddon | undefined; reason: string } {
  if (loaded === undefined) {
    try {
      const addon = createRequire(import.meta.url)("@turngate/native") as NativeAddon;
      loaded = addon.available
        ? { addon, reason: "" }
        : { addon: undefined, reason: addon.reason ?? "unknown" };
    } catch (error) {
      loaded = {
        addon: undefined,
        reason: `@turngate/native not installed: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  }
  return loaded;
}

/**
 * The accelerator to use, chosen by {@link nativeMode}: the loaded addon, or undefined for
 * the TypeScript path. Both paths give byte-identical results (issue 17; proven by running
 * the suites both ways). Throws `TurngateError` `native_unavailable` when
 * `TURNGATE_NATIVE=1` and the addon is not built or fails to load (never a silent
 * fallback), with the reason and the command that builds it; `invalid_env` as
 * {@link nativeMode}.
 */
export function selectNative(env: NodeJS.ProcessEnv = process.env): NativeAddon | undefined {
  const mode = nativeMode(env);
  if (mode === "typescript") return undefined;
  const { addon, reason } = load();
  if (addon === undefined && mode === "native") {
    throw new TurngateError(
      "native_unavailable",
      `${NATIVE_ENV}=1 requires @turngate/native, which is unavailable: ${reason}. Build it with \`pnpm --filter @turngate/native build\` (needs cargo), or unset ${NATIVE_ENV}`,
    );
  }
  return addon;
}

/** Which path {@link selectNative} picks, for messages: `native` or `typescript (why)`. */
export function nativeStatus(env: NodeJS.ProcessEnv = process.env): string {
  const mode = nativeMode(env);
  if (mode === "typescript") return `typescript (${NATIVE_ENV}=0)`;
  const { addon, reason } = load();
  return addon !== undefined ? "native" : `typescript (${reason})`;
}
