/**
 * Start-up benchmark (issue #17 item 4): what a user waits for before turngate does any
 * work, against references measured in the same run.
 *
 * - `turngate --version` vs `node -e 0` (target ≤ 2×): loading the bundle's entry alone.
 * - `turngate run --check true -- true` in an empty git repository (a no-op turn: nothing
 *   changes, so the verdict is `narrative`) vs `node -e 0` + `git status` run back to back
 *   in the same repository (target ≤ 2×).
 * - `turngate bridge --stdio` from spawn to the `initialize` answer vs a trivial JSON-RPC
 *   responder (`node -e`, reads one line, answers it) from spawn to its answer (noted; no
 *   target).
 *
 * Every run times each command and its reference back to back (the order alternates run
 * to run) and takes the ratio per run, so a machine shared with other work skews both
 * alike; the median of the runs is the result and the range (min–max of the per-run
 * ratios) is printed beside it. Each measurement checks its output (the version string,
 * the `narrative` verdict, the `initialize` result) so a failing command cannot look fast.
 *
 * Run: pnpm --filter turngate bench   (builds first; prints ms and ratios; not a test)
 * TURNGATE_BENCH_RUNS overrides the number of runs (default 15); TURNGATE_BENCH_BIN times
 * another build's `bin.js` instead of this package's (its version must match package.json).
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..");
// TURNGATE_BENCH_BIN: another build's bin.js (e.g. main's, to compare two builds run by run).
const bin = process.env.TURNGATE_BENCH_BIN ?? join(cliDir, "dist", "bin.js");
const version = (
  JSON.parse(readFileSync(join(cliDir, "package.json"), "utf8")) as {
    version: string;
  }
).version;
const RUNS = Number(process.env.TURNGATE_BENCH_RUNS ?? 15);

/** Wall-clock ms of one synchronous process run; throws unless `check` accepts its output. */
function timed(
  argv: readonly string[],
  cwd: string,
  check: (stdout: string, status: number | null) => boolean,
  env: NodeJS.ProcessEnv = process.env,
): number {
  const start = performance.now();
  const result = spawnSync(argv[0] as string, argv.slice(1), { cwd, encoding: "utf8", env });
  const ms = performance.now() - start;
  if (!check(result.stdout, result.status)) {
    throw new Error(
      `benchmark: ${argv.join(" ")} gave exit ${result.status}, stdout ${JSON.stringify(result.stdout)}, stderr ${JSON.stringify(result.stderr)}`,
    );
  }
  return ms;
}

/** A trivial JSON-RPC responder: answers the first request line with `{}` and exits. */
const RESPONDER = `process.stdin.once("data",(b)=>{const r=JSON.parse(b.toString().split("\\n")[0]);process.stdout.write(JSON.stringify({jsonrpc:"2.0",id:r.id,result:{}})+"\\n");process.exit(0)})`;

/**
 * Wall-clock ms from spawning `argv` to reading its answer to one `initialize` request;
 * rejects unless the answer has a result. The process is ended (stdin closed) afterwards.
 */
function untilAnswer(argv: readonly string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd,
      stdio: ["pipe", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text: string) => {
      out += text;
      const end = out.indexOf("\n");
      if (end < 0) return;
      const ms = performance.now() - start;
      const answer = JSON.parse(out.slice(0, end)) as { result?: unknown };
      child.stdin.end();
      if (answer.result === undefined) reject(new Error(`benchmark: no result in ${out}`));
      else resolve(ms);
    });
    child.on("error", reject);
    child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} })}\n`,
    );
  });
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const ms = (value: number) => `${value.toFixed(1)} ms`;
const x = (value: number) => `${value.toFixed(2)}×`;

interface Pair {
  subject: number;
  reference: number;
}

/** Times `subject` and `reference` `RUNS` times (plus a warm-up), alternating the order. */
async function pairs(
  subject: () => number | Promise<number>,
  reference: () => number | Promise<number>,
): Promise<Pair[]> {
  const out: Pair[] = [];
  for (let run = -1; run < RUNS; run++) {
    let s: number;
    let r: number;
    if (run % 2 === 0) {
      s = await subject();
      r = await reference();
    } else {
      r = await reference();
      s = await subject();
    }
    if (run >= 0) out.push({ subject: s, reference: r });
  }
  return out;
}

function report(label: string, referenceLabel: string, target: string, runs: Pair[]): void {
  const ratios = runs.map((p) => p.subject / p.reference);
  console.log(
    `${label}: ${ms(median(runs.map((p) => p.subject)))} vs ${referenceLabel} ${ms(median(runs.map((p) => p.reference)))} → ratio ${x(median(ratios))} (range ${x(Math.min(...ratios))}–${x(Math.max(...ratios))} over ${runs.length} runs; target ${target})`,
  );
}

const repo = realpathSync(mkdtempSync(join(tmpdir(), "turngate-startup-")));
const state = realpathSync(mkdtempSync(join(tmpdir(), "turngate-startup-state-")));
try {
  spawnSync("git", ["init", "-q"], { cwd: repo });
  const node = process.execPath;
  console.log(
    `start-up benchmark (${RUNS} runs, median; ratio per run; bundle ${bin}; node ${process.version})`,
  );

  report(
    "turngate --version",
    "node -e 0",
    "≤ 2×",
    await pairs(
      () => timed([node, bin, "--version"], repo, (out) => out === `${version}\n`),
      () => timed([node, "-e", "0"], repo, (_out, status) => status === 0),
    ),
  );

  const env = { ...process.env, XDG_STATE_HOME: state };
  report(
    "turngate run --check true -- true (empty repository)",
    "node -e 0 + git status",
    "≤ 2×",
    await pairs(
      () =>
        timed(
          [node, bin, "run", "--check", "true", "--", "true"],
          repo,
          (out, status) => status === 0 && out.includes("narrative: the turn changed no files"),
          env,
        ),
      () =>
        timed([node, "-e", "0"], repo, (_out, status) => status === 0) +
        timed(["git", "status"], repo, (_out, status) => status === 0),
    ),
  );

  report(
    "turngate bridge --stdio, spawn to initialize answer",
    "trivial JSON-RPC responder",
    "noted, none set",
    await pairs(
      () => untilAnswer([node, bin, "bridge", "--stdio"], repo),
      () => untilAnswer([node, "-e", RESPONDER], repo),
    ),
  );
} finally {
  rmSync(repo, { recursive: true, force: true });
  rmSync(state, { recursive: true, force: true });
}
