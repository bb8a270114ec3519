// Every test file gets its own user state folder (XDG_STATE_HOME), so no test reads or
// writes the real user's turngate signing key (~/.local/state/turngate), and processes
// the tests start inherit the same folder. Removed when the file's tests end.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const stateHome = mkdtempSync(join(tmpdir(), "turngate-state-home-"));
process.env.XDG_STATE_HOME = stateHome;
// A host's signing key or sandbox claim in the outer environment must not reach the tests.
for (const name of ["TURNGATE_SIGNING_KEY", "TURNGATE_SANDBOXED"]) delete process.env[name];
afterAll(() => rmSync(stateHome, { recursive: true, force: true }));
// Clean rooms (docs/design.md §3b) of the tests' temporary workspaces go to a folder of this
// test file's own, never the user's cache folder, and are removed with it.
const roomHome = mkdtempSync(join(tmpdir(), "turngate-rooms-"));
process.env.TURNGATE_ROOM_DIR = roomHome;
afterAll(() => rmSync(roomHome, { recursive: true, force: true }));
// The stored baselines' and turn chains' entries files (snapshotStoreDir) likewise.
const snapshotHome = mkdtempSync(join(tmpdir(), "turngate-snapshots-"));
process.env.TURNGATE_SNAPSHOT_DIR = snapshotHome;
afterAll(() => rmSync(snapshotHome, { recursive: true, force: true }));
