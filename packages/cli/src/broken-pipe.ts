/**
 * A reader that goes away (`turngate run --help | head -1`) makes the next write fail with
 * `EPIPE` (QA finding P4). On `stream` (the process's stdout or stderr), such an error ends
 * the process quietly with the exit code set so far (default 0) instead of an unhandled
 * stack trace; any other stream error is rethrown. Returns nothing; never throws for EPIPE.
 */
export function exitQuietlyOnBrokenPipe(stream: NodeJS.WriteStream): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
  });
}
