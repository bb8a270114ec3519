import { randomBytes } from "node:crypto";

/** Name of the environment variable that marks every process of one agent turn. */
export const TURN_MARKER_NAME = "TURNGATE_TURN";

/** A per-turn environment marker: `name=value`, value 32 lowercase hex digits (128 bits). */
export interface TurnMarker {
  name: string;
  value: string;
}

/**
 * A new random marker for one agent turn (issue 10, "Processes the agent left running"):
 * `{name: "TURNGATE_TURN", value: <128-bit random, 32 hex digits>}`. Descendants inherit it
 * through their environment, so a `setsid` daemon that left the agent's process group is
 * still found by `/proc/*\/environ` (Linux). Never throws.
 */
export function createTurnMarker(): TurnMarker {
  return { name: TURN_MARKER_NAME, value: randomBytes(16).toString("hex") };
}

/** `env` plus the marker (a copy; `env` is not changed). */
export function withTurnMarker(env: NodeJS.ProcessEnv, marker: TurnMarker): NodeJS.ProcessEnv {
  return { ...env, [marker.name]: marker.value };
}

/**
 * True when a NUL-separated environment block (the bytes of `/proc/PID/environ`) holds
 * exactly `name=value` as one of its entries. Input: the raw block; output: boolean.
 */
export function environHasMarker(environ: Buffer, marker: TurnMarker): boolean {
  const entry = Buffer.from(`${marker.name}=${marker.value}`);
  let at = environ.indexOf(entry);
  while (at >= 0) {
    const startsEntry = at === 0 || environ[at - 1] === 0;
    const end = at + entry.length;
    const endsEntry = end === environ.length || environ[end] === 0;
    if (startsEntry && endsEntry) return true;
    at = environ.indexOf(entry, at + 1);
  }
  return false;
}
