// Scripted agent turn 1: fixes the punctuation bug in src/slugify.js.
import { readFileSync, writeFileSync } from "node:fs";

const path = "src/slugify.js";
const before = readFileSync(path, "utf8");
const after = before.replace(
  'return title.trim().toLowerCase().replace(/\\s+/g, "-");',
  'return title\n    .toLowerCase()\n    .replace(/[^a-z0-9\\s-]/g, "")\n    .trim()\n    .replace(/[\\s-]+/g, "-");',
);
if (after === before) {
  console.error("agent: src/slugify.js is not the version this script expects");
  process.exit(1);
}
writeFileSync(path, after);
console.log("agent: slugify kept punctuation; it now drops it. Edited src/slugify.js. Done!");
