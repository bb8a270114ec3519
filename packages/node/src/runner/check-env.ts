/**
 * The controlled environment turngate's checks run in (issue 10, "the agent reaches past
 * the workspace"; docs/design.md §3a). The agent runs as the same OS user, so everything a check
 * reads from the user's account or from the environment is fixed when the baseline is
 * taken, before the agent runs:
 *
 * - **Shell**: config `shell` (a name looked up on `PATH`, or an absolute path); default
 *   `bash` when found on `PATH`, else `sh`. Resolved to an absolute path at baseline time
 *   and stored with the baseline, so a `~/.local/bin/bash` planted during the turn is
 *   never the checks' shell. Whether it knows `set -o pipefail` is probed the first time
 *   that is asked (dash 0.5.12 does not), so the pipefail hint fits the shell: a turn that
 *   runs no check starts no shell (issue 33).
 * - **`PATH`**: the baseline-time `PATH` with every relative entry (`.`, `""`,
 *   `node_modules/.bin`: they would resolve inside the workspace the agent wrote) and every
 *   folder that did not exist at baseline time dropped (a `~/.local/bin` the agent creates
 *   is not searched). Executables the agent plants in a `PATH` folder inside the home
 *   directory that did exist are fingerprinted (`user-files.ts`): a ledger row, and the
 *   turn ends `needs_review` (`turngate:path`, see `Session`).
 *
 * Variables set for every check:
 * - `PATH` as above;
 * - `PYTHONNOUSERSITE=1`: the Python user site (`~/.local/lib/python3.X/site-packages`,
 *   its `usercustomize.py` and `*.pth`) is not loaded;
 * - `PYTHONPYCACHEPREFIX=<fresh folder>/pycache`: Python reads and writes bytecode in a
 *   folder created after the agent ran (0700, under the OS temp folder, removed after the
 *   checks), so a planted `__pycache__/x.cpython-311.pyc` is never loaded and checks write
 *   no `__pycache__/` in the workspace;
 * - `GIT_CONFIG_GLOBAL=<fresh folder>/gitconfig` (an empty file turngate writes) and
 *   `GIT_CONFIG_NOSYSTEM=1`: git in a check reads neither `~/.gitconfig` nor
 *   `/etc/gitconfig` (an agent-edited alias, `core.hooksPath` or `core.fsmonitor` never
 *   runs; a check that needs a git identity sets `GIT_AUTHOR_NAME` & co. itself);
 * - `CARGO_TARGET_DIR=<state folder>/cargo-target`: cargo builds where the agent's own
 *   `cargo` runs do not write, so fingerprints and binaries the agent left in `target/`
 *   are never trusted; that folder is fingerprinted at baseline time and before the
 *   checks, and a change makes the turn `needs_review` (see `Session`);
 *
 * Variables removed from every check:
 * - `BASH_ENV`, `ENV` (files a non-interactive shell would source);
 * - secrets: names ending in `_TOKEN`, `_TOKENS`, `_SECRET`, `_SECRETS`, `_PASSWORD`,
 *   `_PASSWD`, `_PASS`, `_KEY`, `_KEYS`, `_CREDENTIAL`, `_CREDENTIALS`, `_AUTH`, or
 *   starting with `AWS_`, `AZURE_`, `GOOGLE_`, `GCP_`, and `SSH_AUTH_SOCK`,
 *   `GPG_AGENT_INFO` (`TURNGATE_SIGNING_KEY` included), unless named in config
 *   `allow_env` (exact names).
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, isAbsolute, join } from "node:path";
import { TurngateValidationError } from "@turngate/core";

/** The shell the checks run with, resolved at baseline time. */
export interface CheckShell {
  /** Absolute path of the shell program. */
  path: string;
  /** Its name as asked for (`bash`, `sh`, or the basename of the configured path). */
  name: string;
  /**
   * Whether `<path> -c 'set -o pipefail'` exited 0; probed the first time it is read (from
   * `planCheckEnvironment`), not at baseline time.
   */
  pipefail: boolean;
}

/** What is fixed at baseline time and stored with the baseline (`turngate baseline`). */
export interface CheckEnvironmentPlan {
  shell: CheckShell;
  /** The checks' `PATH`: absolute folders that existed at baseline time, in order, once each. */
  path: string;
}

/** Secret-looking variable names removed from checks (see the module docs). */
export const SECRET_NAME_PATTERNS: readonly RegExp[] = [
  /_(?:TOKENS?|SECRETS?|PASSWORD|PASSWD|PASS|KEYS?|CREDENTIALS?|AUTH)$/i,
  /^(?:AWS|AZURE|GOOGLE|GCP)_/i,
  /^(?:SSH_AUTH_SOCK|GPG_AGENT_INFO)$/i,
];

/** Variables a non-interactive shell would source a file from; removed from checks. */
export const SOURCED_FILE_VARIABLES: readonly string[] = ["BASH_ENV", "ENV"];

/** Whether `name` looks like a secret (`SECRET_NAME_PATTERNS`). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME_PATTERNS.some((pattern) => pattern.test(name));
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The checks' `PATH` from `pathValue`: absolute entries that are existing folders now,
 * in order, duplicates dropped, joined with `:`. Sync; never throws.
 */
export function resolveCheckPath(pathValue: string | undefined): string {
  const seen = new Set<string>();
  for (const entry of (pathValue ?? "").split(":")) {
    if (entry === "" || !isAbsolute(entry) || seen.has(entry)) continue;
    if (isDirectory(entry)) seen.add(entry);
  }
  return [...seen].join(":");
}

/** The first executable `name` in the folders of `path` (absolute), or undefined. */
export function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(":")) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function probePipefail(shellPath: string): boolean {
  const probe = spawnSync(shellPath, ["-c", "set -o pipefail"], {
    stdio: "ignore",
    timeout: 5000,
    env: { PATH: "/usr/bin:/bin" },
  });
  return probe.status === 0;
}

/**
 * Fix the checks' shell and `PATH` now (baseline time): `shell` is the config value — a
 * program name looked up on the resolved `PATH`, or an absolute path — or, when absent,
 * `bash` if found, else `sh`, else `/bin/sh`.
 * Input: the configured shell (or undefined) and the environment (`PATH`).
 * Output: `{shell: {path, name, pipefail}, path}`; `pipefail` is probed when first read.
 * Errors: `TurngateValidationError` (path `shell`) when the configured shell is blank,
 * relative with a `/`, not found on `PATH`, or not an executable file.
 */
export function planCheckEnvironment(
  shell: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): CheckEnvironmentPlan {
  const path = resolveCheckPath(env.PATH);
  const fail = (message: string): never => {
    throw new TurngateValidationError("check shell", [{ path: "shell", message }]);
  };
  let shellPath: string;
  let name: string;
  if (shell === undefined) {
    name = findOnPath("bash", path) !== undefined ? "bash" : "sh";
    shellPath = findOnPath(name, path) ?? "/bin/sh";
  } else if (shell.trim() === "") {
    return fail("must not be blank");
  } else if (isAbsolute(shell)) {
    if (!isExecutableFile(shell)) fail(`${shell} is not an executable file`);
    shellPath = shell;
    name = basename(shell);
  } else if (shell.includes("/")) {
    return fail(`${shell}: give a program name (bash) or an absolute path`);
  } else {
    shellPath = findOnPath(shell, path) ?? fail(`${shell} was not found on PATH`);
    name = shell;
  }
  return { shell: lazyPipefailShell(shellPath, name), path };
}

/**
 * A {@link CheckShell} whose `pipefail` is probed the first time it is read (issue 33: a turn
 * that runs no check starts no shell), then kept. Reading it later than baseline time is
 * equivalent: the probe runs the same absolute `path` the checks themselves run (fixed at
 * baseline time), with a fixed `PATH`, and its answer only picks the wording of the pipefail
 * hint (`masked-exit.ts`), never what runs. The property is enumerable, so a serialized
 * baseline (`serializeEnvironmentBaseline`, `JSON.stringify`) holds the boolean.
 */
function lazyPipefailShell(path: string, name: string): CheckShell {
  let known: boolean | undefined;
  return Object.defineProperty({ path, name } as CheckShell, "pipefail", {
    enumerable: true,
    configurable: true,
    get: () => {
      known ??= probePipefail(path);
      return known;
    },
    set: (value: boolean) => {
      known = value;
    },
  });
}

/** Options of `prepareCheckEnvironment`. */
export interface PrepareCheckEnvironmentOptions {
  /** The environment checks start from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The state folder (`<root>/.turngate` or `--state-dir`); `CARGO_TARGET_DIR` goes under it. */
  stateDir?: string;
  /** Variable names passed through although they look like secrets (config `allow_env`). */
  allowEnv?: readonly string[];
}

/** A prepared check environment; `dispose()` removes its fresh folder. */
export interface PreparedCheckEnvironment {
  env: NodeJS.ProcessEnv;
  /** The fresh folder (`PYTHONPYCACHEPREFIX`'s parent, `GIT_CONFIG_GLOBAL`'s folder). */
  dir: string;
  dispose(): void;
}

/** `<stateDir>/cargo-target`: the checks' `CARGO_TARGET_DIR`. */
export function checkCargoTargetDir(stateDir: string): string {
  return join(stateDir, "cargo-target");
}

/**
 * Build the checks' environment from `plan` (see the module docs for every variable):
 * creates a fresh 0700 folder under the OS temp folder holding `pycache/` and an empty
 * `gitconfig`. Call right before the checks (after the agent ran) and `dispose()` after.
 * Errors: the `fs` error when the folder cannot be created.
 */
export function prepareCheckEnvironment(
  plan: CheckEnvironmentPlan,
  options: PrepareCheckEnvironmentOptions = {},
): PreparedCheckEnvironment {
  const allow = new Set(options.allowEnv ?? []);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(options.env ?? process.env)) {
    if (value === undefined) continue;
    if (SOURCED_FILE_VARIABLES.includes(name)) continue;
    if (isSecretName(name) && !allow.has(name)) continue;
    env[name] = value;
  }
  const dir = mkdtempSync(join(tmpdir(), "turngate-check-"));
  const gitconfig = join(dir, "gitconfig");
  writeFileSync(gitconfig, "", { mode: 0o600 });
  env.PATH = plan.path;
  env.PYTHONNOUSERSITE = "1";
  env.PYTHONPYCACHEPREFIX = join(dir, "pycache");
  env.GIT_CONFIG_GLOBAL = gitconfig;
  env.GIT_CONFIG_NOSYSTEM = "1";
  if (options.stateDir !== undefined) env.CARGO_TARGET_DIR = checkCargoTargetDir(options.stateDir);
  return {
    env,
    dir,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
