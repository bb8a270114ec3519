/**
 * The clean room's dependency setup and HOME allow-list (docs/design.md §3b,
 * `isolation/room-setup.ts`, `isolation/home-values.ts`): per-preset defaults, which files
 * are inputs of the cache key, when the setup is needed, the sealed cache (a result written
 * after sealing is dropped), and the settings of HOME passed as values.
 */
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  detectSetup,
  homeValues,
  isSetupInput,
  readCargoRegistries,
  readNpmRegistry,
  SetupCache,
  setupKey,
  setupNeed,
} from "../../src/isolation/index.js";
import type { EntryState } from "../../src/workspace/snapshot.js";

const sha = (data: string) => createHash("sha256").update(data).digest("hex");
let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});
function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  dirs.push(dir);
  return dir;
}
function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}
function entries(files: Record<string, string>): Map<string, EntryState> {
  return new Map(
    Object.entries(files).map(([path, text]) => [
      path,
      {
        kind: "file",
        content_digest: sha(text),
        size: text.length,
        mtime_ms: 0,
        ctime_ms: 0,
        ino: 0,
        mode: 0o100644,
      },
    ]),
  );
}

describe("per-preset default setup", () => {
  test("pnpm, npm with a lockfile, npm without one, Python, none", () => {
    expect(detectSetup(entries({ "package.json": "{}", "pnpm-lock.yaml": "" }))).toEqual({
      ecosystem: "pnpm",
      command: "pnpm install --frozen-lockfile",
    });
    expect(detectSetup(entries({ "package.json": "{}", "package-lock.json": "{}" }))).toEqual({
      ecosystem: "npm",
      command: "npm ci --no-audit --no-fund",
    });
    expect(detectSetup(entries({ "package.json": "{}" }))).toEqual({
      ecosystem: "npm",
      command: "npm install --no-package-lock --no-audit --no-fund",
    });
    expect(detectSetup(entries({ "pyproject.toml": "", "requirements.txt": "" }))).toEqual({
      ecosystem: "pip",
      command:
        "python3 -m venv .venv && .venv/bin/python -m pip install --disable-pip-version-check -q -r requirements.txt && .venv/bin/python -m pip install --disable-pip-version-check -q -e .",
    });
    expect(detectSetup(entries({ "setup.py": "" }), "venv")?.command).toBe(
      "python3 -m venv venv && venv/bin/python -m pip install --disable-pip-version-check -q -e .",
    );
    expect(detectSetup(entries({ "go.mod": "", "Cargo.toml": "", "lib.js": "" }))).toBeUndefined();
  });
});

describe("the setup's cache key", () => {
  test("inputs are manifests, lockfiles, patches/, install scripts and local archives; sources are not", () => {
    for (const path of [
      "package.json",
      "packages/a/package.json",
      "package-lock.json",
      "pnpm-lock.yaml",
      ".npmrc",
      "patches/left-pad+1.0.0.patch",
      "packages/a/patches/x.patch",
      "setup.py",
      "pyproject.toml",
      "requirements-dev.txt",
      "vendor/dep-1.0.0.tgz",
      "wheels/dep-1.0-py3-none-any.whl",
    ]) {
      expect([path, isSetupInput(path)]).toEqual([path, true]);
    }
    for (const path of ["lib.js", "src/patches.ts", "test/setup.test.js", "README.md"]) {
      expect([path, isSetupInput(path)]).toEqual([path, false]);
    }
  });

  test("changes with an input's bytes, the command or the toolchain; not with a source file", () => {
    const setup = { ecosystem: "npm" as const, command: "npm ci" };
    const base = { "package.json": "{}", "package-lock.json": "{}", "lib.js": "1" };
    const key = setupKey(setup, entries(base), ["node=/usr/bin/node:1:2:3"]);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(setupKey(setup, entries({ ...base, "lib.js": "2" }), ["node=/usr/bin/node:1:2:3"])).toBe(
      key,
    );
    for (const other of [
      setupKey(setup, entries({ ...base, "package-lock.json": "{ }" }), [
        "node=/usr/bin/node:1:2:3",
      ]),
      setupKey(setup, entries({ ...base, "patches/a.patch": "x" }), ["node=/usr/bin/node:1:2:3"]),
      setupKey({ ...setup, command: "npm ci --x" }, entries(base), ["node=/usr/bin/node:1:2:3"]),
      setupKey(setup, entries(base), ["node=/usr/bin/node:1:2:4"]),
    ]) {
      expect(other).not.toBe(key);
    }
  });
});

describe("when the setup is needed", () => {
  test("a changed dependency folder, or node_modules absent while package.json declares dependencies", () => {
    const ws = temp("turngate-ws-");
    write(ws, "package.json", JSON.stringify({ dependencies: { a: "1" } }));
    write(ws, "package-lock.json", "{}");
    const scope = entries({ "package.json": "", "package-lock.json": "" });
    // absent but needed (the manifest is read from the room: here the same folder)
    expect(setupNeed(ws, ws, scope, [], undefined)?.reason).toBe(
      "node_modules is absent and package.json declares dependencies",
    );
    write(ws, "node_modules/a/index.js", "");
    expect(setupNeed(ws, ws, scope, [], undefined)).toBeUndefined();
    const changed = setupNeed(ws, ws, scope, ["node_modules/a/index.js"], undefined);
    expect(changed?.reason).toBe("node_modules changed during the turn");
    expect(changed?.setup.command).toBe("npm ci --no-audit --no-fund");
    expect(setupNeed(ws, ws, scope, ["node_modules/a/index.js"], false)).toBeUndefined();
    expect(setupNeed(ws, ws, scope, ["node_modules/a/index.js"], "make deps")?.setup).toEqual({
      ecosystem: "config",
      command: "make deps",
    });
  });

  test("no manifest dependencies and no node_modules: nothing to set up", () => {
    const ws = temp("turngate-ws-");
    write(ws, "package.json", JSON.stringify({ name: "x", scripts: { test: "node t.js" } }));
    expect(setupNeed(ws, ws, entries({ "package.json": "" }), [], undefined)).toBeUndefined();
  });
});

describe("the sealed setup cache", () => {
  test("adopts the produced folders, reuses them, and drops a result written after sealing", async () => {
    const state = temp("turngate-setup-");
    const room = temp("turngate-room-");
    write(room, "node_modules/a/index.js", "module.exports = 1;\n");
    // A symlink named like a dependency folder is never adopted (it could point anywhere).
    mkdirSync(join(room, "target-dir"));
    symlinkSync("target-dir", join(room, "link"));
    const cache = new SetupCache(join(state, "setup"), BigInt(Date.now() - 50) * 1_000_000n);
    const result = await cache.adopt("k1", "npm ci", room, ["node_modules", "venv", "link"]);
    // Only real folders are adopted (the symlink "link" is not), moved out of the room.
    expect(result.folders).toEqual(["node_modules"]);
    expect(existsSync(join(room, "node_modules"))).toBe(false);
    expect(readFileSync(join(result.dir, "node_modules/a/index.js"), "utf8")).toBe(
      "module.exports = 1;\n",
    );
    expect(cache.lookup("k1")?.folders).toEqual(["node_modules"]);
    expect(JSON.parse(readFileSync(join(state, "setup/k1/sealed.json"), "utf8")).command).toBe(
      "npm ci",
    );

    // A later turn trusts the seal (written before its start) ...
    await new Promise((resolve) => setTimeout(resolve, 120));
    const later = new SetupCache(join(state, "setup"), BigInt(Date.now() - 50) * 1_000_000n);
    expect(later.lookup("k1")?.folders).toEqual(["node_modules"]);
    // ... until anyone writes the result: then it is dropped, and the setup runs again.
    writeFileSync(join(result.dir, "node_modules/a/index.js"), "module.exports = 3;\n");
    expect(later.lookup("k1")).toBeUndefined();
    expect(existsSync(join(state, "setup/k1"))).toBe(false);
  });

  test("a seal written during the turn by someone else is not trusted", async () => {
    const state = temp("turngate-setup-");
    const room = temp("turngate-room-");
    write(room, "node_modules/a/index.js", "x");
    const start = BigInt(Date.now() - 50) * 1_000_000n;
    // The agent seals a result itself during the turn (another SetupCache: not this turn's).
    await new SetupCache(join(state, "setup"), start).adopt("k2", "npm ci", room, ["node_modules"]);
    expect(new SetupCache(join(state, "setup"), start).lookup("k2")).toBeUndefined();
  });
});

describe("the HOME allow-list", () => {
  test("git identity, npm registry and cargo registries become values; nothing else of HOME", () => {
    const home = temp("turngate-home-");
    write(
      home,
      ".gitconfig",
      "[user]\n\tname = Ada Lovelace\n\temail = ada@example.invalid\n[core]\n\tfsmonitor = /tmp/evil\n",
    );
    write(home, ".npmrc", "registry=https://npm.example.invalid/\nscript-shell=/bin/true\n");
    write(
      home,
      ".cargo/config.toml",
      '[registries.my-mirror]\nindex = "sparse+https://crates.example.invalid/"\n[registry]\ndefault = "my-mirror"\n[build]\nrustc-wrapper = "/tmp/evil"\n',
    );
    const values = homeValues({ HOME: home, PATH: process.env.PATH });
    expect(values).toEqual({
      GIT_AUTHOR_NAME: "Ada Lovelace",
      GIT_COMMITTER_NAME: "Ada Lovelace",
      GIT_AUTHOR_EMAIL: "ada@example.invalid",
      GIT_COMMITTER_EMAIL: "ada@example.invalid",
      npm_config_registry: "https://npm.example.invalid/",
      CARGO_REGISTRIES_MY_MIRROR_INDEX: "sparse+https://crates.example.invalid/",
      CARGO_REGISTRY_DEFAULT: "my-mirror",
    });
    // A variable the host already sets is left as it is.
    expect(
      homeValues({ HOME: home, PATH: process.env.PATH, GIT_AUTHOR_NAME: "Host" }).GIT_AUTHOR_NAME,
    ).toBeUndefined();
  });

  test("the git identity is read in one git call: the last value wins and keys are case-insensitive, as git config --get reads them", () => {
    const home = temp("turngate-home-");
    write(
      home,
      ".gitconfig",
      "[user]\n\tname = First\n\temail = first@example.invalid\n[User]\n\tName = Second Name\n[useragent]\n\tname = not-me\n",
    );
    expect(homeValues({ HOME: home, PATH: process.env.PATH })).toEqual({
      GIT_AUTHOR_NAME: "Second Name",
      GIT_COMMITTER_NAME: "Second Name",
      GIT_AUTHOR_EMAIL: "first@example.invalid",
      GIT_COMMITTER_EMAIL: "first@example.invalid",
    });
  });

  test("values that are not one-line registry URLs are left out", () => {
    const home = temp("turngate-home-");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: an unexpanded ${VAR} is the input
    write(home, ".npmrc", "registry=${EVIL}\n");
    expect(readNpmRegistry(join(home, ".npmrc"))).toBeUndefined();
    write(home, "cargo/config.toml", '[registries.x]\nindex = "/etc/passwd"\n');
    expect(readCargoRegistries(join(home, "cargo"))).toEqual({});
    expect(homeValues({ HOME: home, PATH: process.env.PATH })).toEqual({});
  });
});
