import { createRequire } from "node:module";

/** The part of `@turngate/native` this folder uses. */
interface NativeProcessApi {
  available: boolean;
  reason: string | null;
  setChildSubreaper(on: boolean): boolean;
  reapChild(pid: number): { state: "reaped" | "running" | "not_child" };
}

/** Whether this process is a child subreaper, and why not when it is not. */
export type SubreaperStatus =
  | { active: true }
  | {
      active: false;
      /** e.g. `child subreaper needs Linux (prctl)`, `turngate-native.linux-x64-gnu.node not built …`. */
      reason: string;
    };

let native: NativeProcessApi | undefined;
let loadError: string | undefined;

function loadNative(): NativeProcessApi | undefined {
  if (native !== undefined || loadError !== undefined) return native;
  try {
    native = createRequire(import.meta.url)("@turngate/native") as NativeProcessApi;
  } catch (error) {
    loadError = `@turngate/native not installed: ${error instanceof Error ? error.message : String(error)}`;
  }
  return native;
}

/**
 * Turn this process's child-subreaper attribute on or off (Linux `prctl(PR_SET_CHILD_SUBREAPER)`
 * through `@turngate/native`). While on, a descendant orphaned by a double fork is reparented
 * to this process instead of init, so `findSurvivors` finds it by its parent pid.
 *
 * Output: `{active: true}` when the attribute is now `on`; otherwise `{active: false,
 * reason}` — the addon is absent (not built, other platform), the OS is not Linux, or prctl
 * failed. Never throws: without a subreaper turngate still works and reports the reason
 * (`subreaper: unavailable (reason)`). Issue 10, "Child subreaper".
 */
export function setChildSubreaper(on: boolean): SubreaperStatus {
  const api = loadNative();
  if (api === undefined) return { active: false, reason: loadError ?? "unknown" };
  if (!api.available) return { active: false, reason: api.reason ?? "unknown" };
  if (process.platform !== "linux")
    return { active: false, reason: "child subreaper needs Linux (prctl)" };
  try {
    api.setChildSubreaper(on);
    return on ? { active: true } : { active: false, reason: "turned off" };
  } catch (error) {
    return { active: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Reap the zombie of `pid` if it is a child of this process that has ended
 * (`waitpid(pid, WNOHANG)`, never `-1`, so libuv's own children are untouched).
 * Output: `reaped`, `running`, `not_child`, or `unavailable` without the addon. Never throws.
 */
export function reapChild(pid: number): "reaped" | "running" | "not_child" | "unavailable" {
  const api = loadNative();
  if (api === undefined || !api.available) return "unavailable";
  try {
    return api.reapChild(pid).state;
  } catch {
    return "unavailable";
  }
}
