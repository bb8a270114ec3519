/**
 * End-to-end workloads of `pnpm qualify` built on the CLI's benchmarks
 * (packages/cli/bench/verify-turn.bench.ts's repository and change, noop-turn.bench.ts's
 * no-op turn): peak memory of `turngate baseline` / `verify` (memory-100k-v1,
 * memory-300k-v1), a cold `turngate baseline` against openssl (turn-baseline-20k-v1) and the
 * no-op `run` on an empty and a 20,000-file repository (turn-noop-20k-v1).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runOk, timed } from "../../packages/cli/bench/lib/run.js";
import { noopTurnWorkload } from "../../packages/cli/bench/noop-turn.bench.js";
import {
  changeFifty,
  createVerifyRepo,
  TURNGATE_BIN,
} from "../../packages/cli/bench/verify-turn.bench.js";
import { peakRssOk } from "./peak-rss.js";
import type { MemoryOperation, Operation } from "./profiles.js";

const node = process.execPath;

/**
 * Peak memory of `turngate baseline` and `turngate verify` (in place, `--check true`) on one
 * committed repository of `files` files of `fileBytes` bytes, each sample's figure the peak
 * RSS in bytes of the largest single process of the command (scripts/qualify/peak-rss.ts),
 * against `git status --porcelain`'s on the same repository and state. `baseline` runs with
 * a fresh `--state-dir` each sample (every file hashed: the cold, largest case); `verify`
 * takes a baseline first (not measured) in its own state folder, changes 50 files, and
 * checks that the verify ended `verified` (throws with its output otherwise).
 * `cleanup()` removes the repository and the state folders.
 */
export function memoryWorkload(
  files: number,
  fileBytes: number,
): { memory: Record<string, MemoryOperation>; cleanup: () => void } {
  const repo = createVerifyRepo(files, fileBytes);
  const scratch = mkdtempSync(join(tmpdir(), "turngate-qualify-memory-"));
  const env = { ...process.env, XDG_STATE_HOME: join(scratch, "xdg") };
  let round = 0;
  let sample = 0;
  const gitStatus = () => peakRssOk("git", ["status", "--porcelain"], repo, env).peakRssBytes;
  return {
    memory: {
      baseline: {
        files,
        budgetRatio: null,
        subject: () => {
          const state = join(scratch, `baseline-${sample++}`);
          try {
            return peakRssOk(node, [TURNGATE_BIN, "baseline", "--state-dir", state], repo, env)
              .peakRssBytes;
          } finally {
            rmSync(state, { recursive: true, force: true });
          }
        },
        reference: gitStatus,
      },
      verify: {
        files,
        budgetRatio: null,
        subject: () => {
          const state = join(scratch, `verify-${sample++}`);
          try {
            runOk(node, [TURNGATE_BIN, "baseline", "--state-dir", state], repo, {
              XDG_STATE_HOME: join(scratch, "xdg"),
            });
            changeFifty(repo, files, round++);
            const run = peakRssOk(
              node,
              [
                TURNGATE_BIN,
                "verify",
                "--check",
                "true",
                "--isolation",
                "in-place",
                "--state-dir",
                state,
              ],
              repo,
              env,
            );
            if (!run.stdout.includes("verified: effect digest"))
              throw new Error(`not a verified turn:\n${run.stdout}`);
            return run.peakRssBytes;
          } finally {
            rmSync(state, { recursive: true, force: true });
          }
        },
        reference: gitStatus,
      },
    },
    cleanup: () => {
      rmSync(repo, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * `turngate baseline` end to end (the built CLI, a real process) with a fresh `--state-dir`
 * each sample, so every file is hashed, on a committed repository of `files` files of 4 KiB
 * (20,000: 80 MB), against `git ls-files -z | xargs -0 -P 2 -n ⌈files/2⌉ openssl dgst
 * -sha256` (two batches, as observer.bench.ts's cold reference on 2 cores) + `node -e 0`, on
 * the same repository in the same run. Both in ms. Throws when a command fails.
 */
export function baselineTurnWorkload(files: number): Operation & { cleanup: () => void } {
  const repo = createVerifyRepo(files);
  const scratch = mkdtempSync(join(tmpdir(), "turngate-qualify-baseline-"));
  const xdg = { XDG_STATE_HOME: join(scratch, "xdg") };
  let sample = 0;
  const openssl = `git ls-files -z | xargs -0 -P 2 -n ${Math.ceil(files / 2)} openssl dgst -sha256 > /dev/null`;
  return {
    budgetRatio: 1.5,
    subject: () => {
      const state = join(scratch, `state-${sample++}`);
      try {
        return timed(() =>
          runOk(node, [TURNGATE_BIN, "baseline", "--state-dir", state], repo, xdg),
        );
      } finally {
        rmSync(state, { recursive: true, force: true });
      }
    },
    reference: () =>
      timed(() => runOk("sh", ["-c", openssl], repo)) + timed(() => runOk(node, ["-e", "0"], repo)),
    cleanup: () => {
      rmSync(repo, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * The no-op `turngate run --check true -- true` (noop-turn.bench.ts's workload: the turn
 * must end narrative) on an empty repository (`git init`, nothing committed) and on a
 * committed one of `files` files of 4 KiB, each against `git status --porcelain` + `node -e
 * 0` in the same repository, in ms, with budget `budgetRatio`. `cleanup()` removes both.
 */
export function noopRunWorkloads(
  files: number,
  budgetRatio: number,
): { operations: Record<string, Operation>; cleanup: () => void } {
  const empty = mkdtempSync(join(tmpdir(), "turngate-qualify-noop-empty-"));
  const init = spawnSync("git", ["init", "-q"], { cwd: empty });
  if (init.status !== 0) throw new Error(`git init failed: ${init.stderr}`);
  const full = createVerifyRepo(files);
  const scratch = mkdtempSync(join(tmpdir(), "turngate-qualify-noop-"));
  const xdg = { XDG_STATE_HOME: join(scratch, "xdg") };
  return {
    operations: {
      "run-noop-empty": { ...noopTurnWorkload(empty, xdg), budgetRatio },
      [`run-noop-${files / 1000}k`]: { ...noopTurnWorkload(full, xdg), budgetRatio },
    },
    cleanup: () => {
      for (const dir of [empty, full, scratch]) rmSync(dir, { recursive: true, force: true });
    },
  };
}
