/**
 * No-op turn benchmark (issue 17 item 6): `turngate run --check true -- true` (the built
 * CLI, a real process) on a generated git repository of 12,000 tracked files plus an
 * ignored `node_modules` (6,000 files), on the native path (TURNGATE_NATIVE=1) and on the
 * TypeScript path (TURNGATE_NATIVE=0), against the reference `git status --porcelain` +
 * `node -e 0` measured in the same run. The turn changes nothing, so it is the observer
 * twice (baseline and observation) plus the CLI's start-up: the cost every agent turn pays.
 *
 *   pnpm --filter turngate exec tsx bench/noop-turn.bench.ts   (after ./scripts/dev setup)
 *
 * Environment: TG_BENCH_FILES (default 12000), TG_BENCH_IGNORED (default 6000),
 * TG_BENCH_SAMPLES (default 7). Prints every sample, the p50s and the ratios; exits 1 when a
 * run is not the expected narrative turn. Figures on a shared machine are noisy.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMain } from "../../core/bench/lib/is-main.js";
import { runOk, timed } from "./lib/run.js";

const FILES = Number(process.env.TG_BENCH_FILES ?? 12_000);
const IGNORED = Number(process.env.TG_BENCH_IGNORED ?? 6_000);
const SAMPLES = Number(process.env.TG_BENCH_SAMPLES ?? 7);
const bin = join(dirname(fileURLToPath(import.meta.url)), "../dist/bin.js");
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] as number;
}

/**
 * For `pnpm qualify` (profile turn-noop-v1): on the existing git work tree `repo` (this
 * repository's own checkout), `subject()` times one `turngate run --check true -- true` of
 * the built CLI (a real process, `TURNGATE_NATIVE` unset: the addon when built) and checks
 * the turn is narrative (nothing changed; throws otherwise, with the output);
 * `reference()` times `git status --porcelain` + `node -e 0` in the same tree. Both in ms.
 * `env`: extra environment of the turn (e.g. `XDG_STATE_HOME`; also profile
 * turn-noop-20k-v1, on generated repositories).
 */
export function noopTurnWorkload(
  repo: string,
  env: Record<string, string> = {},
): {
  subject: () => number;
  reference: () => number;
} {
  return {
    subject: () =>
      timed(() => {
        const out = runOk(
          process.execPath,
          [bin, "run", "--check", "true", "--", "true"],
          repo,
          env,
        );
        if (!out.stdout.includes("narrative"))
          throw new Error(`not a narrative turn:\n${out.stdout}`);
      }),
    reference: () =>
      timed(() => runOk("git", ["status", "--porcelain"], repo)) +
      timed(() => runOk(process.execPath, ["-e", "0"], repo)),
  };
}

function main(): void {
  const repo = mkdtempSync(join(tmpdir(), "turngate-noop-"));
  try {
    console.log(
      `generating ${FILES} tracked files and ${IGNORED} ignored node_modules files in ${repo}`,
    );
    const body = Buffer.alloc(1024, 97);
    for (let i = 0; i < FILES; i++) {
      const rel = `src/mod${Math.floor(i / 100)}/file${i}.ts`;
      if (i % 100 === 0) mkdirSync(join(repo, dirname(rel)), { recursive: true });
      writeFileSync(join(repo, rel), body);
    }
    for (let i = 0; i < IGNORED; i++) {
      const rel = `node_modules/pkg${Math.floor(i / 50)}/lib/f${i}.js`;
      if (i % 50 === 0) mkdirSync(join(repo, dirname(rel)), { recursive: true });
      writeFileSync(join(repo, rel), body);
    }
    writeFileSync(join(repo, ".gitignore"), "node_modules/\n.turngate/\n");
    runOk("git", ["init", "-q", "-b", "main", "."], repo);
    runOk("git", ["config", "gc.auto", "0"], repo);
    runOk("git", ["add", "-A"], repo);
    runOk("git", ["commit", "-q", "-m", "bench"], repo);

    const turn = (mode: string) => () => {
      const out = runOk(process.execPath, [bin, "run", "--check", "true", "--", "true"], repo, {
        TURNGATE_NATIVE: mode,
      });
      if (!out.stdout.includes("narrative"))
        throw new Error(`not a narrative turn:\n${out.stdout}`);
    };
    const git = () => runOk("git", ["status", "--porcelain"], repo);
    const node = () => runOk(process.execPath, ["-e", "0"], repo);
    // Warm-up (not timed): page cache, git's index refresh.
    turn("1")();
    turn("0")();
    git();
    node();
    const t = { native: [] as number[], typescript: [] as number[], reference: [] as number[] };
    for (let s = 0; s < SAMPLES; s++) {
      const steps: Array<[keyof typeof t, () => number]> = [
        ["native", () => timed(turn("1"))],
        ["typescript", () => timed(turn("0"))],
        ["reference", () => timed(git) + timed(node)],
      ];
      for (let i = 0; i < steps.length; i++) {
        const [name, step] = steps[(i + s) % steps.length] as [keyof typeof t, () => number];
        t[name].push(step());
      }
      console.log(
        `  sample ${s + 1}/${SAMPLES}: native ${t.native[s]?.toFixed(0)} ms, TypeScript ${t.typescript[s]?.toFixed(0)} ms, git status + node -e 0 ${t.reference[s]?.toFixed(0)} ms`,
      );
    }
    const ref = median(t.reference);
    console.log(
      `p50 no-op turn on ${FILES} files (+${IGNORED} ignored): native ${median(t.native).toFixed(0)} ms, TypeScript ${median(t.typescript).toFixed(0)} ms; reference git status --porcelain + node -e 0 ${ref.toFixed(0)} ms`,
    );
    console.log(
      `ratio (no-op turn): native ${(median(t.native) / ref).toFixed(2)}x the reference, TypeScript ${(median(t.typescript) / ref).toFixed(2)}x (no target set; measured and noted)`,
    );
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) main();
