/**
 * Clean-room turn overhead (issue 31, "Cost"; docs/guarantees.md, "Isolation: clean-room checks"):
 * a whole `turngate run` (the built CLI, a real process, zero configuration) on real projects from
 * the registries (test/real-projects), in the clean room against in place, measured in the same run
 * as interleaved pairs (in-place turn, clean-room turn) after one warm-up turn of each. Every
 * turn's agent appends one line to a source file, so every turn has a change and runs the project's
 * checks; each must end `verified` in the mode asked. Targets: clean-room ≤ 1.3× in-place on the
 * more-itertools suite, ≤ 1.1× + 0.2 s on the others. The load average (1 min) is printed with
 * every pair: the machine is shared.
 *
 *   pnpm --filter turngate exec tsx bench/clean-room-turn.bench.ts   (after ./scripts/dev setup)
 *
 * Environment: TG_BENCH_PROJECTS (comma-separated name prefixes of test/real-projects/
 * projects.ts; default "more-itertools,minimist"), TG_BENCH_SAMPLES (pairs, default 5).
 * Needs the registries (the projects are fetched) and a sandbox that starts.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isMain } from "../../core/bench/lib/is-main.js";
import { PROJECTS, type RealProject } from "../test/real-projects/projects.js";
import { agentScript, checkout } from "../test/real-projects/workspace.js";

const SAMPLES = Number(process.env.TG_BENCH_SAMPLES ?? 5);
const WANTED = (process.env.TG_BENCH_PROJECTS ?? "more-itertools,minimist").split(",");
const bin = join(dirname(fileURLToPath(import.meta.url)), "../dist/bin.js");

/** The file each project's bench agent appends a comment line to, and the comment's prefix. */
const TOUCH: Record<string, [string, string]> = {
  "more-itertools": ["more_itertools/more.py", "#"],
  six: ["six.py", "#"],
  packaging: ["src/packaging/utils.py", "#"],
  "go-cmp": ["cmp/compare.go", "//"],
  "golang.org/x/sync": ["semaphore/semaphore.go", "//"],
  semver: ["src/lib.rs", "//"],
  itoa: ["src/lib.rs", "//"],
  minimist: ["index.js", "//"],
  TypeScript: ["src/slug.ts", "//"],
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function load1(): number {
  return Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);
}

/** One `turngate run --json --isolation <mode>` of `agent` in `root`: wall ms; throws unless verified in that mode. */
function turn(root: string, mode: string, agent: string): number {
  const start = performance.now();
  const out = spawnSync("node", [bin, "run", "--json", "--isolation", mode, "--", "node", agent], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - start;
  let json: { verdict?: string; isolation?: { mode?: string } } = {};
  try {
    json = JSON.parse(out.stdout);
  } catch {
    // reported below
  }
  if (json.verdict !== "verified" || json.isolation?.mode !== mode) {
    throw new Error(`${mode} turn in ${root} was not verified:\n${out.stdout}\n${out.stderr}`);
  }
  return ms;
}

/** Interleaved pairs on `project`; prints every pair and the medians. Output: the median ratio and difference. */
export async function measure(
  project: RealProject,
): Promise<{ ratio: number; diffMs: number; inPlaceMs: number; roomMs: number }> {
  const key = Object.keys(TOUCH).find((k) => project.name.startsWith(k)) as string;
  const [file, comment] = TOUCH[key] as [string, string];
  const agents = realpathSync(mkdtempSync(join(tmpdir(), "tg-bench-turn-agents-")));
  const root = await checkout(project);
  try {
    let n = 0;
    const next = () => {
      n += 1;
      return agentScript(agents, `a${n}.js`, [{ file, append: `${comment} bench turn ${n}\n` }]);
    };
    turn(root, "in-place", next());
    turn(root, "clean-room", next());
    const inPlace: number[] = [];
    const room: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      const load = load1();
      inPlace.push(turn(root, "in-place", next()));
      room.push(turn(root, "clean-room", next()));
      console.log(
        `  pair ${i + 1}: in-place ${(inPlace[i] as number).toFixed(0)} ms, clean-room ${(room[i] as number).toFixed(0)} ms (load ${load.toFixed(2)} → ${load1().toFixed(2)})`,
      );
    }
    const ratios = room.map((t, i) => t / (inPlace[i] as number));
    const diffs = room.map((t, i) => t - (inPlace[i] as number));
    const result = {
      ratio: median(ratios),
      diffMs: median(diffs),
      inPlaceMs: median(inPlace),
      roomMs: median(room),
    };
    console.log(
      `${project.name}: in-place ${result.inPlaceMs.toFixed(0)} ms, clean-room ${result.roomMs.toFixed(0)} ms; ratio median ${result.ratio.toFixed(2)}x (min ${Math.min(...ratios).toFixed(2)}x), difference median ${(result.diffMs / 1000).toFixed(2)} s`,
    );
    return result;
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(agents, { recursive: true, force: true });
  }
}

export async function main(): Promise<void> {
  console.log(`clean-room turn vs in-place turn, ${SAMPLES} pairs each`);
  for (const want of WANTED) {
    const project = PROJECTS.find((p) => p.name.startsWith(want.trim()));
    if (project === undefined) throw new Error(`TG_BENCH_PROJECTS: no project named ${want}`);
    await measure(project);
  }
}

if (isMain(import.meta.url)) await main();
