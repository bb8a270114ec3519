/**
 * Benchmark of the in-process git listing (issue 33 deliverable 1): `@turngate/native`'s
 * `gitListing` against the git calls it replaces, measured in the same run on one generated
 * repository of 20,000 committed files (the observer bench's generator) plus 200 untracked
 * files, 200 ignored `*.log` files and an ignored `build/` folder of 100 files.
 *
 * - subject: `addon.gitListing(root)` (the addon alone), and `nativeGitLists(...)` (the
 *   addon plus the decoding into the observer's `Listing` and ignored names);
 * - reference: the observer's two listings as it runs them today, `git ls-files -z -t
 *   --cached --others --exclude-standard` and `git ls-files -z --others --ignored
 *   --exclude-standard --directory` from one shell (`runGitPair`), and the first alone.
 *
 * Each sample times subject and reference back to back (order alternating), the ratio is
 * taken per sample and its median printed with the target beside it: the listing must cost
 * no more than the git calls it replaces (≤ 1.0×). Every sample checks that both give the
 * same names. CPU time (this process plus its waited-for children) is printed too.
 *
 *   pnpm --filter @turngate/node bench:git-listing
 *
 * Environment: TG_BENCH_FILES (default 20000), TG_BENCH_SAMPLES (default 9), TG_BENCH_KEEP=1
 * keeps the repository. Exits 1 only if a listing is wrong, not on a slow ratio.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMain } from "../../core/bench/lib/is-main.js";
import type { NativeAddon } from "../src/native/select.js";
import { type GitResult, runGit, runGitPair } from "../src/workspace/listing/git.js";
import { GIT_LIST_ARGS } from "../src/workspace/listing/git-list.js";
import { nativeGitLists } from "../src/workspace/listing/native-git-list.js";
import { GIT_IGNORED_ARGS } from "../src/workspace/scope/outside-listing.js";
import { createBenchRepo } from "./observer.bench.js";

const FILES = Number(process.env.TG_BENCH_FILES ?? 20_000);
const SAMPLES = Number(process.env.TG_BENCH_SAMPLES ?? 9);
const TARGET = 1.0;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] as number; // nearest-rank p50
}

/** CPU ms of this process (all threads) plus its waited-for children (see observer.bench.ts). */
function cpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const self = process.cpuUsage();
  return (self.user + self.system) / 1000 + (Number(fields[13]) + Number(fields[14])) * 10;
}

/** The sorted names of a NUL-terminated list (latin1: byte for byte). */
function sortedNames(bytes: Buffer, strip = 0): string[] {
  return bytes
    .toString("latin1")
    .split("\0")
    .filter((n) => n !== "")
    .map((n) => n.slice(strip))
    .sort();
}

async function main(): Promise<number> {
  const addon = createRequire(import.meta.url)("@turngate/native") as NativeAddon;
  if (!addon.available) {
    console.error(`@turngate/native is unavailable: ${addon.reason}`);
    return 1;
  }
  const repo = mkdtempSync(join(tmpdir(), "turngate-bench-git-listing-"));
  try {
    await createBenchRepo(repo, FILES, (line) => console.log(line));
    writeFileSync(join(repo, ".gitignore"), "*.log\nbuild/\n");
    mkdirSync(join(repo, "build"));
    for (let i = 0; i < 200; i++) {
      writeFileSync(join(repo, `pkg${i % 50}/src/new${i}.txt`), "untracked\n");
      writeFileSync(join(repo, `pkg${i % 50}/src/run${i}.log`), "ignored\n");
      if (i < 100) writeFileSync(join(repo, `build/out${i}.o`), "ignored\n");
    }
    const noFilter = () => false;
    const ms = {
      addon: [] as number[],
      lists: [] as number[],
      pair: [] as number[],
      one: [] as number[],
    };
    const cpu = { addon: [] as number[], pair: [] as number[] };
    let wrong = 0;
    const time = async <T>(fn: () => Promise<T>, into: number[], cpuInto?: number[]) => {
      const c = cpuMs();
      const start = performance.now();
      const out = await fn();
      into.push(performance.now() - start);
      cpuInto?.push(cpuMs() - c);
      return out;
    };
    for (let i = 0; i < SAMPLES + 1; i++) {
      const warmup = i === 0;
      const order = i % 2 === 0 ? ["native", "git"] : ["git", "native"];
      let native: Awaited<ReturnType<NativeAddon["gitListing"]>> | undefined;
      let pair: [GitResult, GitResult] | undefined;
      for (const side of order) {
        if (side === "native") {
          native = await time(() => addon.gitListing(repo), ms.addon, cpu.addon);
          await time(() => nativeGitLists(addon, repo, "", noFilter), ms.lists);
        } else {
          pair = await time(
            () => Promise.all(runGitPair([...GIT_LIST_ARGS], [...GIT_IGNORED_ARGS], repo)),
            ms.pair,
            cpu.pair,
          );
          await time(() => runGit([...GIT_LIST_ARGS], repo), ms.one);
        }
      }
      if (warmup) for (const list of [...Object.values(ms), ...Object.values(cpu)]) list.pop();
      if (native === undefined || pair === undefined || "fallback" in native) {
        console.error("the addon left the repository to git:", native);
        return 1;
      }
      const gitNames = sortedNames(pair[0].stdout, 2);
      const nativeNames = [
        ...sortedNames(native.tracked.names),
        ...sortedNames(native.untracked.names),
      ].sort();
      const same =
        JSON.stringify(gitNames) === JSON.stringify(nativeNames) &&
        JSON.stringify(sortedNames(pair[1].stdout)) ===
          JSON.stringify(sortedNames(native.ignored.names));
      if (!same) wrong++;
    }
    const ratios = ms.addon.map((a, i) => a / (ms.pair[i] as number));
    const listRatios = ms.lists.map((a, i) => a / (ms.pair[i] as number));
    const oneRatios = ms.addon.map((a, i) => a / (ms.one[i] as number));
    console.log(
      `${FILES} tracked + 200 untracked + 300 ignored files, ${SAMPLES} samples, p50 ms: gitListing ${median(ms.addon).toFixed(1)}, nativeGitLists ${median(ms.lists).toFixed(1)}; git ls-files pair (runGitPair) ${median(ms.pair).toFixed(1)}, cached+others alone ${median(ms.one).toFixed(1)}`,
    );
    console.log(
      `per-sample ratio gitListing / git pair: ${ratios.map((r) => r.toFixed(2)).join(" ")}`,
    );
    const r = median(ratios);
    console.log(
      `ratio (median): gitListing ${r.toFixed(2)}x the git pair (target <= ${TARGET}x: ${r <= TARGET ? "met" : "missed"}); nativeGitLists ${median(listRatios).toFixed(2)}x; gitListing ${median(oneRatios).toFixed(2)}x git ls-files --cached --others alone`,
    );
    console.log(
      `CPU p50: gitListing ${median(cpu.addon).toFixed(1)} ms, git pair ${median(cpu.pair).toFixed(1)} ms (ratio ${(median(cpu.addon) / median(cpu.pair)).toFixed(2)}x)`,
    );
    if (wrong > 0) {
      console.error(`${wrong} samples listed different names`);
      return 1;
    }
    return 0;
  } finally {
    if (process.env.TG_BENCH_KEEP === "1") console.log(`kept ${repo}`);
    else rmSync(repo, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) process.exitCode = await main();
