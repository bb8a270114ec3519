/**
 * Toolchain identity facts (harn-verification.md §1.6): which tool versions a row's checks
 * ran with, from the rows' version probes. A missing or failing probe is a fact with
 * `available: false`, never an exception; a version pattern that does not compile is
 * refused before any probe runs.
 */
import { InvalidRegexError } from "@turngate/core";
import { runShellCommand } from "../../runner/shell.js";
import { type CheckCommandResult, toCommandResult } from "./command-result.js";
import { resolveSpec } from "./command-spec.js";

/** Harn's default version pattern: the first dotted number. */
export const DEFAULT_VERSION_PATTERN = "([0-9]+(\\.[0-9A-Za-z_+\\-]+)+)";
/** Default bound of one probe (ms). */
export const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

/** `VerificationToolchainFact`. */
export interface ToolchainFact {
  id: string;
  name: string;
  available: boolean;
  version: string | null;
  raw_version: string;
  cache_identity: Record<string, unknown>;
  probe: {
    status: string;
    exit: number | null;
    durationMs: number | null;
    stdout: string;
    stderr: string;
    error?: string;
  };
}

/** Options of `toolchainFacts`. */
export interface ToolchainFactsOptions {
  /** Working directory of the probes. */
  root: string;
  /** Bound of each probe in ms (default 10000); a probe that overruns is `timed_out`. */
  timeout_ms?: number;
  version_pattern?: string;
  cache_identity?: Record<string, unknown>;
  /** Environment of the probes (its `PATH` finds the tools); default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

const asDict = (v: unknown): Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const text = (v: unknown): string => (v === undefined || v === null ? "" : String(v)).trim();

/** The version pattern of row `i` and the field it came from (a wire path). */
function versionPatternOf(
  row: Record<string, unknown>,
  i: number,
  options: { version_pattern?: unknown },
): { pattern: string; path: string } {
  const probeValue = row.versionProbe ?? row.probe;
  const probeKey =
    row.versionProbe !== undefined && row.versionProbe !== null ? "versionProbe" : "probe";
  const probe = asDict(probeValue);
  const candidates: Array<[unknown, string]> = [
    [probe.versionPattern, `rows.${i}.${probeKey}.versionPattern`],
    [probe.version_pattern, `rows.${i}.${probeKey}.version_pattern`],
    [row.versionPattern, `rows.${i}.versionPattern`],
    [row.version_pattern, `rows.${i}.version_pattern`],
    [options.version_pattern, "options.version_pattern"],
  ];
  for (const [value, path] of candidates)
    if (value !== undefined && value !== null) return { pattern: String(value), path };
  return { pattern: DEFAULT_VERSION_PATTERN, path: "" };
}

/** A compiled version pattern (JavaScript syntax, unicode mode). */
function compileVersionPattern(pattern: string, path: string): RegExp {
  try {
    return new RegExp(pattern, "u");
  } catch (error) {
    // Before issue 36 a pattern that did not compile silently gave `version: null`.
    throw new InvalidRegexError(pattern, (error as Error).message, path);
  }
}

/**
 * Checks every row's version pattern (harn-verification.md §1.6) without running a probe.
 * `rows`: toolchain rows as {@link toolchainFacts} takes them; `options.version_pattern`:
 * the default pattern. Throws {@link InvalidRegexError} (code `invalid_regex`) whose `path`
 * names the field, e.g. `rows.2.versionProbe.versionPattern` or `options.version_pattern`,
 * for a pattern that is not a valid JavaScript regular expression in unicode mode.
 */
export function checkVersionPatterns(
  rows: readonly unknown[],
  options: { version_pattern?: unknown } = {},
): void {
  rows.forEach((row, i) => {
    const { pattern, path } = versionPatternOf(asDict(row), i, options);
    compileVersionPattern(pattern, path);
  });
}

/**
 * One fact per row, probes run in parallel (each bounded by `timeout_ms`): `id` = trimmed
 * `row.id ?? row.name`, else `toolchain/<i>`; the probe is `row.versionProbe ?? row.probe`
 * (a spec, or `{spec}`); `available` = the probe exited 0 in time; `raw_version` = its
 * trimmed output; `version` = first capture of `versionPattern` / `version_pattern`
 * (default {@link DEFAULT_VERSION_PATTERN}) when available; `cache_identity` =
 * options' merged with the row's; `probe` = `{status, exit, durationMs, stdout, stderr}`
 * (`not_configured` without a probe; a bad spec → status `failed` with `error`). Rejects
 * only with {@link InvalidRegexError} (see {@link checkVersionPatterns}), before any probe
 * runs, when a version pattern does not compile.
 */
export async function toolchainFacts(
  rows: readonly unknown[],
  options: ToolchainFactsOptions,
): Promise<ToolchainFact[]> {
  checkVersionPatterns(rows, options);
  return Promise.all(rows.map((row, i) => probeRow(asDict(row), i, options)));
}

async function probeRow(
  row: Record<string, unknown>,
  i: number,
  options: ToolchainFactsOptions,
): Promise<ToolchainFact> {
  const rawId = text(row.id ?? row.name);
  const id = rawId === "" ? `toolchain/${i}` : rawId;
  const name = text(row.name) === "" ? id : text(row.name);
  const probeValue = row.versionProbe ?? row.probe;
  const probe = asDict(probeValue);
  const spec = probe.spec ?? probeValue;
  const { pattern, path } = versionPatternOf(row, i, options);
  const cacheIdentity = {
    ...(options.cache_identity ?? {}),
    ...asDict(row.cacheIdentity ?? row.cache_identity),
  };
  const fact: ToolchainFact = {
    id,
    name,
    available: false,
    version: null,
    raw_version: "",
    cache_identity: cacheIdentity,
    probe: { status: "not_configured", exit: null, durationMs: null, stdout: "", stderr: "" },
  };
  if (spec === undefined || spec === null) return fact;
  let result: CheckCommandResult;
  try {
    const resolved = resolveSpec(spec, `rows.${i}.versionProbe`);
    result = toCommandResult(
      await runShellCommand(resolved.command, {
        cwd: options.root,
        ...(options.env ? { env: options.env } : {}),
        timeoutMs: resolved.timeoutMs ?? options.timeout_ms ?? DEFAULT_PROBE_TIMEOUT_MS,
      }),
    );
  } catch (error) {
    fact.probe = { ...fact.probe, status: "failed", error: (error as Error).message };
    return fact;
  }
  fact.available = result.ok;
  fact.raw_version = result.stdout.trim() !== "" ? result.stdout.trim() : result.stderr.trim();
  if (fact.available) {
    fact.version = compileVersionPattern(pattern, path).exec(fact.raw_version)?.[1] ?? null;
  }
  fact.probe = {
    status: result.status,
    exit: result.timed_out ? 124 : result.exit_code,
    durationMs: result.duration_ms,
    stdout: result.stdout,
    stderr: result.stderr,
  };
  return fact;
}
