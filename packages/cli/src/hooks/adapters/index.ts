import { claudeCodeAdapter } from "./claude-code.js";
import { codexAdapter } from "./codex.js";
import { cursorAdapter } from "./cursor.js";
import { gooseAdapter } from "./goose.js";
import type { Harness, HarnessAdapter } from "./types.js";

export * from "./types.js";

/** Every harness adapter, by name. */
export const ADAPTERS: Readonly<Record<Harness, HarnessAdapter>> = {
  "claude-code": claudeCodeAdapter,
  codex: codexAdapter,
  cursor: cursorAdapter,
  goose: gooseAdapter,
};
