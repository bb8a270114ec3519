/**
 * TypeScript runner of the test matrix (see ../README.md):
 *   node --conditions=@turngate/source --import tsx test-matrix/runners/typescript.ts \
 *     --vectors DIR --out FILE
 * Exits 0 when it wrote FILE, 2 on bad arguments.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { runCases } from "../lib/run-cases.js";
import { loadVectors } from "../lib/vectors.js";
import { callTypeScript } from "./typescript-call.js";

const { values } = parseArgs({ options: { vectors: { type: "string" }, out: { type: "string" } } });
if (!values.vectors || !values.out) {
  console.error("usage: typescript.ts --vectors DIR --out FILE");
  process.exit(2);
}
const results = runCases("typescript", loadVectors(values.vectors), callTypeScript);
writeFileSync(values.out, `${JSON.stringify(results, null, 2)}\n`);
