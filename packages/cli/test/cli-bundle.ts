import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");

/** The built CLI (packages/cli/dist/bin.js, the esbuild bundle): what users and bindings run. */
export const CLI_BUNDLE = join(repoRoot, "packages/cli/dist/bin.js");

/** The workspace packages the bundle is built from (their `src/` folders). */
const SOURCES = ["core", "node", "bridge", "cli"].map((name) =>
  join(repoRoot, "packages", name, "src"),
);

/** The newest modification time (ms) of a file under `dir`, and that file. */
function newest(dir: string): { ms: number; path: string } {
  let best = { ms: 0, path: "" };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const found = entry.isDirectory() ? newest(path) : { ms: statSync(path).mtimeMs, path };
    if (found.ms > best.ms) best = found;
  }
  return best;
}

/**
 * The argv prefix (after `node`) that runs the built turngate bundle, for tests that spawn
 * the CLI as a real process (issue #17 item 4: they test what ships, not the sources through
 * tsx). Throws, naming the fix, when the bundle is missing or older than a source file of
 * core, node, bridge or cli: a stale bundle would test old code.
 */
export function cliBundleArgs(): string[] {
  if (!existsSync(CLI_BUNDLE)) {
    throw new Error(
      `${CLI_BUNDLE} is missing: build it first (./scripts/dev setup, or pnpm exec turbo run build)`,
    );
  }
  const built = statSync(CLI_BUNDLE).mtimeMs;
  for (const dir of SOURCES) {
    const source = newest(dir);
    if (source.ms > built) {
      throw new Error(
        `${CLI_BUNDLE} is older than ${source.path}: rebuild it (pnpm exec turbo run build, or pnpm --filter turngate build)`,
      );
    }
  }
  return [CLI_BUNDLE];
}
