/**
 * Code-index benchmark (issue 15): a synthetic TypeScript repository of N files (default
 * 10,000) in 20 workspace packages, shaped like real code (a few hubs, many leaves): file i
 * of a package imports file ⌊(i−1)/3⌋ (a tree of fan-out 3), one in three also a random
 * earlier file (relative, `.js` specifiers as NodeNext writes them), and one in five a
 * module of an earlier package by name (`@bench/pK/mJ` through package `exports`);
 * committed to git.
 *
 * 1. Cold build: `WorkspaceObserver.snapshot()` + `CodeIndex.build` (listing, SHA-256,
 *    FNV-1a 64, oxc-parser, resolution) against the reference `git ls-files -z` + reading
 *    and SHA-256-hashing the same bytes, measured in the same run.
 * 2. Incremental update after 50 changed files: `observer.delta()` + `index.update(delta)`
 *    against the delta alone (target ≤ 1.3×).
 * 3. `affectedTargets` (fallback through the index, transitive, with via) for 50 changed
 *    files (target ≤ 50 ms) against a plain BFS over the same importer lists; both must
 *    reach the same files.
 * Also prints oxc-parser's load time and per-file parse time against TypeScript's
 * `preProcessFile` (load + parse) on the same sources.
 *
 * Run: pnpm --filter @turngate/node bench:code-index (prints ms and ratios; not a test).
 * TURNGATE_BENCH_N overrides N; TURNGATE_BENCH_RUNS the runs (default 5).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMain } from "../../core/bench/lib/is-main.js";
import { affectedTargets, CodeIndex, WorkspaceObserver } from "../src/index.js";

const N = Number(process.env.TURNGATE_BENCH_N ?? 10_000);
const RUNS = Number(process.env.TURNGATE_BENCH_RUNS ?? 5);
const PACKAGES = 20;

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const fmt = (x: number) => x.toFixed(1);

function makeRepo(n = N): { root: string; files: string[] } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tg-bench-index-")));
  const random = rng(7);
  const perPkg = Math.ceil(n / PACKAGES);
  const files: string[] = [];
  for (let p = 0; p < PACKAGES; p++) {
    const dir = join(root, "packages", `p${p}`);
    mkdirSync(join(dir, "src"), { recursive: true });
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: `@bench/p${p}`, exports: { "./*": "./src/*.ts" } }),
    );
    for (let i = 0; i < perPkg && files.length < n; i++) {
      const lines: string[] = [];
      if (i > 0) {
        const parent = Math.floor((i - 1) / 3);
        lines.push(`import { v${parent} as a0 } from "./m${parent}.js";`);
        if (random() < 0.3) {
          const j = Math.floor(random() * i);
          if (j !== parent) lines.push(`import { v${j} as a1 } from "./m${j}.js";`);
        }
      }
      if (p > 0 && random() < 0.2) {
        const q = Math.floor(random() * p);
        lines.push(`import type { T } from "@bench/p${q}/m${Math.floor(random() * perPkg)}";`);
      }
      lines.push(
        `export interface T { x: number }`,
        `export const v${i}: number = ${i};`,
        `export function f${i}(x: T): number { return x.x + ${i}; }`,
      );
      const rel = `packages/p${p}/src/m${i}.ts`;
      writeFileSync(join(root, rel), `${lines.join("\n")}\n`);
      files.push(rel);
    }
  }
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.invalid", ...args], {
      cwd: root,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "--no-gpg-sign", "-m", "base");
  return { root, files };
}

function referenceCold(root: string): number {
  const t0 = performance.now();
  const list = execFileSync("git", ["ls-files", "-z"], { cwd: root, maxBuffer: 1 << 28 })
    .toString("utf8")
    .split("\0")
    .filter(Boolean);
  for (const p of list)
    createHash("sha256")
      .update(readFileSync(join(root, p)))
      .digest("hex");
  return performance.now() - t0;
}

function plainBfs(
  importers: (p: string) => readonly string[] | undefined,
  start: readonly string[],
): Set<string> {
  const seen = new Set(start);
  const queue = [...start];
  for (let i = 0; i < queue.length; i++) {
    for (const q of importers(queue[i] as string) ?? []) {
      if (!seen.has(q)) {
        seen.add(q);
        queue.push(q);
      }
    }
  }
  return seen;
}

/**
 * For `pnpm qualify` (profile affected-targets-10k-v1): this bench's repository of `n` files,
 * baselined and indexed once (not timed); `subject()` times `affectedTargets` (through the
 * index, transitive, with via) for 50 changed files (a fixed seed), `reference()` a plain BFS
 * over the same importer lists, in ms; each subject checks both reach the same files (throws
 * if not). `cleanup()` closes the observer and removes the repository.
 */
export async function affectedTargetsWorkload(n = N): Promise<{
  subject: () => Promise<number>;
  reference: () => number;
  cleanup: () => void;
}> {
  const { root, files } = makeRepo(n);
  const observer = new WorkspaceObserver(root);
  const index = await CodeIndex.build(root, await observer.baseline());
  const random = rng(100);
  const changed = [
    ...new Set(
      Array.from({ length: 50 }, () => files[Math.floor(random() * files.length)] as string),
    ),
  ];
  const bfs = plainBfs((p) => index.importers(p), changed);
  return {
    subject: async () => {
      const a0 = performance.now();
      const fact = await affectedTargets(changed, [], { root, codeIndex: index });
      const ms = performance.now() - a0;
      const reached = new Set(fact.targets.map((x) => x.id.slice("file:".length)));
      if (reached.size !== bfs.size || [...bfs].some((p) => !reached.has(p)))
        throw new Error(`affectedTargets reached ${reached.size} files, the plain BFS ${bfs.size}`);
      return ms;
    },
    reference: () => {
      const b0 = performance.now();
      plainBfs((p) => index.importers(p), changed);
      return performance.now() - b0;
    },
    cleanup: () => {
      void observer.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const { root, files } = makeRepo();
  console.log(`code-index bench: ${files.length} files in ${PACKAGES} packages (${root})`);
  try {
    // oxc-parser against TypeScript's preProcessFile, on 500 of the sources.
    const sample = files
      .slice(0, 500)
      .map((p) => [p, readFileSync(join(root, p), "utf8")] as const);
    let t = performance.now();
    const { parseSync } = await import("oxc-parser");
    const oxcLoad = performance.now() - t;
    t = performance.now();
    for (const [p, s] of sample) parseSync(p, s).module.staticImports.length;
    const oxcParse = (performance.now() - t) / sample.length;
    t = performance.now();
    const ts = (await import("typescript")).default;
    const tsLoad = performance.now() - t;
    t = performance.now();
    for (const [, s] of sample) ts.preProcessFile(s, true, true).importedFiles.length;
    const tsParse = (performance.now() - t) / sample.length;
    console.log(
      `parser load: oxc-parser ${fmt(oxcLoad)} ms, typescript ${fmt(tsLoad)} ms; per file: oxc ${(oxcParse * 1000).toFixed(0)} µs, preProcessFile ${(tsParse * 1000).toFixed(0)} µs`,
    );

    const cold: number[] = [];
    const inc: number[] = [];
    const aff: number[] = [];
    const affRatio: number[] = [];
    let lastIndex: CodeIndex | undefined;
    for (let run = 0; run < RUNS; run++) {
      const ref = referenceCold(root);
      const observer = new WorkspaceObserver(root);
      const t0 = performance.now();
      const snapshot = await observer.baseline();
      const index = await CodeIndex.build(root, snapshot);
      const build = performance.now() - t0;
      cold.push(build / ref);
      // Incremental: 50 files changed (content unique to this run).
      const random = rng(100 + run);
      const changed = Array.from(
        { length: 50 },
        () => files[Math.floor(random() * files.length)] as string,
      );
      for (const p of changed)
        writeFileSync(join(root, p), `${readFileSync(join(root, p), "utf8")}// run ${run}\n`);
      const d0 = performance.now();
      const delta = await observer.delta();
      const deltaMs = performance.now() - d0;
      const u0 = performance.now();
      const update = await index.update(delta);
      const updateMs = performance.now() - u0;
      inc.push((deltaMs + updateMs) / deltaMs);
      // affectedTargets for the 50 changed files against a plain BFS.
      const unique = [...new Set(changed)];
      const a0 = performance.now();
      const fact = await affectedTargets(unique, [], { root, codeIndex: index });
      const affMs = performance.now() - a0;
      const b0 = performance.now();
      const bfs = plainBfs((p) => index.importers(p), unique);
      const bfsMs = performance.now() - b0;
      const reached = new Set(fact.targets.map((x) => x.id.slice("file:".length)));
      if (reached.size !== bfs.size || [...bfs].some((p) => !reached.has(p))) {
        throw new Error(`affectedTargets reached ${reached.size} files, the plain BFS ${bfs.size}`);
      }
      aff.push(affMs);
      affRatio.push(affMs / bfsMs);
      console.log(
        `run ${run + 1}: cold ${fmt(build)} ms vs reference ${fmt(ref)} ms = ${(build / ref).toFixed(2)}×; ` +
          `incremental: delta ${fmt(deltaMs)} ms + update ${fmt(updateMs)} ms (${update.read} read) = ${((deltaMs + updateMs) / deltaMs).toFixed(2)}× the delta; ` +
          `affectedTargets ${fmt(affMs)} ms (${reached.size} targets) = ${(affMs / bfsMs).toFixed(1)}× a plain BFS (${fmt(bfsMs)} ms)`,
      );
      // Back to the committed bytes for the next run.
      execFileSync("git", ["checkout", "-q", "--", "."], { cwd: root });
      await observer.close();
      lastIndex = index;
    }
    console.log(
      `median: cold build ${median(cold).toFixed(2)}× git ls-files + hashing; incremental ${median(inc).toFixed(2)}× the delta alone (target ≤ 1.3×); ` +
        `affectedTargets ${fmt(median(aff))} ms (target ≤ 50 ms), ${median(affRatio).toFixed(1)}× a plain BFS; index of ${lastIndex?.size} files`,
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) await main();
