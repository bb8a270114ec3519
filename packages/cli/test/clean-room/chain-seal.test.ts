/**
 * The turn chain across abnormal ends and the clean room's seal (docs/design.md §3b "Gapless
 * turns"), as attacks 10 and 01 of the attack round found them: the built CLI spawned as a
 * real process on a real temporary git repository, with real agents and a real check.
 * - A turn that ends abnormally after the agent ran (here the agent replaced the clean
 *   room's folder by a file, so turngate cannot open the room: a real `ENOTDIR`) still
 *   writes the chain (`incomplete`, `turn_failed: …`), so a chain the agent planted in
 *   `.turngate/` is replaced and the next turn that changes nothing is `incomplete`.
 * - The chain carries when turngate last sealed the room (`room_sealed_at`), so what an
 *   agent writes in the room during a turn that changes nothing (the room is never opened
 *   then) is not trusted by the next turn; chained turns without plants keep the room.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { snapshotStoreDir } from "@turngate/node";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { cliBundleArgs } from "../cli-bundle.js";
import { gitProject } from "../helpers.js";
import { type Project, SKIP_REASON, sandbox, sha256 } from "./helpers.js";

vi.setConfig({ testTimeout: testTimeout(240_000), hookTimeout: testTimeout(240_000) });

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

function project(files: Record<string, string>): Project {
  const p = gitProject(files);
  cleanups.push(p.cleanup);
  return p;
}

const LIB = "exports.add = (a, b) => a + b;\n";
const BROKEN = "exports.add = (a, b) => a - b; // broken\n";
const TEST =
  "const { add } = require('./lib.js');\nif (add(2, 2) !== 4) { console.error('FAIL'); process.exit(1); }\n";
const CHECK = ["--isolation", "clean-room", "--check", "node test.js"];

/** `turngate <args>` as a real process (the built bundle) in `cwd`: exit code, output, JSON. */
function turngate(
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string; json: Record<string, unknown> }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...cliBundleArgs(), ...args],
      { cwd, env: process.env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        let json: Record<string, unknown> = {};
        if (args.includes("--json") && stdout.trim() !== "") json = JSON.parse(stdout);
        resolve({ code, stdout, stderr, json });
      },
    );
  });
}

/** The workspace's clean room folder (`cleanRoomDir`: the tests' TURNGATE_ROOM_DIR). */
function roomDir(p: Project): string {
  const id = sha256(realpathSync(p.root)).slice(0, 16);
  return join(process.env.TURNGATE_ROOM_DIR as string, id);
}

function chainFile(p: Project): Record<string, unknown> {
  return JSON.parse(readFileSync(join(p.root, ".turngate", "turn-chain.json"), "utf8"));
}

describe.skipIf(!sandbox.available)(`the turn chain and the clean room${SKIP_REASON}`, () => {
  test("a turn that ends abnormally after the agent ran still writes the chain (incomplete, turn_failed), replacing the one the agent planted: the next turn that changes nothing is incomplete, exit 2", async () => {
    const p = project({ "lib.js": LIB, "test.js": TEST });
    const honest = p.agent("honest.js", "require('fs').appendFileSync('lib.js', '// v2\\n');");
    const first = await turngate(["run", "--json", ...CHECK, "--", "node", honest], p.root);
    expect(first.json.verdict, first.stderr).toBe("verified");
    const room = roomDir(p);
    expect(existsSync(join(room, "manifest.bin"))).toBe(true);
    // Turn 2: breaks lib.js, plants a chain judging the broken workspace (a nested turngate
    // with its own state folder, copied into .turngate/), and replaces the room's folder by a
    // file, so this turngate cannot open the room and fails after the agent ran.
    const planter = p.agent(
      "planter.sh",
      `set -e
printf '%s' '${BROKEN.trimEnd()}' > lib.js
x=$(mktemp -d)
"${process.execPath}" ${cliBundleArgs().join(" ")} run --isolation in-place --state-dir "$x" -- true >/dev/null 2>&1 || true
cp "$x/turn-chain.json" .turngate/turn-chain.json
rm -rf "$x"
rm -rf '${room}' && echo x > '${room}'
`,
    );
    const crashed = await turngate(["run", ...CHECK, "--", "sh", planter], p.root);
    expect(crashed.code, crashed.stderr).toBe(1);
    expect(crashed.stderr).toContain("ENOTDIR");
    const chain = chainFile(p);
    expect(chain.verdict).toBe("incomplete");
    expect(String(chain.reason)).toMatch(/^turn_failed: .*ENOTDIR/);
    expect(chain.unverified_paths).toEqual(["lib.js"]);
    // The host repairs the room's folder; the agent does nothing ("I fixed it").
    rmSync(room, { force: true });
    const next = await turngate(["run", "--json", ...CHECK, "--", "true"], p.root);
    expect(next.code, next.stderr).toBe(2);
    expect(next.json.verdict).toBe("incomplete");
    expect(
      (next.json.turn_chain as { changed_between_turns: string[] }).changed_between_turns,
    ).toEqual(["lib.js"]);
    expect(readFileSync(join(p.root, "lib.js"), "utf8")).toBe(BROKEN.trimEnd());
  });

  test("the room's seal is carried through a turn that does not open the room: chained turns keep the room (not cloned again), and a manifest record the agent forged in the room during a narrative turn is not trusted (the broken change is checked on its real bytes, incomplete)", async () => {
    // Positive control: verified, narrative (no room), verified: the room's .git stays.
    const kept = project({ "lib.js": LIB, "test.js": TEST });
    const bump = (n: number) =>
      kept.agent(`bump${n}.js`, `require('fs').appendFileSync('lib.js', '// v${n}\\n');`);
    const one = await turngate(["run", "--json", ...CHECK, "--", "node", bump(1)], kept.root);
    expect(one.json.verdict, one.stderr).toBe("verified");
    const keptGit = join(roomDir(kept), "tree", ".git", "config");
    const cloned = statSync(keptGit).ctimeMs;
    const idle = await turngate(["run", "--json", ...CHECK, "--", "true"], kept.root);
    expect(idle.json.verdict).toBe("narrative");
    const sealed = chainFile(kept).room_sealed_at;
    expect(typeof sealed).toBe("number");
    const three = await turngate(["run", "--json", ...CHECK, "--", "node", bump(3)], kept.root);
    expect(three.json.verdict, three.stderr).toBe("verified");
    expect(statSync(keptGit).ctimeMs).toBe(cloned);
    expect(chainFile(kept).room_sealed_at as number).toBeGreaterThan(sealed as number);

    // The attack: turn 2 changes nothing in the workspace but rewrites lib.js's record in the
    // room's manifest to the digest of the broken lib.js (its lstat still that of the room's
    // passing copy), so that the room claims to hold it already; turn 3 writes the broken
    // lib.js, which a trusted record would leave uncopied (the check would pass on the old).
    const p = project({ "lib.js": LIB, "test.js": TEST });
    const honest = p.agent("honest.js", "require('fs').appendFileSync('lib.js', '// v2\\n');");
    const first = await turngate(["run", "--json", ...CHECK, "--", "node", honest], p.root);
    expect(first.json.verdict, first.stderr).toBe("verified");
    const room = roomDir(p);
    const roomGit = join(room, "tree", ".git", "config");
    const firstClone = statSync(roomGit).ctimeMs;
    const forger = p.agent(
      "forger.js",
      `const fs = require("fs"), crypto = require("crypto");
const room = ${JSON.stringify(room)}, bad = ${JSON.stringify(BROKEN)};
const m = room + "/manifest.bin";
const b = fs.readFileSync(m);
let at = 12 + b.readUInt32LE(8);
const count = b.readUInt32LE(at); at += 4;
const recs = at; at += count * 72;
const plen = b.readUInt32LE(at); at += 4;
const i = b.subarray(at, at + plen).toString("utf8").split("\\0").indexOf("lib.js");
if (i < 0) throw new Error("lib.js not in the manifest");
b.write(crypto.createHash("sha256").update(bad).digest("hex"), recs + i * 72, 32, "hex");
fs.writeFileSync(m + ".tmp", b); fs.renameSync(m + ".tmp", m);
setTimeout(() => {}, 400); // then works on (the forgery is well before the turn's end)
`,
    );
    const narrative = await turngate(["run", "--json", ...CHECK, "--", "node", forger], p.root);
    expect(narrative.json.verdict, narrative.stderr).toBe("narrative");
    const breaker = p.agent(
      "breaker.js",
      `require('fs').writeFileSync('lib.js', ${JSON.stringify(BROKEN)});`,
    );
    const third = await turngate(["run", "--json", ...CHECK, "--", "node", breaker], p.root);
    expect(third.code, third.stderr).toBe(2);
    expect(third.json.verdict).toBe("incomplete");
    const checks = third.json.checks as { status: string }[];
    expect(checks.map((c) => c.status)).toEqual(["failed"]);
    // The planted records proved nothing: the room was re-proven and its .git cloned again.
    expect(statSync(roomGit).ctimeMs).toBeGreaterThan(firstClone);
  });

  test("a chain written before room_sealed_at is still read: the room is re-proven once, then kept", async () => {
    const p = project({ "lib.js": LIB, "test.js": TEST });
    const bump = (n: number) =>
      p.agent(`bump${n}.js`, `require('fs').appendFileSync('lib.js', '// v${n}\\n');`);
    const one = await turngate(["run", "--json", ...CHECK, "--", "node", bump(1)], p.root);
    expect(one.json.verdict, one.stderr).toBe("verified");
    const path = join(p.root, ".turngate", "turn-chain.json");
    const { room_sealed_at: _sealed, ...old } = chainFile(p);
    writeFileSync(path, `${JSON.stringify(old)}\n`);
    // An earlier turngate wrote no record of its chain outside the workspace either.
    rmSync(join(snapshotStoreDir(join(p.root, ".turngate"), "chain"), "chain-record.json"));
    const roomGit = join(roomDir(p), "tree", ".git", "config");
    const before = statSync(roomGit).ctimeMs;
    const two = await turngate(["run", "--json", ...CHECK, "--", "node", bump(2)], p.root);
    expect(two.json.verdict, two.stderr).toBe("verified");
    const reproven = statSync(roomGit).ctimeMs;
    expect(reproven).toBeGreaterThan(before);
    const three = await turngate(["run", "--json", ...CHECK, "--", "node", bump(3)], p.root);
    expect(three.json.verdict, three.stderr).toBe("verified");
    expect(statSync(roomGit).ctimeMs).toBe(reproven);
  });
});
