#!/usr/bin/env node
import { exitQuietlyOnBrokenPipe } from "./broken-pipe.js";
import { codeCachedMain } from "./code-cache.js";

exitQuietlyOnBrokenPipe(process.stdout);
exitQuietlyOnBrokenPipe(process.stderr);
const args = process.argv.slice(2);
// A turn's commands run from the code-cached CommonJS bundle when it is built (code-cache.ts);
// everything else (and `--version`) loads the ES modules of main.js and its command.
const main =
  codeCachedMain(import.meta.url, args, process.env, process.stderr, (write) =>
    process.once("exit", write),
  ) ?? (await import("./main.js")).main;
process.exitCode = await main(args, {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
});
