import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { constants, Script } from "node:vm";
import type { CliContext } from "./context.js";

/**
 * The words whose command lines run from the code-cached bundle (`dist/chunks/turn.cjs`):
 * the commands of an agent's turn, which every turn pays the start-up of (issue #17 item 4).
 */
export const CODE_CACHED_COMMANDS: ReadonlySet<string> = new Set([
  "run",
  "verify",
  "hook",
  "baseline",
]);

/**
 * `TURNGATE_CODE_CACHE`: unset uses the cache; `off` compiles the bundle without it;
 * `report` also prints `turngate: code cache accepted|rejected|stale|absent` to stderr;
 * `write` (the build, `scripts/bundle.ts`) writes the cache after the command ran.
 */
export const CODE_CACHE_ENV = "TURNGATE_CODE_CACHE";

/** The CLI's entry (`main` of src/main.ts) as the code-cached bundle exports it. */
export type CliMain = (args: readonly string[], ctx: CliContext) => Promise<number>;

/** What became of the cached code: used, refused by V8, for another source text, none. */
export type CodeCacheState = "accepted" | "rejected" | "stale" | "absent" | "off";

/** Bytes of the cache file's header: the hex SHA-256 of the source text it was made from. */
const HEADER_BYTES = 64;

/**
 * Node 20 has no compile cache for ES modules, so the CLI bundle's turn commands also ship
 * as one CommonJS file (`chunks/turn.cjs`, built by scripts/bundle.ts) compiled here with
 * `vm.Script` and V8's cached data (`turn.cjs.cache`, written at build time after a no-op
 * turn, so it holds the functions a turn runs, not only the top level). V8 refuses data of
 * another V8 version or other flags (`rejected`: compiled from source as usual); the header's
 * SHA-256 of the source text is checked first, so data made for another build of the file is
 * never used (`stale`). The file runs as a CommonJS module of `dir` (its own `require`,
 * `__filename`, strict mode), so its relative paths are those of the ES chunks beside it.
 *
 * Input: the bundle's `chunks` folder and the process environment (`TURNGATE_CODE_CACHE`).
 * Output: its `main` and what became of the cache, or undefined when `turn.cjs` is absent
 * (the caller then imports the ES modules). Errors: what loading the file throws.
 */
export function loadCodeCachedMain(
  dir: string,
  env: NodeJS.ProcessEnv,
  onExit: (write: () => void) => void,
): { main: CliMain; cache: CodeCacheState } | undefined {
  const file = join(dir, "turn.cjs");
  if (!existsSync(file)) return undefined;
  const cacheFile = `${file}.cache`;
  const mode = env[CODE_CACHE_ENV];
  const source = readFileSync(file, "utf8");
  const digest = createHash("sha256").update(source).digest("hex");
  let cachedData: Buffer | undefined;
  let cache: CodeCacheState = mode === "off" ? "off" : "absent";
  if (mode !== "off" && mode !== "write" && existsSync(cacheFile)) {
    const bytes = readFileSync(cacheFile);
    if (bytes.subarray(0, HEADER_BYTES).toString("latin1") === digest) {
      cachedData = bytes.subarray(HEADER_BYTES);
    } else cache = "stale";
  }
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {"use strict";${source}\n})`,
    {
      filename: file,
      ...(cachedData !== undefined ? { cachedData } : {}),
      importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    },
  );
  if (cachedData !== undefined)
    cache = script.cachedDataRejected === true ? "rejected" : "accepted";
  const module = { exports: {} as { main?: CliMain } };
  (script.runInThisContext() as (...args: unknown[]) => void)(
    module.exports,
    createRequire(file),
    module,
    file,
    dir,
  );
  if (mode === "write") {
    onExit(() => {
      writeFileSync(
        cacheFile,
        Buffer.concat([Buffer.from(digest, "latin1"), script.createCachedData()]),
      );
    });
  }
  const main = module.exports.main;
  if (typeof main !== "function") throw new Error(`${file} does not export main`);
  return { main, cache };
}

/**
 * The `main` a command line `args` runs with: the code-cached bundle's for the words of
 * `CODE_CACHED_COMMANDS` when it is there (`loadCodeCachedMain`, from the `chunks` folder
 * beside `binUrl`), else undefined (the caller imports src/main.ts's ES module). With
 * `TURNGATE_CODE_CACHE=report` the cache's state goes to `stderr`.
 */
export function codeCachedMain(
  binUrl: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  stderr: NodeJS.WritableStream,
  onExit: (write: () => void) => void,
): CliMain | undefined {
  if (!CODE_CACHED_COMMANDS.has(args[0] ?? "")) return undefined;
  const loaded = loadCodeCachedMain(join(dirname(fileURLToPath(binUrl)), "chunks"), env, onExit);
  if (loaded === undefined) return undefined;
  if (env[CODE_CACHE_ENV] === "report") stderr.write(`turngate: code cache ${loaded.cache}\n`);
  return loaded.main;
}
