import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";

/** Default limit (ms) for one git query; listing a very large repo can take seconds. */
export const GIT_TIMEOUT_MS = 60_000;

/**
 * Configuration every git call turngate makes runs with (issue 10 "no agent code runs inside
 * turngate's own git calls"), given as `-c` options before the subcommand, which override
 * every config file: no `core.fsmonitor` program (a command named in `.git/config` would
 * run on each listing), no hooks (`core.hooksPath` pointed at an empty location), no
 * untracked cache (its stale state must not hide a new file). The subcommands turngate uses
 * (`ls-files`, `status`, `check-ignore`, `rev-parse`, `config`, `init` of a scratch
 * repository) never run textconv or credential helpers; `status`, the one that can read
 * tracked files' content, also gets {@link filterOverrides}.
 */
export const GIT_SAFETY_CONFIG: readonly string[] = Object.freeze([
  "core.fsmonitor=false",
  "core.hooksPath=/dev/null",
  "core.untrackedCache=false",
]);

/**
 * Environment every git call turngate makes gets on top of its base environment:
 * `GIT_CONFIG_NOSYSTEM=1` (the system gitconfig is not read), `GIT_OPTIONAL_LOCKS=0` (the
 * index is never refreshed and locked while the agent may use it), `GIT_TERMINAL_PROMPT=0`
 * (never ask for credentials).
 */
export const GIT_SAFETY_ENV: Readonly<Record<string, string>> = Object.freeze({
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_OPTIONAL_LOCKS: "0",
  GIT_TERMINAL_PROMPT: "0",
});

/** `-c` arguments for {@link GIT_SAFETY_CONFIG}. */
export function gitSafetyArgs(): string[] {
  return GIT_SAFETY_CONFIG.flatMap((setting) => ["-c", setting]);
}

/** The outcome of one git invocation: exit code (null if killed), raw stdout, stderr text. */
export interface GitResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Options of {@link runGit}. */
export interface RunGitOptions {
  /** Kill git after this many ms (the result's `code` is then null). */
  timeoutMs?: number;
  /** Bytes written to git's stdin (stdin is closed, empty, without it). */
  input?: Buffer;
  /** The complete environment for git; default: this process's environment. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `git <safety -c options> <args>` in `cwd` without a shell and collects its output.
 *
 * {@link GIT_SAFETY_CONFIG} and {@link GIT_SAFETY_ENV} apply to every call (no fsmonitor,
 * hooks or untracked cache; no system config; no index refresh; no prompt). The process is
 * killed after `options.timeoutMs`
 * (default {@link GIT_TIMEOUT_MS}; code null). Rejects only if git cannot be spawned (e.g.
 * `ENOENT`: git not installed).
 */
export function runGit(
  args: string[],
  cwd: string,
  options: RunGitOptions = {},
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...gitSafetyArgs(), ...args], {
      cwd,
      env: { ...(options.env ?? process.env), ...GIT_SAFETY_ENV },
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      timeout: options.timeoutMs ?? GIT_TIMEOUT_MS,
      killSignal: "SIGKILL",
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    if (options.input !== undefined && child.stdin !== null) {
      child.stdin.on("error", () => undefined); // git may exit before reading everything
      child.stdin.end(options.input);
    }
    child.on("close", (code) => {
      resolve({
        code,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString("utf8").trim(),
      });
    });
  });
}

/** Answers handed over by {@link rememberGitWorkTree}, by real path; each is used once. */
const knownWorkTrees = new Map<string, boolean>();

function realKey(dir: string): string | undefined {
  try {
    return realpathSync(dir);
  } catch {
    return undefined;
  }
}

/**
 * Hand {@link isInsideGitWorkTree} an answer this process already has (issue 33: a no-op
 * turn starts no tree work), so its next call for `dir` starts no git: `inside` must come
 * from a git that ran in this process's environment with {@link GIT_SAFETY_CONFIG} and
 * {@link GIT_SAFETY_ENV} (the CLI's `git rev-parse --show-toplevel`: it prints the top level
 * exactly when `git rev-parse --is-inside-work-tree` prints `true`). Kept by real path and
 * used by the next call only, so a stale answer cannot outlive the hand-over. Never throws.
 */
export function rememberGitWorkTree(dir: string, inside: boolean): void {
  const key = realKey(dir);
  if (key !== undefined) knownWorkTrees.set(key, inside);
}

/**
 * True if `dir` is inside a git work tree (`git rev-parse --is-inside-work-tree` prints
 * `true`). False if git is missing, fails, or `dir` is in a bare repo or a `.git` dir.
 * An answer handed over by {@link rememberGitWorkTree} for `dir` is used (once) instead of
 * starting git.
 */
export async function isInsideGitWorkTree(dir: string): Promise<boolean> {
  const key = realKey(dir);
  const known = key !== undefined ? knownWorkTrees.get(key) : undefined;
  if (known !== undefined && key !== undefined) {
    knownWorkTrees.delete(key);
    return known;
  }
  try {
    const result = await runGit(["rev-parse", "--is-inside-work-tree"], dir);
    return result.code === 0 && result.stdout.toString("utf8").trim() === "true";
  } catch {
    return false;
  }
}

/**
 * `-c` arguments that switch off every content filter configured for the repository at
 * `cwd` (`filter.<driver>.clean`, `.smudge`, `.process` set to empty, `.required` to
 * false), for a git subcommand that may read tracked files' content through the clean
 * filter (`git status` re-reads a file whose stat no longer matches the index). The driver
 * names come from `git config --get-regexp` (reading config runs no program). Returns `[]`
 * when none is configured or the config cannot be read (the caller's git call then fails on
 * the same config). Never throws.
 */
export async function filterOverrides(cwd: string): Promise<string[]> {
  let result: GitResult;
  try {
    result = await runGit(["config", "-z", "--get-regexp", "^filter\\."], cwd);
  } catch {
    return [];
  }
  if (result.code !== 0) return [];
  const drivers = new Set<string>();
  for (const record of result.stdout.toString("utf8").split("\0")) {
    const key = record.slice(0, record.indexOf("\n") < 0 ? record.length : record.indexOf("\n"));
    const match = /^filter\.(.+)\.[^.]+$/.exec(key);
    if (match?.[1] !== undefined) drivers.add(match[1]);
  }
  const args: string[] = [];
  for (const driver of drivers) {
    for (const key of ["clean", "smudge", "process"]) args.push("-c", `filter.${driver}.${key}=`);
    args.push("-c", `filter.${driver}.required=false`);
  }
  return args;
}

/** Quotes one argument for `sh` (single quotes; `'` written as `'\''`). */
function shellQuote(arg: string): string {
  return `'${arg.replaceAll("'", "'\\''")}'`;
}

/**
 * Runs two git commands in `cwd` at the same time from one spawned `/bin/sh` (spawning from
 * a large Node process costs far more than a fork of a small shell: this saves one of the
 * observer's two spawns per observation). Both get {@link GIT_SAFETY_CONFIG} and
 * {@link GIT_SAFETY_ENV} as with {@link runGit}; the first's stdout comes back in the first
 * result, the second's in the second; stderr is shared (both results carry it). Each
 * result's `code` is that git's exit code (null when the shell was killed after
 * `timeoutMs`, default {@link GIT_TIMEOUT_MS}, together with its process group). When
 * `/bin/sh` cannot be spawned, falls back to two {@link runGit} calls. Rejects only when
 * git cannot be spawned either.
 */
export function runGitPair(
  first: string[],
  second: string[],
  cwd: string,
  options: { timeoutMs?: number } = {},
): [Promise<GitResult>, Promise<GitResult>] {
  const command = (args: string[]): string =>
    ["git", ...gitSafetyArgs(), ...args].map(shellQuote).join(" ");
  const script = [
    `${command(first)} & a=$!`,
    `${command(second)} >&3 & b=$!`,
    'wait "$a"; ca=$?',
    'wait "$b"; cb=$?',
    `printf '%s %s' "$ca" "$cb" >&4`,
  ].join("\n");
  const both = new Promise<[GitResult, GitResult]>((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      // -p: keep the effective uid (a shell started with euid != uid would reset it).
      child = spawn("/bin/sh", ["-p", "-c", script], {
        cwd,
        env: { ...process.env, ...GIT_SAFETY_ENV },
        stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"],
        detached: true,
      });
    } catch {
      Promise.all([runGit(first, cwd, options), runGit(second, cwd, options)]).then(
        resolve,
        reject,
      );
      return;
    }
    const chunks: Buffer[][] = [[], [], [], []];
    const streams = [child.stdout, child.stderr, child.stdio[3], child.stdio[4]];
    streams.forEach((stream, i) => {
      (stream as NodeJS.ReadableStream | null)?.on("data", (chunk: Buffer) =>
        chunks[i]?.push(chunk),
      );
    });
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }, options.timeoutMs ?? GIT_TIMEOUT_MS);
    let failed = false;
    child.on("error", (error) => {
      clearTimeout(timer);
      failed = true; // a "close" that may follow carries no result
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        Promise.all([runGit(first, cwd, options), runGit(second, cwd, options)]).then(
          resolve,
          reject,
        );
      } else reject(error);
    });
    child.on("close", () => {
      clearTimeout(timer);
      if (failed) return;
      const text = (i: number) => Buffer.concat(chunks[i] ?? []);
      const stderr = text(1).toString("utf8").trim();
      const codes = text(3).toString("utf8").trim().split(" ").map(Number);
      const code = (i: number): number | null =>
        killed || !Number.isInteger(codes[i]) ? null : (codes[i] as number);
      resolve([
        { code: code(0), stdout: text(0), stderr },
        { code: code(1), stdout: text(2), stderr },
      ]);
    });
  });
  return [both.then((r) => r[0]), both.then((r) => r[1])];
}
