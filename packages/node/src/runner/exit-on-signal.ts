import { killTrackedProcessGroups } from "./process-group.js";

/** The signals a host installs `exitOnTerminationSignals` for by default. */
export const TERMINATION_SIGNALS: readonly NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

const SIGNAL_NUMBERS: Partial<Record<NodeJS.Signals, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGTERM: 15,
};

/** Exit code of a process that ends because of `signal`: 128 + its number (SIGTERM → 143). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (SIGNAL_NUMBERS[signal] ?? 0);
}

/** Options of `exitOnTerminationSignals`. */
export interface ExitOnSignalOptions {
  /** Signals to handle; default SIGINT, SIGTERM and SIGHUP. */
  signals?: readonly NodeJS.Signals[];
  /**
   * Called first, synchronously, with the signal (e.g. close the bridge's sessions). An
   * error it throws is ignored: the process groups are killed and the process exits anyway.
   */
  beforeExit?: (signal: NodeJS.Signals) => void;
}

/**
 * Make a termination signal end this process without leaking verification commands.
 *
 * Node's default action for SIGINT, SIGTERM and SIGHUP ends the process without its `exit`
 * event, so `trackProcessGroup`'s exit hook never runs and the process groups of running
 * checks (`sh -c …` and everything it started) survive. The handlers installed here call
 * `beforeExit(signal)`, SIGKILL every tracked process group (`killTrackedProcessGroups`)
 * and exit with 128 + the signal number (SIGHUP 129, SIGINT 130, SIGTERM 143).
 *
 * Input: options (signals, `beforeExit`). Output: a function that removes the handlers
 * again (idempotent). Never throws.
 */
export function exitOnTerminationSignals(options: ExitOnSignalOptions = {}): () => void {
  const signals = options.signals ?? TERMINATION_SIGNALS;
  const handler = (signal: NodeJS.Signals) => {
    try {
      options.beforeExit?.(signal);
    } catch {
      // The checks must die and the process must exit even if the host's cleanup fails.
    }
    killTrackedProcessGroups();
    process.exit(signalExitCode(signal));
  };
  for (const signal of signals) process.on(signal, handler);
  let installed = true;
  return () => {
    if (!installed) return;
    installed = false;
    for (const signal of signals) process.off(signal, handler);
  };
}
