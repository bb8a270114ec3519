/**
 * Installing turngate as a user would, outside this repository (issue 34 item 7; README
 * "Install", docs/install.md), each on a fresh HOME:
 * - `npm pack` of the CLI, then `npm i -g --prefix <tmp> ./turngate-*.tgz`: the installed
 *   `turngate` runs a verified turn in a new git repository, and `hook install` writes the
 *   project's file with the installed CLI's path;
 * - `pip install bindings/python` (a copy, not editable) into a new venv: the binding finds
 *   the bridge through the installed `turngate` on PATH or `TURNGATE_BRIDGE`, and with
 *   neither its error names each place it looked;
 * - a Go program in its own module requiring the binding by its module path (a `replace`
 *   to the local folder), finding `turngate` on PATH.
 * Real registry installs (npm's dependencies of the tarball) and real processes.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { gitProject } from "./helpers.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const cliDir = join(repoRoot, "packages", "cli");

function which(program: string): string | undefined {
  const r = spawnSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

const python = (() => {
  const r = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], {
    encoding: "utf8",
  });
  return r.status === 0 ? r.stdout.trim() : undefined;
})();
const go = which("go");

let tmp: string;
let home: string;
let prefix: string;
/** PATH of the fresh user: the installed turngate, node, the system. */
let userPath: string;
const cleanups: (() => void)[] = [];

function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { TURNGATE_BRIDGE: _b, TURNGATE_SIGNING_KEY: _k, ...base } = process.env;
  return {
    ...base,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    PATH: userPath,
    npm_config_cache: join(home, ".npm"),
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
    ...extra,
  };
}

beforeAll(() => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), "turngate-user-install-")));
  home = join(tmp, "home");
  prefix = join(tmp, "prefix");
  mkdirSync(home);
  userPath = [
    join(prefix, "bin"),
    dirname(process.execPath),
    "/usr/local/bin",
    "/usr/bin",
    "/bin",
  ].join(":");
  // npm pack of the CLI as it is built, then a global install into a prefix of its own.
  execFileSync("npm", ["pack", "--pack-destination", tmp], {
    cwd: cliDir,
    env: userEnv({ PATH: process.env.PATH ?? "" }),
    stdio: "ignore",
  });
  const tarball = readdirSync(tmp).find((n) => /^turngate-.*\.tgz$/.test(n));
  if (tarball === undefined) throw new Error("npm pack wrote no turngate-*.tgz");
  const installed = spawnSync("npm", ["i", "-g", "--prefix", prefix, join(tmp, tarball)], {
    cwd: tmp,
    env: userEnv({ PATH: process.env.PATH ?? "" }),
    encoding: "utf8",
  });
  if (installed.status !== 0) throw new Error(`npm i -g failed: ${installed.stderr}`);
}, 300_000);

afterAll(() => {
  for (const c of cleanups.splice(0)) c();
  rmSync(tmp, { recursive: true, force: true });
});

describe("turngate installed as a user would (issue 34 item 7)", () => {
  test("npm pack + npm i -g: the installed turngate verifies a turn and installs its hooks", () => {
    const bin = join(prefix, "bin", "turngate");
    expect(existsSync(bin)).toBe(true);
    const version = spawnSync(bin, ["--version"], { env: userEnv(), encoding: "utf8" });
    expect(version.stdout.trim()).toBe(
      JSON.parse(readFileSync(join(cliDir, "package.json"), "utf8")).version,
    );
    const p = gitProject({ "a.txt": "a\n" });
    cleanups.push(p.cleanup);
    const turn = spawnSync(
      "turngate",
      ["run", "--check", "node -e 0", "--", "sh", "-c", "echo b > a.txt"],
      { cwd: p.root, env: userEnv(), encoding: "utf8" },
    );
    expect(turn.stderr).not.toContain("error");
    expect(turn.stdout).toMatch(/^verified: effect digest [0-9a-f]{64}$/m);
    expect(turn.status).toBe(0);
    const hooks = spawnSync("turngate", ["hook", "install", "claude-code"], {
      cwd: p.root,
      env: userEnv(),
      encoding: "utf8",
    });
    expect(hooks.status).toBe(0);
    const settings = JSON.parse(
      readFileSync(join(p.root, ".claude", "settings.local.json"), "utf8"),
    );
    expect(settings.hooks.Stop[0].hooks[0].command).toBe(
      `${process.execPath} ${join(prefix, "lib", "node_modules", "turngate", "dist", "bin.js")} hook claude-code Stop`,
    );
  });

  test.skipIf(python === undefined)(
    "pip install bindings/python (not editable): the bridge through turngate on PATH or TURNGATE_BRIDGE; neither names each place",
    () => {
      const copy = join(tmp, "python-src");
      cpSync(join(repoRoot, "bindings", "python"), copy, {
        recursive: true,
        filter: (src) => !/\/(\.venv|build|__pycache__|.*\.egg-info)$/.test(src),
      });
      const venv = join(tmp, "venv");
      execFileSync(python as string, ["-m", "venv", venv], { env: userEnv() });
      const pip = spawnSync(join(venv, "bin", "pip"), ["install", "-q", copy], {
        cwd: tmp,
        env: userEnv({ PIP_RETRIES: "0" }),
        encoding: "utf8",
      });
      expect(pip.stderr).not.toMatch(/error/i);
      expect(pip.status).toBe(0);
      const script = [
        "import turngate",
        "from pathlib import Path",
        "assert 'site-packages' in str(Path(turngate.__file__)), turngate.__file__",
        "try:",
        "    with turngate.Client() as c:",
        "        print(c.protocol, c.bridge_version)",
        "except turngate.BridgeError as e:",
        "    print('BridgeError:', e)",
      ].join("\n");
      const py = join(venv, "bin", "python");
      const onPath = spawnSync(py, ["-c", script], { cwd: tmp, env: userEnv(), encoding: "utf8" });
      expect(onPath.stderr).toBe("");
      expect(onPath.stdout).toMatch(/^turngate\.bridge\.v1 \d+\.\d+\.\d+\n$/);
      const bridgeJs = join(prefix, "lib", "node_modules", "turngate", "dist", "bin.js");
      const viaEnv = spawnSync(py, ["-c", script], {
        cwd: tmp,
        env: userEnv({ PATH: dirname(process.execPath), TURNGATE_BRIDGE: bridgeJs }),
        encoding: "utf8",
      });
      expect(viaEnv.stdout).toMatch(/^turngate\.bridge\.v1 /);
      const none = spawnSync(py, ["-c", script], {
        cwd: tmp,
        env: userEnv({ PATH: dirname(process.execPath) }),
        encoding: "utf8",
      });
      expect(none.stdout).toContain(
        "BridgeError: the turngate bridge was not found. Looked for: TURNGATE_BRIDGE (unset); packages/cli/dist/bin.js in ",
      );
      expect(none.stdout).toContain("site-packages/turngate or above");
      expect(none.stdout).toContain(
        "`turngate` on PATH (none). Install the CLI so `turngate` is on PATH (README: Install), or set TURNGATE_BRIDGE",
      );
      expect(none.stdout).not.toContain("build the repo");
    },
    300_000,
  );

  test.skipIf(go === undefined)(
    "a Go program in its own module requires the binding by its module path and finds turngate on PATH",
    () => {
      const mod = join(tmp, "gohost");
      mkdirSync(mod);
      writeFileSync(
        join(mod, "go.mod"),
        `module example.com/gohost\n\ngo 1.24\n\nrequire github.com/turngate/turngate/bindings/go v0.0.0\n\nreplace github.com/turngate/turngate/bindings/go => ${join(repoRoot, "bindings", "go")}\n`,
      );
      writeFileSync(
        join(mod, "main.go"),
        `package main

import (
	"context"
	"fmt"
	"log"
	"os"

	turngate "github.com/turngate/turngate/bindings/go"
)

func main() {
	ctx := context.Background()
	client, err := turngate.Start(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	root, err := os.MkdirTemp("", "gohost-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	session, err := client.CreateSession(ctx, turngate.SessionCreateParams{Root: root})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close(ctx)
	fmt.Println("session created")
}
`,
      );
      const goEnv = (name: string) =>
        execFileSync(go as string, ["env", name], { encoding: "utf8" }).trim();
      const r = spawnSync(go as string, ["run", "."], {
        cwd: mod,
        env: userEnv({
          PATH: `${userPath}:${dirname(go as string)}`,
          // The build caches only (no configuration): a fresh one would rebuild the standard library.
          GOCACHE: goEnv("GOCACHE"),
          GOMODCACHE: goEnv("GOMODCACHE"),
          GOPROXY: "off",
          GOFLAGS: "-mod=mod",
        }),
        encoding: "utf8",
        timeout: 240_000,
      });
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe("session created\n");
    },
    300_000,
  );
});
