/**
 * Fleet simulation CLI (issue #20 item 5): 1,000 agents on 100 machines sharing a remote result
 * cache, change sets replayed from a repository's history.
 *
 *   pnpm exec tsx scripts/sim/fleet.ts [REPO] [--rev REV] [--json] [--matrix] [--seed N] [--writers ci|all]
 *       [--key-scope repo|package] [--checks all|affected] [--base head|green] [--agents N] …
 *
 * REPO defaults to the current directory (this repository), REV to HEAD (the history replayed is
 * REV's ancestry, so a figure is reproducible at a fixed REV). Every parameter of
 * scripts/sim/fleet/params.ts is a flag (`_` → `-`). `--matrix` runs the four combinations of
 * key scope × writers with the other parameters as given and prints a Markdown table (or a JSON
 * array). Exit 0 on success, 2 on a bad flag or an unreadable history (message on stderr).
 */
import { basename, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { type History, HistoryError, readHistory } from "./fleet/history.js";
import {
  assumptions,
  DEFAULT_PARAMS,
  FleetParamError,
  type FleetParams,
  resolveParams,
} from "./fleet/params.js";
import { FLEET_SIM_SCHEMA, type FleetRun, formatRun, formatTable } from "./fleet/report.js";
import { simulateFleet } from "./fleet/simulate.js";

/** One run over `history` with `params`, timed. */
export function runFleet(
  repo: string,
  rev: string,
  history: History,
  params: FleetParams,
): FleetRun {
  const t0 = performance.now();
  const results = simulateFleet(history, params);
  const runtime_ms = Math.round((performance.now() - t0) * 10) / 10;
  return {
    schema: FLEET_SIM_SCHEMA,
    repo,
    rev,
    params,
    assumptions: assumptions(params),
    results,
    runtime_ms,
  };
}

/** Parses argv (without node and script), runs, prints; returns the exit code. */
export function main(argv: string[]): number {
  const flagOf = (field: string) => field.replaceAll("_", "-");
  const options: Record<string, { type: "string" | "boolean" }> = {
    json: { type: "boolean" },
    matrix: { type: "boolean" },
    rev: { type: "string" },
  };
  for (const field of Object.keys(DEFAULT_PARAMS)) options[flagOf(field)] = { type: "string" };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`fleet: ${(err as Error).message}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) {
    process.stderr.write(`fleet: one repository path expected, got ${positionals.length}\n`);
    return 2;
  }
  const repoPath = resolve(positionals[0] ?? ".");
  try {
    const overrides: Record<string, unknown> = {};
    for (const field of Object.keys(DEFAULT_PARAMS)) overrides[field] = values[flagOf(field)];
    const params = resolveParams(overrides);
    const rev = (values.rev as string | undefined) ?? "HEAD";
    const history = readHistory(repoPath, rev);
    const name = basename(repoPath);
    if (values.matrix === true) {
      const runs: FleetRun[] = [];
      for (const key_scope of ["repo", "package"] as const)
        for (const writers of ["ci", "all"] as const)
          runs.push(runFleet(name, rev, history, { ...params, key_scope, writers }));
      process.stdout.write(
        values.json === true ? `${JSON.stringify(runs, null, 2)}\n` : formatTable(runs),
      );
      return 0;
    }
    const run = runFleet(name, rev, history, params);
    process.stdout.write(
      values.json === true ? `${JSON.stringify(run, null, 2)}\n` : formatRun(run),
    );
    return 0;
  } catch (err) {
    if (err instanceof FleetParamError) {
      process.stderr.write(
        `fleet: --${flagOf(err.field)}: ${err.message.slice(err.field.length + 2)}\n`,
      );
      return 2;
    }
    if (err instanceof HistoryError) {
      process.stderr.write(`fleet: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}

if (
  process.argv[1] !== undefined &&
  resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)
) {
  process.exitCode = main(process.argv.slice(2));
}
