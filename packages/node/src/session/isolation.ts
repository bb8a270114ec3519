import { homeValues } from "../isolation/home-values.js";
import { type BaselineHead, readBaselineHead } from "../isolation/room-git.js";
import type { SetupConfig } from "../isolation/room-setup.js";
import { probeSandbox } from "../isolation/sandbox.js";
import type { SessionIsolation, SessionOptions } from "./types.js";

/**
 * What a session decides about isolation (docs/design.md §3b, "Modes"): the mode that
 * will run, found by starting the sandbox when checks first need it, and what the clean room
 * needs from baseline time (the baseline's HEAD, read before the agent runs).
 */
export interface IsolationSetup {
  record: SessionIsolation;
  /** The baseline's HEAD (clean room only; null when the root is not a repository). */
  head: BaselineHead | null;
  /** bubblewrap's path when the sandbox starts. */
  bwrap?: string;
  /** `SessionOptions.roomDir`. */
  roomDir?: string;
  /** `SessionOptions.network`. */
  network: boolean;
  /** Whether the host set `SessionOptions.isolation` (then proofs record it). */
  explicit: boolean;
  /** `SessionOptions.setup` (clean room: the dependency setup). */
  setup?: SetupConfig;
  /**
   * The HOME allow-list read when the isolation is decided (`home-values.ts`): variables the
   * clean-room checks get as values. Empty in place (the checks see the real HOME there).
   */
  homeValues: Record<string, string>;
}

/** The message of a clean-room turn whose sandbox cannot start (reason `isolation_unavailable`). */
export function isolationUnavailableMessage(reason: string): string {
  return `completion gate: clean-room checks are required but the check sandbox cannot start here (${reason}); no check ran. Fix the sandbox, or run with --isolation in-place (or "isolation": "in-place" in turngate.config.json), which checks in the workspace and guarantees less`;
}

/**
 * What a session records as its isolation before anything needed the sandbox (issue 33: a
 * turn that runs no check starts no sandbox): `in-place` as requested; for `clean-room` and
 * `auto`, `{mode: "clean-room", requested, available: true, reason}` where `reason` says the
 * sandbox was not started because no check ran (the mode the request asks for, not a probe's
 * answer; docs/design.md §3b "Modes"). Replaced by {@link decideIsolation}'s record the first
 * time checks run. Pure.
 */
export function undecidedIsolation(options: Pick<SessionOptions, "isolation">): SessionIsolation {
  const requested = options.isolation ?? "in-place";
  if (requested === "in-place") return { mode: "in-place", requested, available: true };
  return { mode: "clean-room", requested, available: true, reason: NOT_STARTED };
}

/** The reason of {@link undecidedIsolation}'s record. */
export const NOT_STARTED = "no check ran, so the check sandbox was not started";

/**
 * Read what the clean room needs from baseline time (docs/design.md §3b): the baseline's
 * HEAD (`readBaselineHead`, one git process) when `options.isolation` is `clean-room` or
 * `auto`; null in place. Must be awaited before the agent runs: the agent could commit or
 * move HEAD. Never throws.
 */
export async function readIsolationBaseline(
  options: Pick<SessionOptions, "isolation">,
  root: string,
  env: NodeJS.ProcessEnv,
): Promise<BaselineHead | null> {
  const requested = options.isolation ?? "in-place";
  return requested === "in-place" ? null : readBaselineHead(root, env);
}

/**
 * Decide the session's isolation: `in-place` (the default for the API) needs nothing;
 * `clean-room` and `auto` start the sandbox once (`probeSandbox`, kept per process) and read
 * the HOME allow-list (`homeValues`); the baseline's HEAD is `head` when given (read at
 * baseline time by {@link readIsolationBaseline}), else read now. `auto` falls back to
 * `in-place` with the reason; `clean-room` stays `clean-room` with `available: false` (fail
 * closed). Called when checks first need it (issue 33), not at session start.
 *
 * The HOME allow-list is read here, at check time, not at baseline time: its values are
 * passed as one-line environment values, never as files or code (`home-values.ts`), and the
 * files they come from (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/`, `~/.npmrc`, cargo's config)
 * are user-level files fingerprinted at baseline time (`environment/user-files.ts`): an agent
 * that edits them is a ledger row and the turn ends `needs_review`. A session restored from a
 * stored baseline (hooks, `turngate verify`) always read them after the agent ran. Never throws.
 */
export async function decideIsolation(
  options: Pick<SessionOptions, "isolation" | "roomDir" | "network" | "setup">,
  root: string,
  env: NodeJS.ProcessEnv,
  baselineHead?: BaselineHead | null,
): Promise<IsolationSetup> {
  const requested = options.isolation ?? "in-place";
  const network = options.network === true;
  const extra = {
    explicit: options.isolation !== undefined,
    ...(options.roomDir !== undefined ? { roomDir: options.roomDir } : {}),
    ...(options.setup !== undefined ? { setup: options.setup } : {}),
    homeValues: {} as Record<string, string>,
  };
  if (requested === "in-place") {
    return {
      record: { mode: "in-place", requested, available: true },
      head: null,
      network,
      ...extra,
    };
  }
  const [sandbox, head] = await Promise.all([
    probeSandbox(env),
    baselineHead !== undefined ? baselineHead : readBaselineHead(root, env),
  ]);
  if (sandbox.available) {
    extra.homeValues = homeValues(env);
    return {
      record: { mode: "clean-room", requested, available: true },
      head,
      bwrap: sandbox.bwrap,
      network,
      ...extra,
    };
  }
  if (requested === "auto") {
    return {
      record: { mode: "in-place", requested, available: true, reason: sandbox.reason },
      head: null,
      network,
      ...extra,
    };
  }
  return {
    record: { mode: "clean-room", requested, available: false, reason: sandbox.reason },
    head,
    network,
    ...extra,
  };
}
