import { DEFAULT_OUTPUT_LOCATIONS } from "@turngate/node";

/**
 * The `--help` paragraph on output locations (issue 10): the default list
 * (`DEFAULT_OUTPUT_LOCATIONS`, wrapped to 80 columns) and the two config keys. Text ending in
 * a newline.
 */
export function outputLocationsHelp(): string {
  const lines = [
    "",
    "Output locations (outside the source scope; the agent's own changes there are still in the effect digest):",
  ];
  let line = " ";
  for (const location of DEFAULT_OUTPUT_LOCATIONS) {
    const item = ` ${location},`;
    if (line.length + item.length > 80) {
      lines.push(line);
      line = " ";
    }
    line += item;
  }
  lines.push(line.replace(/,$/, ""));
  lines.push(
    "  Untracked files there are check outputs, never tracked ones. turngate.config.json:",
    '  "outputs" adds gitignore-syntax patterns, "default_outputs": false turns this list off.',
  );
  return `${lines.join("\n")}\n`;
}
