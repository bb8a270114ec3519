/**
 * @turngate/core must run unchanged in Node, a browser and Pyodide's JS host (docs/design.md §2):
 * no `node:` imports, no Node built-ins, no `process`, only its declared
 * dependencies. This scans the sources and, when a build exists, the emitted JavaScript.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const ALLOWED = [
  /^\.{1,2}\//,
  /^zod$/,
  /^canonicalize$/,
  /^@noble\/hashes\/[a-z0-9-]+\.js$/,
  /^re2js$/,
  /^fast-xml-parser$/,
  /^yaml$/,
];
const NODE_BUILTINS = new Set([
  "assert",
  "buffer",
  "child_process",
  "crypto",
  "events",
  "fs",
  "fs/promises",
  "module",
  "net",
  "os",
  "path",
  "process",
  "stream",
  "url",
  "util",
  "worker_threads",
  "zlib",
]);

function files(dir: string, ext: RegExp): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && ext.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** Every module specifier of static imports/exports, dynamic imports and require calls. */
function specifiers(code: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"]*?\sfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) out.push(m[1] as string);
  return out;
}

function offenders(paths: string[]): string[] {
  const bad: string[] = [];
  for (const file of paths) {
    const code = readFileSync(file, "utf8");
    for (const spec of specifiers(code)) {
      if (
        spec.startsWith("node:") ||
        NODE_BUILTINS.has(spec) ||
        !ALLOWED.some((re) => re.test(spec))
      ) {
        bad.push(`${relative(root, file)}: imports ${spec}`);
      }
    }
    const withoutComments = code
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/(^|[^:])\/\/.*$/gm, "$1");
    if (/\bprocess\s*\.|\bBuffer\s*\.|\b__dirname\b/.test(withoutComments)) {
      bad.push(`${relative(root, file)}: uses a Node global`);
    }
  }
  return bad;
}

describe("core purity (no node: imports)", () => {
  test("the scanner sees the imports it must judge", () => {
    expect(
      specifiers(`import { a } from "node:fs";\nexport * from "./x.js";\nimport("os");`),
    ).toEqual(["node:fs", "./x.js", "os"]);
    expect(offenders([fileURLToPath(import.meta.url)]).length).toBeGreaterThan(0);
  });

  test("packages/core/src imports only relative modules, zod, canonicalize, @noble/hashes and re2js", () => {
    const sources = files(join(root, "src"), /\.ts$/);
    expect(sources.length).toBeGreaterThan(20);
    expect(offenders(sources)).toEqual([]);
  });

  test("the built packages/core/dist (when present) imports no node: module", () => {
    // The name is what the ledger cites; the test no longer passes on an absent dist/ (it
    // checked an empty list then): every source module must have its built .js.
    const sources = files(join(root, "src"), /\.ts$/);
    const built = files(join(root, "dist"), /\.js$/);
    const missing = sources
      .map((f) => relative(join(root, "src"), f).replace(/\.ts$/, ".js"))
      .filter((rel) => !built.includes(join(root, "dist", rel)));
    expect(missing, "packages/core/dist is missing or stale: run the build first").toEqual([]);
    expect(offenders(built)).toEqual([]);
  });
});
