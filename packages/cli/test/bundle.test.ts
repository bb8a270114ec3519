/**
 * The shipped bundle (issue #17 item 4): `dist/bin.js` loads commander and the command table
 * only, each command is its own chunk loaded when its word is on the command line, source
 * maps lead back to the TypeScript sources, and the lazy table lists every command.
 */
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { isBuiltin } from "node:module";
import { dirname, join, resolve } from "node:path";
import { effectDigest } from "@turngate/core";
import { describe, expect, test } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { COMMANDS, commandsFor } from "../src/commands/registry.js";
import { CLI_VERSION } from "../src/context.js";
import { createProgram } from "../src/main.js";
import { CLI_BUNDLE, cliBundleArgs } from "./cli-bundle.js";
import { Collector } from "./helpers.js";

const bundle = cliBundleArgs();
const cliDir = dirname(dirname(CLI_BUNDLE));
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

interface Meta {
  outputs: Record<
    string,
    {
      entryPoint?: string;
      inputs: Record<string, unknown>;
      imports: Array<{ path: string; kind: string; external?: boolean }>;
    }
  >;
}
const meta = JSON.parse(readFileSync(join(cliDir, "dist/bundle-meta.json"), "utf8")) as Meta;

/** The outputs `start` loads before its code runs (its static imports, transitively). */
function staticClosure(start: string): string[] {
  const seen = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const out = queue.shift() as string;
    if (seen.has(out)) continue;
    seen.add(out);
    for (const imp of meta.outputs[out]?.imports ?? []) {
      if (imp.kind === "import-statement" && !imp.external) queue.push(imp.path);
    }
  }
  return [...seen];
}
const inputsOf = (outputs: string[]) =>
  outputs.flatMap((out) => Object.keys(meta.outputs[out]?.inputs ?? {}));
/** The chunk whose entry is the command module `src/commands/<name>.ts`. */
const chunkOf = (name: string) =>
  Object.keys(meta.outputs).find(
    (out) => meta.outputs[out]?.entryPoint === `src/commands/${name}.ts`,
  );

function turngate(args: string[]) {
  return spawnSync(process.execPath, [...bundle, ...args], {
    encoding: "utf8",
    timeout: testTimeout(60_000),
  });
}

describe("the command table", () => {
  test("each row loads the command of its name, and --help lists them all in table order", async () => {
    const loaded = await Promise.all(COMMANDS.map((entry) => entry.load()));
    expect(loaded.map((command) => command.name)).toEqual(COMMANDS.map((entry) => entry.name));
    const program = await createProgram(
      { stdout: new Collector(), stderr: new Collector(), cwd: cliDir, env: {} },
      { exitCode: 0 },
    );
    expect(program.commands.map((command) => command.name())).toEqual(
      COMMANDS.map((entry) => entry.name),
    );
  });

  test("commandsFor: none for --version, the named one for a command word or help WORD, all otherwise", () => {
    const names = (args: string[]) => commandsFor(args).map((entry) => entry.name);
    const all = COMMANDS.map((entry) => entry.name);
    expect(names(["--version"])).toEqual([]);
    expect(names(["-V"])).toEqual([]);
    expect(names(["run", "--check", "true", "--", "true"])).toEqual(["run"]);
    expect(names(["proof", "verify", "x.json"])).toEqual(["proof"]);
    expect(names(["help", "gc"])).toEqual(["gc"]);
    expect(names(["help"])).toEqual(all);
    expect(names([])).toEqual(all);
    expect(names(["--help"])).toEqual(all);
    expect(names(["no-such-command"])).toEqual(all);
  });
});

describe("the bundle", () => {
  test("bin.js loads the code-cache loader only, and main.js (commander and the command table) by a dynamic import: no core, node, bridge or zod", () => {
    const own = inputsOf(staticClosure("dist/bin.js"));
    expect(own.sort()).toEqual(["src/bin.ts", "src/broken-pipe.ts", "src/code-cache.ts"]);
    const mainChunk = (meta.outputs["dist/bin.js"]?.imports ?? [])
      .filter((imp) => imp.kind === "dynamic-import")
      .map((imp) => imp.path)
      .find((out) => Object.keys(meta.outputs[out]?.inputs ?? {}).includes("src/main.ts"));
    expect(mainChunk).toBeDefined();
    const inputs = inputsOf(staticClosure(mainChunk as string));
    expect(inputs).toContain("src/commands/registry.ts");
    expect(
      inputs.filter((input) => /packages\/|\/(core|node|bridge)\/src\/|zod@/.test(input)),
    ).toEqual([]);
    expect(inputs.filter((input) => input.startsWith("src/commands/"))).toEqual([
      "src/commands/registry.ts",
    ]);
  });

  test("each command of the table is its own chunk, loaded by a dynamic import from main.js's chunk", () => {
    const dynamic = (meta.outputs["dist/bin.js"]?.imports ?? [])
      .filter((imp) => imp.kind === "dynamic-import")
      .map((imp) => imp.path);
    const mainChunk = dynamic.find((out) =>
      Object.keys(meta.outputs[out]?.inputs ?? {}).includes("src/main.ts"),
    ) as string;
    const fromMain = (meta.outputs[mainChunk]?.imports ?? [])
      .filter((imp) => imp.kind === "dynamic-import")
      .map((imp) => imp.path);
    for (const { name } of COMMANDS) {
      const chunk = chunkOf(name);
      expect(chunk, name).toMatch(new RegExp(`^dist/chunks/${name}-[A-Z0-9]+\\.js$`));
      expect(fromMain).toContain(chunk);
    }
    // `run` does not load the bridge server (only `turngate bridge` does).
    const run = inputsOf(staticClosure(chunkOf("run") as string));
    expect(run.filter((input) => input.includes("/bridge/src/"))).toEqual([]);
  });

  test("@turngate/native (a .node addon) stays external; every external resolves from turngate's dependencies", () => {
    const externals = new Set(
      Object.values(meta.outputs).flatMap((out) =>
        out.imports.filter((imp) => imp.external && !isBuiltin(imp.path)).map((imp) => imp.path),
      ),
    );
    // The addon is `require`d at run time (processes/subreaper.ts), never bundled.
    const code = Object.keys(meta.outputs)
      .filter((out) => out.endsWith(".js"))
      .map((out) => readFileSync(join(cliDir, out), "utf8"))
      .join("\n");
    expect(code).toContain('("@turngate/native")');
    externals.add("@turngate/native");
    expect(
      Object.values(meta.outputs).some((out) =>
        Object.keys(out.inputs).some((input) => input.includes("native/index.js")),
      ),
    ).toBe(false);
    // Required or imported at run time from dist/, so each must be one of turngate's own
    // dependencies (pnpm links only those into packages/cli/node_modules) — except the
    // addon: a devDependency (workspace-only), so `npm pack` gives a tarball npm installs
    // (issue 34 item 7); where it is absent every caller falls back to TypeScript.
    const { dependencies, devDependencies } = JSON.parse(
      readFileSync(join(cliDir, "package.json"), "utf8"),
    ) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    externals.delete("@turngate/native");
    for (const name of externals) expect(Object.keys(dependencies), name).toContain(name);
    expect(devDependencies["@turngate/native"]).toBe("workspace:*");
    // No workspace: specification in what an npm install reads.
    expect(Object.values(dependencies).filter((v) => v.startsWith("workspace:"))).toEqual([]);
  });

  test("every output names its source map, and the maps point at existing TypeScript sources", () => {
    const js = Object.keys(meta.outputs).filter((out) => out.endsWith(".js"));
    expect(js.length).toBeGreaterThan(COMMANDS.length);
    const sources = new Set<string>();
    for (const out of js) {
      const file = join(cliDir, out);
      const name = `${out.split("/").pop()}.map`;
      expect(readFileSync(file, "utf8").trimEnd().endsWith(`//# sourceMappingURL=${name}`)).toBe(
        true,
      );
      const map = JSON.parse(readFileSync(`${file}.map`, "utf8")) as { sources: string[] };
      for (const source of map.sources) sources.add(resolve(dirname(file), source));
    }
    for (const source of [
      join(cliDir, "src/main.ts"),
      join(cliDir, "src/commands/run.ts"),
      join(cliDir, "../node/src/session/session.ts"),
      join(cliDir, "../core/src/gate/decide.ts"),
    ]) {
      expect(sources.has(source), source).toBe(true);
      expect(existsSync(source)).toBe(true);
    }
  });

  test("zod is bundled without its locales but English: every source imports it as a namespace", () => {
    const locales = new Set(
      Object.values(meta.outputs)
        .flatMap((out) => Object.keys(out.inputs))
        .filter((input) => /\/zod\/v4\/locales\//.test(input))
        .map((input) => input.slice(input.lastIndexOf("/") + 1)),
    );
    expect([...locales]).toEqual(["en.js"]);
    // `import { z } from "zod"` takes the whole namespace object (locales included), so
    // esbuild can drop nothing of it; `import * as z` lets it tree-shake (issue 17).
    const named = spawnSync(
      "git",
      ["grep", "-l", "-E", 'import (type )?\\{ z \\} from "zod"', "--", "packages/*/src/*"],
      { cwd: join(cliDir, "..", ".."), encoding: "utf8" },
    );
    expect(named.stdout).toBe("");
  });

  test("the bridge's line worker sits beside the chunk of the worker pool that opens it", () => {
    const pool = Object.keys(meta.outputs).find(
      (out) => meta.outputs[out]?.inputs["../bridge/src/server/worker-pool.ts"] !== undefined,
    );
    expect(pool && dirname(pool)).toBe("dist/chunks");
    expect(existsSync(join(cliDir, "dist/chunks/line-worker.js"))).toBe(true);
  });

  test("--version, help run and an unknown command through the bundle", () => {
    expect(turngate(["--version"])).toMatchObject({ status: 0, stdout: `${CLI_VERSION}\n` });
    const help = turngate(["help", "run"]);
    expect(help.status).toBe(0);
    expect(help.stdout.split("\n")[0]).toBe("Usage: turngate run [options] <agent...>");
    const unknown = turngate(["rnu"]);
    expect({ status: unknown.status, stderr: unknown.stderr }).toEqual({
      status: 1,
      stderr:
        "turngate: error: unknown command 'rnu'\n(Did you mean run?) (see turngate --help) [usage]\n",
    });
  });
});

describe("the bundle's bridge", () => {
  test("a line past the worker threshold (256 KiB) is answered by the bundled line worker", async () => {
    const records = Array.from({ length: 3000 }, (_, i) => ({
      tool: "write",
      path: `src/module${i}/file${i}.ts`,
      content_digest: sha256(`${i}`),
    }));
    const line = `${JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ledger.digest", params: { records } })}\n`;
    expect(line.length).toBeGreaterThan(256 * 1024);
    const child = spawn(process.execPath, [...bundle, "bridge", "--stdio"], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
    });
    const answer = new Promise<string>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
      });
    });
    child.stdin.write(line);
    const response = JSON.parse(await answer);
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(response).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { effect_digest: effectDigest(records) },
    });
    expect({ code, err }).toEqual({ code: 0, err: "" });
  });
});
