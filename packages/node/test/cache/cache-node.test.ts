import { execFileSync } from "node:child_process";
import { createHash, generateKeyPairSync } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import {
  CACHED_CHECK_SCHEMA,
  type CachedCheck,
  cacheHostSettings,
  cacheKeyContext,
  checkCacheKey,
  defaultToolchainRows,
  keyIdOf,
  lockfileDigests,
  openCachedCheck,
  RemoteCacheClient,
  ResultCache,
  type SigningKey,
  signCachedCheck,
  sourceTreeFromChanges,
  sourceTreeId,
} from "../../src/index.js";
import { git, onCleanup, temp } from "../temp-git.js";

function signingKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  return { privateKey, publicKey, keyid: keyIdOf(publicKey), source: "env" };
}
const KEY = "c".repeat(64);
function payload(key = KEY): CachedCheck {
  return {
    schema: CACHED_CHECK_SCHEMA,
    key,
    check: { id: "unit", kind: "test", description: "unit", status: "passed", required: true },
    exit_code: 0,
    duration_ms: 12,
    log: { sha256: "d".repeat(64), bytes: 3, excerpt: "ok\n", excerpt_truncated: false },
    created_at: "2026-12-02T00:00:00.000Z",
    turngate: "0.1.0",
  };
}

describe("the key's toolchain probes run no program of the workspace (attack round)", () => {
  test("a workspace .venv/bin/python is never run: the probe is the PATH interpreter; go never switches toolchains", async () => {
    const root = temp("turngate-key-probe-");
    writeFileSync(join(root, "requirements.txt"), "");
    writeFileSync(join(root, "go.mod"), "module x\n\ngo 1.21\n\ntoolchain go1.99.0\n");
    mkdirSync(join(root, ".venv/bin"), { recursive: true });
    const marker = join(root, "ran");
    writeFileSync(
      join(root, ".venv/bin/python"),
      `#!/bin/sh\ntouch ${marker}\necho Python 9.9.9\n`,
    );
    execFileSync("chmod", ["+x", join(root, ".venv/bin/python")]);
    expect(defaultToolchainRows(root)).toEqual([
      { id: "python", probe: ["python3", "--version"] },
      {
        id: "go",
        probe: {
          mode: "shell",
          command: "GOTOOLCHAIN=local go version && GOTOOLCHAIN=local go env GOOS GOARCH",
        },
      },
    ]);
    execFileSync("git", ["init", "-q"], { cwd: root });
    const got = await cacheKeyContext({ root, changes: [], records: [], turngate: "0.0.0-test" });
    expect(got.context).not.toBeNull();
    expect(existsSync(marker)).toBe(false);
  });
});

describe("sourceTreeFromChanges (issue 20 item 1: the key's tree)", () => {
  test("equals sourceTreeId after modified, added, deleted and nested paths, and never touches the user's index", async () => {
    const root = temp("turngate-key-tree-");
    mkdirSync(join(root, "src/deep"), { recursive: true });
    writeFileSync(join(root, "a.txt"), "a\n");
    writeFileSync(join(root, "src/b.ts"), "b\n");
    writeFileSync(join(root, "src/deep/c.ts"), "c\n");
    writeFileSync(join(root, ".gitignore"), "ignored/\n");
    git(root, "init", "-q");
    git(root, "add", "-A");
    git(root, "commit", "-q", "--no-gpg-sign", "-m", "base");
    const base = await sourceTreeId(root);
    expect(base.tree).toBe(git(root, "rev-parse", "HEAD^{tree}"));
    const indexBefore = git(root, "ls-files", "-s", "--debug").length;
    writeFileSync(join(root, "a.txt"), "changed\n");
    writeFileSync(join(root, "src/deep/new.ts"), "new\n");
    unlinkSync(join(root, "src/b.ts"));
    mkdirSync(join(root, "ignored"));
    writeFileSync(join(root, "ignored/x"), "x\n");
    const full = await sourceTreeId(root);
    const incremental = await sourceTreeFromChanges(root, base.tree as string, [
      { path: "a.txt", change: "modified" },
      { path: "src/deep/new.ts", change: "added" },
      { path: "src/b.ts", change: "deleted" },
    ]);
    expect(incremental).toEqual({ tree: full.tree, reason: null });
    expect(full.tree).not.toBe(base.tree);
    expect(git(root, "ls-files", "-s", "--debug").length).toBe(indexBefore);
    expect(git(root, "status", "--porcelain")).toBe(
      " M a.txt\n D src/b.ts\n?? src/deep/new.ts".trim(),
    );
    expect(await sourceTreeFromChanges(root, base.tree as string, [])).toEqual({
      tree: base.tree,
      reason: null,
    });
  });

  test("equals sourceTreeId for an executable bit, a whole folder deleted, a new nested folder, odd names and a symlink; an altered tree object in the store is never trusted", async () => {
    const root = temp("turngate-key-tree2-");
    mkdirSync(join(root, "gone/sub"), { recursive: true });
    writeFileSync(join(root, "gone/sub/x.txt"), "x\n");
    writeFileSync(join(root, "run.sh"), "echo\n");
    writeFileSync(join(root, "keep.txt"), "k\n");
    git(root, "init", "-q");
    git(root, "add", "-A");
    git(root, "commit", "-q", "--no-gpg-sign", "-m", "base");
    const base = (await sourceTreeId(root)).tree as string;
    rmSync(join(root, "gone"), { recursive: true });
    execFileSync("chmod", ["+x", join(root, "run.sh")]);
    writeFileSync(join(root, "run.sh"), "echo 2\n");
    mkdirSync(join(root, "new/a b/ü"), { recursive: true });
    writeFileSync(join(root, "new/a b/ü/f i.txt"), "n\n");
    const fast = [
      { path: "gone/sub/x.txt", change: "deleted" as const },
      { path: "run.sh", change: "modified" as const },
      { path: "new/a b/ü/f i.txt", change: "added" as const },
    ];
    const full = (await sourceTreeId(root)).tree;
    expect(full).not.toBe(base);
    expect(await sourceTreeFromChanges(root, base, fast)).toEqual({ tree: full, reason: null });
    // A symlink takes the index path; the result is the same tree.
    execFileSync("ln", ["-s", "keep.txt", join(root, "link")]);
    expect(
      await sourceTreeFromChanges(root, base, [...fast, { path: "link", change: "added" }]),
    ).toEqual({
      tree: (await sourceTreeId(root)).tree,
      reason: null,
    });
    // A baseline tree object altered in the store is not trusted: the fast path gives up and
    // the full tree is computed (every file hashed), or none when git refuses: never the
    // altered tree.
    unlinkSync(join(root, "link"));
    const clean = (await sourceTreeId(root)).tree;
    expect(clean).toBe(full);
    // The root tree's file gets the bytes of a tree naming another blob for keep.txt.
    const evil = git(root, "hash-object", "-w", "--stdin");
    const rows = git(root, "ls-tree", base).split("\n");
    const forgedRows = rows.map((r) =>
      r.endsWith("\tkeep.txt") ? r.replace(/[0-9a-f]{40}/, evil) : r,
    );
    const forged = execFileSync("git", ["mktree"], {
      cwd: root,
      input: `${forgedRows.join("\n")}\n`,
    })
      .toString()
      .trim();
    const loose = (id: string) => join(root, ".git/objects", id.slice(0, 2), id.slice(2));
    execFileSync("chmod", ["u+w", loose(base)]);
    writeFileSync(loose(base), readFileSync(loose(forged)));
    // `cat-file --batch` serves the altered bytes without checking them.
    const served = execFileSync("git", ["cat-file", "--batch"], { cwd: root, input: `${base}\n` });
    expect(served.includes(Buffer.from(evil, "hex"))).toBe(true);
    const tampered = await sourceTreeFromChanges(root, base, fast);
    expect([clean, null]).toContain(tampered.tree);
  });

  test("lockfileDigests hashes lockfiles in the source scope and at the root, nothing else", async () => {
    const root = temp("turngate-key-lock-");
    mkdirSync(join(root, "pkg"), { recursive: true });
    writeFileSync(join(root, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n");
    writeFileSync(join(root, "pkg/Cargo.lock"), "# cargo\n");
    writeFileSync(join(root, "pkg/other.txt"), "x\n");
    mkdirSync(join(root, "new"));
    writeFileSync(join(root, "new/yarn.lock"), "# yarn\n");
    git(root, "init", "-q");
    git(root, "add", "pkg");
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    expect(await lockfileDigests(root)).toEqual({
      "pnpm-lock.yaml": sha("lockfileVersion: '9.0'\n"),
      "pkg/Cargo.lock": sha("# cargo\n"),
    });
    // An untracked new lockfile counts when the turn's changes name it.
    expect(await lockfileDigests(root, process.env, ["new/yarn.lock", "pkg/other.txt"])).toEqual({
      "pnpm-lock.yaml": sha("lockfileVersion: '9.0'\n"),
      "pkg/Cargo.lock": sha("# cargo\n"),
      "new/yarn.lock": sha("# yarn\n"),
    });
  });
});

describe("default toolchain facts in the key (issue 20 item 1)", () => {
  test("a package.json workspace keys on node --version from the checks' PATH: another node version or no node gives another key; configured rows replace or add", async () => {
    const root = temp("tg-cache-tc-");
    git(root, "init", "-q");
    writeFileSync(join(root, "package.json"), '{"scripts":{"test":"true"}}\n');
    git(root, "add", "-A");
    git(root, "commit", "-qm", "base");
    const which = (name: string) =>
      execFileSync("sh", ["-c", `command -v ${name}`])
        .toString()
        .trim();
    // PATH A: a fake node printing another version; PATH B: no node at all (sh and git only).
    const fake = temp("tg-cache-fakenode-");
    writeFileSync(join(fake, "node"), "#!/bin/sh\necho v99.1.0\n");
    chmodSync(join(fake, "node"), 0o755);
    const bare = temp("tg-cache-nonode-");
    for (const tool of ["sh", "git"]) symlinkSync(which(tool), join(bare, tool));
    const envs = {
      real: { ...process.env },
      fake: { ...process.env, PATH: `${fake}:${process.env.PATH}` },
      none: { ...process.env, PATH: bare },
    };
    const command = {
      id: "unit",
      kind: "test",
      description: "unit",
      command: "pnpm test",
      required: true,
      expect_exit: 0,
    };
    const keyFor = async (env: NodeJS.ProcessEnv, toolchain?: unknown[]) => {
      const got = await cacheKeyContext({
        root,
        changes: [],
        records: [],
        turngate: "0.0.0-test",
        env,
        ...(toolchain ? { toolchain } : {}),
      });
      if (got.context === null) throw new Error(got.reason);
      return {
        toolchain: got.context.base.toolchain,
        key: checkCacheKey(got.context, command, { shell: "sh", env }),
      };
    };
    const real = await keyFor(envs.real);
    const realAgain = await keyFor(envs.real);
    const fakeNode = await keyFor(envs.fake);
    const noNode = await keyFor(envs.none);
    expect(real.toolchain).toEqual([
      {
        id: "node",
        available: true,
        version: process.version.slice(1),
        raw_version: process.version,
        cache_identity: {},
      },
    ]);
    expect(fakeNode.toolchain).toEqual([
      {
        id: "node",
        available: true,
        version: "99.1.0",
        raw_version: "v99.1.0",
        cache_identity: {},
      },
    ]);
    expect(noNode.toolchain).toEqual([
      { id: "node", available: false, version: null, raw_version: "", cache_identity: {} },
    ]);
    expect(realAgain.key).toBe(real.key);
    expect(new Set([real.key, fakeNode.key, noNode.key]).size).toBe(3);
    // A configured row with a default's id replaces it; another id adds a fact.
    const configured = await keyFor(envs.fake, [
      { id: "node", probe: ["echo", "v7.7.7"] },
      { id: "protoc", probe: ["echo", "libprotoc", "3.21.12"] },
    ]);
    expect(configured.toolchain.map((f) => [f.id, f.version])).toEqual([
      ["node", "7.7.7"],
      ["protoc", "3.21.12"],
    ]);
    expect(configured.key).not.toBe(fakeNode.key);
  });
});

describe("cached check artifacts (issue 20 item 2)", () => {
  test("a signed result opens only with a trusted key, the same key and untouched bytes", () => {
    const signer = signingKey();
    const other = signingKey();
    const trusted = [{ publicKey: signer.publicKey, keyid: signer.keyid, source: "env" as const }];
    const bytes = signCachedCheck(payload(), signer);
    const ok = openCachedCheck(bytes, KEY, trusted);
    expect(ok).toEqual({ accepted: true, payload: payload(), keyid: signer.keyid, source: "env" });
    expect(openCachedCheck(bytes, "e".repeat(64), trusted)).toMatchObject({
      accepted: false,
      reason: "key_mismatch",
    });
    expect(openCachedCheck(bytes, KEY, [])).toMatchObject({
      accepted: false,
      reason: "unknown_key",
    });
    const foreign = signCachedCheck(payload(), other);
    expect(openCachedCheck(foreign, KEY, trusted)).toMatchObject({
      accepted: false,
      reason: "unknown_key",
    });
    const envelope = JSON.parse(bytes.toString("utf8"));
    const edited = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
    edited.check.status = "failed";
    envelope.payload = Buffer.from(JSON.stringify(edited)).toString("base64");
    expect(openCachedCheck(Buffer.from(JSON.stringify(envelope)), KEY, trusted)).toMatchObject({
      accepted: false,
      reason: "bad_signature",
    });
    expect(openCachedCheck(Buffer.from("{not json"), KEY, trusted)).toMatchObject({
      accepted: false,
      reason: "malformed",
    });
    expect(openCachedCheck(bytes.subarray(0, 40), KEY, trusted)).toMatchObject({
      accepted: false,
      reason: "malformed",
    });
  });

  test("trusted keys come from TURNGATE_CACHE_TRUSTED_KEYS and the user config, never from files inside the workspace", () => {
    const home = temp("turngate-cache-host-");
    const root = temp("turngate-cache-ws-");
    const a = signingKey();
    const b = signingKey();
    const pem = (k: SigningKey) => k.publicKey.export({ type: "spki", format: "pem" }).toString();
    writeFileSync(join(root, "planted.pem"), pem(b));
    mkdirSync(join(home, "config/turngate"), { recursive: true });
    writeFileSync(join(home, "b.pem"), pem(b));
    writeFileSync(
      join(home, "config/turngate/cache.json"),
      JSON.stringify({ trusted_keys: [join(home, "b.pem")], write: true }),
    );
    const env = {
      HOME: home,
      XDG_CONFIG_HOME: join(home, "config"),
      TURNGATE_CACHE_TRUSTED_KEYS: `${pem(a)}`,
    };
    // The user config's keys count only where the agent cannot write the file (confined).
    const settings = cacheHostSettings(env, root, { confined: true });
    expect(settings.trustedKeys.map((k) => [k.keyid, k.source])).toEqual([
      [a.keyid, "env"],
      [b.keyid, "user_config"],
    ]);
    expect(settings.write).toBe(true);
    const unconfined = cacheHostSettings(env, root);
    expect(unconfined.trustedKeys.map((k) => [k.keyid, k.source])).toEqual([[a.keyid, "env"]]);
    expect(unconfined.write).toBe(true);
    expect(unconfined.warnings).toEqual([
      `${join(home, "config/turngate/cache.json")} trusted_keys: refused: the agent runs as your user and could have written this file (run the agent with --confine, make the file read-only to that user, or give keys in TURNGATE_CACHE_TRUSTED_KEYS)`,
    ]);
    const planted = cacheHostSettings(
      {
        HOME: home,
        XDG_CONFIG_HOME: join(home, "none"),
        TURNGATE_CACHE_TRUSTED_KEYS: join(root, "planted.pem"),
      },
      root,
    );
    expect(planted.trustedKeys).toEqual([]);
    expect(planted.write).toBe(false);
    expect(planted.warnings).toEqual([
      `TURNGATE_CACHE_TRUSTED_KEYS: ${join(root, "planted.pem")} is inside the workspace: ignored (the agent could replace it)`,
    ]);
  });
});

describe("local entries and this host's own key (issue 20 item 2, attacker review)", () => {
  test("a local entry signed with the host's own key is a miss (unknown_key) unless the host sets trust_own_key; a trusted key's entry is a hit either way", async () => {
    const state = temp("turngate-cache-state-");
    const own = signingKey();
    const ci = signingKey();
    const ciTrusted = { publicKey: ci.publicKey, keyid: ci.keyid, source: "env" as const };
    // What a same-user agent can do: sign a pass with the readable host key into the store.
    await new ResultCache({
      stateDir: state,
      read: true,
      upload: false,
      trusted: [],
      signingKey: own,
    }).store(KEY, payload(), "unit");
    const warnings: string[] = [];
    const strict = new ResultCache({
      stateDir: state,
      read: true,
      upload: false,
      trusted: [ciTrusted],
      signingKey: own,
      warn: (l) => warnings.push(l),
    });
    expect(await strict.lookup(KEY, "unit")).toBeUndefined();
    expect(warnings[0]).toMatch(/^cache: local entry for unit rejected \(unknown_key: /);
    const opted = new ResultCache({
      stateDir: state,
      read: true,
      upload: false,
      trusted: [ciTrusted],
      trustOwnKey: true,
      signingKey: own,
    });
    expect(await opted.lookup(KEY, "unit")).toMatchObject({ source: "local", keyid: own.keyid });
    // An entry a trusted signer made (e.g. a remote hit stored locally) needs no opt-in.
    await new ResultCache({
      stateDir: state,
      read: true,
      upload: false,
      trusted: [],
      signingKey: ci,
    }).store(KEY, payload(), "unit");
    expect(await strict.lookup(KEY, "unit")).toMatchObject({ source: "local", keyid: ci.keyid });
  });

  test("trust_own_key comes from the user config only; a workspace key file reached through a symlink is still refused", () => {
    const home = temp("turngate-cache-host-");
    const root = temp("turngate-cache-ws-");
    const k = signingKey();
    writeFileSync(
      join(root, "keys.pem"),
      k.publicKey.export({ type: "spki", format: "pem" }).toString(),
    );
    symlinkSync(root, join(home, "ws-link"));
    mkdirSync(join(home, "config/turngate"), { recursive: true });
    writeFileSync(
      join(home, "config/turngate/cache.json"),
      JSON.stringify({ trust_own_key: true }),
    );
    const env = {
      HOME: home,
      XDG_CONFIG_HOME: join(home, "config"),
      TURNGATE_CACHE_TRUSTED_KEYS: join(home, "ws-link", "keys.pem"),
    };
    const settings = cacheHostSettings(env, root, { confined: true });
    expect(settings.trustOwnKey).toBe(true);
    expect(settings.trustedKeys).toEqual([]);
    expect(settings.warnings).toEqual([
      `TURNGATE_CACHE_TRUSTED_KEYS: ${join(home, "ws-link", "keys.pem")} is inside the workspace: ignored (the agent could replace it)`,
    ]);
    // Unconfined, the agent's user can write the file: trust_own_key is refused (issue 32 item 5).
    const unconfined = cacheHostSettings(env, root);
    expect(unconfined.trustOwnKey).toBe(false);
    expect(unconfined.warnings[1]).toBe(
      `${join(home, "config/turngate/cache.json")} trust_own_key: refused: the agent runs as your user and could have written this file (run the agent with --confine, make the file read-only to that user, or give keys in TURNGATE_CACHE_TRUSTED_KEYS)`,
    );
    expect(
      cacheHostSettings({ HOME: home, XDG_CONFIG_HOME: join(home, "none") }, root).trustOwnKey,
    ).toBe(false);
  });
});

describe("RemoteCacheClient (issue 20 item 3)", () => {
  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const server: Server = createServer(handler);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    onCleanup(() => {
      server.closeAllConnections();
      server.close();
    });
    const address = server.address();
    return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  }

  test("a server that never answers is a timeout failure after timeoutMs, a 503 is a failure, never a throw", async () => {
    const silent = await serve(() => {});
    const client = new RemoteCacheClient({ url: silent, team: "t", token: "x", timeoutMs: 200 });
    const started = performance.now();
    expect(await client.get(KEY)).toEqual({ ok: false, reason: "timeout after 200 ms" });
    expect(performance.now() - started).toBeLessThan(5000);
    const failing = await serve((_req, res) => {
      res.statusCode = 503;
      res.end("down");
    });
    const down = new RemoteCacheClient({ url: failing, team: "t" });
    expect(await down.get(KEY)).toEqual({ ok: false, reason: "HTTP 503", status: 503 });
    expect(await down.put(KEY, Buffer.from("x"))).toEqual({
      ok: false,
      reason: "HTTP 503",
      status: 503,
    });
  });

  test("sends the bearer token, teamId or slug, and the artifact path", async () => {
    const seen: string[] = [];
    const url = await serve((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? "-"}`);
      res.statusCode = req.method === "GET" ? 404 : 200;
      res.end();
    });
    expect(await new RemoteCacheClient({ url, team: "team_a", token: "tok" }).get(KEY)).toEqual({
      ok: true,
      found: false,
    });
    expect(
      await new RemoteCacheClient({ url: `${url}/`, team: "slug:my-team" }).put(
        KEY,
        Buffer.from("x"),
      ),
    ).toEqual({ ok: true });
    expect(seen).toEqual([
      `GET /v8/artifacts/${KEY}?teamId=team_a Bearer tok`,
      `PUT /v8/artifacts/${KEY}?slug=my-team -`,
    ]);
  });
});
