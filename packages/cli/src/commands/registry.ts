import { baselineCommand } from "./baseline.js";
import { bridgeCommand } from "./bridge.js";
import { demoCommand } from "./demo.js";
import { gcCommand } from "./gc.js";
import { hookCommand } from "./hook.js";
import { hudCommand } from "./hud.js";
import { profileCommand } from "./profile.js";
import { proofCommand } from "./proof.js";
import { runCommand } from "./run.js";
import type { CliCommand } from "./types.js";
import { verifyCommand } from "./verify.js";

/**
 * Every `turngate` command, in `--help` order. A new command (e.g. `bridge --stdio`,
 * `hook …`) is one file under src/commands/ exporting a `CliCommand`, plus one line here.
 */
export const COMMANDS: readonly CliCommand[] = [
  runCommand,
  baselineCommand,
  verifyCommand,
  proofCommand,
  gcCommand,
  profileCommand,
  hudCommand,
  hookCommand,
  bridgeCommand,
  demoCommand,
];
