// Prints "<passed> <failed>" for `go test -json` output (one event per line). Used by scripts/dev.
import { readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
for (const line of readFileSync(process.argv[2], "utf8").split("\n")) {
  if (!line.startsWith("{")) continue;
  const ev = JSON.parse(line);
  if (!ev.Test) continue;
  if (ev.Action === "pass") passed++;
  else if (ev.Action === "fail") failed++;
}
console.log(passed, failed);
