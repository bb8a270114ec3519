import type { VerificationCommand, VerificationPreset } from "@turngate/core";

/**
 * The required commands of `presets`, in preset order then command order (A3S §2.17
 * order: rust, node, python, go). Optional commands (clippy, lint, typecheck, vet, …) are
 * left out. Input and output are plain records; never throws.
 */
export function requiredPresetCommands(
  presets: readonly VerificationPreset[],
): VerificationCommand[] {
  return presets.flatMap((preset) => preset.commands.filter((command) => command.required));
}
