import type { VerificationCommand, VerificationPreset } from "@turngate/core";
import { withStructuredResults } from "./results.js";

/**
 * The required commands of `presets`, in preset order then command order (A3S §2.17
 * order: rust, node, python, go). Optional commands (clippy, lint, typecheck, vet, …) are
 * left out. With `root` (the workspace the commands will run in), each command is the
 * variant that writes structured test results where the tool can (`withStructuredResults`,
 * issue #16). Input and output are plain records; never throws.
 */
export function requiredPresetCommands(
  presets: readonly VerificationPreset[],
  root?: string,
): VerificationCommand[] {
  const required = presets.flatMap((preset) =>
    preset.commands.filter((command) => command.required),
  );
  return root === undefined ? required : required.map((c) => withStructuredResults(c, root));
}
