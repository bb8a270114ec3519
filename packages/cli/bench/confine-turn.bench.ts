/**
 * Confined no-op turn benchmark (issue 32, "Cost: a confined no-op turn is ≤ 1.2× an
 * unconfined one, measured in the same run"): `turngate run --isolation in-place --check
 * true -- true` (the built CLI, a real process) with and without `--confine`, on a generated
 * git repository of TG_BENCH_FILES tracked files (default 2,000). The turn changes nothing
 * (narrative), so the difference is the sandbox: the bubblewrap probe, the private TMPDIR,
 * the mounts and the launcher. Both are checked to end narrative with the expected trust.
 *
 *   pnpm --filter turngate exec tsx bench/confine-turn.bench.ts   (after the build)
 *
 * `TG_BENCH_AGENT_NETWORK=host` (or `proxy`, the default) sets the confined agent's network in
 * the repository's configuration: with `proxy`, the confined turn also starts the egress
 * proxy's bootstrap in the sandbox.
 *
 * Each sample times both, in alternating order, and the ratio is taken per sample (median
 * over TG_BENCH_SAMPLES, default 9), so a machine shared with other work skews both alike.
 * Prints every sample, the p50s, the median ratio and the target beside it; not a test
 * (no verdict depends on speed). Exits 1 when bubblewrap cannot start here.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMain } from "../../core/bench/lib/is-main.js";

const FILES = Number(process.env.TG_BENCH_FILES ?? 2_000);
const SAMPLES = Number(process.env.TG_BENCH_SAMPLES ?? 9);
const TARGET = 1.2;
const bin = join(dirname(fileURLToPath(import.meta.url)), "../dist/bin.js");

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length / 2) - 1] as number;
}

function main(): void {
  const repo = mkdtempSync(join(tmpdir(), "turngate-confine-bench-"));
  const state = mkdtempSync(join(tmpdir(), "turngate-confine-bench-state-"));
  const env = {
    ...process.env,
    XDG_STATE_HOME: state,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "bench",
    GIT_AUTHOR_EMAIL: "bench@example.invalid",
    GIT_COMMITTER_NAME: "bench",
    GIT_COMMITTER_EMAIL: "bench@example.invalid",
  };
  const runOk = (cmd: string, args: string[]) => {
    const out = spawnSync(cmd, args, { cwd: repo, env, encoding: "utf8" });
    if (out.status !== 0) {
      throw new Error(`${cmd} ${args.join(" ")} exited ${out.status}: ${out.stderr}${out.stdout}`);
    }
    return out;
  };
  try {
    const body = Buffer.alloc(512, 97);
    for (let i = 0; i < FILES; i++) {
      const rel = `src/mod${Math.floor(i / 100)}/file${i}.ts`;
      if (i % 100 === 0) mkdirSync(join(repo, dirname(rel)), { recursive: true });
      writeFileSync(join(repo, rel), body);
    }
    // TG_BENCH_AGENT_NETWORK=host measures the confined turn without the egress proxy.
    const network = process.env.TG_BENCH_AGENT_NETWORK;
    if (network !== undefined) {
      writeFileSync(
        join(repo, "turngate.config.json"),
        `${JSON.stringify({ agent_network: network })}\n`,
      );
    }
    runOk("git", ["init", "-q", "-b", "main", "."]);
    runOk("git", ["add", "-A"]);
    runOk("git", ["commit", "-q", "-m", "bench"]);
    const turn = (confine: boolean) => () => {
      const start = performance.now();
      const out = runOk(process.execPath, [
        bin,
        "run",
        "--isolation",
        "in-place",
        ...(confine ? ["--confine"] : []),
        "--check",
        "true",
        "--",
        "true",
      ]);
      const ms = performance.now() - start;
      const trust = confine ? "trust: confined" : "trust: unsandboxed";
      if (!out.stdout.includes("narrative") || !out.stdout.includes(trust)) {
        throw new Error(`not a narrative turn with ${trust}:\n${out.stdout}`);
      }
      return ms;
    };
    const confined = turn(true);
    const unconfined = turn(false);
    // Warm-up (not timed): page cache, git's index, bubblewrap's first start.
    unconfined();
    confined();
    const t = { confined: [] as number[], unconfined: [] as number[], ratio: [] as number[] };
    for (let s = 0; s < SAMPLES; s++) {
      let c: number;
      let u: number;
      if (s % 2 === 0) {
        u = unconfined();
        c = confined();
      } else {
        c = confined();
        u = unconfined();
      }
      t.confined.push(c);
      t.unconfined.push(u);
      t.ratio.push(c / u);
      console.log(
        `  sample ${s + 1}/${SAMPLES}: unconfined ${u.toFixed(0)} ms, confined ${c.toFixed(0)} ms, ratio ${(c / u).toFixed(3)}x`,
      );
    }
    console.log(
      `p50 no-op turn on ${FILES} files: unconfined ${median(t.unconfined).toFixed(0)} ms, confined ${median(t.confined).toFixed(0)} ms`,
    );
    console.log(
      `ratio (confined / unconfined, median of per-sample ratios): ${median(t.ratio).toFixed(3)}x; target ≤ ${TARGET}x`,
    );
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) main();
