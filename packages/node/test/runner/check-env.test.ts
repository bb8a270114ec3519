/**
 * Issue 10 (shellenv): the checks' controlled environment (`runner/check-env.ts`) and the
 * user-level file fingerprints (`environment/user-files.ts`), on temporary folders and a
 * temporary HOME (the real home is never read for these assertions).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import {
  changedUserFiles,
  deserializeEnvironmentBaseline,
  fingerprintTree,
  fingerprintUserFiles,
  isSecretName,
  pathFolderLabels,
  planCheckEnvironment,
  prepareCheckEnvironment,
  resolveCheckPath,
  serializeEnvironmentBaseline,
  takeEnvironmentBaseline,
} from "../../src/index.js";

const sha256 = (data: string) => createHash("sha256").update(data).digest("hex");
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});
function temp(files: Record<string, string> = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "turngate-env-")));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}
const bashPath = execFileSync("sh", ["-c", "command -v bash"]).toString().trim();

describe("planCheckEnvironment", () => {
  test("PATH keeps absolute folders that exist, in order, once; the shell is bash by absolute path", () => {
    const dir = temp({ "bin/.keep": "" });
    const path = `.:${dir}/bin::relative/bin:${dir}/missing:${dirname(bashPath)}:${dir}/bin`;
    expect(resolveCheckPath(path)).toBe(`${dir}/bin:${dirname(bashPath)}`);
    expect(planCheckEnvironment(undefined, { PATH: path })).toEqual({
      shell: { path: bashPath, name: "bash", pipefail: true },
      path: `${dir}/bin:${dirname(bashPath)}`,
    });
  });

  test("a bash planted in a folder that did not exist at baseline is never the shell", () => {
    const dir = temp();
    const plan = planCheckEnvironment(undefined, { PATH: `${dir}/bin:${dirname(bashPath)}` });
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin", "bash"), "#!/bin/sh\nexit 0\n");
    chmodSync(join(dir, "bin", "bash"), 0o755);
    expect(plan.shell.path).toBe(bashPath);
    expect(plan.path).toBe(dirname(bashPath));
  });

  test("config shell: a name on PATH, an absolute path, or a typed error naming shell", () => {
    const shPath = execFileSync("sh", ["-c", "command -v sh"]).toString().trim();
    const env = { PATH: process.env.PATH };
    const sh = planCheckEnvironment("sh", env);
    expect(sh.shell.path).toBe(shPath);
    expect(sh.shell.name).toBe("sh");
    let shPipefail = true;
    try {
      execFileSync(shPath, ["-c", "set -o pipefail"], { stdio: "ignore" });
    } catch {
      shPipefail = false;
    }
    expect(sh.shell.pipefail).toBe(shPipefail);
    expect(planCheckEnvironment(bashPath, env).shell).toEqual({
      path: bashPath,
      name: "bash",
      pipefail: true,
    });
    expect(() => planCheckEnvironment("nope-shell", env)).toThrow(
      "at shell: nope-shell was not found on PATH",
    );
    expect(() => planCheckEnvironment("bin/bash", env)).toThrow(
      "at shell: bin/bash: give a program name (bash) or an absolute path",
    );
    expect(() => planCheckEnvironment(" ", env)).toThrow("at shell: must not be blank");
    expect(() => planCheckEnvironment("/no/such/shell", env)).toThrow(
      "at shell: /no/such/shell is not an executable file",
    );
  });
});

describe("prepareCheckEnvironment", () => {
  test("sets the pinned variables, strips secrets and sourced files, keeps allow_env", () => {
    const plan = planCheckEnvironment(undefined, { PATH: process.env.PATH });
    const prepared = prepareCheckEnvironment(plan, {
      env: {
        PATH: "/ignored",
        HOME: "/h",
        GITHUB_TOKEN: "t",
        NPM_TOKEN: "t",
        DB_PASSWORD: "p",
        OPENAI_API_KEY: "k",
        TURNGATE_SIGNING_KEY: "k",
        AWS_REGION: "r",
        SSH_AUTH_SOCK: "/s",
        BASH_ENV: "/b",
        ENV: "/e",
        KEEP_TOKEN: "kept",
        PLAIN: "plain",
      },
      stateDir: "/state",
      allowEnv: ["KEEP_TOKEN"],
    });
    cleanups.push(prepared.dispose);
    expect(prepared.env).toEqual({
      HOME: "/h",
      KEEP_TOKEN: "kept",
      PLAIN: "plain",
      PATH: plan.path,
      PYTHONNOUSERSITE: "1",
      PYTHONPYCACHEPREFIX: join(prepared.dir, "pycache"),
      GIT_CONFIG_GLOBAL: join(prepared.dir, "gitconfig"),
      GIT_CONFIG_NOSYSTEM: "1",
      CARGO_TARGET_DIR: "/state/cargo-target",
    });
    expect(readFileSync(join(prepared.dir, "gitconfig"), "utf8")).toBe("");
    expect(statSync(prepared.dir).mode & 0o777).toBe(0o700);
    prepared.dispose();
    expect(existsSync(prepared.dir)).toBe(false);
  });

  test("the secret name patterns", () => {
    for (const name of [
      "A_TOKEN",
      "x_secret",
      "MY_SECRETS",
      "PG_PASSWORD",
      "FTP_PASSWD",
      "X_PASS",
    ]) {
      expect([name, isSecretName(name)]).toEqual([name, true]);
    }
    for (const name of [
      "API_KEY",
      "GCP_PROJECT",
      "GOOGLE_APPLICATION_CREDENTIALS",
      "NPM_CONFIG__AUTH",
    ]) {
      expect([name, isSecretName(name)]).toEqual([name, true]);
    }
    for (const name of ["PATH", "HOME", "TOKENIZER", "KEYBOARD", "PASSAGE", "CARGO_HOME", "CI"]) {
      expect([name, isSecretName(name)]).toEqual([name, false]);
    }
  });
});

describe("fingerprintUserFiles (temporary HOME)", () => {
  test("the listed files, user site customisations and PATH executables inside HOME", () => {
    const home = temp({
      ".gitconfig": "g",
      ".config/git/ignore": "i",
      ".npmrc": "n",
      ".yarnrc.yml": "y",
      ".config/pip/pip.conf": "p",
      ".pip/pip.conf": "q",
      ".cargo/config.toml": "c",
      ".config/go/env": "GOFLAGS=-x",
      ".bashrc": "b",
      ".profile": "pr",
      ".local/lib/python3.11/site-packages/usercustomize.py": "u",
      ".local/lib/python3.11/site-packages/evil.pth": "e",
      ".local/lib/python3.11/site-packages/pkg/__init__.py": "not listed",
      ".local/bin/tool": "t",
      ".local/bin/.pyenv-shim": "a rehash's prototype: no command is named so",
      ".pyenv/version": "3.11",
      ".rustup/settings.toml": "r",
      "etc/pip.conf": "s",
      "unrelated.txt": "x",
    });
    symlinkSync("/bin/sh", join(home, ".local/bin/sh"));
    const fingerprints = fingerprintUserFiles({
      env: { PATH: `${home}/.local/bin:rel/bin` },
      home,
      etc: join(home, "etc"),
    });
    expect(fingerprints).toEqual({
      "~/.bashrc": sha256("b"),
      "~/.cargo/config.toml": sha256("c"),
      "~/.config/git/ignore": sha256("i"),
      "~/.config/go/env": sha256("GOFLAGS=-x"),
      "~/.config/pip/pip.conf": sha256("p"),
      "~/.gitconfig": sha256("g"),
      "~/.local/bin/sh": sha256("symlink:/bin/sh"),
      "~/.local/bin/tool": sha256("t"),
      "~/.local/lib/python3.11/site-packages/evil.pth": sha256("e"),
      "~/.local/lib/python3.11/site-packages/usercustomize.py": sha256("u"),
      "~/.npmrc": sha256("n"),
      "~/.pip/pip.conf": sha256("q"),
      "~/.profile": sha256("pr"),
      "~/.pyenv/version": sha256("3.11"),
      "~/.rustup/settings.toml": sha256("r"),
      "~/etc/pip.conf": sha256("s"),
      "~/.yarnrc.yml": sha256("y"),
    });
  });

  test("overrides (CARGO_HOME, GOENV, BASH_ENV) are followed; changes are rows with the digest now", () => {
    const home = temp();
    const other = temp({ "cargo/config": "a", goenv: "b", bash_env: "c" });
    const env = {
      PATH: "rel/bin",
      CARGO_HOME: join(other, "cargo"),
      GOENV: join(other, "goenv"),
      BASH_ENV: join(other, "bash_env"),
    };
    const before = fingerprintUserFiles({ env, home, etc: join(other, "etc") });
    expect(Object.keys(before)).toEqual([
      join(other, "bash_env"),
      join(other, "cargo/config"),
      join(other, "goenv"),
    ]);
    writeFileSync(join(other, "goenv"), "changed");
    rmSync(join(other, "bash_env"));
    writeFileSync(join(home, ".npmrc"), "registry=x");
    expect(
      changedUserFiles(before, fingerprintUserFiles({ env, home, etc: join(other, "etc") })),
    ).toEqual([
      { path: join(other, "bash_env"), contentDigest: "deleted" },
      { path: join(other, "goenv"), contentDigest: sha256("changed") },
      { path: "~/.npmrc", contentDigest: sha256("registry=x") },
    ]);
  });
});

describe("stat-only PATH folders (outside HOME, alterable)", () => {
  const statRow = (path: string) => {
    const st = lstatSync(path, { bigint: true });
    const type = st.isFile() ? "f" : st.isDirectory() ? "d" : "o";
    return sha256(`stat:${type}:${st.mode}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`);
  };

  test("one row per entry by its lstat; a rewrite in place (folder unchanged) and a planted entry both change the fingerprint", () => {
    const home = temp();
    const tools = temp({ node: "#!/bin/sh\necho real\n", "..odd": "o" });
    mkdirSync(join(tools, "sub"));
    symlinkSync("node", join(tools, "nodejs"));
    const env = { PATH: `${tools}:rel/bin` };
    const etc = join(home, "etc");
    const before = fingerprintUserFiles({ env, home, etc });
    // A dot name is no command a lookup resolves: pyenv's rehash file comes and goes there.
    expect(before).toEqual({
      [tools]: sha256("folder"),
      [`${tools}/node`]: statRow(join(tools, "node")),
      [`${tools}/nodejs`]: sha256("symlink:node"),
      [`${tools}/sub`]: statRow(join(tools, "sub")),
    });
    // Written in place (a longer text, so the row moves even within one timestamp tick):
    // the folder's own mtime/ctime do not move, so no folder-level cache could see it.
    const folderBefore = lstatSync(tools, { bigint: true });
    writeFileSync(join(tools, "node"), "#!/bin/sh\necho evil, longer\n");
    const folderAfter = lstatSync(tools, { bigint: true });
    expect([folderAfter.mtimeNs, folderAfter.ctimeNs]).toEqual([
      folderBefore.mtimeNs,
      folderBefore.ctimeNs,
    ]);
    const rewritten = fingerprintUserFiles({ env, home, etc });
    expect(changedUserFiles(before, rewritten)).toEqual([
      { path: `${tools}/node`, contentDigest: statRow(join(tools, "node")) },
    ]);
    writeFileSync(join(tools, "bash"), "#!/bin/sh\n");
    writeFileSync(join(tools, ".pyenv-shim"), "#!/bin/sh\n");
    expect(changedUserFiles(rewritten, fingerprintUserFiles({ env, home, etc }))).toEqual([
      { path: `${tools}/bash`, contentDigest: statRow(join(tools, "bash")) },
    ]);
  });
});

describe("pathFolderLabels", () => {
  test("PATH folders: inside HOME as ~/ labels, writable ones outside as absolute; resolved with realpath, counted once", () => {
    const home = temp({ ".local/bin/.k": "", "bin/.k": "" });
    const out = temp({ "bin/.k": "" });
    symlinkSync(join(home, "bin"), join(out, "link"));
    expect(
      pathFolderLabels(`${home}/.local/bin:${out}/bin:rel:${out}/link:${home}/bin:${home}`, home),
    ).toEqual(["~/.local/bin/", `${out}/bin/`, "~/bin/", "~/"]);
  });
});

describe("environment baseline", () => {
  test("round-trips through its wire form; a bad field is a typed error naming it", () => {
    const home = temp({ ".gitconfig": "g" });
    const state = temp({ "cargo-target/debug/x": "1" });
    const config = join(state, "turngate.config.json");
    const baseline = takeEnvironmentBaseline({
      env: { PATH: process.env.PATH, HOME: home },
      cargoTargetDir: join(state, "cargo-target"),
      reviewFiles: [config],
    });
    const inHome = Object.entries(baseline.userFiles).filter(([label]) => label.startsWith("~/"));
    expect(Object.fromEntries(inHome)).toEqual({ "~/.gitconfig": sha256("g") });
    expect(baseline.reviewFiles).toEqual({ [config]: "absent" });
    expect(baseline.cargoTarget).toMatch(/^[0-9a-f]{64}$/);
    const wire = JSON.parse(JSON.stringify(serializeEnvironmentBaseline(baseline)));
    expect(deserializeEnvironmentBaseline(wire)).toEqual(baseline);
    expect(() =>
      deserializeEnvironmentBaseline({ ...wire, shell: { ...wire.shell, path: "bash" } }),
    ).toThrow("at environment.shell.path: expected an absolute path");
    expect(() => deserializeEnvironmentBaseline({ ...wire, user_files: { x: 1 } })).toThrow(
      "at environment.user_files.x: expected a string",
    );
  });

  test("fingerprintTree changes when a file is touched, added or swapped back", () => {
    const dir = temp({ "a/b": "1" });
    expect(fingerprintTree(join(dir, "missing"))).toBe("absent");
    const first = fingerprintTree(dir);
    expect(fingerprintTree(dir)).toBe(first);
    writeFileSync(join(dir, "a/c"), "2");
    const second = fingerprintTree(dir);
    expect(second).not.toBe(first);
    // Swapped for a file with the same bytes (a new inode), the extra file removed.
    rmSync(join(dir, "a/c"));
    writeFileSync(join(dir, "a/b.new"), "1");
    renameSync(join(dir, "a/b.new"), join(dir, "a/b"));
    expect(fingerprintTree(dir)).not.toBe(first);
  });
});
