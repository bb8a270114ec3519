import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { CompletionWaiver, TurnProofTrust, VerificationCommand } from "@turngate/core";
import { TurngateValidationError } from "@turngate/core";
import { PROOF_FORMATS, type ProofFormat } from "@turngate/node";
import type { Command } from "commander";
import { checksFromFlags } from "../config.js";
import type { CliContext } from "../context.js";
import { enclosingRepositoryRoot } from "../repo-root.js";
import { resolveStatePaths, type StatePaths } from "../state-dir.js";
import { parseWaiverFlags } from "../waivers.js";

/** Options shared by `run` and `verify`, as commander parses them. */
export interface TurnFlags {
  check?: string[];
  config?: string;
  waive?: string[];
  json?: boolean;
  root?: string;
  stateDir?: string;
  key?: string;
  format?: string;
  sandboxed?: boolean;
  verifier?: string;
  isolation?: string;
}

/** `--isolation` values (docs/design.md §3b). */
export const ISOLATION_CHOICES = ["auto", "clean-room", "in-place"] as const;

/**
 * The `--isolation` flag as an `IsolationRequest`, or undefined when absent (the
 * configuration's `isolation`, else `auto`, applies).
 * Errors: `TurngateValidationError` (path `--isolation`) for another value.
 */
export function resolveIsolationFlag(
  value: string | undefined,
): (typeof ISOLATION_CHOICES)[number] | undefined {
  if (value === undefined) return undefined;
  if ((ISOLATION_CHOICES as readonly string[]).includes(value)) {
    return value as (typeof ISOLATION_CHOICES)[number];
  }
  throw new TurngateValidationError("--isolation value", [
    {
      path: "--isolation",
      message: `${JSON.stringify(value)} is not an isolation mode: use ${ISOLATION_CHOICES.join(", ")}`,
    },
  ]);
}

/** Environment variable a host sets to `1` to claim the agent runs sandboxed (as `--sandboxed`). */
export const SANDBOXED_ENV = "TURNGATE_SANDBOXED";

// No default value on the repeatable flags: commander would print `(default: [])` in the
// help (QA finding P8); an absent flag reads as [] in resolveTurnFlags.
const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** Add `--root` and `--state-dir` (run, verify, baseline). */
export function addLocationOptions(command: Command): Command {
  return command
    .option("--root <dir>", "workspace root (default: the current directory)")
    .option(
      "--state-dir <dir>",
      "keep the baseline, check logs and proofs in DIR, outside the workspace (default: <root>/.turngate)",
    );
}

/** `--json`'s help line of `run` (the agent's stdout moves to stderr) and of `verify`. */
export const JSON_HELP = {
  run: "print only the outcome as JSON on stdout (turngate.turn_result.v1; an error as turngate.error.v1); progress and the agent's stdout go to stderr",
  verify:
    "print only the outcome as JSON on stdout (turngate.turn_result.v1; an error, e.g. no baseline, as turngate.error.v1); progress goes to stderr",
} as const;

/**
 * Add `--check`, `--config`, `--waive`, `--json` (help line `jsonHelp`, `JSON_HELP.run` or
 * `.verify`), `--root` and `--state-dir` to a command.
 */
export function addTurnOptions(command: Command, jsonHelp: string): Command {
  return addLocationOptions(
    command
      .option(
        "--check <cmd>",
        'verification command to run with the checks\' shell (bash -c when bash is on PATH, else sh -c; config "shell") in the workspace root (repeatable); replaces the configured and preset checks',
        collect,
      )
      .option(
        "--config <file>",
        "configuration file (default: <root>/turngate.config.json if present)",
      )
      .option(
        "--waive <digest:reason>",
        "host waiver of one effect digest (repeatable); a waived turn ends as waived, not verified",
        collect,
      )
      .option("--json", jsonHelp)
      .option(
        "--key <file>",
        "Ed25519 private key (PEM) that signs the proof; default: TURNGATE_SIGNING_KEY (a PEM or a path), else signing-key.pem in the user state folder ($XDG_STATE_HOME/turngate or ~/.local/state/turngate), generated on first use",
      )
      .option(
        "--format <format>",
        `proof file format: ${PROOF_FORMATS.join(" or ")} (a DSSE envelope over the turn proof, or over an in-toto Statement v1 whose predicate is the proof)`,
        "dsse",
      )
      .option(
        "--verifier <command>",
        "read-only verifier command (docs/cli.md): run once before the gate when the turn changed files; refused unrun when it contains >, rm , mv  or tee ; any change it makes voids its report",
      )
      .option(
        "--isolation <mode>",
        "where the checks run: clean-room (a copy of exactly the changed bytes, in a bubblewrap sandbox; fails closed when it cannot start), in-place (in the workspace), or auto (default: clean-room where the sandbox starts, else in-place); overrides the config's isolation",
      )
      .option(
        "--sandboxed",
        "the host runs the agent as another OS user or in a sandbox, so it cannot read the signing key (the host's claim; also TURNGATE_SANDBOXED=1); without it output says trust: unsandboxed",
      ),
  );
}

/**
 * The proof options of `run`/`verify`: the `--key` file (resolved against `cwd`), the
 * `--format` and the trust claim (`--sandboxed` or `TURNGATE_SANDBOXED=1`).
 * Errors: `TurngateValidationError` (path `--format`) for an unknown format.
 */
export function resolveProofFlags(
  flags: Pick<TurnFlags, "key" | "format" | "sandboxed">,
  ctx: CliContext,
): { keyFile?: string; format: ProofFormat; trust: TurnProofTrust } {
  const format = (flags.format ?? "dsse") as ProofFormat;
  if (!PROOF_FORMATS.includes(format)) {
    throw new TurngateValidationError("--format value", [
      {
        path: "--format",
        message: `${JSON.stringify(flags.format)} is not a proof format: use ${PROOF_FORMATS.join(" or ")}`,
      },
    ]);
  }
  const sandboxed = flags.sandboxed === true || ctx.env[SANDBOXED_ENV] === "1";
  return {
    ...(flags.key !== undefined ? { keyFile: resolve(ctx.cwd, flags.key) } : {}),
    format,
    trust: sandboxed ? "sandboxed" : "unsandboxed",
  };
}

/**
 * The workspace root of `--root DIR` (default: `cwd`), resolved against `cwd`. When that
 * directory lies below the top of a git work tree, the top is the root instead (issue 10:
 * the whole repository is observed, so a change to `../go.mod` is seen), and `notice` gets
 * `turngate: observing the repository root <top> (…)`.
 * Errors: `TurngateValidationError` (path `--root`) when it does not exist or is not a
 * directory.
 */
export function resolveWorkspaceRoot(
  cwd: string,
  flag: string | undefined,
  notice?: (line: string) => void,
): string {
  const root = resolve(cwd, flag ?? ".");
  let problem: string | undefined;
  try {
    if (!statSync(root).isDirectory()) problem = `${root} is not a directory`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    problem =
      code === "ENOENT" || code === "ENOTDIR"
        ? `${root} does not exist`
        : `${root} cannot be read (${code ?? (error as Error).message})`;
  }
  if (problem !== undefined) {
    throw new TurngateValidationError("--root value", [{ path: "--root", message: problem }]);
  }
  const top = enclosingRepositoryRoot(root);
  if (top === undefined) return root;
  notice?.(
    `turngate: observing the repository root ${top} (${root} is inside its git work tree; every change in the repository counts)\n`,
  );
  return top;
}

/**
 * The parsed shared options: absolute root (an existing directory), state paths, config
 * path, checks and waivers. Errors: `TurngateValidationError` naming `--root`,
 * `--state-dir`, `--check[N]` or `--waive[N]`.
 */
export function resolveTurnFlags(
  flags: TurnFlags,
  ctx: CliContext,
): {
  root: string;
  /** The directory asked for (`--root` or the cwd) when it lies below `root`, the
   * repository top: the agent still runs there. */
  launchDir?: string;
  state: StatePaths;
  stateDir?: string;
  configPath?: string;
  checks: VerificationCommand[];
  waivers: CompletionWaiver[];
} {
  const checks = checksFromFlags(flags.check ?? []);
  const waivers = parseWaiverFlags(flags.waive ?? []);
  let launchDir: string | undefined;
  const root = resolveWorkspaceRoot(ctx.cwd, flags.root, (line) => {
    launchDir = resolve(ctx.cwd, flags.root ?? ".");
    ctx.stderr.write(line);
  });
  const state = resolveStatePaths(root, flags.stateDir, ctx.cwd);
  const parsed: ReturnType<typeof resolveTurnFlags> = { root, state, checks, waivers };
  if (launchDir !== undefined) parsed.launchDir = launchDir;
  if (flags.stateDir !== undefined) parsed.stateDir = state.dir;
  if (flags.config !== undefined) parsed.configPath = resolve(ctx.cwd, flags.config);
  return parsed;
}

/** `{isolation}` for a `TurnRequest` from `--isolation`, or nothing when the flag is absent. */
export function isolationRequest(flags: Pick<TurnFlags, "isolation">): {
  isolation?: (typeof ISOLATION_CHOICES)[number];
} {
  const isolation = resolveIsolationFlag(flags.isolation);
  return isolation !== undefined ? { isolation } : {};
}
