/**
 * The proof options of `turngate run` / `verify` (issue 10): the trust line and its host
 * claim (`--sandboxed`, `TURNGATE_SANDBOXED=1`), `--format` and `--key` validation, and the
 * baseline's git tree carried from `turngate baseline` to the proof written by `verify`.
 * Real temporary git repositories; the CLI in-process.
 */
import { execFileSync } from "node:child_process";
import { createHash, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { type CliContext, main } from "../src/index.js";
import {
  ALLOW_FRESH_ENV,
  Collector,
  gitProject,
  readProofPayload,
  UNSANDBOXED_LINE,
} from "./helpers.js";

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const DIGEST_42 = sha256(`workspace|value.txt|${sha256("42\n")}`);
const WRITE_42 = `require("node:fs").writeFileSync("value.txt", "42\\n");`;

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});
function project() {
  const p = gitProject({ "value.txt": "41\n" });
  cleanups.push(p.cleanup);
  return p;
}

async function cliWith(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const stdout = new Collector();
  const stderr = new Collector();
  const ctx: CliContext = { stdout, stderr, cwd, env };
  const code = await main(args, ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

describe("turngate run: trust line and proof options", () => {
  test("trust: unsandboxed by default; --sandboxed or TURNGATE_SANDBOXED=1 is the host's claim, also in the proof", async () => {
    const p = project();
    const agent = p.agent("agent.js", WRITE_42);
    const args = ["run", "--check", "grep -qx 42 value.txt", "--", "node", agent];
    const plain = await cliWith(args, p.root, process.env);
    expect(plain.stdout.endsWith(`${UNSANDBOXED_LINE}\n`)).toBe(true);
    const proofPath = join(p.root, ".turngate/proofs", `${DIGEST_42}.json`);
    expect(readProofPayload(proofPath).trust).toBe("unsandboxed");
    const sandboxedLine =
      "trust: sandboxed (host claim: the agent runs as another user or in a sandbox)\n";
    p.write("value.txt", "41\n");
    // Each run starts over (docs/cli.md "Gapless turns"): the same change, judged as a first turn.
    const fresh = { ...process.env, ...ALLOW_FRESH_ENV };
    const flagged = await cliWith(
      ["run", "--fresh", "--sandboxed", ...args.slice(1)],
      p.root,
      fresh,
    );
    expect(flagged.stdout.endsWith(sandboxedLine)).toBe(true);
    expect(readProofPayload(proofPath).trust).toBe("sandboxed");
    p.write("value.txt", "41\n");
    const env = { ...fresh, TURNGATE_SANDBOXED: "1" };
    const json = JSON.parse(
      (await cliWith(["run", "--fresh", "--json", ...args.slice(1)], p.root, env)).stdout,
    );
    expect(json.trust).toBe("sandboxed");
  });

  test("--format other than dsse or in-toto, and a --key inside the workspace, are usage errors before the agent runs", async () => {
    const p = project();
    const marker = join(p.agents, "ran");
    const agent = p.agent(
      "agent.js",
      `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "");`,
    );
    expect(
      await cliWith(["run", "--format", "json", "--", "node", agent], p.root, process.env),
    ).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'turngate: error: invalid --format value at --format: "json" is not a proof format: use dsse or in-toto [invalid_input]\n',
    });
    const key = join(p.root, "key.pem");
    writeFileSync(
      key,
      generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }),
    );
    const inside = await cliWith(
      ["run", "--key", "key.pem", "--", "node", agent],
      p.root,
      process.env,
    );
    expect(inside).toEqual({
      code: 1,
      stdout: "",
      stderr: `turngate: error: --key: ${key} is inside the workspace ${p.root}, where the agent can read or replace it; keep the key outside the workspace [signing_key_in_workspace]\n`,
    });
    expect(() => readFileSync(marker)).toThrow();
  });

  test("--key FILE signs with that key; proof verify trusts it through TURNGATE_SIGNING_KEY", async () => {
    const p = project();
    const dir = mkdtempSync(join(tmpdir(), "turngate-key-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const key = join(dir, "ci.pem");
    writeFileSync(
      key,
      generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }),
      { mode: 0o600 },
    );
    const keyid = sha256(
      execFileSync("openssl", ["pkey", "-in", key, "-pubout", "-outform", "DER"]),
    );
    const agent = p.agent("agent.js", WRITE_42);
    const run = await cliWith(
      ["run", "--json", "--key", key, "--check", "grep -qx 42 value.txt", "--", "node", agent],
      p.root,
      process.env,
    );
    expect(JSON.parse(run.stdout)).toMatchObject({ proof_format: "dsse", proof_keyid: keyid });
    const proof = `.turngate/proofs/${DIGEST_42}.json`;
    const foreign = await cliWith(["proof", "verify", proof], p.root, process.env);
    expect(foreign.code).toBe(2);
    expect(foreign.stdout.startsWith("proof unauthenticated (foreign_key)")).toBe(true);
    const env = { ...process.env, TURNGATE_SIGNING_KEY: key };
    expect((await cliWith(["proof", "verify", proof], p.root, env)).code).toBe(0);
  });
});

describe("the signing key stays with turngate", () => {
  test("TURNGATE_SIGNING_KEY given inline reaches neither the agent nor the checks", async () => {
    const p = project();
    const pem = generateKeyPairSync("ed25519")
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    const seen = join(p.agents, "seen.txt");
    const agent = p.agent(
      "agent.js",
      `require("node:fs").writeFileSync(${JSON.stringify(seen)}, String(process.env.TURNGATE_SIGNING_KEY)); ${WRITE_42}`,
    );
    const env = { ...process.env, TURNGATE_SIGNING_KEY: pem };
    const run = await cliWith(
      [
        "run",
        "--json",
        "--check",
        'test -z "$TURNGATE_SIGNING_KEY" && grep -qx 42 value.txt',
        "--",
        "node",
        agent,
      ],
      p.root,
      env,
    );
    expect(readFileSync(seen, "utf8")).toBe("undefined");
    const json = JSON.parse(run.stdout);
    expect(json.verdict).toBe("verified");
    expect(json.proof_keyid).toBe(
      sha256(execFileSync("openssl", ["pkey", "-pubout", "-outform", "DER"], { input: pem })),
    );
  });
});

describe("turngate baseline and verify: git trees", () => {
  test("the baseline stores its git tree; the proof verify writes names it and the final tree", async () => {
    const p = project();
    const baseTree = execFileSync("git", ["rev-parse", "HEAD^{tree}"], {
      cwd: p.root,
      encoding: "utf8",
    }).trim();
    expect((await cliWith(["baseline"], p.root, process.env)).code).toBe(0);
    const stored = JSON.parse(readFileSync(join(p.root, ".turngate/baseline.json"), "utf8"));
    expect(stored.git_tree).toEqual({ tree: baseTree, reason: null });
    p.write("value.txt", "42\n");
    const verify = await cliWith(
      ["verify", "--check", "grep -qx 42 value.txt"],
      p.root,
      process.env,
    );
    expect(verify.code).toBe(0);
    const proof = readProofPayload(join(p.root, ".turngate/proofs", `${DIGEST_42}.json`));
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
    expect(proof.workspace).toEqual({
      root: p.root,
      baseline_tree: baseTree,
      final_tree: execFileSync("git", ["rev-parse", "HEAD^{tree}"], {
        cwd: p.root,
        encoding: "utf8",
      }).trim(),
      tree_reason: null,
    });
  });
});
