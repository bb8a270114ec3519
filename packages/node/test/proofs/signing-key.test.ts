/**
 * Where the signing key comes from (issue 10): `--key FILE`, `TURNGATE_SIGNING_KEY` (a PEM
 * or a path), else one key generated once in the user's state folder — mode 0600, in a
 * 0700 folder, created atomically so two racing processes end with the same key — never
 * inside the workspace. keyid = SHA-256 of the DER public key (checked against openssl).
 */
import { execFileSync, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import {
  keyIdOf,
  resolveSigningKey,
  trustedPublicKey,
  userStateDir,
} from "../../src/proofs/signing-key.js";
import { tempDir } from "../runner/helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(60_000), hookTimeout: testTimeout(60_000) });

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});
async function folder(): Promise<string> {
  const dir = await tempDir("keys");
  cleanups.push(dir.cleanup);
  return dir.path;
}

describe("signing keys", () => {
  test("the state folder is $XDG_STATE_HOME/turngate, else ~/.local/state/turngate", () => {
    expect(userStateDir({ XDG_STATE_HOME: "/s", HOME: "/h" })).toBe("/s/turngate");
    expect(userStateDir({ XDG_STATE_HOME: "relative", HOME: "/h" })).toBe(
      "/h/.local/state/turngate",
    );
    expect(userStateDir({ HOME: "/h" })).toBe("/h/.local/state/turngate");
  });

  test("generated once: 0600 key in a 0700 folder, the same key on the next call, public key beside it", async () => {
    const state = await folder();
    const env = { XDG_STATE_HOME: state };
    const first = resolveSigningKey({ env });
    expect(first.source).toBe("generated");
    const path = join(state, "turngate", "signing-key.pem");
    expect(first.path).toBe(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(state, "turngate")).mode & 0o777).toBe(0o700);
    const again = resolveSigningKey({ env });
    expect(again.source).toBe("state");
    expect(again.keyid).toBe(first.keyid);
    expect(readdirSync(join(state, "turngate")).sort()).toEqual([
      "signing-key.pem",
      "signing-key.pub.pem",
    ]);
    // keyid = SHA-256 of the DER SubjectPublicKeyInfo, as openssl computes it.
    const der = execFileSync("openssl", ["pkey", "-in", path, "-pubout", "-outform", "DER"]);
    const opensslKeyId = execFileSync("sha256sum", { input: der }).toString().split(" ")[0];
    expect(first.keyid).toBe(opensslKeyId);
    expect(trustedPublicKey({ env })).toMatchObject({ keyid: first.keyid, source: "state" });
    const pub = readFileSync(join(state, "turngate", "signing-key.pub.pem"), "utf8");
    expect(
      trustedPublicKey({ publicKeyFile: join(state, "turngate", "signing-key.pub.pem"), env: {} })
        ?.keyid,
    ).toBe(first.keyid);
    expect(pub.startsWith("-----BEGIN PUBLIC KEY-----\n")).toBe(true);
  });

  test("eight processes racing to create the key all end with one and the same key", async () => {
    const state = await folder();
    const go = join(state, "go");
    const script = `
      const { existsSync } = await import("node:fs");
      const { resolveSigningKey } = await import(${JSON.stringify(new URL("../../src/proofs/signing-key.ts", import.meta.url).pathname)});
      process.stdout.write("ready\\n");
      while (!existsSync(${JSON.stringify(go)})) {}
      const key = resolveSigningKey({ env: { XDG_STATE_HOME: ${JSON.stringify(state)} } });
      process.stdout.write(key.keyid + " " + key.source);
    `;
    let ready = 0;
    const runs = Array.from(
      { length: 8 },
      () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [
              "--conditions=@turngate/source",
              "--import",
              "tsx",
              "--input-type=module",
              "-e",
              script,
            ],
            { stdio: ["ignore", "pipe", "inherit"] },
          );
          let out = "";
          let counted = false;
          child.stdout.on("data", (chunk) => {
            out += chunk;
            // All eight wait at the barrier until the last one is ready, then race.
            if (!counted && out.startsWith("ready\n")) {
              counted = true;
              if (++ready === 8) writeFileSync(go, "");
            }
          });
          child.on("error", reject);
          child.on("close", (code) =>
            code === 0 ? resolve(out.slice("ready\n".length)) : reject(new Error(`exit ${code}`)),
          );
        }),
    );
    const outputs = await Promise.all(runs);
    const keyids = new Set(outputs.map((out) => out.split(" ")[0]));
    expect(keyids.size).toBe(1);
    expect(outputs.filter((out) => out.endsWith(" generated")).length).toBe(1);
    expect(readdirSync(join(state, "turngate")).sort()).toEqual([
      "signing-key.pem",
      "signing-key.pub.pem",
    ]);
    expect(resolveSigningKey({ env: { XDG_STATE_HOME: state } }).keyid).toBe([...keyids][0]);
  });

  test("--key FILE and TURNGATE_SIGNING_KEY (a PEM or a path) win over the state folder", async () => {
    const dir = await folder();
    const { privateKey } = generateKeyPairSync("ed25519");
    const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
    const file = join(dir, "key.pem");
    writeFileSync(file, pem, { mode: 0o600 });
    const keyid = keyIdOf(privateKey);
    const env = { XDG_STATE_HOME: join(dir, "state") };
    expect(resolveSigningKey({ keyFile: file, env })).toMatchObject({
      keyid,
      source: "flag",
      path: file,
    });
    expect(resolveSigningKey({ env: { ...env, TURNGATE_SIGNING_KEY: pem } })).toMatchObject({
      keyid,
      source: "env",
    });
    expect(resolveSigningKey({ env: { ...env, TURNGATE_SIGNING_KEY: file } })).toMatchObject({
      keyid,
      source: "env",
      path: file,
    });
    expect(trustedPublicKey({ env: { ...env, TURNGATE_SIGNING_KEY: pem } })?.keyid).toBe(keyid);
    // Nothing was generated in the state folder.
    expect(trustedPublicKey({ env })).toBeUndefined();
  });

  test("a key that is not Ed25519, not a key, or unreadable is signing_key_invalid naming where it came from", async () => {
    const dir = await folder();
    const rsa = join(dir, "rsa.pem");
    writeFileSync(
      rsa,
      generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({
        type: "pkcs8",
        format: "pem",
      }),
    );
    expect(() => resolveSigningKey({ keyFile: rsa })).toThrow(
      expect.objectContaining({
        code: "signing_key_invalid",
        path: "--key",
        message: "--key: an rsa key, expected ed25519",
      }),
    );
    const junk = join(dir, "junk.pem");
    writeFileSync(junk, "not a key");
    expect(() => resolveSigningKey({ env: { TURNGATE_SIGNING_KEY: junk } })).toThrow(
      expect.objectContaining({ code: "signing_key_invalid", path: "TURNGATE_SIGNING_KEY" }),
    );
    expect(() => resolveSigningKey({ keyFile: join(dir, "missing.pem") })).toThrow(
      `--key: cannot read the key file ${join(dir, "missing.pem")} (ENOENT)`,
    );
  });

  test("a key file or state folder inside the workspace is refused (signing_key_in_workspace)", async () => {
    const root = await folder();
    mkdirSync(join(root, "keys"));
    const { privateKey } = generateKeyPairSync("ed25519");
    writeFileSync(join(root, "keys", "k.pem"), privateKey.export({ type: "pkcs8", format: "pem" }));
    expect(() => resolveSigningKey({ keyFile: join(root, "keys", "k.pem"), root })).toThrow(
      expect.objectContaining({
        code: "signing_key_in_workspace",
        message: `--key: ${join(root, "keys", "k.pem")} is inside the workspace ${root}, where the agent can read or replace it; keep the key outside the workspace`,
      }),
    );
    expect(() => resolveSigningKey({ env: { XDG_STATE_HOME: join(root, "state") }, root })).toThrow(
      expect.objectContaining({ code: "signing_key_in_workspace" }),
    );
  });
});
