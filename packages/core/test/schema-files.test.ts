/**
 * Drift test of packages/core/schema/*.json (issue #11 §5: the generated JSON Schema files
 * had none). Each file must equal what scripts/gen-json-schema.ts writes for its zod schema
 * (the same conversion, done here in process), and every file must belong to an exported
 * schema (a removed schema leaves no stale file behind).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { z } from "zod";
import * as schemas from "../src/schemas/index.js";

const dir = fileURLToPath(new URL("../schema/", import.meta.url));

/** `{file name: expected text}` for every exported `*Schema`, as gen-json-schema.ts names them. */
function expected(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(schemas)) {
    if (!name.endsWith("Schema") || !(value instanceof z.ZodType)) continue;
    const base = name
      .slice(0, -"Schema".length)
      .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
      .toLowerCase();
    const json = z.toJSONSchema(value, { io: "input", unrepresentable: "any" });
    out.set(`${base}.json`, `${JSON.stringify(json, null, 2)}\n`);
  }
  return out;
}

describe("packages/core/schema/*.json", () => {
  test("every file equals its regenerated schema, and no file is stale", () => {
    const want = expected();
    expect(want.size).toBeGreaterThan(20);
    const have = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort();
    expect(have).toEqual([...want.keys()].sort());
    const drifted = have.filter((f) => readFileSync(join(dir, f), "utf8") !== want.get(f));
    expect(drifted, "run the build (tsx scripts/gen-json-schema.ts) and commit the files").toEqual(
      [],
    );
  });

  test("parsed-diagnostic.json states the position range the parsers keep (1 to 2^53−1 or null)", () => {
    const doc = JSON.parse(readFileSync(join(dir, "parsed-diagnostic.json"), "utf8"));
    expect(doc.properties.line).toEqual({
      anyOf: [{ type: "integer", minimum: 1, maximum: 9007199254740991 }, { type: "null" }],
    });
  });
});
