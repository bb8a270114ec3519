/**
 * Benchmarks of the result cache (issue 20 item 5), each against a reference measured in
 * the same run on the same generated repository (20,000 files of 4 KiB, committed; the
 * observer bench's generator `createBenchRepo`), with 50 files changed as in a turn:
 *
 * 1. Key computation: `cacheKeyContext` (tree from the baseline tree + the 50 changed
 *    paths via a temporary index, lockfiles, os/arch, out-of-scope rows) + `checkCacheKey`,
 *    against `git status --porcelain` on the same work tree. Target ≤ 1.5×. For
 *    information, the full `sourceTreeId` (hashes every file) is printed too.
 * 2. A hit: `ResultCache.lookup` of a signed local entry (read, DSSE signature check,
 *    payload validation) against running the check `true` with `runShellCommand`.
 *
 *   pnpm --filter @turngate/node exec tsx bench/cache-key.bench.ts
 *
 * Environment: TG_BENCH_FILES (default 20000), TG_BENCH_SAMPLES (default 9). Prints every
 * sample, the p50s and the ratios; exits 1 only when a result is wrong (the incremental
 * tree differs from `sourceTreeId`, or the hit is not accepted), never on a slow ratio.
 */
import { execFile } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { isMain } from "../../core/bench/lib/is-main.js";
import {
  CACHED_CHECK_SCHEMA,
  cacheKeyContext,
  checkCacheKey,
  keyIdOf,
  ResultCache,
  runShellCommand,
  sourceTreeId,
} from "../src/index.js";
import { createBenchRepo } from "./observer.bench.js";

const FILES = Number(process.env.TG_BENCH_FILES ?? 20_000);
const SAMPLES = Number(process.env.TG_BENCH_SAMPLES ?? 9);
const CHANGED = 50;
const TARGET = 1.5;
const run = promisify(execFile);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] as number;
};
async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function main(): Promise<number> {
  const repo = mkdtempSync(join(tmpdir(), "turngate-cache-bench-"));
  const state = mkdtempSync(join(tmpdir(), "turngate-cache-bench-state-"));
  try {
    await createBenchRepo(repo, FILES, (line) => console.log(line));
    writeFileSync(join(repo, "package-lock.json"), '{"lockfileVersion":3}\n');
    const base = await sourceTreeId(repo);
    if (base.tree === null) throw new Error(`no baseline tree: ${base.reason}`);
    const changes = Array.from({ length: CHANGED }, (_, i) => {
      const n = i * Math.floor(FILES / CHANGED);
      const path = `pkg${Math.floor(n / 100)}/src/file${n}.txt`;
      writeFileSync(join(repo, path), `changed ${i}\n`);
      return { path, change: "modified" as const, scope: "source", content_digest: "" };
    });
    const command = {
      id: "unit",
      kind: "test",
      description: "unit",
      command: "npm test",
      required: true,
      expect_exit: 0,
    };
    const keyNow = async () => {
      const gathered = await cacheKeyContext({
        root: repo,
        baselineTree: base.tree,
        changes,
        records: [],
        turngate: "bench",
      });
      if (gathered.context === null) throw new Error(gathered.reason);
      return checkCacheKey(gathered.context, command, { shell: "bash" });
    };
    const full = await sourceTreeId(repo);
    const context = await cacheKeyContext({
      root: repo,
      baselineTree: base.tree,
      changes,
      records: [],
      turngate: "bench",
    });
    if (context.context?.base.tree !== full.tree) {
      console.error(`wrong tree: incremental ${context.context?.base.tree} vs full ${full.tree}`);
      return 1;
    }
    const keySamples: number[] = [];
    const statusSamples: number[] = [];
    const fullSamples: number[] = [];
    await run("git", ["status", "--porcelain"], { cwd: repo, maxBuffer: 1 << 26 }); // warm
    for (let i = 0; i < SAMPLES; i++) {
      statusSamples.push(
        await time(() => run("git", ["status", "--porcelain"], { cwd: repo, maxBuffer: 1 << 26 })),
      );
      keySamples.push(await time(keyNow));
      if (i < 3) fullSamples.push(await time(() => sourceTreeId(repo)));
    }
    const key = await keyNow();

    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const signingKey = { privateKey, publicKey, keyid: keyIdOf(publicKey), source: "env" as const };
    const cache = new ResultCache({
      stateDir: state,
      read: true,
      upload: false,
      trusted: [],
      signingKey,
    });
    await cache.store(
      key,
      {
        schema: CACHED_CHECK_SCHEMA,
        key,
        check: { id: "unit", kind: "test", description: "unit", status: "passed", required: true },
        exit_code: 0,
        duration_ms: 1,
        log: { sha256: "", bytes: 0, excerpt: "", excerpt_truncated: false },
        created_at: new Date().toISOString(),
        turngate: "bench",
      },
      "unit",
    );
    const hitSamples: number[] = [];
    const trueSamples: number[] = [];
    for (let i = 0; i < SAMPLES * 3; i++) {
      trueSamples.push(await time(() => runShellCommand("true", { cwd: repo, timeoutMs: 10_000 })));
      hitSamples.push(
        await time(async () => {
          if ((await cache.lookup(key, "unit")) === undefined) throw new Error("hit not accepted");
        }),
      );
    }
    const p = (xs: number[]) => median(xs).toFixed(1);
    console.log(`git status --porcelain ms: ${statusSamples.map((x) => x.toFixed(0)).join(" ")}`);
    console.log(`cache key ms:              ${keySamples.map((x) => x.toFixed(0)).join(" ")}`);
    console.log(`full sourceTreeId ms:      ${fullSamples.map((x) => x.toFixed(0)).join(" ")}`);
    const keyRatio = median(keySamples) / median(statusSamples);
    console.log(
      `key p50 ${p(keySamples)} ms / git status p50 ${p(statusSamples)} ms = ${keyRatio.toFixed(2)}x (target <= ${TARGET}x: ${keyRatio <= TARGET ? "met" : "missed"}); full sourceTreeId p50 ${p(fullSamples)} ms = ${(median(fullSamples) / median(statusSamples)).toFixed(2)}x`,
    );
    console.log(
      `hit p50 ${median(hitSamples).toFixed(2)} ms / run \`true\` p50 ${median(trueSamples).toFixed(2)} ms = ${(median(hitSamples) / median(trueSamples)).toFixed(2)}x`,
    );
    return 0;
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
