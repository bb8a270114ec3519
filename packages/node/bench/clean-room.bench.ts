/**
 * Clean-room benchmark (docs/design.md §3b; issue "Clean-room checks", Cost): on a committed
 * git workspace of N files (default 20,000 files of 4 KiB: 80 MiB), measure
 * - the room's **first build** (`CleanRoom.prepare` into an empty room: copy and hash every
 *   file, clone `.git` through `file://`, build the index) against `cp -a` of the same
 *   tree (the workspace without `.git`, and again with it), target ≤ 2× `cp -a`;
 * - the **incremental update** after 50 files changed (`CleanRoom.prepare` of the new
 *   snapshot into the built room: prune, prove every entry by lstat, copy 50, update the
 *   index) against `git status --porcelain` in the workspace, target ≤ 1.0×.
 * Each run times the room and its reference back to back (interleaved pairs); the ratio is
 * taken per run and the median and minimum are printed. Every incremental run checks that
 * the room holds the 50 new files' bytes.
 *
 * Run: pnpm --filter @turngate/node exec tsx bench/clean-room.bench.ts   (not a test)
 * TURNGATE_BENCH_N overrides N; TURNGATE_BENCH_RUNS the first builds (default 7);
 * TURNGATE_BENCH_PAIRS the incremental pairs (default 21: one pair takes ~0.3 s, and the
 * median of more pairs moves less with the machine's noise than the median of 7).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMain } from "../../core/bench/lib/is-main.js";
import { CleanRoom, readBaselineHead } from "../src/isolation/index.js";
import { WorkspaceObserver } from "../src/workspace/observer.js";

const N = Number(process.env.TURNGATE_BENCH_N ?? 20_000);
const RUNS = Number(process.env.TURNGATE_BENCH_RUNS ?? 7);
const PAIRS = Number(process.env.TURNGATE_BENCH_PAIRS ?? 21);
const CHANGED = 50;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function time(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

async function timeAsync(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

function makeWorkspace(n: number): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tg-bench-room-ws-")));
  const body = "x".repeat(4096 - 16);
  const made = new Set<string>();
  for (let i = 0; i < n; i += 1) {
    const dir = join(root, `pkg${i % 50}`, `mod${Math.floor(i / 500)}`);
    if (!made.has(dir)) mkdirSync(dir, { recursive: true });
    made.add(dir);
    writeFileSync(join(dir, `f${i}.ts`), `${String(i).padStart(15, "0")}\n${body}`);
  }
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.invalid", ...args], {
      cwd: root,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "--no-gpg-sign", "-m", "bench");
  return root;
}

export async function main(): Promise<void> {
  process.env.TURNGATE_ROOM_DIR ??= mkdtempSync(join(tmpdir(), "tg-bench-rooms-"));
  const ws = makeWorkspace(N);
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), "tg-bench-room-")));
  try {
    const head = await readBaselineHead(ws);
    const observer = new WorkspaceObserver(ws);
    const baseline = await observer.baseline();
    console.log(
      `clean room, ${N} files (${((N * 4096) / 2 ** 20).toFixed(0)} MiB), ${RUNS} first builds, ${PAIRS} incremental pairs`,
    );

    const first: number[] = [];
    const cpPlain: number[] = [];
    const cpGit: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const dir = join(scratch, `room${run}`);
      first.push(
        await timeAsync(async () => {
          const room = await CleanRoom.open(ws, dir);
          await room.prepare(baseline.entries, head);
          await room.close();
        }),
      );
      const target = join(scratch, `cp${run}`);
      mkdirSync(target);
      cpPlain.push(
        time(() => {
          spawnSync("sh", ["-c", `cd "${ws}" && cp -a $(ls -A | grep -v '^.git$') "${target}"`]);
        }),
      );
      cpGit.push(time(() => spawnSync("cp", ["-a", ws, join(scratch, `cpg${run}`)])));
      rmSync(target, { recursive: true, force: true });
      rmSync(join(scratch, `cpg${run}`), { recursive: true, force: true });
      if (run < RUNS - 1) rmSync(dir, { recursive: true, force: true });
    }
    const firstRatios = first.map((t, i) => t / (cpPlain[i] as number));
    const firstGitRatios = first.map((t, i) => t / (cpGit[i] as number));
    console.log(
      `first build: ${median(first).toFixed(0)} ms; cp -a (no .git) ${median(cpPlain).toFixed(0)} ms, cp -a (with .git) ${median(cpGit).toFixed(0)} ms`,
    );
    console.log(
      `  ratio to cp -a (no .git): median ${median(firstRatios).toFixed(2)}x, min ${Math.min(...firstRatios).toFixed(2)}x; with .git: median ${median(firstGitRatios).toFixed(2)}x (target <= 2x)`,
    );

    const roomDir = join(scratch, `room${RUNS - 1}`);
    // The first builds and copies leave ~0.5 GB of dirty pages: written back before the
    // incremental pairs, so that neither side pays for the other's writeback.
    spawnSync("sync");
    const incremental: number[] = [];
    const status: number[] = [];
    for (let run = 0; run < PAIRS; run += 1) {
      for (let i = 0; i < CHANGED; i += 1) {
        const n = (run * 97 + i * 389) % N;
        const path = join(ws, `pkg${n % 50}`, `mod${Math.floor(n / 500)}`, `f${n}.ts`);
        writeFileSync(path, `changed in run ${run} ${i}\n`);
      }
      const snapshot = await observer.snapshot();
      const room = await CleanRoom.open(ws, roomDir);
      incremental.push(
        await timeAsync(() => room.prepare(snapshot.entries, head).then(() => undefined)),
      );
      await room.close();
      status.push(
        time(() => spawnSync("git", ["status", "--porcelain"], { cwd: ws, stdio: "ignore" })),
      );
      const probe = (run * 97) % N;
      const rel = `pkg${probe % 50}/mod${Math.floor(probe / 500)}/f${probe}.ts`;
      if (
        readFileSync(join(roomDir, "tree", rel), "utf8") !== readFileSync(join(ws, rel), "utf8")
      ) {
        throw new Error(`the room does not hold the new bytes of ${rel}`);
      }
    }
    const incRatios = incremental.map((t, i) => t / (status[i] as number));
    console.log(
      `incremental update (${CHANGED} changed): ${median(incremental).toFixed(1)} ms; git status --porcelain ${median(status).toFixed(1)} ms`,
    );
    console.log(
      `  ratio: median ${median(incRatios).toFixed(2)}x, min ${Math.min(...incRatios).toFixed(2)}x (target <= 1.0x)`,
    );
  } finally {
    rmSync(ws, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await main();
