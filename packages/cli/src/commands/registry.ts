import type { CliCommand } from "./types.js";

/** One row of the command table: the word that selects the command and how to load it. */
export interface CommandEntry {
  /** The command word (`run`, `proof`); must equal the loaded `CliCommand.name`. */
  name: string;
  /** Imports the command's module (its own bundle chunk) and returns its `CliCommand`. */
  load(): Promise<CliCommand>;
}

/**
 * Every `turngate` command, in `--help` order. Each module is loaded only when its word is
 * on the command line (issue #17 item 4: start-up), so `turngate --version` and every
 * command pay only for what they use; `--help`, a bare `turngate` and an unknown word load
 * them all.
 *
 * A new command is one file under src/commands/ exporting a `CliCommand`, plus one row
 * here: `{ name: "word", load: async () => (await import("./word.js")).wordCommand }`.
 * The import must be a literal `import("./…js")` so the bundler gives it its own chunk.
 */
export const COMMANDS: readonly CommandEntry[] = [
  { name: "run", load: async () => (await import("./run.js")).runCommand },
  { name: "baseline", load: async () => (await import("./baseline.js")).baselineCommand },
  { name: "verify", load: async () => (await import("./verify.js")).verifyCommand },
  { name: "proof", load: async () => (await import("./proof.js")).proofCommand },
  { name: "show", load: async () => (await import("./show.js")).showCommand },
  { name: "gc", load: async () => (await import("./gc.js")).gcCommand },
  { name: "profile", load: async () => (await import("./profile.js")).profileCommand },
  { name: "hud", load: async () => (await import("./hud.js")).hudCommand },
  { name: "affected", load: async () => (await import("./affected.js")).affectedCommand },
  { name: "hook", load: async () => (await import("./hook.js")).hookCommand },
  { name: "status", load: async () => (await import("./status.js")).statusCommand },
  { name: "cache", load: async () => (await import("./cache.js")).cacheCommand },
  { name: "waive", load: async () => (await import("./waive.js")).waiveCommand },
  { name: "bridge", load: async () => (await import("./bridge.js")).bridgeCommand },
  { name: "demo", load: async () => (await import("./demo.js")).demoCommand },
];

/**
 * The rows of `COMMANDS` that a command line needs (`args`: the words after the program
 * name): none for `--version`/`-V` first; the named command for `run …`, `proof verify …`
 * or `help run`; every command otherwise (`--help`, no words, an unknown word: the help
 * and commander's "did you mean" list them all).
 */
export function commandsFor(args: readonly string[]): readonly CommandEntry[] {
  const first = args[0];
  if (first === "--version" || first === "-V") return [];
  const word = first === "help" ? args[1] : first;
  const entry = COMMANDS.find((command) => command.name === word);
  return entry ? [entry] : COMMANDS;
}
