import { homeValues } from "../isolation/home-values.js";
import { type BaselineHead, readBaselineHead } from "../isolation/room-git.js";
import type { SetupConfig } from "../isolation/room-setup.js";
import { probeSandbox } from "../isolation/sandbox.js";
import type { SessionIsolation, SessionOptions } from "./types.js";

/**
 * What `Session.start` decides about isolation (docs/design.md §3b, "Modes"): the mode that
 * will run, found by starting the sandbox, and what the clean room needs from baseline time
 * (the baseline's HEAD, read before the agent runs).
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
   * The HOME allow-list read at baseline time (`home-values.ts`): variables the clean-room
   * checks get as values. Empty in place (the checks see the real HOME there).
   */
  homeValues: Record<string, string>;
}

/** The message of a clean-room turn whose sandbox cannot start (reason `isolation_unavailable`). */
export function isolationUnavailableMessage(reason: string): string {
  return `completion gate: clean-room checks are required but the check sandbox cannot start here (${reason}); no check ran. Fix the sandbox, or run with --isolation in-place (or "isolation": "in-place" in turngate.config.json), which checks in the workspace and guarantees less`;
}

/**
 * Decide the session's isolation: `in-place` (the default for the API) needs nothing;
 * `clean-room` and `auto` start the sandbox once (`probeSandbox`, kept per process) and read
 * the baseline's HEAD and the HOME allow-list (`homeValues`). `auto` falls back to `in-place` with the reason; `clean-room` stays
 * `clean-room` with `available: false` (fail closed). Never throws.
 */
export async function decideIsolation(
  options: Pick<SessionOptions, "isolation" | "roomDir" | "network" | "setup">,
  root: string,
  env: NodeJS.ProcessEnv,
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
  const [sandbox, head] = await Promise.all([probeSandbox(env), readBaselineHead(root, env)]);
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
