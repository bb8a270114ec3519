/**
 * Development entry of the stdio server (tests spawn it through tsx; the shipped entry is
 * `turngate bridge --stdio`). Set TURNGATE_BRIDGE_VALIDATE_RESULTS=1 to check every result
 * against its schema.
 */
import { runStdioServer } from "../src/server/stdio.js";

const code = await runStdioServer({
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  validateResults: process.env.TURNGATE_BRIDGE_VALIDATE_RESULTS === "1",
});
process.exit(code);
