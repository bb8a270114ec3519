/**
 * The code-cached CommonJS bundle of a turn's commands (issue #17 item 4, src/code-cache.ts):
 * which command lines use it, V8's cached data accepted, refused (`rejected`), made for
 * another source text (`stale`, even one of the same length, which V8's own check lets
 * through), switched off, written by the build's `write` mode; and the built bundle's data
 * accepted by a real `turngate run`.
 */

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { CODE_CACHED_COMMANDS, codeCachedMain, loadCodeCachedMain } from "../src/code-cache.js";
import { cliBundleArgs } from "./cli-bundle.js";
import { Collector } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function chunksDir(source: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "turngate-code-cache-")));
  dirs.push(dir);
  writeFileSync(join(dir, "turn.cjs"), source);
  return dir;
}
const ctx = { stdout: new Collector(), stderr: new Collector(), cwd: "/", env: {} };
const SOURCE = "exports.main = async (args) => 40 + args.length; // v1";

/** Loads `dir`'s turn.cjs in `mode`; returns the cache state, main's answer and the writer. */
async function load(dir: string, mode?: string) {
  const writers: Array<() => void> = [];
  const loaded = loadCodeCachedMain(
    dir,
    mode === undefined ? {} : { TURNGATE_CODE_CACHE: mode },
    (w) => writers.push(w),
  );
  if (loaded === undefined) return undefined;
  return { cache: loaded.cache, answer: await loaded.main(["a", "b"], ctx), writers };
}

describe("loadCodeCachedMain", () => {
  test("no turn.cjs: undefined (the caller imports the ES modules)", async () => {
    const dir = chunksDir("");
    rmSync(join(dir, "turn.cjs"));
    expect(await load(dir)).toBeUndefined();
  });

  test("write mode writes the SHA-256 of the source and V8's data at exit; the next load accepts it", async () => {
    const dir = chunksDir(SOURCE);
    expect(await load(dir)).toEqual({ cache: "absent", answer: 42, writers: [] });
    const written = await load(dir, "write");
    expect({
      cache: written?.cache,
      answer: written?.answer,
      writers: written?.writers.length,
    }).toEqual({ cache: "absent", answer: 42, writers: 1 });
    written?.writers[0]?.();
    const bytes = readFileSync(join(dir, "turn.cjs.cache"));
    expect(bytes.subarray(0, 64).toString("latin1")).toBe(
      createHash("sha256").update(SOURCE).digest("hex"),
    );
    expect(bytes.length).toBeGreaterThan(64);
    expect(await load(dir)).toEqual({ cache: "accepted", answer: 42, writers: [] });
    expect(await load(dir, "report")).toEqual({ cache: "accepted", answer: 42, writers: [] });
    expect(await load(dir, "off")).toEqual({ cache: "off", answer: 42, writers: [] });
  });

  test("data made for another source text is never used, even for one of the same length (stale)", async () => {
    const dir = chunksDir(SOURCE);
    (await load(dir, "write"))?.writers[0]?.();
    const other = SOURCE.replace("40 +", "50 +").replace("v1", "v2");
    expect(other.length).toBe(SOURCE.length);
    writeFileSync(join(dir, "turn.cjs"), other);
    expect(await load(dir)).toEqual({ cache: "stale", answer: 52, writers: [] });
  });

  test("data V8 refuses (damaged; for a source this process never compiled) is reported rejected; the source runs", async () => {
    // V8 keeps compiled scripts in memory by source text: a source compiled before in this
    // process would be found there and the data not even looked at.
    const source = `${SOURCE} rejected ${process.hrtime.bigint()}`;
    const dir = chunksDir(source);
    const header = createHash("sha256").update(source).digest("hex");
    writeFileSync(
      join(dir, "turn.cjs.cache"),
      Buffer.concat([Buffer.from(header, "latin1"), Buffer.alloc(4096, 7)]),
    );
    expect(await load(dir)).toEqual({ cache: "rejected", answer: 42, writers: [] });
  });

  test("the file runs in strict mode as a CommonJS module of its folder", async () => {
    const dir = chunksDir(
      "exports.main = async () => JSON.stringify([(function () { return this; })() === undefined, __dirname, typeof require('node:path').join]);",
    );
    expect((await load(dir))?.answer).toBe(JSON.stringify([true, dir, "function"]));
  });

  test("a file without main is an error naming it", () => {
    const dir = chunksDir("exports.other = 1;");
    expect(() => loadCodeCachedMain(dir, {}, () => undefined)).toThrow(
      `${join(dir, "turn.cjs")} does not export main`,
    );
  });
});

describe("codeCachedMain", () => {
  test("the turn's commands only, from the chunks folder beside bin.js; report prints the cache's state", async () => {
    expect([...CODE_CACHED_COMMANDS]).toEqual(["run", "verify", "hook", "baseline"]);
    const root = chunksDir("");
    mkdirSync(join(root, "chunks"));
    writeFileSync(join(root, "chunks", "turn.cjs"), SOURCE);
    const bin = pathToFileURL(join(root, "bin.js")).href;
    const stderr = new Collector();
    const never = () => {
      throw new Error("not a write");
    };
    expect(codeCachedMain(bin, ["--version"], {}, stderr, never)).toBeUndefined();
    expect(codeCachedMain(bin, ["show", "run"], {}, stderr, never)).toBeUndefined();
    expect(codeCachedMain(bin, [], {}, stderr, never)).toBeUndefined();
    const elsewhere = pathToFileURL(join(root, "chunks", "bin.js")).href; // no chunks/chunks
    expect(codeCachedMain(elsewhere, ["run"], {}, stderr, never)).toBeUndefined();
    expect(stderr.text).toBe("");
    for (const word of CODE_CACHED_COMMANDS) {
      const main = codeCachedMain(bin, [word], { TURNGATE_CODE_CACHE: "report" }, stderr, never);
      expect(await main?.([word], ctx)).toBe(41);
    }
    expect(stderr.text).toBe("turngate: code cache absent\n".repeat(4));
    expect(await codeCachedMain(bin, ["run", "x"], {}, stderr, never)?.(["run", "x"], ctx)).toBe(
      42,
    );
    expect(stderr.text).toBe("turngate: code cache absent\n".repeat(4));
  });
});

describe("the built bundle", () => {
  test("a no-op turn runs from turn.cjs with V8's data accepted; off compiles it without", () => {
    const repo = realpathSync(mkdtempSync(join(tmpdir(), "turngate-code-cache-repo-")));
    const state = realpathSync(mkdtempSync(join(tmpdir(), "turngate-code-cache-state-")));
    dirs.push(repo, state);
    spawnSync("git", ["init", "-q"], { cwd: repo });
    const turn = (mode: string) =>
      spawnSync(process.execPath, [...cliBundleArgs(), "run", "--check", "true", "--", "true"], {
        cwd: repo,
        encoding: "utf8",
        env: { ...process.env, XDG_STATE_HOME: state, TURNGATE_CODE_CACHE: mode },
      });
    for (const [mode, state] of [
      ["report", "accepted"],
      ["off", "off"],
    ] as const) {
      const out = turn(mode);
      expect(out.status, out.stderr).toBe(0);
      expect(out.stdout).toContain("narrative: the turn changed no files; nothing to verify");
      const line = out.stderr.split("\n").find((l) => l.startsWith("turngate: code cache"));
      expect(line ?? "(no line)").toBe(
        mode === "report" ? `turngate: code cache ${state}` : "(no line)",
      );
    }
  });
});
