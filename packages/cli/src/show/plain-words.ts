/**
 * What `turngate show` (terminal and HTML) and `turngate status` say, in the words
 * `turngate run` uses (issue 34 item 8). The gate's A3S text (`completion gate: workspace
 * mutation … has no bound Passed verification …`) stays in `--json` and the bridge only.
 * Pure: no I/O.
 */
import type { TurnView, TurnViewCheck } from "@turngate/core";

/**
 * Why a turn was not allowed, in `run`'s words and with what to do next; null when it was
 * allowed. `unverified_mutation` is told from the view's check counts (no check ran / the
 * checks did not all pass / the checks' result does not hold for these bytes); a reason this
 * module does not know shows the gate's message without its `completion gate: ` prefix.
 */
export function plainReason(view: TurnView): string | null {
  if (view.reason === null) return null;
  const digest = view.effect_digest;
  const c = view.counts.checks;
  switch (view.reason) {
    case "unverified_mutation": {
      const change = `the change (effect digest ${digest}) is not verified`;
      const waive = `or, as the host, accept this exact change with --waive ${digest}:REASON`;
      if (c.passed + c.failed + c.needs_review + c.skipped === 0) {
        return `${change}: no check ran on it. Add one (--check CMD, or "checks" in turngate.config.json) and run again, ${waive}`;
      }
      if (c.failed + c.needs_review > 0) {
        return `${change}: the required checks did not all pass. Fix it and run again, ${waive}`;
      }
      return `${change}: the checks' result does not hold for these bytes (the workspace changed while they ran, or a required check did not run). Run them again, ${waive}`;
    }
    case "observation_incomplete":
      return "turngate could not read every path of the workspace, so it cannot tell what the turn changed: make them readable, rename names that are not UTF-8, or add them to ignores, and run again";
    case "open_children":
      return "work the agent started is still open (a child task or process), so the turn is not finished: wait for it or end it, and run again";
    case "external_observation":
      return "a change outside what turngate observes was reported for this turn, so it cannot be verified here: look at it, then run again or waive it";
    default:
      return (view.message ?? view.reason).replace(/^completion gate: /, "");
  }
}

/** An affected target's reason in words (`run` prints the same): `fallback` → "changed file". */
export function plainTargetReason(reason: string): string {
  switch (reason) {
    case "direct":
      return "changed";
    case "dependent":
      return "depends on a change";
    case "global_file":
      return "a file every target uses changed";
    case "lockfile":
      return "its lockfile entry changed";
    case "unmapped":
      return "no project map covers it";
    case "fallback":
      return "changed file";
    default:
      return reason;
  }
}

/**
 * The name a check is shown by: its id, unless the id is one turngate made up (`check:1`
 * for an unnamed `--check` or config string): then its command.
 */
export function checkLabel(check: Pick<TurnViewCheck, "id" | "command">): string {
  return /^check:\d+$/.test(check.id) && check.command !== null ? check.command : check.id;
}

/**
 * How long ago `iso` was, from `nowMs`: `just now`, `42 s ago`, `5 min ago`, `3 h ago`,
 * `2 days ago`; null when `iso` is null or not a date. Input: ISO 8601 text, ms since epoch.
 */
export function ageText(iso: string | null, nowMs: number): string | null {
  if (iso === null) return null;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return null;
  const s = Math.max(0, Math.floor((nowMs - at) / 1000));
  if (s < 5) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  const days = Math.floor(s / 86_400);
  return `${days} day${days === 1 ? "" : "s"} ago`;
}
