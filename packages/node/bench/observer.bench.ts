/**
 * Benchmark (issue 3 item 5): WorkspaceObserver.delta() with a warm stat cache against
 * `git status --porcelain`, on the same generated git repository in the same run.
 *
 *   pnpm --filter @turngate/node bench          # 20,000 files of 4 KiB (~80 MB), 50 changed
 *
 * Environment: TG_BENCH_FILES (default 20000), TG_BENCH_SAMPLES (default 9),
 * TG_BENCH_KEEP=1 keeps the temp repo. Prints per-sample times, p50s and the ratio; exits 1
 * only if the delta is wrong (not on a slow ratio: timings depend on the machine).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkspaceObserver } from "../src/workspace/index.js";

const FILES = Number(process.env.TG_BENCH_FILES ?? 20_000);
const SAMPLES = Number(process.env.TG_BENCH_SAMPLES ?? 9);
const FILE_BYTES = 4096;
const FILES_PER_DIR = 100;
const CHANGED = { modified: 40, added: 5, deleted: 5 };
const TARGET_RATIO = 1.5;

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
};

function run(cmd: string, args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: gitEnv, stdio: ["ignore", "ignore", "inherit"] });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(" ")} exited ${code}`)),
    );
  });
}

/** Deterministic printable content, so the repo is the same on every run. */
function content(i: number, salt = 0): string {
  let x = (i * 2654435761 + salt * 40503 + 1) >>> 0;
  const chars: string[] = [];
  for (let j = 0; j < FILE_BYTES - 1; j++) {
    x = (x * 1103515245 + 12345) >>> 0;
    chars.push(String.fromCharCode(97 + ((x >>> 16) % 26)));
  }
  return `${chars.join("")}\n`;
}

function filePath(i: number): string {
  return `pkg${Math.floor(i / FILES_PER_DIR)}/src/file${i}.txt`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] as number; // nearest-rank p50
}

async function timeIt(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function main(): Promise<number> {
  const repo = mkdtempSync(join(tmpdir(), "turngate-bench-"));
  const cleanup = (): void => {
    if (process.env.TG_BENCH_KEEP !== "1") rmSync(repo, { recursive: true, force: true });
  };
  process.once("SIGINT", () => {
    cleanup();
    process.exit(130);
  });
  try {
    console.log(`generating ${FILES} files of ${FILE_BYTES} bytes in ${repo}`);
    const started = performance.now();
    for (let i = 0; i < FILES; i++) {
      if (i % FILES_PER_DIR === 0)
        mkdirSync(join(repo, `pkg${i / FILES_PER_DIR}/src`), { recursive: true });
      writeFileSync(join(repo, filePath(i)), content(i));
      if ((i + 1) % 2000 === 0 || i + 1 === FILES) {
        const s = ((performance.now() - started) / 1000).toFixed(1);
        console.log(`  ${i + 1}/${FILES} files written (${s} s)`);
      }
    }
    console.log("git init + add + commit …");
    await run("git", ["init", "-q", "-b", "main", "."], repo);
    // No background auto-gc/maintenance: it would compete with the timings and the cleanup.
    await run("git", ["config", "gc.auto", "0"], repo);
    await run("git", ["config", "maintenance.auto", "false"], repo);
    await run("git", ["add", "-A"], repo);
    await run("git", ["commit", "-q", "-m", "bench"], repo);
    console.log(`  committed (${((performance.now() - started) / 1000).toFixed(1)} s in all)`);

    const observer = new WorkspaceObserver(repo);
    const cold = await timeIt(() => observer.baseline());
    console.log(`cold baseline (hashes every file): ${cold.toFixed(0)} ms`);

    for (let i = 0; i < CHANGED.modified; i++) {
      writeFileSync(join(repo, filePath(i * 397)), content(i * 397, 1));
    }
    for (let i = 0; i < CHANGED.added; i++)
      writeFileSync(join(repo, `pkg${i}/src/new${i}.txt`), content(i, 2));
    for (let i = 0; i < CHANGED.deleted; i++) unlinkSync(join(repo, filePath(i * 397 + 1)));
    const expected = CHANGED.modified + CHANGED.added + CHANGED.deleted;

    // Warm-up: fills the stat cache past the racy window and lets git refresh its index.
    const first = await observer.delta();
    await run("git", ["status", "--porcelain"], repo);
    const counts = { added: 0, modified: 0, deleted: 0 };
    for (const change of first.changes) counts[change.change]++;
    if (first.changes.length !== expected || !first.complete) {
      console.error(`delta is wrong: ${JSON.stringify(counts)}, complete=${first.complete}`);
      return 1;
    }
    console.log(`delta finds ${expected} changes: ${JSON.stringify(counts)}`);

    const deltaMs: number[] = [];
    const gitMs: number[] = [];
    for (let s = 0; s < SAMPLES; s++) {
      // Alternate the order so neither side always runs on a warmer cache.
      if (s % 2 === 0) {
        deltaMs.push(await timeIt(() => observer.delta()));
        gitMs.push(await timeIt(() => run("git", ["status", "--porcelain"], repo)));
      } else {
        gitMs.push(await timeIt(() => run("git", ["status", "--porcelain"], repo)));
        deltaMs.push(await timeIt(() => observer.delta()));
      }
      console.log(
        `  sample ${s + 1}/${SAMPLES}: delta ${deltaMs[s]?.toFixed(1)} ms, git status ${gitMs[s]?.toFixed(1)} ms`,
      );
    }
    const d = median(deltaMs);
    const g = median(gitMs);
    const ratio = d / g;
    console.log(`p50 delta (warm stat cache): ${d.toFixed(1)} ms`);
    console.log(`p50 git status --porcelain:  ${g.toFixed(1)} ms`);
    console.log(
      `ratio: ${ratio.toFixed(2)}x git status (target <= ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? "met" : "missed"})`,
    );
    return 0;
  } finally {
    cleanup();
  }
}

process.exitCode = await main();
