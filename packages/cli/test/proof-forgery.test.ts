/**
 * Forged proofs (issue 10 "Proofs that cannot be forged"), each tried as an agent would, on
 * real temporary git repositories, with `turngate` run as a real process: a hand-written
 * proof with a made-up passing report, a proof signed by the agent's own key, a payload
 * edited after signing, a swapped signature, a relabelled keyid, a truncated envelope and
 * an edited evidence log each fail with a typed, worded verdict and exit 2; a real verified
 * turn's proof verifies with the signer's public key, in the DSSE and the in-toto form, and
 * matches the commit of its change.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash, generateKeyPairSync } from "node:crypto";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { effectDigest } from "@turngate/core";
import { keyIdOf, signTurnProof } from "@turngate/node";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { cliBundleArgs } from "./cli-bundle.js";
import { gitProject, UNSANDBOXED_LINE } from "./helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(180_000), hookTimeout: testTimeout(180_000) });

const bundle = cliBundleArgs();
const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});
function temp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A user: their own state folder (and so their own signing key). */
function user(): NodeJS.ProcessEnv {
  return { ...process.env, XDG_STATE_HOME: temp("turngate-user-") };
}

/** `turngate …` as a real process in `cwd` with `env`. */
function turngate(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [...bundle, ...args], {
    cwd,
    env,
    encoding: "utf8",
    timeout: testTimeout(60_000),
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function project() {
  const p = gitProject({ "value.txt": "41\n" });
  cleanups.push(p.cleanup);
  return p;
}

/** The user's keyid, as the documented rule computes it (SHA-256 of the DER public key). */
function keyidOf(env: NodeJS.ProcessEnv): string {
  const pem = join(env.XDG_STATE_HOME as string, "turngate", "signing-key.pub.pem");
  const der = execFileSync("openssl", ["pkey", "-pubin", "-in", pem, "-outform", "DER"]);
  return sha256(der);
}

const WRITE_42 = `require("node:fs").writeFileSync("value.txt", "42\\n");`;
const DIGEST_42 = sha256(`workspace|value.txt|${sha256("42\n")}`);

/** The proof a forging agent writes by hand: consistent rows, a made-up passing report. */
function handWrittenProof() {
  const records = [{ tool: "workspace", path: "value.txt", content_digest: sha256("42\n") }];
  const digest = effectDigest(records);
  const terminal = { kind: "verified", effect_digest: digest };
  return {
    schema: "turn_proof.v1",
    effect_digest: digest,
    records,
    reports: [
      {
        schema: "verification_report.v1",
        subject: "turngate:checks",
        status: "passed",
        checks: [
          {
            id: "check:1",
            kind: "test",
            description: "npm test",
            status: "passed",
            required: true,
          },
        ],
        effect_digest: digest,
      },
    ],
    waivers_used: [],
    terminal,
    outcome: { kind: "allow", terminal },
    tool_versions: { turngate: "0.1.0" },
    started_at: "2026-01-01T00:00:00.000Z",
    finished_at: "2026-01-01T00:00:05.000Z",
  };
}

const UNSIGNED_TEXT =
  "proof unauthenticated (unsigned): the proof is not signed: anyone who can write the file could have written it\n  pass --public-key FILE with the signer's public key (`turngate proof public-key --key SIGNER.pem` prints it on the signing machine), or --allow-unsigned to check the content anyway\n";

describe("forged proofs are refused (real CLI process)", () => {
  test("a hand-written proof with a made-up passing report: unauthenticated, exit 2", () => {
    const p = project();
    const env = user();
    const proofFile = `.turngate/proofs/${DIGEST_42}.json`;
    const forge = p.agent(
      "forge.js",
      `const fs = require("node:fs");
fs.writeFileSync("value.txt", "42\\n");
fs.mkdirSync(".turngate/proofs", { recursive: true });
fs.writeFileSync(${JSON.stringify(proofFile)}, ${JSON.stringify(JSON.stringify(handWrittenProof()))});`,
    );
    execFileSync(process.execPath, [forge], { cwd: p.root });
    // The user has a key (they ran turngate before); the forged file is not signed by it.
    expect(turngate(["proof", "public-key"], p.root, env).code).toBe(0);
    expect(turngate(["proof", "verify", proofFile], p.root, env)).toEqual({
      code: 2,
      stdout: UNSIGNED_TEXT,
      stderr: "",
    });
    // Its content is consistent: only the missing signature gives it away.
    const allowed = turngate(["proof", "verify", "--allow-unsigned", proofFile], p.root, env);
    expect(allowed).toEqual({
      code: 0,
      stdout: `proof holds: effect digest ${DIGEST_42}; 1 of 1 rows re-hashed from disk\nsignature: none trusted (unsigned), checked anyway (--allow-unsigned)\n`,
      stderr: "",
    });
    // An envelope with the proof as payload and no signature is unsigned too.
    const envelope = {
      payloadType: "application/vnd.turngate.turn-proof+json",
      payload: Buffer.from(JSON.stringify(handWrittenProof())).toString("base64"),
      signatures: [],
    };
    writeFileSync(join(p.root, proofFile), JSON.stringify(envelope));
    const json = turngate(["proof", "verify", "--json", proofFile], p.root, env);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).authentication).toEqual({
      status: "unauthenticated",
      reason: "unsigned",
      keyid: null,
      keyids: [],
      message: "the envelope has no signature",
    });
  });

  test("a proof signed by the agent's own key: unauthenticated (foreign_key), exit 2", () => {
    const p = project();
    const env = user();
    p.write("value.txt", "42\n");
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const agentKey = { privateKey, publicKey, keyid: keyIdOf(publicKey), source: "flag" as const };
    const file = join(p.root, ".turngate/proofs/forged.json");
    mkdirSync(dirname(file), { recursive: true });
    // biome-ignore lint/suspicious/noExplicitAny: a hand-written proof, as an agent writes it
    writeFileSync(file, JSON.stringify(signTurnProof(handWrittenProof() as any, agentKey)));
    expect(turngate(["proof", "public-key"], p.root, env).code).toBe(0);
    const mine = keyidOf(env);
    expect(turngate(["proof", "verify", file], p.root, env)).toEqual({
      code: 2,
      stdout: `proof unauthenticated (foreign_key): signed by "${agentKey.keyid}", not by the trusted key ${mine}\n  pass --public-key FILE with the signer's public key (\`turngate proof public-key --key SIGNER.pem\` prints it on the signing machine), or --allow-unsigned to check the content anyway\n`,
      stderr: "",
    });
  });
});

describe("a real verified turn's proof (real CLI process)", () => {
  test("verifies with the user's key and with --public-key elsewhere; without a key elsewhere it is unauthenticated", () => {
    const p = project();
    const env = user();
    const agent = p.agent("agent.js", WRITE_42);
    const run = turngate(
      ["run", "--check", "grep -qx 42 value.txt", "--", "node", agent],
      p.root,
      env,
    );
    expect(run.code).toBe(0);
    expect(
      run.stdout.endsWith(`proof: .turngate/proofs/${DIGEST_42}.json\n${UNSANDBOXED_LINE}\n`),
    ).toBe(true);
    const proofFile = `.turngate/proofs/${DIGEST_42}.json`;
    const keyid = keyidOf(env);
    const holds = `proof holds: effect digest ${DIGEST_42}; 1 of 1 rows re-hashed from disk\nsignature: dsse, signed by key ${keyid}\nevidence logs: 1 of 1 re-hashed\n`;
    expect(turngate(["proof", "verify", proofFile], p.root, env)).toEqual({
      code: 0,
      stdout: holds,
      stderr: "",
    });

    const exported = turngate(["proof", "public-key"], p.root, env);
    expect(exported.stderr).toBe(`keyid: ${keyid}\n`);
    const pub = join(temp("turngate-ci-"), "turngate.pub.pem");
    writeFileSync(pub, exported.stdout);
    const ci = user(); // another machine or user: no local key
    expect(turngate(["proof", "verify", "--public-key", pub, proofFile], p.root, ci)).toEqual({
      code: 0,
      stdout: holds,
      stderr: "",
    });
    const noKey = turngate(["proof", "verify", proofFile], p.root, ci);
    expect(noKey.code).toBe(2);
    expect(noKey.stdout).toBe(
      "proof unauthenticated (no_trusted_key): no key to check the signature against: pass --public-key FILE (the signer's public key), set TURNGATE_SIGNING_KEY, or verify as the user whose key signed it\n  pass --public-key FILE with the signer's public key (`turngate proof public-key --key SIGNER.pem` prints it on the signing machine), or --allow-unsigned to check the content anyway\n",
    );
  });

  test("edited payload, swapped signature, relabelled keyid and truncated envelope: each rejected by name, exit 2", () => {
    const p = project();
    const env = user();
    const agent = p.agent("agent.js", WRITE_42);
    expect(turngate(["run", "--check", "true", "--", "node", agent], p.root, env).code).toBe(0);
    const path = join(p.root, `.turngate/proofs/${DIGEST_42}.json`);
    const envelope = JSON.parse(readFileSync(path, "utf8"));
    const keyid = keyidOf(env);
    // A second real proof by the same key, for its signature.
    p.write("value.txt", "41\n");
    const other = p.agent("other.js", `require("node:fs").writeFileSync("value.txt", "43\\n");`);
    expect(turngate(["run", "--check", "true", "--", "node", other], p.root, env).code).toBe(0);
    const otherDigest = sha256(`workspace|value.txt|${sha256("43\n")}`);
    const otherEnvelope = JSON.parse(
      readFileSync(join(p.root, `.turngate/proofs/${otherDigest}.json`), "utf8"),
    );
    p.write("value.txt", "42\n");

    const payload = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
    payload.reports[0].checks[0].description = "npm test (all 812 tests)";
    const cases: Array<[string, unknown, string]> = [
      [
        "edited",
        { ...envelope, payload: Buffer.from(JSON.stringify(payload)).toString("base64") },
        `proof rejected (bad_signature): the signature of key ${keyid} does not verify: the payload or the signature was changed after signing\n`,
      ],
      [
        "swapped",
        { ...envelope, signatures: otherEnvelope.signatures },
        `proof rejected (bad_signature): the signature of key ${keyid} does not verify: the payload or the signature was changed after signing\n`,
      ],
      [
        "relabelled",
        { ...envelope, signatures: [{ keyid: "0".repeat(64), sig: envelope.signatures[0].sig }] },
        `proof rejected (keyid_mismatch): a signature by key ${keyid} carries keyid "${"0".repeat(64)}": the envelope was altered\n`,
      ],
    ];
    const advice =
      "  the file is not a proof turngate signed as it is now: do not trust it; re-run the turn to get a new proof\n";
    for (const [name, value, text] of cases) {
      const file = join(p.root, `.turngate/proofs/${name}.json`);
      writeFileSync(file, JSON.stringify(value));
      expect({
        name,
        ...turngate(["proof", "verify", "--root", p.root, file], p.root, env),
      }).toEqual({
        name,
        code: 2,
        stdout: text + advice,
        stderr: "",
      });
    }
    const bytes = readFileSync(path, "utf8");
    const cut = join(p.root, ".turngate/proofs/cut.json");
    writeFileSync(cut, bytes.slice(0, 200));
    const truncated = turngate(["proof", "verify", "--root", p.root, "--json", cut], p.root, env);
    expect(truncated.code).toBe(2);
    expect(JSON.parse(truncated.stdout).authentication).toMatchObject({
      status: "invalid",
      reason: "malformed_envelope",
    });
    expect(JSON.parse(truncated.stdout).problems[0]).toMatch(
      /^malformed_envelope: the file is not JSON \(.+\): truncated or not a proof$/,
    );
  });

  test("an evidence log edited after the turn fails naming the log; logs absent from this machine are a note", () => {
    const p = project();
    const env = user();
    const agent = p.agent("agent.js", WRITE_42);
    const run = turngate(
      ["run", "--json", "--check", "echo checked && grep -qx 42 value.txt", "--", "node", agent],
      p.root,
      env,
    );
    expect(run.code).toBe(0);
    const log = join(p.root, ".turngate/logs", `${sha256("checked\n")}.log`);
    expect(JSON.parse(run.stdout).checks[0].log_path).toBe(log);
    const proofFile = `.turngate/proofs/${DIGEST_42}.json`;
    appendFileSync(log, "and 0 failures\n");
    expect(turngate(["proof", "verify", proofFile], p.root, env)).toEqual({
      code: 2,
      stdout: `proof does not hold against ${p.root}:\n  evidence log ${log}: recorded sha256 ${sha256("checked\n")}, on disk ${sha256("checked\nand 0 failures\n")} (the log was changed after the turn)\nsignature: dsse, signed by key ${keyidOf(env)}\nevidence logs: 0 of 1 re-hashed\n`,
      stderr: "",
    });
    rmSync(log);
    expect(turngate(["proof", "verify", proofFile], p.root, env).stdout).toContain(
      `  evidence log ${log}: missing (recorded sha256 ${sha256("checked\n")}); its folder is here, so it was deleted or moved\n`,
    );
    // The proof copied to a machine without the logs folder: a note, not a failure.
    renameSync(join(p.root, ".turngate/logs"), join(temp("turngate-moved-"), "logs"));
    expect(turngate(["proof", "verify", proofFile], p.root, env)).toEqual({
      code: 0,
      stdout: `proof holds: effect digest ${DIGEST_42}; 1 of 1 rows re-hashed from disk\nsignature: dsse, signed by key ${keyidOf(env)}\nevidence logs: 0 of 1 re-hashed\nnote: logs_unavailable: 1 of 1 evidence log is not on this machine (${join(p.root, ".turngate/logs")}); their SHA-256 was not checked\n`,
      stderr: "",
    });
  });

  test("--format in-toto: a signed in-toto Statement v1 that verifies and matches the commit of the change", () => {
    const p = project();
    const env = user();
    const baseTree = execFileSync("git", ["rev-parse", "HEAD^{tree}"], {
      cwd: p.root,
      encoding: "utf8",
    }).trim();
    const agent = p.agent("agent.js", WRITE_42);
    const run = turngate(
      [
        "run",
        "--json",
        "--format",
        "in-toto",
        "--check",
        "grep -qx 42 value.txt",
        "--",
        "node",
        agent,
      ],
      p.root,
      env,
    );
    expect(run.code).toBe(0);
    const json = JSON.parse(run.stdout);
    const keyid = keyidOf(env);
    expect(json).toMatchObject({
      proof_format: "in-toto",
      proof_keyid: keyid,
      trust: "unsandboxed",
    });
    const envelope = JSON.parse(readFileSync(json.proof_path, "utf8"));
    expect(envelope.payloadType).toBe("application/vnd.in-toto+json");
    expect(envelope.signatures.map((s: { keyid: string }) => s.keyid)).toEqual([keyid]);
    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
    expect(statement._type).toBe("https://in-toto.io/Statement/v1");
    expect(statement.subject).toEqual([{ name: "turngate:effect", digest: { sha256: DIGEST_42 } }]);
    expect(statement.predicateType).toBe("https://github.com/turngate/turngate/turn_proof/v1");
    expect(statement.predicate.effect_digest).toBe(DIGEST_42);
    expect(statement.predicate.workspace).toMatchObject({
      root: p.root,
      baseline_tree: baseTree,
      tree_reason: null,
    });

    const proofFile = `.turngate/proofs/${DIGEST_42}.json`;
    const holds = `proof holds: effect digest ${DIGEST_42}; 1 of 1 rows re-hashed from disk\nsignature: in-toto, signed by key ${keyid}\nevidence logs: 1 of 1 re-hashed\n`;
    expect(turngate(["proof", "verify", proofFile], p.root, env)).toEqual({
      code: 0,
      stdout: holds,
      stderr: "",
    });
    const before = turngate(["proof", "verify", "--commit", "HEAD", proofFile], p.root, env);
    expect(before.code).toBe(2);
    expect(before.stdout).toContain(
      `  commit: the proof's final tree ${statement.predicate.workspace.final_tree} is not the tree ${baseTree} of HEAD\n`,
    );
    execFileSync(
      "git",
      [
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@example.invalid",
        "commit",
        "-q",
        "--no-gpg-sign",
        "-am",
        "turn",
      ],
      { cwd: p.root },
    );
    const headTree = execFileSync("git", ["rev-parse", "HEAD^{tree}"], {
      cwd: p.root,
      encoding: "utf8",
    }).trim();
    expect(statement.predicate.workspace.final_tree).toBe(headTree);
    expect(turngate(["proof", "verify", "--commit", "HEAD", proofFile], p.root, env)).toEqual({
      code: 0,
      stdout: `${holds}commit: the final tree ${headTree} is the commit's tree\n`,
      stderr: "",
    });
  });
});
