/**
 * Benchmark (issue 10, shellenv): what the controlled check environment adds to a turn,
 * against the cost of starting one check shell (`bash -c true`), measured in the same run:
 *
 * - `takeEnvironmentBaseline` (shell resolution + pipefail probe, user-level fingerprints,
 *   cargo target fingerprint) — once per baseline;
 * - `fingerprintUserFiles` + `fingerprintTree` of a 10,000-file cargo target — after the
 *   agent and around the checks;
 * - `prepareCheckEnvironment` + `dispose` — once per `verifyCommands`.
 *
 *   pnpm exec tsx packages/node/bench/check-env.bench.ts
 *
 * Environment: TG_BENCH_SAMPLES (default 15), TG_BENCH_TARGET_FILES (default 10000). Uses
 * the real HOME read-only (nothing is written there). Prints p50 times and ratios; never fails
 * on a slow ratio (timings depend on the machine).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  fingerprintTree,
  takeEnvironmentBaseline,
} from "../src/environment/environment-baseline.js";
import { fingerprintUserFiles } from "../src/environment/user-files.js";
import { prepareCheckEnvironment } from "../src/runner/check-env.js";

const SAMPLES = Number(process.env.TG_BENCH_SAMPLES ?? 15);
const TARGET_FILES = Number(process.env.TG_BENCH_TARGET_FILES ?? 10_000);

function p50(run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

const target = mkdtempSync(join(tmpdir(), "turngate-bench-target-"));
try {
  for (let i = 0; i < TARGET_FILES; i++) {
    const dir = join(target, "debug", "deps", String(i % 100));
    if (i < 100) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}`), "x");
  }
  const baseline = takeEnvironmentBaseline({ cargoTargetDir: target });
  const shell = p50(() => spawnSync(baseline.plan.shell.path, ["-c", "true"]));
  const take = p50(() => takeEnvironmentBaseline({ cargoTargetDir: target }));
  const userFiles = p50(() => fingerprintUserFiles());
  const tree = p50(() => fingerprintTree(target));
  const prepare = p50(() => prepareCheckEnvironment(baseline.plan, { stateDir: target }).dispose());
  const line = (name: string, ms: number) =>
    console.log(
      `${name.padEnd(44)} p50 ${ms.toFixed(2)} ms = ${(ms / shell).toFixed(2)}× bash -c true`,
    );
  console.log(`reference: bash -c true p50 ${shell.toFixed(2)} ms (${SAMPLES} samples)`);
  line("takeEnvironmentBaseline", take);
  line(`fingerprintUserFiles (${Object.keys(baseline.userFiles).length} files)`, userFiles);
  line(`fingerprintTree (${TARGET_FILES} files)`, tree);
  line("prepareCheckEnvironment + dispose", prepare);
  console.log(
    `target: prepareCheckEnvironment + dispose ≤ 2× bash -c true (${prepare / shell <= 2 ? "met" : "not met"}); the fingerprints run once per observation and are informational`,
  );
} finally {
  rmSync(target, { recursive: true, force: true });
}
