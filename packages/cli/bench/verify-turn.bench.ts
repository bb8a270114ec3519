/**
 * The end of a turn, end to end (issue 33, first target): `turngate verify --check true`
 * (the built CLI, a real process) on a generated git repository of 20,000 tracked files of
 * 4 KiB with 50 of them changed since `turngate baseline`, in both isolation modes, against
 * the reference `git status --porcelain` + `node -e 0` on the same state, in the same run.
 * Each sample changes 50 other files and takes a new baseline first (not timed), so every
 * timed verify judges a fresh 50-file change; the clean room is warm after the warm-up.
 *
 *   pnpm --filter turngate exec tsx bench/verify-turn.bench.ts   (after ./scripts/dev setup)
 *
 * Environment: TG_BENCH_FILES (default 20000), TG_BENCH_SAMPLES (default 7). Prints every
 * sample, the min and median of each side and the ratios (target: at most 3x); exits 1 when
 * a verify does not end `verified`. Figures on a shared machine are noisy.
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMain } from "../../core/bench/lib/is-main.js";
import { runOk, timed } from "./lib/run.js";

const bin = join(dirname(fileURLToPath(import.meta.url)), "../dist/bin.js");
/** The isolation modes a verify can run its checks in. */
export type VerifyIsolation = "in-place" | "clean-room";

/**
 * A committed git repository of `files` files of `fileBytes` bytes each (default 4 KiB;
 * 100 per folder, `src/mod<i / 100>/file<i>.txt`) in a new temporary folder, git gc off and
 * `.turngate/` excluded (`.git/info/exclude`). Returns its absolute path. Throws when git
 * fails.
 */
export function createVerifyRepo(files: number, fileBytes = 4096): string {
  const repo = mkdtempSync(join(tmpdir(), "turngate-verify-bench-"));
  const body = Buffer.alloc(fileBytes, 97);
  for (let i = 0; i < files; i++) {
    const rel = `src/mod${Math.floor(i / 100)}/file${i}.txt`;
    if (i % 100 === 0) mkdirSync(join(repo, dirname(rel)), { recursive: true });
    writeFileSync(join(repo, rel), body);
  }
  runOk("git", ["init", "-q", "-b", "main", "."], repo);
  runOk("git", ["config", "gc.auto", "0"], repo);
  runOk("git", ["config", "maintenance.auto", "false"], repo);
  appendFileSync(join(repo, ".git", "info", "exclude"), ".turngate/\n");
  runOk("git", ["add", "-A"], repo);
  runOk("git", ["commit", "-q", "-m", "bench"], repo);
  return repo;
}

/**
 * Appends a line to 50 files of the {@link createVerifyRepo} repository `repo` of `files`
 * files, a different 50 for each `round` (0, 1, …) while 50 · round < files.
 */
export function changeFifty(repo: string, files: number, round: number): void {
  for (let k = 0; k < 50; k++) {
    const i = (round * 97 + k * 401) % files;
    appendFileSync(join(repo, `src/mod${Math.floor(i / 100)}/file${i}.txt`), `change ${round}\n`);
  }
}

/** The built CLI's entry point (packages/cli/dist/bin.js). */
export const TURNGATE_BIN = bin;

/**
 * For `pnpm qualify` (profile turn-verify-20k-v1) and this file's `main`: a committed git
 * repository of `files` files of 4 KiB ({@link createVerifyRepo}) in a new temporary folder.
 * `subject(isolation)` first (not timed) appends a line to 50 files not changed before and
 * runs `turngate baseline` beforehand, then times one `turngate verify --check true
 * --isolation <isolation>` and checks that it ended `verified` (throws with the output
 * otherwise); the clean room lives in `<repository>-rooms` (`TURNGATE_ROOM_DIR`). `reference()` times `git status --porcelain` + `node -e 0` on the same state.
 * All in ms. `cleanup()` removes the repository.
 */
export function verifyTurnWorkload(files: number): {
  subject: (isolation: VerifyIsolation) => number;
  reference: () => number;
  cleanup: () => void;
} {
  const repo = createVerifyRepo(files);
  // The clean room goes beside the repository, so cleanup removes it too.
  const rooms = `${repo}-rooms`;
  const roomEnv = { TURNGATE_ROOM_DIR: rooms };
  let next = 0;
  const change = () => {
    changeFifty(repo, files, next);
    next += 1;
  };
  return {
    subject: (isolation) => {
      runOk(process.execPath, [bin, "baseline"], repo, roomEnv);
      change();
      return timed(() => {
        const out = runOk(
          process.execPath,
          [bin, "verify", "--check", "true", "--isolation", isolation],
          repo,
          roomEnv,
        );
        if (!out.stdout.includes("verified: effect digest"))
          throw new Error(`not a verified turn:\n${out.stdout}`);
      });
    },
    reference: () =>
      timed(() => runOk("git", ["status", "--porcelain"], repo)) +
      timed(() => runOk(process.execPath, ["-e", "0"], repo)),
    cleanup: () => {
      rmSync(repo, { recursive: true, force: true });
      rmSync(rooms, { recursive: true, force: true });
    },
  };
}

function stats(values: number[]): { min: number; median: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { min: sorted[0] as number, median: sorted[Math.ceil(sorted.length / 2) - 1] as number };
}

function main(): void {
  const files = Number(process.env.TG_BENCH_FILES ?? 20_000);
  const samples = Number(process.env.TG_BENCH_SAMPLES ?? 7);
  console.log(`generating ${files} tracked files of 4 KiB`);
  const w = verifyTurnWorkload(files);
  try {
    // Warm-up (not timed): page cache, the clean room's first build.
    w.subject("in-place");
    w.subject("clean-room");
    w.reference();
    const t = {
      "in-place": [] as number[],
      "clean-room": [] as number[],
      reference: [] as number[],
    };
    for (let s = 0; s < samples; s++) {
      const steps: Array<[keyof typeof t, () => number]> = [
        ["in-place", () => w.subject("in-place")],
        ["clean-room", () => w.subject("clean-room")],
        ["reference", () => w.reference()],
      ];
      for (let i = 0; i < steps.length; i++) {
        const [name, step] = steps[(i + s) % steps.length] as [keyof typeof t, () => number];
        t[name].push(step());
      }
      console.log(
        `  sample ${s + 1}/${samples}: in-place ${t["in-place"][s]?.toFixed(0)} ms, clean room ${t["clean-room"][s]?.toFixed(0)} ms, git status + node -e 0 ${t.reference[s]?.toFixed(0)} ms`,
      );
    }
    const ref = stats(t.reference);
    for (const mode of ["in-place", "clean-room"] as const) {
      const own = stats(t[mode]);
      console.log(
        `verify ${mode}, ${files} files / 50 changed: median ${own.median.toFixed(0)} ms (${(own.median / ref.median).toFixed(2)}x), min ${own.min.toFixed(0)} ms (${(own.min / ref.min).toFixed(2)}x) against git status --porcelain + node -e 0 (median ${ref.median.toFixed(0)} ms, min ${ref.min.toFixed(0)} ms); target 3x`,
      );
    }
  } finally {
    w.cleanup();
  }
}

if (isMain(import.meta.url)) main();
