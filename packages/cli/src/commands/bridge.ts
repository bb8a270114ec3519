import { exitOnTerminationSignals } from "@turngate/node";
import type { CliCommand } from "./types.js";

/**
 * `turngate bridge --stdio`: serve the bridge protocol (docs/design.md §5; JSON-RPC 2.0, one JSON
 * object per line on stdin/stdout, logs on stderr) for the Python and Go bindings. Exits 0
 * after EOF on stdin or a `shutdown` request, once every session is closed.
 *
 * SIGINT, SIGTERM and SIGHUP close every session, SIGKILL the process groups of running
 * checks (`exitOnTerminationSignals`) and exit with 128 + the signal number (130, 143,
 * 129): Node's default death on a signal would leave the checks running.
 */
export const bridgeCommand: CliCommand = {
  name: "bridge",
  register(program, _ctx, state) {
    program
      .command("bridge")
      .summary("serve the turngate bridge protocol to Python and Go hosts")
      .description(
        "Serve the bridge protocol (turngate.bridge.v1): JSON-RPC 2.0 with one UTF-8 JSON object per line on stdin/stdout, at most 32 MiB per message, requests served concurrently, logs on stderr only. The method table and its JSON Schemas are in @turngate/bridge's schema/protocol.json. Ends with exit code 0 on EOF or after a `shutdown` request; open sessions are closed and their running checks killed. SIGINT, SIGTERM and SIGHUP close the sessions, kill their running checks and exit with 128 + the signal number.",
      )
      .requiredOption("--stdio", "required: serve on stdin/stdout (the only transport)")
      .action(async () => {
        // Loaded here, not at start-up: only this command needs the bridge server.
        const { runStdioServer, SessionRegistry } = await import("@turngate/bridge");
        const sessions = new SessionRegistry();
        const release = exitOnTerminationSignals({ beforeExit: () => sessions.closeAll() });
        try {
          state.exitCode = await runStdioServer({
            stdin: process.stdin,
            stdout: process.stdout,
            stderr: process.stderr,
            sessions,
          });
        } finally {
          release();
        }
      });
  },
};
