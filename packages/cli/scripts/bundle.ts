/**
 * Bundles the `turngate` bin (issue #17 item 4: start-up). Run by `pnpm build` after `tsc`
 * (which still emits the library, `dist/index.js` and the declarations, and type-checks
 * src/bin.ts): esbuild writes `dist/bin.js` over tsc's, with code splitting, so that
 *
 * - `dist/bin.js` holds only the program, commander and the command table: `--version`
 *   and `--help` of one command load one or two files instead of ~150 modules;
 * - each command of `src/commands/registry.ts` is its own chunk under `dist/chunks/`,
 *   loaded by its `import("./x.js")` when its word is on the command line; code shared
 *   between commands (core, node, zod, …) lands in shared chunks there;
 * - `dist/chunks/line-worker.js` is the bridge's worker-thread entry: the worker pool opens
 *   `./line-worker.js` beside itself, so the pool's chunk must sit in the same folder (the
 *   build fails otherwise);
 * - every output has a linked source map (`*.js.map`, pointing at the TypeScript sources):
 *   `node --enable-source-maps dist/bin.js …` (or `NODE_OPTIONS=--enable-source-maps`)
 *   prints stack traces in .ts files and lines. The code is minified for whitespace and
 *   syntax only (start-up: V8 parses ≈ 30 % fewer bytes), never for identifiers, so a trace
 *   without the maps still names every function;
 * - zod is imported as a namespace (`import * as z from "zod"`) everywhere, so esbuild
 *   drops what is unused, its 40-odd locales included (≈ 750 → 200 KiB);
 * - `@turngate/native` stays external (a `.node` addon is loaded by `require` at run time,
 *   from turngate's own dependencies), and so does `oxc-parser` (the code index's parser:
 *   a napi binding, imported on first use);
 * - workspace packages are bundled from their TypeScript sources (`@turngate/source`
 *   export condition), so the bundle never mixes in a stale `dist/` of another package;
 * - package versions that modules read from a relative package.json at run time are
 *   inlined (`__TURNGATE_CLI_VERSION__`, `__TURNGATE_NODE_VERSION__`): a chunk's relative
 *   path differs from the source file's.
 *
 * - the commands of a turn (`run`, `verify`, `hook`, `baseline`: `CODE_CACHED_COMMANDS`)
 *   run from `dist/chunks/turn.cjs` instead: the same program (src/main.ts and every
 *   command) as one CommonJS file, which `src/code-cache.ts` compiles with V8's cached data
 *   (`dist/chunks/turn.cjs.cache`; Node 20 has no compile cache for ES modules). The data
 *   is made here, after one no-op `turngate run --check true -- true` in a temporary git
 *   repository (so it holds the functions a turn runs), and checked: the build fails unless
 *   a second run reports it `accepted`. `import.meta.url` is the file's own URL there, so
 *   relative paths are those of the ES chunks beside it.
 *
 * Also writes `dist/bundle-meta.json`, esbuild's metafile (the inputs and imports of every
 * output of the ES build).
 *
 * Usage: `tsx scripts/bundle.ts` (from packages/cli). Exits 1 on a build error or when a
 * layout check above fails; prints one line with the output sizes otherwise.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(cliDir, "dist");
const bridgeSrc = join(cliDir, "..", "bridge", "src");
const version = (dir: string) =>
  (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;

// Chunks from an earlier build would pile up (their names carry a content hash).
rmSync(join(dist, "chunks"), { recursive: true, force: true });
rmSync(join(dist, "bin.js.map"), { force: true });

const define = {
  __TURNGATE_CLI_VERSION__: JSON.stringify(version(cliDir)),
  __TURNGATE_NODE_VERSION__: JSON.stringify(version(join(cliDir, "..", "node"))),
};

/** Options both bundles share: Node 20, the sources' condition, the native addon external. */
const common = {
  absWorkingDir: cliDir,
  outdir: dist,
  bundle: true,
  platform: "node",
  target: "node20.19",
  conditions: ["@turngate/source"],
  external: ["@turngate/native", "oxc-parser"],
  sourcemap: "linked",
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
} as const;

const result = await build({
  ...common,
  entryPoints: {
    bin: "src/bin.ts",
    "chunks/line-worker": join(bridgeSrc, "server", "line-worker.ts"),
  },
  chunkNames: "chunks/[name]-[hash]",
  splitting: true,
  format: "esm",
  // CommonJS dependencies call `require` for Node's built-ins (commander, yaml, …) and read
  // `__filename` (write-file-atomic's temporary names); an ES module has neither, so each
  // output gets its own, bound to its location.
  banner: {
    js: [
      'import { createRequire as __turngateCreateRequire } from "node:module";',
      'import { dirname as __turngateDirname } from "node:path";',
      'import { fileURLToPath as __turngateFileURLToPath } from "node:url";',
      "const require = __turngateCreateRequire(import.meta.url);",
      "const __filename = __turngateFileURLToPath(import.meta.url);",
      "const __dirname = __turngateDirname(__filename);",
    ].join("\n"),
  },
  define,
  metafile: true,
});

// The turn commands' CommonJS copy (see above): the whole program in one file, no splitting.
await build({
  ...common,
  entryPoints: { "chunks/turn": "src/main.ts" },
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  banner: {
    js: 'const __turngateImportMetaUrl = require("node:url").pathToFileURL(__filename).href;',
  },
  define: { ...define, "import.meta.url": "__turngateImportMetaUrl" },
  // The one other `import.meta` use (the bridge worker pool's `import.meta.resolve`) is on
  // its TypeScript-source branch, never taken in a bundle.
  logOverride: { "empty-import-meta": "silent" },
});

const outputs = result.metafile.outputs;
/** The output file (relative to packages/cli) whose inputs include `source`. */
function outputOf(source: string): string | undefined {
  const input = relative(cliDir, source);
  return Object.keys(outputs).find((out) => outputs[out]?.inputs[input] !== undefined);
}

const problems: string[] = [];
const pool = outputOf(join(bridgeSrc, "server", "worker-pool.ts"));
if (pool === undefined) problems.push("the bridge's worker-pool.ts is in no output");
else if (dirname(pool) !== "dist/chunks") {
  problems.push(`worker-pool.ts landed in ${pool}, not beside dist/chunks/line-worker.js`);
}
if (outputs["dist/chunks/line-worker.js"] === undefined) {
  problems.push("the bridge's line worker is not at dist/chunks/line-worker.js");
}
for (const [out, meta] of Object.entries(outputs)) {
  for (const input of Object.keys(meta.inputs)) {
    if (input.includes("/dist/") && input.includes("packages/")) {
      problems.push(`${out} bundles ${input}: a workspace package's built output, not its source`);
    }
  }
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`bundle: ${problem}`);
  process.exit(1);
}

chmodSync(join(dist, "bin.js"), 0o755);
// The code cache of turn.cjs: written after a no-op turn, then checked by a second one.
const scratch = mkdtempSync(join(tmpdir(), "turngate-code-cache-"));
try {
  const repo = join(scratch, "repo");
  spawnSync("git", ["init", "-q", repo]);
  const turnEnv = (mode: string) => ({
    ...process.env,
    HOME: scratch,
    XDG_CONFIG_HOME: join(scratch, "config"),
    XDG_STATE_HOME: join(scratch, "state"),
    XDG_CACHE_HOME: join(scratch, "cache"),
    TURNGATE_CODE_CACHE: mode,
  });
  const turn = (mode: string) =>
    spawnSync(process.execPath, [join(dist, "bin.js"), "run", "--check", "true", "--", "true"], {
      cwd: repo,
      env: turnEnv(mode),
      encoding: "utf8",
    });
  const written = turn("write");
  if (written.status !== 0 || !written.stdout.includes("narrative")) {
    problems.push(`the code cache's no-op turn failed (exit ${written.status}): ${written.stderr}`);
  } else {
    const checked = turn("report");
    if (!checked.stderr.includes("turngate: code cache accepted\n")) {
      problems.push(`V8 did not accept turn.cjs.cache: ${checked.stderr}`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (problems.length > 0) {
  for (const problem of problems) console.error(`bundle: ${problem}`);
  process.exit(1);
}
// esbuild's metafile (inputs and imports of every output): test/bundle.test.ts checks the
// lazy loading with it, and `esbuild --analyze`-style tools read it.
writeFileSync(join(dist, "bundle-meta.json"), `${JSON.stringify(result.metafile)}\n`);
const js = Object.keys(outputs).filter((out) => out.endsWith(".js"));
const kib = (out: string) => Math.round(statSync(join(cliDir, out)).size / 1024);
console.log(
  `bundle: dist/bin.js ${kib("dist/bin.js")} KiB + ${js.length - 1} chunks ${js
    .filter((out) => out !== "dist/bin.js")
    .reduce((sum, out) => sum + kib(out), 0)} KiB (source maps beside them)`,
);
