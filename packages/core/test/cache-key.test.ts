import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  CACHE_KEY_EXCLUSIONS,
  CACHE_KEY_SCHEMA,
  type CacheKeyInput,
  cacheKey,
  cacheKeyMaterial,
  cacheKeyOutsideRows,
  TurngateValidationError,
} from "../src/index.js";

const D1 = "a".repeat(64);
const D2 = "b".repeat(64);

function input(): CacheKeyInput {
  return {
    tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    lockfiles: { "pnpm-lock.yaml": D1, "packages/a/package-lock.json": D2 },
    check: {
      command: "npm test",
      shell: "bash",
      cwd: ".",
      env: { NODE_ENV: "test" },
      expect_exit: 0,
      results_format: null,
      timeout_ms: null,
    },
    toolchain: [
      {
        id: "node",
        available: true,
        version: "22.11.0",
        raw_version: "v22.11.0",
        cache_identity: { arch: "x64" },
      },
    ],
    platform: { os: "linux", arch: "x64" },
    outside: { ".git/hooks/pre-commit": D2 },
    turngate: "0.1.0",
  };
}

const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("cacheKey (issue 20 item 1)", () => {
  it("hashes the RFC 8785 canonical JSON of the schema tag and every input field", () => {
    const expected =
      '{"check":{"command":"npm test","cwd":".","env":{"NODE_ENV":"test"},"expect_exit":0,' +
      '"results_format":null,"shell":"bash","timeout_ms":null},' +
      '"lockfiles":{"packages/a/package-lock.json":"' +
      D2 +
      '","pnpm-lock.yaml":"' +
      D1 +
      '"},"outside":{".git/hooks/pre-commit":"' +
      D2 +
      '"},"platform":{"arch":"x64","os":"linux"},"schema":"turngate.cache_key.v1",' +
      '"toolchain":[{"available":true,"cache_identity":{"arch":"x64"},"id":"node",' +
      '"raw_version":"v22.11.0","version":"22.11.0"}],' +
      '"tree":"4b825dc642cb6eb9a060e54bf8d69288fbee4904","turngate":"0.1.0"}';
    expect(CACHE_KEY_SCHEMA).toBe("turngate.cache_key.v1");
    expect(cacheKeyMaterial(input())).toBe(expected);
    expect(cacheKey(input())).toBe(sha(expected));
    expect(cacheKey(input())).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is the same for equal inputs built in another key order", () => {
    const a = input();
    const b: CacheKeyInput = {
      turngate: a.turngate,
      outside: { ...a.outside },
      platform: { arch: "x64", os: "linux" },
      toolchain: a.toolchain.map((f) => ({ ...f })),
      check: { ...a.check, env: { ...a.check.env } },
      lockfiles: { "packages/a/package-lock.json": D2, "pnpm-lock.yaml": D1 },
      tree: a.tree,
    };
    expect(cacheKey(b)).toBe(cacheKey(a));
  });

  it("changes with any byte, command, version, platform or out-of-scope row", () => {
    const base = cacheKey(input());
    const variants: [string, (i: CacheKeyInput) => void][] = [
      [
        "tree",
        (i) => {
          i.tree = "5b825dc642cb6eb9a060e54bf8d69288fbee4904";
        },
      ],
      [
        "lockfile",
        (i) => {
          i.lockfiles["pnpm-lock.yaml"] = D2;
        },
      ],
      [
        "lockfile removed",
        (i) => {
          delete i.lockfiles["pnpm-lock.yaml"];
        },
      ],
      [
        "command",
        (i) => {
          i.check.command = "npm test ";
        },
      ],
      [
        "shell",
        (i) => {
          i.check.shell = "sh";
        },
      ],
      [
        "cwd",
        (i) => {
          i.check.cwd = "packages/a";
        },
      ],
      [
        "env",
        (i) => {
          i.check.env.NODE_ENV = "production";
        },
      ],
      [
        "expect_exit",
        (i) => {
          i.check.expect_exit = 1;
        },
      ],
      [
        "results",
        (i) => {
          i.check.results_format = "junit";
        },
      ],
      [
        "timeout",
        (i) => {
          i.check.timeout_ms = 60_000;
        },
      ],
      [
        "version",
        (i) => {
          i.toolchain[0]!.version = "22.11.1";
        },
      ],
      [
        "cache identity",
        (i) => {
          i.toolchain[0]!.cache_identity = { arch: "arm64" };
        },
      ],
      [
        "os",
        (i) => {
          i.platform.os = "darwin";
        },
      ],
      [
        "arch",
        (i) => {
          i.platform.arch = "arm64";
        },
      ],
      [
        "outside",
        (i) => {
          i.outside[".git/hooks/pre-commit"] = D1;
        },
      ],
      [
        "turngate",
        (i) => {
          i.turngate = "0.2.0";
        },
      ],
    ];
    const seen = new Set([base]);
    for (const [name, change] of variants) {
      const i = input();
      change(i);
      const key = cacheKey(i);
      expect(seen.has(key), name).toBe(false);
      seen.add(key);
    }
    expect(seen.size).toBe(variants.length + 1);
  });

  it("refuses malformed input with a typed error naming the field", () => {
    const cases: [string, unknown, string][] = [
      ["tree", "HEAD", "tree"],
      ["lockfiles", { "pnpm-lock.yaml": "x" }, "lockfiles"],
      ["check", { ...input().check, command: "  " }, "check.command"],
      ["check", { ...input().check, expect_exit: 0.5 }, "check.expect_exit"],
      ["extra", 1, ""],
    ];
    for (const [field, value, path] of cases) {
      const i = { ...input(), [field]: value } as unknown as Record<string, unknown>;
      let error: unknown;
      try {
        cacheKey(i as unknown as CacheKeyInput);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(TurngateValidationError);
      expect((error as TurngateValidationError).issues[0]!.path.startsWith(path)).toBe(true);
    }
  });
});

describe("cacheKeyOutsideRows (issue 20 item 1 exclusions)", () => {
  it("keeps every out-of-scope row except Python bytecode caches named <module>.<tag>.pyc directly inside __pycache__", () => {
    const rows = [
      { path: "node_modules/.bin/node", content_digest: D1 },
      { path: "src/__pycache__/m.cpython-311.pyc", content_digest: D2 },
      { path: "src/__pycache__/m.cpython-311.opt-2.pyc", content_digest: D2 },
      { path: "__pycache__/top.pyc", content_digest: D2 },
      { path: "src/__pycache__/data.json", content_digest: D2 },
      { path: "src/__pycache__/sub/m.cpython-311.pyc", content_digest: D2 },
      { path: "x__pycache__/y.cpython-311.pyc", content_digest: D1 },
      { path: "__pycache__", content_digest: D1 },
      { path: ".git/hooks/pre-commit", content_digest: "" },
    ];
    expect(cacheKeyOutsideRows(rows)).toEqual({
      outside: {
        "node_modules/.bin/node": D1,
        "__pycache__/top.pyc": D2,
        "src/__pycache__/data.json": D2,
        "src/__pycache__/sub/m.cpython-311.pyc": D2,
        "x__pycache__/y.cpython-311.pyc": D1,
        __pycache__: D1,
        ".git/hooks/pre-commit": "",
      },
      excluded: [
        { path: "src/__pycache__/m.cpython-311.opt-2.pyc", exclusion: "pycache" },
        { path: "src/__pycache__/m.cpython-311.pyc", exclusion: "pycache" },
      ],
    });
    expect(CACHE_KEY_EXCLUSIONS.map((e) => e.id)).toEqual(["pycache"]);
  });

  it("refuses a malformed row naming its field", () => {
    expect(() => cacheKeyOutsideRows([{ path: 1 } as never])).toThrow(TurngateValidationError);
  });
});
