import { lstatSync } from "node:fs";

/** Fields per path in a raw stat buffer: kind, size, mtime_ms, ctime_ms, ino, mode. */
export const RAW_STAT_FIELDS = 6;

/** Kind codes stored in field 0 of a raw stat record. */
export const RawKind = {
  absent: 0,
  file: 1,
  symlink: 2,
  directory: 3,
  special: 4,
  error: 5,
} as const;

/**
 * `lstat`s `absPaths[from..to)` into `out` (six float64 fields per path, at index
 * `(i - from + outOffset) * 6`): kind code ({@link RawKind}), size (bytes), mtime and ctime
 * (ms since the epoch), inode, st_mode. `ENOENT`/`ENOTDIR` give `absent`; any other error
 * gives `error`. Synchronous: each call is a cheap metadata syscall, and the async libuv
 * round trip costs several times more per file (see STAT_BATCH in observe.ts).
 */
export function lstatInto(
  absPaths: readonly string[],
  from: number,
  to: number,
  out: Float64Array,
  outOffset: number,
): void {
  for (let i = from; i < to; i++) {
    const at = (i - from + outOffset) * RAW_STAT_FIELDS;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(absPaths[i] as string, { throwIfNoEntry: false });
    } catch (error) {
      out[at] =
        (error as NodeJS.ErrnoException).code === "ENOTDIR" ? RawKind.absent : RawKind.error;
      continue;
    }
    if (st === undefined) {
      out[at] = RawKind.absent;
      continue;
    }
    out[at] = st.isFile()
      ? RawKind.file
      : st.isSymbolicLink()
        ? RawKind.symlink
        : st.isDirectory()
          ? RawKind.directory
          : RawKind.special;
    out[at + 1] = st.size;
    out[at + 2] = st.mtimeMs;
    out[at + 3] = st.ctimeMs;
    out[at + 4] = st.ino;
    out[at + 5] = st.mode;
  }
}
