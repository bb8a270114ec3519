import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The folder of the `turngate` package (the one holding its package.json and `demo/`),
 * found by walking up from this module: it is `src/` when run from source, `dist/` when
 * compiled, and `dist/` or `dist/chunks/` inside the bundle, so a fixed relative path would
 * hold for only some of them. Throws `Error` when no ancestor holds turngate's package.json.
 */
export function cliPackageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown };
      if (name === "turngate") return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`turngate's package.json not found above ${from}`);
    dir = parent;
  }
}
