#!/usr/bin/env node
import { exitQuietlyOnBrokenPipe } from "./broken-pipe.js";
import { main } from "./main.js";

exitQuietlyOnBrokenPipe(process.stdout);
exitQuietlyOnBrokenPipe(process.stderr);
process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  cwd: process.cwd(),
  env: process.env,
});
