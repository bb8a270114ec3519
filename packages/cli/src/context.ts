import { createRequire } from "node:module";

/** A text sink: `process.stdout`, `process.stderr` or a test's collector. */
export interface TextStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** What a command needs from its surroundings, so tests can run it in-process. */
export interface CliContext {
  stdout: TextStream;
  stderr: TextStream;
  /** Directory relative paths are resolved against (the workspace root by default). */
  cwd: string;
  /** Environment for the agent and the checks. */
  env: NodeJS.ProcessEnv;
  /**
   * Where the agent's stdout and stderr go instead of this process's (tests and embedders
   * that run the CLI in-process collect them here; issue #12 item 15). Absent: inherited.
   */
  agentOutput?: TextStream;
  /**
   * Whether standard input is a terminal (`turngate waive` is for a person: it refuses
   * otherwise); absent: `process.stdin.isTTY`.
   */
  stdinIsTTY?: boolean;
  /** Standard input for `turngate hook` (tests); absent: `process.stdin`. */
  stdin?: () => Promise<Uint8Array>;
  /** Clock (ms since the epoch) for recorded check timings and the HUD; default `Date.now`. */
  now?: () => number;
}

/** Exit codes: 0 verified, waived or narrative; 2 incomplete; 1 usage or internal error. */
export const EXIT_OK = 0;
export const EXIT_INTERNAL = 1;
export const EXIT_INCOMPLETE = 2;

/** Set by the bundler (scripts/bundle.ts) to package.json's version; absent from source. */
declare const __TURNGATE_CLI_VERSION__: string | undefined;

/**
 * The turngate CLI's version: inlined into the bundle at build time, else read from its
 * package.json (the same relative path from src/ and from tsc's dist/).
 */
export const CLI_VERSION: string =
  typeof __TURNGATE_CLI_VERSION__ === "string"
    ? __TURNGATE_CLI_VERSION__
    : (createRequire(import.meta.url)("../package.json") as { version: string }).version;
