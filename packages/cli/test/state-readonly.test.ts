/**
 * A state folder turngate cannot write (issue 34 item 6): the verdict is still printed, and
 * the error names the folder and the fix (`--state-dir`) instead of a raw `EACCES`. Run as
 * an unprivileged user (root ignores file modes: as root the CLI runs under `setpriv` as
 * `nobody`), on a real temporary git repository with a real check.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { gitProject } from "./helpers.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const bin = join(repoRoot, "packages/cli/dist/bin.js");
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const setpriv = spawnSync("setpriv", ["--version"]).status === 0;

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function chownTree(path: string): void {
  if (asRoot) spawnSync("chown", ["-R", `${NOBODY}:${NOBODY}`, path]);
}

/** A project whose check passes, owned by the user the CLI runs as, with `.turngate/` read-only. */
function readOnlyStateProject() {
  const p = gitProject({
    "a.txt": "a\n",
    "turngate.config.json": `${JSON.stringify({ checks: [{ id: "unit", command: "true" }] })}\n`,
  });
  const home = realpathSync(mkdtempSync(join(tmpdir(), "turngate-home-")));
  cleanups.push(p.cleanup, () => rmSync(home, { recursive: true, force: true }));
  mkdirSync(join(p.root, ".turngate"));
  chownTree(p.root);
  chownTree(home);
  chmodSync(home, 0o755);
  chmodSync(p.root, 0o755);
  chmodSync(join(p.root, ".turngate"), 0o555);
  return { root: p.root, home };
}

function cli(root: string, home: string, args: string[]) {
  const { TURNGATE_SIGNING_KEY: _k, ...base } = process.env;
  const argv = [process.execPath, bin, ...args];
  const [file, rest] = asRoot
    ? ["setpriv", [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...argv]]
    : [argv[0] as string, argv.slice(1)];
  const r = spawnSync(file, rest, {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
    env: {
      ...base,
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_STATE_HOME: join(home, ".local", "state"),
      TURNGATE_ROOM_DIR: join(home, "rooms"),
      TURNGATE_SNAPSHOT_DIR: join(home, "snapshots"),
      NO_COLOR: "1",
    },
  });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

describe.skipIf(asRoot && !setpriv)("a read-only state folder (issue 34 item 6)", () => {
  test.each(["in-place", "auto"])(
    "run (isolation %s) prints the verdict, then names the folder and --state-dir; exit 1 for the missing proof",
    (isolation) => {
      const { root, home } = readOnlyStateProject();
      const r = cli(root, home, [
        "run",
        "--isolation",
        isolation,
        "--",
        "sh",
        "-c",
        "echo b > a.txt",
      ]);
      const state = join(root, ".turngate");
      expect(r.stdout).toMatch(/^verified: effect digest [0-9a-f]{64}$/m);
      expect(r.stdout).toContain(
        `proof: not written: turngate cannot write its state folder ${state} (EACCES on ${join(state, "proofs")}): make it writable, or give a writable folder outside the workspace with --state-dir DIR\n`,
      );
      // Nor can the turn chain be written: said in the same words, the verdict stands.
      expect(r.stdout).toContain(
        `turn chain: not written: turngate cannot write its state folder ${state} (EACCES on ${state}/turn-chain.json.`,
      );
      expect(r.stderr).not.toContain("turngate: error:");
      expect(r.status).toBe(1);
    },
  );

  test("with --state-dir outside the workspace the same turn is verified with its proof", () => {
    const { root, home } = readOnlyStateProject();
    const r = cli(root, home, [
      "run",
      "--state-dir",
      join(home, "state"),
      "--",
      "sh",
      "-c",
      "echo b > a.txt",
    ]);
    expect(r.stdout).toMatch(/^verified: effect digest [0-9a-f]{64}$/m);
    expect(r.stdout).toMatch(/^proof: .*state\/proofs\/[0-9a-f]{64}\.json$/m);
    expect(r.status).toBe(0);
  });

  test("baseline names the folder and the fix, not a raw EACCES", () => {
    const { root, home } = readOnlyStateProject();
    const r = cli(root, home, ["baseline"]);
    const state = join(root, ".turngate");
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^turngate: error: turngate cannot write its state folder ${state} \\(EACCES on ${state}/baseline\\.json\\.\\d+\\): make it writable, or give a writable folder outside the workspace with --state-dir DIR \\[state_unwritable\\]$`,
        "m",
      ),
    );
  });
});
