/**
 * Writes one JSON Schema file per zod schema exported from src/schemas/index.ts into
 * packages/core/schema/<name>.json (name = export name without the `Schema` suffix,
 * kebab-cased). Run at build; `--check` fails instead of writing when a file would change
 * (the drift check).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import * as schemas from "../src/schemas/index.js";

const outDir = join(dirname(fileURLToPath(import.meta.url)), "..", "schema");
const check = process.argv.includes("--check");
mkdirSync(outDir, { recursive: true });
let drift = 0;
for (const [exportName, value] of Object.entries(schemas)) {
  if (!exportName.endsWith("Schema") || !(value instanceof z.ZodType)) continue;
  const base = exportName
    .slice(0, -"Schema".length)
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .toLowerCase();
  const file = join(outDir, `${base}.json`);
  const text = `${JSON.stringify(z.toJSONSchema(value, { io: "input", unrepresentable: "any" }), null, 2)}\n`;
  let old = "";
  try {
    old = readFileSync(file, "utf8");
  } catch {}
  if (old === text) continue;
  if (check) {
    console.error(`schema drift: ${file} is out of date; run the build`);
    drift++;
  } else writeFileSync(file, text);
}
process.exit(drift ? 1 : 0);
