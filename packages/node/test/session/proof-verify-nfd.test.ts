/**
 * `verifyTurnProof` for a file whose on-disk name is NFD (`e\u0301.txt`) while the
 * observer records paths in NFC (`\u00e9.txt`): the proof of a verified turn holds on the
 * same workspace. Real git repository and Session; digests from the formula.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { resolveRecordedPath } from "../../src/session/nfc-path.js";
import { verifyTurnProof } from "../../src/session/proof-verify.js";
import { Session } from "../../src/session/session.js";
import { gitRepo } from "./git-repo.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const NFD = "e\u0301";
const NFC = "\u00e9";

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

describe("verifyTurnProof: NFD names on disk, NFC paths in the proof", () => {
  test("a verified turn that wrote an NFD-named file has a proof that holds", async () => {
    const r = await gitRepo({ "keep.txt": "k\n" });
    cleanups.push(r.cleanup);
    const root = realpathSync(r.root);
    const session = await Session.start({ root });
    mkdirSync(join(root, `d${NFD}`));
    writeFileSync(join(root, `d${NFD}`, `${NFD}.txt`), "new\n");
    expect(readdirSync(join(root, `d${NFD}`))).toEqual([`${NFD}.txt`]);
    await session.observeWorkspace();
    const check = { id: "c", kind: "test", description: "d", command: "true", required: true };
    await session.verifyCommands("host:test", [check], { bind: true });
    expect((await session.decide()).kind).toBe("allow");
    const proof = session.proof();
    expect(proof.terminal.kind).toBe("verified");
    expect(proof.records).toEqual([
      { tool: "workspace", path: `d${NFC}/${NFC}.txt`, content_digest: sha256("new\n") },
    ]);
    const result = await verifyTurnProof(JSON.parse(JSON.stringify(proof)), root);
    expect(result.problems).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.rows).toEqual([
      {
        tool: "workspace",
        path: `d${NFC}/${NFC}.txt`,
        recorded: sha256("new\n"),
        actual: sha256("new\n"),
        status: "match",
      },
    ]);
  });

  test("resolveRecordedPath: exact name first, else the one NFC-equal entry, else the plain join", async () => {
    const r = await gitRepo({});
    cleanups.push(r.cleanup);
    const root = realpathSync(r.root);
    writeFileSync(join(root, `${NFD}.txt`), "x");
    expect(await resolveRecordedPath(root, `${NFC}.txt`)).toBe(join(root, `${NFD}.txt`));
    expect(await resolveRecordedPath(root, `${NFD}.txt`)).toBe(join(root, `${NFD}.txt`));
    expect(await resolveRecordedPath(root, "missing/x.txt")).toBe(join(root, "missing/x.txt"));
    writeFileSync(join(root, `${NFC}.txt`), "y");
    expect(await resolveRecordedPath(root, `${NFC}.txt`)).toBe(join(root, `${NFC}.txt`));
    // Two names NFC-equal to the recorded one and neither exact: ambiguous, not resolved.
    writeFileSync(join(root, `o${NFD}\u0323.txt`), "1");
    writeFileSync(join(root, `oe\u0323\u0301.txt`), "2");
    const recorded = `o${"e\u0323\u0301".normalize("NFC")}.txt`;
    expect(await resolveRecordedPath(root, recorded)).toBe(join(root, recorded));
  });
});
