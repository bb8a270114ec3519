/**
 * Signed proofs over the bridge (issue 10): `session.signed_proof` signs the session's proof
 * (DSSE or in-toto) with the bridge host user's key, and `proof.verify` authenticates and
 * re-checks a proof file as `turngate proof verify` does. A real bridge process on a real
 * temporary git repository.
 */
import { execFileSync } from "node:child_process";
import { createHash, createPublicKey, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BridgeProcess } from "./helpers/bridge-process.js";

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const git = (root: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd: root,
    encoding: "utf8",
  }).trim();

interface Envelope {
  payload: string;
  payloadType: string;
  signatures: Array<{ keyid: string; sig: string }>;
}

describe("bridge: session.signed_proof and proof.verify", () => {
  let bridge: BridgeProcess;
  let root: string;
  let state: string;
  let sessionId: string;
  const digest = sha256(`workspace|a.txt|${sha256("new\n")}`);
  beforeAll(async () => {
    state = mkdtempSync(join(tmpdir(), "turngate-bridge-state-"));
    bridge = new BridgeProcess({ XDG_STATE_HOME: state });
    root = realpathSync(mkdtempSync(join(tmpdir(), "turngate-bridge-proof-")));
    writeFileSync(join(root, "a.txt"), "old\n");
    git(root, "init", "-q");
    git(root, "add", "-A");
    git(root, "commit", "-q", "--no-gpg-sign", "-m", "base");
    sessionId = (await bridge.call<{ session_id: string }>("session.create", { root })).session_id;
    writeFileSync(join(root, "a.txt"), "new\n");
    await bridge.call("session.observe_workspace", { session_id: sessionId });
    const check = {
      id: "t",
      kind: "test",
      description: "d",
      command: "grep -qx new a.txt",
      required: true,
    };
    await bridge.call("session.verify_commands", {
      session_id: sessionId,
      subject: "host",
      commands: [check],
      bind: true,
    });
    await bridge.call("session.decide", { session_id: sessionId });
  });
  afterAll(() => {
    bridge.kill();
    rmSync(root, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  });

  const userKeyId = () =>
    sha256(
      createPublicKey(readFileSync(join(state, "turngate", "signing-key.pem"), "utf8")).export({
        type: "spki",
        format: "der",
      }),
    );

  test("a signed DSSE proof verifies; an edited payload is bad_signature; a bare proof is unauthenticated", async () => {
    const reply = await bridge.call<{ envelope: string; keyid: string; format: string }>(
      "session.signed_proof",
      { session_id: sessionId },
    );
    const signed = { ...reply, envelope: JSON.parse(reply.envelope) as Envelope };
    expect(signed.format).toBe("dsse");
    expect(signed.keyid).toBe(userKeyId());
    expect(signed.envelope.payloadType).toBe("application/vnd.turngate.turn-proof+json");
    expect(signed.envelope.signatures.map((s) => s.keyid)).toEqual([signed.keyid]);
    const proof = JSON.parse(Buffer.from(signed.envelope.payload, "base64").toString("utf8"));
    expect(proof.effect_digest).toBe(digest);
    expect(proof.workspace.baseline_tree).toBe(git(root, "rev-parse", "HEAD^{tree}"));

    const verified = await bridge.call<Record<string, unknown>>("proof.verify", {
      file_text: JSON.stringify(signed.envelope),
      root,
    });
    expect(verified).toMatchObject({
      ok: true,
      format: "dsse",
      authentication: { status: "authenticated", reason: null, keyid: signed.keyid, keyids: null },
      recomputed_digest: digest,
      rows: [
        {
          tool: "workspace",
          path: "a.txt",
          recorded: sha256("new\n"),
          actual: sha256("new\n"),
          status: "match",
        },
      ],
      problems: [],
      commit: null,
    });
    expect((verified.evidence_logs as Array<{ status: string }>).map((l) => l.status)).toEqual([
      "match",
    ]);

    proof.tool_versions.forged = "1";
    const edited = {
      ...signed.envelope,
      payload: Buffer.from(JSON.stringify(proof)).toString("base64"),
    };
    expect(
      await bridge.call("proof.verify", { file_text: JSON.stringify(edited), root }),
    ).toMatchObject({
      ok: false,
      authentication: { status: "invalid", reason: "bad_signature" },
      problems: [
        `bad_signature: the signature of key ${signed.keyid} does not verify: the payload or the signature was changed after signing`,
      ],
    });
    const bare = await bridge.call<{ proof: unknown }>("session.proof", { session_id: sessionId });
    expect(
      await bridge.call("proof.verify", { file_text: JSON.stringify(bare.proof), root }),
    ).toMatchObject({
      ok: false,
      format: "plain",
      authentication: { status: "unauthenticated", reason: "unsigned" },
    });
    expect(
      await bridge.call("proof.verify", {
        file_text: JSON.stringify(bare.proof),
        root,
        allow_unsigned: true,
      }),
    ).toMatchObject({ ok: true, format: "plain" });
  });

  test("format in-toto with key_file; verified with public_key_file and matched to a commit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "turngate-bridge-key-"));
    try {
      const { privateKey, publicKey } = generateKeyPairSync("ed25519");
      writeFileSync(join(dir, "k.pem"), privateKey.export({ type: "pkcs8", format: "pem" }));
      writeFileSync(join(dir, "k.pub"), publicKey.export({ type: "spki", format: "pem" }));
      const reply = await bridge.call<{ envelope: string; keyid: string; format: string }>(
        "session.signed_proof",
        { session_id: sessionId, format: "in-toto", key_file: join(dir, "k.pem") },
      );
      const signed = { ...reply, envelope: JSON.parse(reply.envelope) as Envelope };
      expect(signed.keyid).toBe(sha256(publicKey.export({ type: "spki", format: "der" })));
      expect(signed.envelope.payloadType).toBe("application/vnd.in-toto+json");
      const text = JSON.stringify(signed.envelope);
      expect(await bridge.call("proof.verify", { file_text: text, root })).toMatchObject({
        ok: false,
        authentication: {
          status: "unauthenticated",
          reason: "foreign_key",
          keyids: [signed.keyid],
        },
      });
      git(root, "commit", "-q", "--no-gpg-sign", "-am", "turn");
      expect(
        await bridge.call("proof.verify", {
          file_text: text,
          root,
          public_key_file: join(dir, "k.pub"),
          commit: "HEAD",
        }),
      ).toMatchObject({
        ok: true,
        format: "in-toto",
        authentication: { status: "authenticated", keyid: signed.keyid },
        commit: { matches: true, commit_tree: git(root, "rev-parse", "HEAD^{tree}"), reason: null },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("options.sandboxed is the host's claim, recorded as the proof's trust", async () => {
    const claimed = await bridge.call<{ session_id: string }>("session.create", {
      root,
      waivers: [
        { effect_digest: sha256(`workspace|a.txt|${sha256("claimed\n")}`), reason: "test" },
      ],
      options: { sandboxed: true },
    });
    writeFileSync(join(root, "a.txt"), "claimed\n");
    await bridge.call("session.observe_workspace", { session_id: claimed.session_id });
    await bridge.call("session.decide", { session_id: claimed.session_id });
    const { proof } = await bridge.call<{ proof: { trust: string } }>("session.proof", {
      session_id: claimed.session_id,
    });
    expect(proof.trust).toBe("sandboxed");
    const plain = await bridge.call<{ proof: { trust: string } }>("session.proof", {
      session_id: sessionId,
    });
    expect(plain.proof.trust).toBe("unsandboxed");
    writeFileSync(join(root, "a.txt"), "new\n");
  });

  test("a key_file inside the workspace is signing_key_in_workspace at key_file", async () => {
    const response = await bridge.request("session.signed_proof", {
      session_id: sessionId,
      key_file: join(root, "k.pem"),
    });
    expect(response.error?.data).toEqual({
      code: "signing_key_in_workspace",
      path: "key_file",
      message: `key_file: ${join(root, "k.pem")} is inside the workspace ${root}, where the agent can read or replace it; keep the key outside the workspace`,
    });
  });
});
