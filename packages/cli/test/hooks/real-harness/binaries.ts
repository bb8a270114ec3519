/**
 * Where the real-harness tests find their programs: the built turngate CLI and the pinned
 * harness binaries (Claude Code, Codex) installed as dev dependencies of the CLI package.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The CLI package's folder. */
export const cliDir = join(dirname(fileURLToPath(import.meta.url)), "../../..");
/** The built `turngate` entry point (`dist/bin.js`). */
export const bin = join(cliDir, "dist/bin.js");

/**
 * A harness's executable as its npm package declares it: `pkg`'s `bin[name]`, resolved from
 * the CLI package, with the package's version (for the test titles). Throws when the package
 * is not installed.
 */
export function harnessBinary(pkg: string, name: string): { path: string; version: string } {
  const manifestPath = createRequire(join(cliDir, "package.json")).resolve(`${pkg}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
    version: string;
    bin: Record<string, string>;
  };
  return {
    path: join(dirname(manifestPath), manifest.bin[name] as string),
    version: manifest.version,
  };
}
