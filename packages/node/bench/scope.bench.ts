/**
 * Benchmark (issue 10 item "benchmark"): WorkspaceObserver.delta() on a git repository with
 * 20,000 tracked files and 100,000 ignored files (a `node_modules`-like tree), 50 changed
 * paths per round, against `git status --porcelain --ignored=traditional -uall` (which
 * lists every ignored file) on the same tree in the same run; and, first, the existing
 * 20,000-file figure (the same repository before `node_modules/` exists) against
 * `git status --porcelain`, so both are printed side by side.
 *
 *   pnpm --filter @turngate/node exec tsx bench/scope.bench.ts
 *
 * Environment: TG_BENCH_SAMPLES (default 5), TG_BENCH_KEEP=1 keeps the temp repo. Exits 1
 * only when a delta is wrong (never on a slow ratio: timings depend on the machine).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMain } from "../../core/bench/lib/is-main.js";
import { WorkspaceObserver } from "../src/workspace/index.js";

const TRACKED = Number(process.env.TG_BENCH_TRACKED ?? 20_000);
const IGNORED = Number(process.env.TG_BENCH_IGNORED ?? 100_000);
const SAMPLES = Number(process.env.TG_BENCH_SAMPLES ?? 5);
const TARGET_RATIO = 1.5;
const CHANGED = { modified: 40, added: 5, deleted: 5 };

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "bench@example.invalid",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "bench@example.invalid",
};

function run(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd, env: gitEnv, stdio: ["ignore", "ignore", "inherit"] });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`git ${args.join(" ")} exited ${code}`)),
    );
  });
}

function content(i: number, salt: number, bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  let x = (i * 2654435761 + salt * 40503 + 1) >>> 0;
  for (let j = 0; j < bytes - 1; j++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[j] = 97 + ((x >>> 16) % 26);
  }
  out[bytes - 1] = 10;
  return out;
}

const tracked = (i: number): string => `pkg${Math.floor(i / 100)}/src/file${i}.txt`;
// node_modules-like: 2,000 packages × (package.json + 4 folders × 12 files + index.js).
const ignored = (i: number): string => {
  const pkg = Math.floor(i / 50);
  const k = i % 50;
  if (k === 0) return `node_modules/p${pkg}/package.json`;
  if (k === 49) return `node_modules/p${pkg}/index.js`;
  return `node_modules/p${pkg}/d${(k - 1) % 4}/f${k}.js`;
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] as number;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

async function main(): Promise<number> {
  const repo = mkdtempSync(join(tmpdir(), "turngate-scope-bench-"));
  try {
    const started = performance.now();
    for (let i = 0; i < TRACKED; i++) {
      if (i % 100 === 0) mkdirSync(join(repo, `pkg${i / 100}/src`), { recursive: true });
      writeFileSync(join(repo, tracked(i)), content(i, 0, 4096));
    }
    writeFileSync(join(repo, ".gitignore"), "node_modules/\n");
    await run(["init", "-q", "-b", "main", "."], repo);
    await run(["config", "gc.auto", "0"], repo);
    await run(["config", "maintenance.auto", "false"], repo);
    await run(["add", "-A"], repo);
    await run(["commit", "-q", "-m", "bench"], repo);
    console.log(
      `${TRACKED} tracked files committed (${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );

    const modified = Array.from({ length: CHANGED.modified }, (_, i) => tracked(i * 397));
    const deleted = Array.from({ length: CHANGED.deleted }, (_, i) => tracked(i * 397 + 1));
    let added: string[] = [];
    const applyChanges = (round: number): void => {
      modified.forEach((rel, i) => {
        writeFileSync(join(repo, rel), content(i, round + 1, 4096));
      });
      for (const rel of added) unlinkSync(join(repo, rel));
      added = Array.from({ length: CHANGED.added }, (_, i) => `pkg${i}/src/new-r${round}-${i}.txt`);
      added.forEach((rel, i) => {
        writeFileSync(join(repo, rel), content(i, round + 100, 4096));
      });
    };

    const phase = async (label: string, gitArgs: string[]): Promise<number | undefined> => {
      const observer = new WorkspaceObserver(repo);
      const base = await time(() => observer.baseline());
      console.log(`${label}: baseline ${base.toFixed(0)} ms`);
      for (const rel of deleted) unlinkSync(join(repo, rel));
      applyChanges(0);
      await observer.delta(); // warm-up, not timed
      await run(gitArgs, repo);
      const deltaMs: number[] = [];
      const gitMs: number[] = [];
      for (let s = 0; s < SAMPLES; s++) {
        applyChanges(s + 1);
        let delta: Awaited<ReturnType<typeof observer.delta>> | undefined;
        const d = () =>
          time(async () => {
            delta = await observer.delta();
          }).then((ms) => deltaMs.push(ms));
        const g = () => time(() => run(gitArgs, repo)).then((ms) => gitMs.push(ms));
        if (s % 2 === 0) await d().then(g);
        else await g().then(d);
        const counts = { added: 0, modified: 0, deleted: 0 };
        for (const c of delta?.changes ?? []) counts[c.change]++;
        if (
          delta?.complete !== true ||
          counts.added !== CHANGED.added ||
          counts.modified !== CHANGED.modified ||
          counts.deleted !== CHANGED.deleted ||
          delta.changes.some((c) => c.scope !== "source")
        ) {
          console.error(
            `${label} round ${s + 1}: wrong delta ${JSON.stringify(counts)} ${JSON.stringify(delta?.changes.filter((c) => c.scope !== "source"))}`,
          );
          return undefined;
        }
      }
      const d = median(deltaMs);
      const g = median(gitMs);
      console.log(
        `${label}: p50 delta ${d.toFixed(1)} ms, p50 git ${gitArgs.join(" ")} ${g.toFixed(1)} ms, ratio ${(d / g).toFixed(2)}x (target <= ${TARGET_RATIO}x: ${d / g <= TARGET_RATIO ? "met" : "missed"})`,
      );
      // Put the deleted files back for the next phase.
      for (const rel of deleted) writeFileSync(join(repo, rel), content(0, 7, 4096));
      await run(["checkout", "-q", "--", "."], repo);
      for (const rel of added) unlinkSync(join(repo, rel));
      added = [];
      return d / g;
    };

    const plain = await phase(`${TRACKED} tracked`, ["status", "--porcelain"]);
    if (plain === undefined) return 1;

    const genStart = performance.now();
    for (let i = 0; i < IGNORED; i++) {
      const rel = ignored(i);
      if (i % 50 === 0) {
        for (let d = 0; d < 4; d++)
          mkdirSync(join(repo, `node_modules/p${i / 50}/d${d}`), { recursive: true });
      }
      writeFileSync(join(repo, rel), content(i, 3, 256));
    }
    console.log(
      `${IGNORED} ignored files written (${((performance.now() - genStart) / 1000).toFixed(1)} s)`,
    );
    const withIgnored = await phase(`${TRACKED} tracked + ${IGNORED} ignored`, [
      "status",
      "--porcelain",
      "--ignored=traditional",
      "-uall",
    ]);
    if (withIgnored === undefined) return 1;
    console.log(
      `summary: ${TRACKED} tracked ${plain.toFixed(2)}x git status; + ${IGNORED} ignored ${withIgnored.toFixed(2)}x git status --ignored=traditional -uall`,
    );
    return 0;
  } finally {
    if (process.env.TG_BENCH_KEEP !== "1") rmSync(repo, { recursive: true, force: true });
  }
}

/** A timed workload: one sample of each side in ms, and a cleanup. */
export interface ScopeWorkload {
  subject: () => Promise<number>;
  reference: () => Promise<number>;
  cleanup: () => void;
}

/**
 * For `pnpm qualify` (profile observer-ignored-100k-v1): this bench's second phase as a
 * workload. A committed repository of `trackedFiles` 4 KiB files plus `ignoredFiles` 256-byte
 * files in an ignored `node_modules/`, a baselined observer; `subject()` changes 50 source
 * paths (40 modified, 5 added, 5 deleted, not timed) and times `observer.delta()` (ms; its
 * counts and scopes checked, throws on a wrong delta), `reference()` times
 * `git status --porcelain --ignored=traditional -uall` on the same state.
 */
export async function observerIgnoredWorkload(
  trackedFiles = TRACKED,
  ignoredFiles = IGNORED,
): Promise<ScopeWorkload> {
  const repo = mkdtempSync(join(tmpdir(), "turngate-qualify-ignored-"));
  for (let i = 0; i < trackedFiles; i++) {
    if (i % 100 === 0) mkdirSync(join(repo, `pkg${i / 100}/src`), { recursive: true });
    writeFileSync(join(repo, tracked(i)), content(i, 0, 4096));
  }
  writeFileSync(join(repo, ".gitignore"), "node_modules/\n");
  for (const args of [
    ["init", "-q", "-b", "main", "."],
    ["config", "gc.auto", "0"],
    ["config", "maintenance.auto", "false"],
    ["add", "-A"],
    ["commit", "-q", "-m", "bench"],
  ])
    await run(args, repo);
  for (let i = 0; i < ignoredFiles; i++) {
    if (i % 50 === 0)
      for (let d = 0; d < 4; d++)
        mkdirSync(join(repo, `node_modules/p${i / 50}/d${d}`), { recursive: true });
    writeFileSync(join(repo, ignored(i)), content(i, 3, 256));
  }
  const observer = new WorkspaceObserver(repo);
  await observer.baseline();
  const modified = Array.from({ length: CHANGED.modified }, (_, i) =>
    tracked((i * 397) % trackedFiles),
  );
  for (let i = 0; i < CHANGED.deleted; i++)
    unlinkSync(join(repo, tracked((i * 397 + 1) % trackedFiles)));
  let added: string[] = [];
  let round = 0;
  const gitArgs = ["status", "--porcelain", "--ignored=traditional", "-uall"];
  return {
    subject: async () => {
      round++;
      modified.forEach((rel, i) => {
        writeFileSync(join(repo, rel), content(i, round + 1, 4096));
      });
      for (const rel of added) unlinkSync(join(repo, rel));
      added = Array.from({ length: CHANGED.added }, (_, i) => `pkg${i}/src/new-r${round}-${i}.txt`);
      added.forEach((rel, i) => {
        writeFileSync(join(repo, rel), content(i, round + 100, 4096));
      });
      let delta: Awaited<ReturnType<typeof observer.delta>> | undefined;
      const ms = await time(async () => {
        delta = await observer.delta();
      });
      const counts = { added: 0, modified: 0, deleted: 0 };
      for (const c of delta?.changes ?? []) counts[c.change]++;
      if (
        delta?.complete !== true ||
        counts.added !== CHANGED.added ||
        counts.modified !== CHANGED.modified ||
        counts.deleted !== CHANGED.deleted ||
        delta.changes.some((c) => c.scope !== "source")
      )
        throw new Error(`wrong delta ${JSON.stringify(counts)}`);
      return ms;
    },
    reference: () => time(() => run(gitArgs, repo)),
    cleanup: () => rmSync(repo, { recursive: true, force: true }),
  };
}

if (isMain(import.meta.url)) process.exitCode = await main();
