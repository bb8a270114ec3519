/**
 * Workloads that run in child processes (the Python and Go bindings' own benchmarks), so
 * `pnpm qualify` reuses them as they are: each returns the per-sample times in ms.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { SampledOperation } from "./profiles.js";

const run = promisify(execFile);

/** The Python interpreter: the binding's venv when set up, else python3 on PATH. */
function python(root: string): string {
  const venv = join(root, "bindings", "python", ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

/** bindings/python/bench/roundtrip.py with --samples-json: per-call ms of the binding and its floor. */
export async function pythonRoundtrip(
  root: string,
  calls: number,
  warmup: number,
): Promise<Record<string, SampledOperation>> {
  const dir = mkdtempSync(join(tmpdir(), "turngate-qualify-py-"));
  try {
    const file = join(dir, "samples.json");
    await run(
      python(root),
      [
        join(root, "bindings/python/bench/roundtrip.py"),
        "--calls",
        String(calls),
        "--warmup",
        String(warmup),
        "--starts",
        "1",
        "--samples-json",
        file,
      ],
      { cwd: root, maxBuffer: 16 * 1024 * 1024, timeout: 600_000 },
    );
    const data = JSON.parse(readFileSync(file, "utf8")) as {
      binding_ms: number[];
      floor_ms: number[];
    };
    return {
      "ledger-digest": {
        samples: data.binding_ms,
        referenceSamples: data.floor_ms,
        budgetRatio: 2,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `go test -bench BenchmarkLedgerDigestVsEchoFloor -count N` in bindings/go: one sample per
 * count, each the mean ms per call over 2,000 calls (bridge-ns/call and floor-ns/call).
 */
export async function goRoundtrip(
  root: string,
  count: number,
): Promise<Record<string, SampledOperation>> {
  const { stdout } = await run(
    "go",
    [
      "test",
      "-run",
      "^$",
      "-bench",
      "^BenchmarkLedgerDigestVsEchoFloor$",
      "-benchtime",
      "2000x",
      "-count",
      String(count),
      ".",
    ],
    { cwd: join(root, "bindings", "go"), maxBuffer: 16 * 1024 * 1024, timeout: 600_000 },
  );
  const samples: number[] = [];
  const reference: number[] = [];
  for (const line of stdout.split("\n")) {
    const bridge = /([0-9.e+]+) bridge-ns\/call/.exec(line);
    const floor = /([0-9.e+]+) floor-ns\/call/.exec(line);
    if (bridge !== null && floor !== null) {
      samples.push(Number(bridge[1]) / 1e6);
      reference.push(Number(floor[1]) / 1e6);
    }
  }
  if (samples.length === 0) throw new Error(`go bench printed no bridge-ns/call line:\n${stdout}`);
  return { "ledger-digest": { samples, referenceSamples: reference, budgetRatio: 2 } };
}
