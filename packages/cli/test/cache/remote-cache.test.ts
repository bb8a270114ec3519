/**
 * The result cache over the Turborepo remote-cache protocol (issue 20 item 4), against the
 * real `turborepo-remote-cache` server on 127.0.0.1: machines are clones of one origin
 * repository, each with its own state folder, HOME and signing key; the check appends a
 * line to a file outside every clone, so the number of lines is the number of real runs.
 */
import { execFileSync } from "node:child_process";
import { generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CACHED_CHECK_PAYLOAD_TYPE,
  keyIdOf,
  openCachedCheck,
  preAuthEncoding,
} from "@turngate/node";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";
import { type CliContext, main } from "../../src/index.js";
import { Collector } from "../helpers.js";
import { freePort, type RemoteCacheServer, startRemoteCache } from "./remote-server.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(120_000), hookTimeout: testTimeout(120_000) });

const TEAM = "team_turngate";
const TOKEN_ENV = "TG_TEST_REMOTE_CACHE_TOKEN";

let server: RemoteCacheServer;
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  server = await startRemoteCache();
});
afterAll(async () => {
  await server?.stop();
  for (const cleanup of cleanups.reverse()) cleanup();
});

function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Key {
  privateKey: KeyObject;
  publicKey: KeyObject;
  privatePem: string;
  publicPem: string;
  keyid: string;
}
function newKey(): Key {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return {
    privateKey,
    publicKey,
    privatePem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
    publicPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
    keyid: keyIdOf(publicKey),
  };
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd,
    stdio: "pipe",
  })
    .toString()
    .trim();

/** An origin repository whose check appends to `counter` and passes while a.txt says good. */
function origin(counter: string, url: string): string {
  const dir = temp("turngate-cache-origin-");
  writeFileSync(join(dir, "a.txt"), "good 1\n");
  writeFileSync(join(dir, "package-lock.json"), '{"lockfileVersion":3}\n');
  writeFileSync(
    join(dir, "turngate.config.json"),
    `${JSON.stringify(
      {
        checks: [
          {
            id: "unit",
            kind: "test",
            description: "a.txt is good",
            command: `echo ran >> '${counter}' && grep -q '^good' a.txt`,
            required: true,
          },
        ],
        cache: { remote: { url, team: TEAM, token_env: TOKEN_ENV, timeout_ms: 1500 }, write: true },
      },
      null,
      2,
    )}\n`,
  );
  git(dir, "init", "-q");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--no-gpg-sign", "-m", "base");
  return dir;
}

interface Machine {
  root: string;
  state: string;
  env: NodeJS.ProcessEnv;
  baselineId?: string;
}
/** Another clone of `from`, with its own state folder and HOME; `signing` signs its results. */
function machine(
  from: string,
  signing: Key,
  options: { trusted: Key[]; write?: boolean },
): Machine {
  const home = temp("turngate-cache-home-");
  const root = join(temp("turngate-cache-clone-"), "repo");
  execFileSync("git", ["clone", "-q", from, root], { stdio: "pipe" });
  const state = temp("turngate-cache-state-");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    // The checks count their runs in a file outside the workspace, which clean-room checks
    // cannot write by design: these tests of the cache run their checks in place.
    TURNGATE_ISOLATION: "in-place",
    HOME: home,
    XDG_STATE_HOME: join(home, "state"),
    XDG_CONFIG_HOME: join(home, "config"),
    TURNGATE_SIGNING_KEY: signing.privatePem,
    TURNGATE_CACHE_TRUSTED_KEYS: options.trusted.map((k) => k.publicPem).join(""),
    [TOKEN_ENV]: server.token,
    GIT_CONFIG_NOSYSTEM: "1",
  };
  if (options.write) env.TURNGATE_CACHE_WRITE = "1";
  return { root, state, env };
}

async function turngate(m: Machine, args: string[]) {
  const stdout = new Collector();
  const stderr = new Collector();
  const ctx: CliContext = { stdout, stderr, cwd: m.root, env: m.env, agentOutput: new Collector() };
  const code = await main(args, ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** baseline → write a.txt → verify --json; returns the parsed result and stderr. */
async function turn(m: Machine, content: string, after?: (root: string) => void) {
  const base = await turngate(m, ["baseline", "--state-dir", m.state]);
  expect(base.code, base.stderr).toBe(0);
  m.baselineId = /^baseline id: ([0-9a-f]{64})$/m.exec(base.stdout)?.[1] ?? "";
  writeFileSync(join(m.root, "a.txt"), content);
  after?.(m.root);
  const verified = await turngate(m, [
    "verify",
    "--state-dir",
    m.state,
    "--baseline-id",
    m.baselineId,
    "--json",
  ]);
  const json = JSON.parse(verified.stdout) as {
    verdict: string;
    checks: { id: string; status: string; cached: string; duration_ms: number }[];
    cache: { keys: Record<string, string>; uploaded: number; uploads: boolean; warnings: string[] };
  };
  return { code: verified.code, json, stderr: verified.stderr };
}

const lines = (file: string) =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l !== "").length
    : 0;
const stored = (key: string) => join(server.storage, TEAM, key);

describe("result cache over the Turborepo remote-cache API (real server)", () => {
  test("machine A verifies and uploads; machine B with the same bytes gets a remote hit and ends verified without running the check", async () => {
    const counter = join(temp("turngate-cache-counter-"), "runs.log");
    const ci = newKey();
    const from = origin(counter, server.url);
    const a = machine(from, ci, { trusted: [ci], write: true });
    const b = machine(from, newKey(), { trusted: [ci] });

    const first = await turn(a, "good 2\n");
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.verdict).toBe("verified");
    expect(first.json.checks.map((c) => [c.id, c.status, c.cached])).toEqual([
      ["unit", "passed", "none"],
    ]);
    expect(first.json.cache.uploaded).toBe(1);
    expect(lines(counter)).toBe(1);
    const key = first.json.cache.keys.unit ?? "";
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    const artifact = readFileSync(stored(key));
    const opened = openCachedCheck(artifact, key, [
      { publicKey: ci.publicKey, keyid: ci.keyid, source: "env" },
    ]);
    expect(opened.accepted).toBe(true);
    if (opened.accepted) {
      expect(opened.payload.check.status).toBe("passed");
      expect(opened.payload.exit_code).toBe(0);
    }

    const second = await turn(b, "good 2\n");
    expect(second.code, second.stderr).toBe(0);
    expect(second.json.verdict).toBe("verified");
    expect(second.json.cache.keys.unit).toBe(key);
    expect(second.json.checks.map((c) => [c.id, c.status, c.cached])).toEqual([
      ["unit", "passed", "remote"],
    ]);
    expect(second.json.cache.uploaded).toBe(0);
    expect(lines(counter)).toBe(1);
    const text = await turngate(b, [
      "verify",
      "--state-dir",
      b.state,
      "--baseline-id",
      b.baselineId ?? "",
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("cached: unit local\n");
    expect(lines(counter)).toBe(1);
    const stats = await turngate(b, ["cache", "stats", "--state-dir", b.state, "--json"]);
    const s = JSON.parse(stats.stdout) as {
      hits: { local: number; remote: number };
      misses: number;
    };
    expect(s.hits).toEqual({ local: 1, remote: 1 });
    expect(s.misses).toBe(0);

    // A changed byte: another key, a miss, the check runs.
    const c = machine(from, newKey(), { trusted: [ci] });
    const changed = await turn(c, "good 3\n");
    expect(changed.json.verdict).toBe("verified");
    expect(changed.json.cache.keys.unit).not.toBe(key);
    expect(changed.json.checks.map((x) => x.cached)).toEqual(["none"]);
    expect(lines(counter)).toBe(2);

    // The same bytes with only the executable bit flipped (git 100644 → 100755): another key.
    const d = machine(from, newKey(), { trusted: [ci] });
    const chmodded = await turn(d, "good 2\n", (root) => chmodSync(join(root, "a.txt"), 0o755));
    expect(chmodded.json.verdict).toBe("verified");
    expect(chmodded.json.cache.keys.unit).not.toBe(key);
    expect(chmodded.json.checks.map((x) => x.cached)).toEqual(["none"]);
    expect(lines(counter)).toBe(3);
  });

  test("an artifact altered in the server's storage folder is rejected and the check runs", async () => {
    const counter = join(temp("turngate-cache-counter-"), "runs.log");
    const ci = newKey();
    const from = origin(counter, server.url);
    const a = machine(from, ci, { trusted: [ci], write: true });
    const first = await turn(a, "good 2\n");
    const key = first.json.cache.keys.unit ?? "";
    expect(lines(counter)).toBe(1);
    // Flip the stored result's exit code inside the signed payload.
    const envelope = JSON.parse(readFileSync(stored(key), "utf8")) as { payload: string };
    const payload = Buffer.from(envelope.payload, "base64").toString("utf8");
    expect(payload).toContain('"exit_code":0');
    envelope.payload = Buffer.from(payload.replace('"exit_code":0', '"exit_code":1')).toString(
      "base64",
    );
    writeFileSync(stored(key), JSON.stringify(envelope));

    const b = machine(from, newKey(), { trusted: [ci] });
    const second = await turn(b, "good 2\n");
    expect(second.json.verdict).toBe("verified");
    expect(second.json.checks.map((x) => x.cached)).toEqual(["none"]);
    expect(second.stderr).toContain(
      "turngate: cache: remote artifact for unit rejected (bad_signature: the signature does not verify",
    );
    expect(lines(counter)).toBe(2);
    const stats = JSON.parse(
      (await turngate(b, ["cache", "stats", "--state-dir", b.state, "--json"])).stdout,
    );
    expect(stats.rejected).toEqual({ local: 0, remote: 1, by_reason: { bad_signature: 1 } });
  });

  test("a poisoned cache never verifies: a pass signed by an untrusted key, or relabelled with a trusted keyid, is rejected and the failing check runs", async () => {
    const counter = join(temp("turngate-cache-counter-"), "runs.log");
    const ci = newKey();
    const attacker = newKey();
    const from = origin(counter, server.url);
    // The attacker's machine (uploads on, its own key) learns the key of a broken edit.
    const evil = machine(from, attacker, { trusted: [attacker], write: true });
    const broken = await turn(evil, "broken\n");
    expect(broken.code).toBe(2);
    const key = broken.json.cache.keys.unit ?? "";
    expect(lines(counter)).toBe(1);
    // It replaces the stored failure with a forged pass, signed with its own key …
    const forgedPayload = Buffer.from(
      JSON.stringify({
        schema: "turngate.cached_check.v1",
        key,
        check: {
          id: "unit",
          kind: "test",
          description: "a.txt is good",
          status: "passed",
          required: true,
        },
        exit_code: 0,
        duration_ms: 5,
        log: { sha256: "", bytes: 0, excerpt: "", excerpt_truncated: false },
        created_at: "2026-12-02T00:00:00.000Z",
        turngate: "0.1.0",
      }),
    );
    const sig = sign(
      null,
      preAuthEncoding(CACHED_CHECK_PAYLOAD_TYPE, forgedPayload),
      attacker.privateKey,
    );
    const put = (keyid: string) =>
      fetch(`${server.url}/v8/artifacts/${key}?teamId=${TEAM}`, {
        method: "PUT",
        headers: {
          authorization: `Bearer ${server.token}`,
          "content-type": "application/octet-stream",
        },
        body: JSON.stringify({
          payload: forgedPayload.toString("base64"),
          payloadType: CACHED_CHECK_PAYLOAD_TYPE,
          signatures: [{ keyid, sig: sig.toString("base64") }],
        }),
      });
    expect((await put(attacker.keyid)).status).toBe(200);
    const victim = machine(from, newKey(), { trusted: [ci] });
    const one = await turn(victim, "broken\n");
    expect(one.code).toBe(2);
    expect(one.json.verdict).not.toBe("verified");
    expect(one.json.checks.map((x) => [x.status, x.cached])).toEqual([["failed", "none"]]);
    expect(one.stderr).toContain(
      `turngate: cache: remote artifact for unit rejected (unknown_key: signed by an untrusted key (keyid ${attacker.keyid.slice(0, 12)}))`,
    );
    expect(lines(counter)).toBe(2);

    // … or relabelled with the trusted key's id.
    expect((await put(ci.keyid)).status).toBe(200);
    const victim2 = machine(from, newKey(), { trusted: [ci] });
    const two = await turn(victim2, "broken\n");
    expect(two.code).toBe(2);
    expect(two.json.checks.map((x) => [x.status, x.cached])).toEqual([["failed", "none"]]);
    expect(two.stderr).toContain("rejected (bad_signature: the signature does not verify");
    expect(lines(counter)).toBe(3);
  });

  test("an artifact stored under another key is rejected (key_mismatch)", async () => {
    const counter = join(temp("turngate-cache-counter-"), "runs.log");
    const ci = newKey();
    const from = origin(counter, server.url);
    const a = machine(from, ci, { trusted: [ci], write: true });
    const good = await turn(a, "good 2\n");
    const goodKey = good.json.cache.keys.unit ?? "";
    const probe = machine(from, newKey(), { trusted: [] });
    const broken = await turn(probe, "broken\n");
    const brokenKey = broken.json.cache.keys.unit ?? "";
    expect(lines(counter)).toBe(2);
    // A genuine, trusted pass copied to the broken edit's key.
    writeFileSync(stored(brokenKey), readFileSync(stored(goodKey)));
    const victim = machine(from, newKey(), { trusted: [ci] });
    const out = await turn(victim, "broken\n");
    expect(out.code).toBe(2);
    expect(out.json.checks.map((x) => [x.status, x.cached])).toEqual([["failed", "none"]]);
    expect(out.stderr).toContain(
      `rejected (key_mismatch: stored for key ${goodKey.slice(0, 12)}…, asked for ${brokenKey.slice(0, 12)}…)`,
    );
    expect(lines(counter)).toBe(3);
  });

  test("with the server down the check runs and the turn warns, never fails", async () => {
    const counter = join(temp("turngate-cache-counter-"), "runs.log");
    const port = await freePort();
    const from = origin(counter, `http://127.0.0.1:${port}`);
    const ci = newKey();
    const a = machine(from, ci, { trusted: [ci], write: true });
    const out = await turn(a, "good 2\n");
    expect(out.code).toBe(0);
    expect(out.json.verdict).toBe("verified");
    expect(out.json.checks.map((x) => x.cached)).toEqual(["none"]);
    expect(out.json.cache.uploaded).toBe(0);
    expect(out.stderr).toContain(
      "turngate: cache: remote cache unavailable for unit (ECONNREFUSED); the check runs\n",
    );
    expect(out.stderr).toContain("turngate: cache: upload of unit failed (ECONNREFUSED)\n");
    expect(lines(counter)).toBe(1);
  });

  test("20 concurrent turns on the same key: one or more runs, every verdict verified, the stored artifact intact", async () => {
    const counter = join(temp("turngate-cache-counter-"), "runs.log");
    const ci = newKey();
    const from = origin(counter, server.url);
    const machines = Array.from({ length: 20 }, () =>
      machine(from, ci, { trusted: [ci], write: true }),
    );
    // In-process turns add their signal handlers side by side.
    process.setMaxListeners(64);
    await Promise.all(
      machines.map(async (m) => {
        const base = await turngate(m, ["baseline", "--state-dir", m.state]);
        expect(base.code).toBe(0);
        m.baselineId = /^baseline id: ([0-9a-f]{64})$/m.exec(base.stdout)?.[1] ?? "";
        writeFileSync(join(m.root, "a.txt"), "good 20\n");
      }),
    );
    const results = await Promise.all(
      machines.map((m) =>
        turngate(m, [
          "verify",
          "--state-dir",
          m.state,
          "--baseline-id",
          m.baselineId ?? "",
          "--json",
        ]),
      ),
    );
    const parsed = results.map((r) => JSON.parse(r.stdout));
    expect(parsed.map((p) => p.verdict)).toEqual(Array(20).fill("verified"));
    expect(results.map((r) => r.code)).toEqual(Array(20).fill(0));
    const keys = new Set(parsed.map((p) => p.cache.keys.unit));
    expect(keys.size).toBe(1);
    const runs = lines(counter);
    const ran = parsed.filter((p) => p.checks[0].cached === "none").length;
    expect(runs).toBe(ran);
    expect(runs).toBeGreaterThanOrEqual(1);
    expect(runs).toBeLessThanOrEqual(20);
    console.log(`20 concurrent turns: ${runs} ran the check, ${20 - runs} were cache hits`);
    const key = [...keys][0] as string;
    const opened = openCachedCheck(readFileSync(stored(key)), key, [
      { publicKey: ci.publicKey, keyid: ci.keyid, source: "env" },
    ]);
    expect(opened.accepted).toBe(true);
    expect(readdirSync(join(server.storage, TEAM)).filter((f) => f.startsWith(key))).toEqual([key]);
    const late = machine(from, newKey(), { trusted: [ci] });
    const last = await turn(late, "good 20\n");
    expect(last.json.checks.map((x: { cached: string }) => x.cached)).toEqual(["remote"]);
    expect(lines(counter)).toBe(runs);
  });
});
