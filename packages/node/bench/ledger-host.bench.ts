/**
 * Ledger benchmark in a Node host (issue 17 item 6): observe N tool results into one
 * `MutationLedger` and read the effect digest, with the hasher a Node host injects
 * (`@turngate/native`, and `node:crypto` for the TypeScript path) against the pure core's
 * `@noble/hashes` default, in the same run. Target: native ≤ 0.5× the pure-TS time.
 *
 * Inputs are those of `packages/core/bench/ledger.bench.ts`: each tool result is a
 * successful `write` of a distinct path (shuffled) with a short `after`, as parsed JSON, so
 * every observation adds one row and computes one content digest. The timed region is the
 * `observeTool` calls plus one `digest` read; every run checks that all three ledgers give
 * the same digest. The three are timed back to back in a rotating order and the ratio is
 * taken per run (median over runs), so a shared machine skews them alike.
 *
 *   pnpm --filter @turngate/node exec tsx bench/ledger-host.bench.ts   (TURNGATE_BENCH_N=…)
 */
import { createRequire } from "node:module";
import { type ContentHasher, MutationLedger, NOBLE_CONTENT_HASHER } from "@turngate/core";
import { isMain } from "../../core/bench/lib/is-main.js";
import { NODE_CRYPTO_CONTENT_HASHER, nativeContentHasher } from "../src/native/content-hasher.js";
import type { NativeAddon } from "../src/native/select.js";

const N = Number(process.env.TURNGATE_BENCH_N ?? 100_000);
const RUNS = 7;
const TARGET = 0.5;

const addon = createRequire(import.meta.url)("@turngate/native") as NativeAddon;

function rng(seed: number): () => number {
  let v = seed >>> 0 || 1;
  return () => {
    v ^= v << 13;
    v ^= v >>> 17;
    v ^= v << 5;
    return (v >>> 0) / 0x100000000;
  };
}

interface ToolResult {
  tool: string;
  metadata: { file_path: string; after: string };
}

function toolResults(n: number): ToolResult[] {
  const random = rng(42);
  const results: ToolResult[] = Array.from({ length: n }, (_, i) => ({
    tool: "write",
    metadata: {
      file_path: `packages/pkg${i % 97}/src/module${Math.floor(i / 97)}/file${i}.ts`,
      after: `export const value${i} = ${i};\n`,
    },
  }));
  for (let i = results.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [results[i], results[j]] = [results[j] as ToolResult, results[i] as ToolResult];
  }
  return JSON.parse(JSON.stringify(results));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function timeLedger(inputs: readonly ToolResult[], hasher: ContentHasher): [number, string] {
  const start = performance.now();
  const ledger = new MutationLedger({ hasher });
  for (const r of inputs) ledger.observeTool(r.tool, 0, r.metadata);
  const digest = ledger.digest;
  return [performance.now() - start, digest];
}

/**
 * For `pnpm qualify` (profile native-vs-ts-v1, operation ledger): `subject()` times `n`
 * observeTool calls + one digest read with the native hasher, `reference()` the same with
 * the pure-TS (@noble/hashes) default, in ms; each run checks the digest equals the pure
 * path's. Throws when the addon is not built (the message names the reason).
 */
export function ledgerNativeWorkload(n = N): { subject: () => number; reference: () => number } {
  if (!addon.available) throw new Error(`@turngate/native is unavailable: ${addon.reason}`);
  const inputs = toolResults(n);
  const native = nativeContentHasher(addon);
  const [, expected] = timeLedger(inputs, NOBLE_CONTENT_HASHER);
  return {
    subject: () => {
      const [ms, digest] = timeLedger(inputs, native);
      if (digest !== expected) throw new Error("native hasher gives another digest");
      return ms;
    },
    reference: () => timeLedger(inputs, NOBLE_CONTENT_HASHER)[0],
  };
}

function main(): void {
  if (!addon.available) {
    console.error(`@turngate/native is unavailable: ${addon.reason}`);
    process.exit(1);
  }
  const hashers: Record<string, ContentHasher> = {
    pure: NOBLE_CONTENT_HASHER,
    native: nativeContentHasher(addon),
    "node:crypto": NODE_CRYPTO_CONTENT_HASHER,
  };
  const inputs = toolResults(N);
  const times: Record<string, number[]> = { pure: [], native: [], "node:crypto": [] };
  const ratios: Record<string, number[]> = { native: [], "node:crypto": [] };
  const names = Object.keys(hashers);
  for (let run = -1; run < RUNS; run++) {
    const order = names.map((_, i) => names[(i + Math.max(run, 0)) % names.length] as string);
    const got: Record<string, number> = {};
    let digest: string | undefined;
    for (const name of order) {
      const [ms, d] = timeLedger(inputs, hashers[name] as ContentHasher);
      if (digest !== undefined && d !== digest)
        throw new Error(`benchmark: ${name} gives another digest`);
      digest = d;
      got[name] = ms;
    }
    if (run < 0) continue; // warm-up
    for (const name of names) times[name]?.push(got[name] as number);
    ratios.native?.push((got.native as number) / (got.pure as number));
    ratios["node:crypto"]?.push((got["node:crypto"] as number) / (got.pure as number));
  }
  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log(
    `ledger in a Node host: ${N} observeTool calls + one digest read (${RUNS} runs, median)`,
  );
  console.log(`  reference: pure core (@noble/hashes) ${ms(median(times.pure ?? []))}`);
  console.log(
    `  native (@turngate/native) ${ms(median(times.native ?? []))}; node:crypto ${ms(median(times["node:crypto"] ?? []))}`,
  );
  const rn = median(ratios.native ?? []);
  console.log(
    `ratio: native ${rn.toFixed(2)}x the pure-TS path (target <= ${TARGET}x: ${rn <= TARGET ? "met" : "missed"}); node:crypto ${median(ratios["node:crypto"] ?? []).toFixed(2)}x`,
  );
}

if (isMain(import.meta.url)) main();
