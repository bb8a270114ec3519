/**
 * `verifyTurnProof` when a recorded path no longer holds a file: a directory, a FIFO
 * (never opened: reading one would block) or a path whose parent became a file. Each is a
 * mismatch naming the path, never a thrown fs error. Real git repository; digests from
 * the formula.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DELETED_CONTENT_DIGEST } from "@turngate/core";
import { afterEach, describe, expect, test } from "vitest";
import { verifyTurnProof } from "../../src/session/proof-verify.js";
import { Session } from "../../src/session/session.js";
import { gitRepo } from "./git-repo.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

/** A verified turn that wrote `dir/a.txt` = "new\n"; returns the root and its proof. */
async function provenTurn() {
  const r = await gitRepo({ "dir/a.txt": "old\n" });
  cleanups.push(r.cleanup);
  const root = realpathSync(r.root);
  const session = await Session.start({ root });
  r.write("dir/a.txt", "new\n");
  await session.observeWorkspace();
  const check = { id: "c", kind: "test", description: "d", command: "true", required: true };
  await session.verifyCommands("host:test", [check], { bind: true });
  expect((await session.decide()).kind).toBe("allow");
  return { root, proof: session.proof() };
}

describe("verifyTurnProof: a recorded path that holds no file now", () => {
  test("a directory is a mismatch naming the path (found: directory)", async () => {
    const { root, proof } = await provenTurn();
    rmSync(join(root, "dir/a.txt"));
    mkdirSync(join(root, "dir/a.txt"));
    const result = await verifyTurnProof(proof, root);
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      `dir/a.txt: recorded ${sha256("new\n")}, on disk a directory`,
    ]);
    expect(result.rows).toEqual([
      {
        tool: "workspace",
        path: "dir/a.txt",
        recorded: sha256("new\n"),
        found: "directory",
        status: "mismatch",
      },
    ]);
  });

  test("a FIFO is a mismatch and is never opened", async () => {
    const { root, proof } = await provenTurn();
    rmSync(join(root, "dir/a.txt"));
    execFileSync("mkfifo", [join(root, "dir/a.txt")]);
    const result = await verifyTurnProof(proof, root);
    expect(result.problems).toEqual([
      `dir/a.txt: recorded ${sha256("new\n")}, on disk a special file (FIFO, socket or device), not read`,
    ]);
    expect(result.rows[0]?.found).toBe("special");
  });

  test("a parent folder that became a file reads as deleted (ENOTDIR)", async () => {
    const { root, proof } = await provenTurn();
    rmSync(join(root, "dir"), { recursive: true });
    writeFileSync(join(root, "dir"), "now a file\n");
    const result = await verifyTurnProof(proof, root);
    expect(result.problems).toEqual([
      `dir/a.txt: recorded ${sha256("new\n")}, on disk ${DELETED_CONTENT_DIGEST}`,
    ]);
    expect(result.rows[0]).toMatchObject({ actual: DELETED_CONTENT_DIGEST, status: "mismatch" });
  });
});
