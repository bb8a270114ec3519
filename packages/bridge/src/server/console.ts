/**
 * stdio discipline: while the bridge serves on the process's stdout, `console.log`,
 * `console.info`, `console.debug` and `console.warn` are sent to stderr so a stray log line
 * from any library can never corrupt the protocol stream.
 */
import type { Writable } from "node:stream";
import { format } from "node:util";

const PATCHED = ["log", "info", "debug", "warn"] as const;

/**
 * Points the console's stdout-writing methods at `stream`.
 * @returns a function that restores the previous methods.
 */
export function redirectConsoleTo(stream: Writable): () => void {
  const saved = PATCHED.map((name) => [name, console[name]] as const);
  for (const name of PATCHED) {
    console[name] = (...args: unknown[]) => {
      stream.write(`${format(...args)}\n`);
    };
  }
  return () => {
    for (const [name, fn] of saved) console[name] = fn;
  };
}
