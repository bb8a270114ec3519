/**
 * Writes packages/bridge/schema/protocol.json from the method table (run at build).
 * `--check`: writes nothing and exits 1 when the checked-in file differs (the drift check).
 * Exits 1 when the table fails its lint (missing description, non-snake_case wire key, …).
 * `--file PATH` compares with / writes another file (tests use it on a temporary copy).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { lintMethodTable, renderProtocolDocument } from "../src/protocol-doc.js";
import { bridgeTable } from "../src/table.js";

const fileArg = process.argv.indexOf("--file");
const file =
  fileArg >= 0 && process.argv[fileArg + 1]
    ? (process.argv[fileArg + 1] as string)
    : join(dirname(fileURLToPath(import.meta.url)), "..", "schema", "protocol.json");
const problems = lintMethodTable(bridgeTable);
for (const problem of problems) console.error(`protocol lint: ${problem}`);
if (problems.length > 0) process.exit(1);

const text = renderProtocolDocument(bridgeTable);
let current = "";
try {
  current = readFileSync(file, "utf8");
} catch {}
if (current === text) process.exit(0);
if (process.argv.includes("--check")) {
  console.error(
    `protocol drift: ${file} is out of date; run \`pnpm --filter @turngate/bridge build\``,
  );
  process.exit(1);
}
writeFileSync(file, text);
console.error(`wrote ${file}`);
