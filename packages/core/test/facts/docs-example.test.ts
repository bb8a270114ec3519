import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const coreDir = fileURLToPath(new URL("../../", import.meta.url));
const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
const example = readFileSync(new URL("../../examples/tsc-delta.ts", import.meta.url), "utf8");

describe("docs/facts.md Verification facts example", () => {
  test("docs/facts.md shows examples/tsc-delta.ts exactly", () => {
    const doc = readFileSync(`${repoRoot}docs/facts.md`, "utf8");
    const start = doc.indexOf("\n## Verification facts\n");
    expect(start).toBeGreaterThanOrEqual(0);
    const end = doc.indexOf("\n## ", start + 1);
    const section = doc.slice(start, end < 0 ? undefined : end);
    expect(section).toContain(`\`\`\`ts\n${example}\`\`\``);
  });

  test("it runs as written: a fix advances with progress credit", () => {
    const tsx = `${repoRoot}node_modules/.bin/tsx`;
    const out = execFileSync(tsx, ["--conditions=@turngate/source", "examples/tsc-delta.ts"], {
      cwd: coreDir,
      encoding: "utf8",
    });
    expect(out).toBe(
      [
        "advanced true diagnostic_signature_set_changed",
        `removed: [ "ts2304 cannot find name 'missingvalue'." ]`,
        `persisted: [ "ts2322 type 'string' is not assignable to type 'number'." ]`,
        "",
      ].join("\n"),
    );
  });
});
