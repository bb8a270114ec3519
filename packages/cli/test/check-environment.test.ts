/**
 * Issue 10 (shellenv): attacks on the checks' environment, each on a real temporary git
 * repository with a real agent process, a temporary HOME (the real home is never
 * touched) and real check processes: wrapper-masked checks, a planted shell, a planted
 * `.pyc`, an edited `~/.gitconfig`, a planted `usercustomize.py`, a planted cargo target,
 * secrets in the environment, and an agent edit of `turngate.config.json`.
 */
import { execFileSync } from "node:child_process";
import { createHash, generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { effectDigest } from "@turngate/core";
import { afterEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { type CliContext, main } from "../src/index.js";
import { Collector, gitProject, UNSANDBOXED_LINE } from "./helpers.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(120_000), hookTimeout: testTimeout(120_000) });

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});
function project(files: Record<string, string>) {
  const p = gitProject(files);
  cleanups.push(p.cleanup);
  return p;
}
/** A temporary home directory with `files`; never the real one. */
function home(files: Record<string, string> = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "turngate-home-")));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** Run the CLI in-process with `env` (HOME overridden) as its environment. */
async function cli(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const stdout = new Collector();
  const stderr = new Collector();
  const ctx: CliContext = { stdout, stderr, cwd, env };
  const code = await main(args, ctx);
  return { code, stdout: stdout.text, stderr: stderr.text };
}
const envWith = (homeDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  // The in-place model's controlled environment (docs/design.md §3a); clean-room checks
  // see none of the home folder or the workspace's parents at all (test/clean-room).
  TURNGATE_ISOLATION: "in-place",
  HOME: homeDir,
  LANG: "C",
  ...extra,
});
const agentRun = (p: { agent: (n: string, s: string) => string }, script: string) => [
  "sh",
  p.agent("agent.sh", script),
];
const runsOf = (json: { checks: { command: string; status: string; hint: string | null }[] }) =>
  json.checks.map((c) => [c.command, c.status, c.hint]);

/**
 * `turngate run --json` with `checks` on a fresh one-file project whose agent rewrites
 * `a.txt`: the exit code and the parsed JSON output.
 */
async function runChecks(checks: string[]) {
  const p = project({ "a.txt": "1\n" });
  const out = await cli(
    [
      "run",
      "--json",
      ...checks.flatMap((c) => ["--check", c]),
      "--",
      ...agentRun(p, "echo 2 > a.txt\n"),
    ],
    p.root,
    envWith(home()),
  );
  return { code: out.code, json: JSON.parse(out.stdout) };
}

describe("masked exit status through wrappers (real checks)", () => {
  test("bash -o pipefail -c 'false || true' is needs_review naming the ||", async () => {
    const { code, json } = await runChecks(["bash -o pipefail -c 'false || true'"]);
    expect(code).toBe(2);
    expect(json.verdict).toBe("incomplete");
    expect(runsOf(json)).toEqual([
      [
        "bash -o pipefail -c 'false || true'",
        "needs_review",
        "exit status masked (`||` runs `true` when `false` fails, so the check ends with the exit status of `true`): drop the `|| …` fallback so a failure fails the check",
      ],
    ]);
  });

  test("env X=1 sh -c 'false; true' is needs_review; env X=1 sh -c 'exit 1; true' fails", async () => {
    const { code, json } = await runChecks([
      "env X=1 sh -c 'false; true'",
      "env X=1 sh -c 'exit 1; true'",
    ]);
    expect(code).toBe(2);
    expect(runsOf(json)).toEqual([
      [
        "env X=1 sh -c 'false; true'",
        "needs_review",
        "exit status masked (`;` discards the exit status of `false`): join commands with && or use set -e",
      ],
      ["env X=1 sh -c 'exit 1; true'", "failed", null],
    ]);
  });

  test("env - sh -c 'false; true' (a lone - is env's -i) is needs_review, never verified", async () => {
    const { code, json } = await runChecks(["env - sh -c 'false; true'"]);
    expect(code).toBe(2);
    expect(runsOf(json)).toEqual([
      [
        "env - sh -c 'false; true'",
        "needs_review",
        "exit status masked (`;` discards the exit status of `false`): join commands with && or use set -e",
      ],
    ]);
  });

  test('timeout 5 sh -c "$(cat x)" is needs_review: exit status cannot be verified', async () => {
    const p = project({ "a.txt": "1\n", x: "false; true\n" });
    const h = home();
    const check = 'timeout 5 sh -c "$(cat x)"';
    const out = await cli(
      ["run", "--check", check, "--", ...agentRun(p, "echo 2 > a.txt\n")],
      p.root,
      envWith(h),
    );
    expect(out.code).toBe(2);
    expect(out.stdout).toContain(
      'needs_review: check:1: exit status cannot be verified (`"$(cat x)"` in `timeout 5 sh -c "$(cat x)"` is computed when the check runs, so turngate cannot read what it runs): write the script out in the check, or put it in a script file the check runs (sh ./ci.sh)\n',
    );
  });

  test("the pipefail hint is written for the shell in use (config shell)", async () => {
    const dashPipefail = (() => {
      try {
        execFileSync("sh", ["-c", "set -o pipefail"], { stdio: "ignore" });
        return true;
      } catch {
        return false;
      }
    })();
    const p = project({ "a.txt": "1\n", "turngate.config.json": '{"shell": "sh"}' });
    const h = home();
    const out = await cli(
      ["run", "--json", "--check", "false | cat", "--", ...agentRun(p, "echo 2 > a.txt\n")],
      p.root,
      envWith(h),
    );
    const json = JSON.parse(out.stdout);
    expect(json.shell.name).toBe("sh");
    expect(json.shell.pipefail).toBe(dashPipefail);
    expect(json.checks[0].hint).toBe(
      dashPipefail
        ? "exit status masked (a pipe keeps only the last command's exit status, not that of `false`): run set -o pipefail first (set -o pipefail && …)"
        : 'exit status masked (a pipe keeps only the last command\'s exit status, not that of `false`): sh has no pipefail: redirect instead of piping (cmd > log 2>&1), or set "shell": "bash" in turngate.config.json',
    );

    const { json: bashJson } = await runChecks(["false | cat"]);
    expect(bashJson.shell).toEqual({
      path: execFileSync("sh", ["-c", "command -v bash"]).toString().trim(),
      name: "bash",
      pipefail: true,
    });
    expect(bashJson.checks[0].hint).toBe(
      "exit status masked (a pipe keeps only the last command's exit status, not that of `false`): run set -o pipefail first (set -o pipefail && …)",
    );
  });

  test('a configured shell that is not on PATH is a usage error naming "shell"', async () => {
    const p = project({ "turngate.config.json": '{"shell": "no-such-shell-x"}' });
    const out = await cli(["baseline"], p.root, envWith(home()));
    expect(out.code).toBe(1);
    expect(out.stderr).toContain("shell");
    expect(out.stderr).toContain("no-such-shell-x was not found on PATH");
  });
});

describe("controlled check environment", () => {
  test("a ~/.local/bin/bash planted during the turn is not the checks' shell; it is a row and ends needs_review", async () => {
    const h = home({ ".local/bin/.keep": "" });
    // `command -v newtool` exits 1 when newtool is not on the checks' PATH.
    const p = project({
      "a.txt": "1\n",
      "turngate.config.json": JSON.stringify({
        checks: ["true", { command: "command -v newtool", expect_exit: 1 }],
      }),
    });
    const marker = join(h, "planted-ran");
    const planted = `#!/bin/sh\ntouch ${marker}\nexec /bin/sh "$@"\n`;
    const env = envWith(h, { PATH: `${h}/.local/bin:${h}/bin:${process.env.PATH}` });
    const out = await cli(
      [
        "run",
        "--json",
        "--",
        ...agentRun(
          p,
          `printf '%s' '${planted}' > "$HOME/.local/bin/bash"; chmod +x "$HOME/.local/bin/bash"
cp "$HOME/.local/bin/bash" "$HOME/.local/bin/sh"
mkdir -p "$HOME/bin"; printf '#!/bin/sh\\nexit 0\\n' > "$HOME/bin/newtool"; chmod +x "$HOME/bin/newtool"
echo 2 > a.txt\n`,
        ),
      ],
      p.root,
      env,
    );
    expect(existsSync(marker)).toBe(false);
    const json = JSON.parse(out.stdout);
    // The checks ran with the baseline's shell, and ~/bin (created during the turn) was not
    // searched; the programs planted in ~/.local/bin (on the checks' PATH) end the turn
    // needs_review: a check that runs `sh` or `bash` by name would have found them.
    expect(json.checks.map((c: { status: string }) => c.status)).toEqual(["passed", "passed"]);
    expect(json.verdict).toBe("incomplete");
    expect(json.reports[0].checks[2]).toEqual({
      id: "turngate:path",
      kind: "review",
      description: "no program on the checks' PATH changed since the baseline",
      status: "needs_review",
      required: true,
      residual_risk:
        "~/.local/bin/bash, ~/.local/bin/sh changed during the turn in a folder of the checks' PATH, so the checks may have run it: review it, then start a new turn",
    });
    const planted64 = sha256(planted);
    expect(json.environment_changes).toEqual([
      { path: "~/.local/bin/bash", content_digest: planted64 },
      { path: "~/.local/bin/sh", content_digest: planted64 },
      { path: "~/bin/newtool", content_digest: sha256("#!/bin/sh\nexit 0\n") },
    ]);
    expect(json.effect_digest).toBe(
      effectDigest([
        { tool: "environment", path: "~/.local/bin/bash", content_digest: planted64 },
        { tool: "environment", path: "~/.local/bin/sh", content_digest: planted64 },
        {
          tool: "environment",
          path: "~/bin/newtool",
          content_digest: sha256("#!/bin/sh\nexit 0\n"),
        },
        { tool: "workspace", path: "a.txt", content_digest: sha256("2\n") },
      ]),
    );
  });

  test("a planted __pycache__/*.pyc is never loaded (PYTHONPYCACHEPREFIX)", async () => {
    const p = project({ "x.py": 'VALUE = "good"\n' });
    const h = home();
    const check = "python3 -c 'import x, sys; sys.exit(0 if x.VALUE == \"good\" else 1)'";
    // The agent breaks x.py and plants bytecode of the good version (printing a marker)
    // whose header matches the broken source's mtime and size, so a plain `python3`
    // would load the bytecode and pass.
    const plant = p.agent(
      "plant.py",
      `import importlib.util, importlib._bootstrap_external as ext, os, sys
with open("x.py", "w") as f: f.write('VALUE = "bad!"\\n')
st = os.stat("x.py")
code = compile('print("PLANTED-PYC"); VALUE = "good"\\n', os.path.abspath("x.py"), "exec")
os.makedirs("__pycache__", exist_ok=True)
with open(importlib.util.cache_from_source("x.py"), "wb") as f:
    f.write(ext._code_to_timestamp_pyc(code, int(st.st_mtime), st.st_size))
`,
    );
    const out = await cli(
      ["run", "--json", "--check", check, "--", "python3", plant],
      p.root,
      envWith(h),
    );
    const json = JSON.parse(out.stdout);
    expect(json.verdict).toBe("incomplete");
    expect(json.checks.map((c: { status: string }) => c.status)).toEqual(["failed"]);
    // The control: outside turngate's environment the planted bytecode is loaded.
    const control = execFileSync("sh", ["-c", `${check} && echo PASSED`], {
      cwd: p.root,
      env: envWith(h),
    }).toString();
    expect(control).toBe("PLANTED-PYC\nPASSED\n");
  });

  test("~/.gitconfig edited by the agent is an environment row; checks' git reads a pinned empty config", async () => {
    const h = home({ ".gitconfig": "[user]\n\tname = someone\n" });
    const p = project({
      "a.txt": "1\n",
      "check.sh":
        'test -z "$(git config --global --get alias.st)" && test "$GIT_CONFIG_NOSYSTEM" = 1 && test -f "$GIT_CONFIG_GLOBAL" && test ! -s "$GIT_CONFIG_GLOBAL"\n',
    });
    const edited = "[user]\n\tname = someone\n[alias]\n\tst = !touch pwned\n";
    const check = "sh check.sh";
    const out = await cli(
      [
        "run",
        "--check",
        check,
        "--",
        ...agentRun(p, `printf '[alias]\\n\\tst = !touch pwned\\n' >> "$HOME/.gitconfig"\n`),
      ],
      p.root,
      envWith(h),
    );
    expect(out.code).toBe(0);
    const digest = effectDigest([
      { tool: "environment", path: "~/.gitconfig", content_digest: sha256(edited) },
    ]);
    expect(out.stdout).toBe(
      `changed: nothing\nenvironment: 1 user-level file the checks may read changed (ledger rows, tool environment)\n  changed  ~/.gitconfig\nchecks: 1 passed\nverified: effect digest ${digest}\nproof: .turngate/proofs/${digest}.json\n${UNSANDBOXED_LINE}\n`,
    );
  });

  test("usercustomize.py planted in the user site is a row, and PYTHONNOUSERSITE keeps it out", async () => {
    const h = home();
    const p = project({ "a.txt": "1\n" });
    const version = execFileSync("python3", [
      "-c",
      "import sys; print(f'python{sys.version_info[0]}.{sys.version_info[1]}')",
    ])
      .toString()
      .trim();
    const site = `.local/lib/${version}/site-packages`;
    const marker = join(h, "usercustomize-ran");
    const source = `open(${JSON.stringify(marker)}, "w").write("x")\n`;
    const out = await cli(
      [
        "run",
        "--json",
        "--check",
        "python3 -c 'import sys; sys.exit(0)'",
        "--",
        ...agentRun(
          p,
          `mkdir -p "$HOME/${site}"\ncat > "$HOME/${site}/usercustomize.py" <<'EOF'\n${source}EOF\n`,
        ),
      ],
      p.root,
      envWith(h),
    );
    expect(existsSync(marker)).toBe(false);
    const json = JSON.parse(out.stdout);
    expect(json.environment_changes).toEqual([
      { path: `~/${site}/usercustomize.py`, content_digest: sha256(source) },
    ]);
    expect(json.verdict).toBe("verified");
    // The control: a plain python3 with the same HOME imports it.
    execFileSync("python3", ["-c", "pass"], { env: envWith(h) });
    expect(existsSync(marker)).toBe(true);
  });

  test("secrets are stripped unless allow_env names them; the pinned variables are set", async () => {
    const p = project({
      "a.txt": "1\n",
      "turngate.config.json": JSON.stringify({ allow_env: ["KEEP_TOKEN"] }),
    });
    const h = home();
    const check = [
      'test -z "$MY_TOKEN$DB_PASSWORD$AWS_REGION$TURNGATE_SIGNING_KEY$SSH_AUTH_SOCK$BASH_ENV"',
      'test "$KEEP_TOKEN" = kept',
      'test "$PLAIN" = plain',
      'test "$PYTHONNOUSERSITE" = 1',
      'test -n "$PYTHONPYCACHEPREFIX" && test -f "$GIT_CONFIG_GLOBAL"',
      `test "$CARGO_TARGET_DIR" = "${p.root}/.turngate/cargo-target"`,
    ].join(" && ");
    const out = await cli(
      ["run", "--json", "--check", check, "--", ...agentRun(p, "echo 2 > a.txt\n")],
      p.root,
      envWith(h, {
        MY_TOKEN: "t",
        DB_PASSWORD: "p",
        AWS_REGION: "r",
        // a real key (inline PEM): turngate signs the proof with it, the check never sees it
        TURNGATE_SIGNING_KEY: generateKeyPairSync("ed25519")
          .privateKey.export({ type: "pkcs8", format: "pem" })
          .toString(),
        SSH_AUTH_SOCK: "/tmp/s",
        BASH_ENV: join(h, "bash_env"),
        KEEP_TOKEN: "kept",
        PLAIN: "plain",
      }),
    );
    const json = JSON.parse(out.stdout);
    expect(json.checks.map((c: { status: string }) => c.status)).toEqual(["passed"]);
    expect(json.verdict).toBe("verified");
  });

  test("an agent write to the checks' cargo target folder ends needs_review", async () => {
    const p = project({ "a.txt": "1\n" });
    const h = home();
    const out = await cli(
      [
        "run",
        "--check",
        "true",
        "--",
        ...agentRun(
          p,
          "mkdir -p .turngate/cargo-target/debug/.fingerprint\necho planted > .turngate/cargo-target/debug/.fingerprint/x\necho 2 > a.txt\n",
        ),
      ],
      p.root,
      envWith(h),
    );
    expect(out.code).toBe(2);
    expect(out.stdout).toContain(
      `needs_review: turngate:cargo-target: the checks' cargo target folder ${p.root}/.turngate/cargo-target changed during the turn (a planted build artifact would be trusted by cargo): delete the folder, then run the checks again\n`,
    );
  });
});

describe("cargo builds of the checks go to the state folder", () => {
  test("cargo test in a check builds under .turngate/cargo-target, never the agent's target/", async () => {
    const p = project({
      "Cargo.toml": '[package]\nname = "tg_env"\nversion = "0.1.0"\nedition = "2021"\n',
      "src/lib.rs": "pub fn two() -> u32 { 2 }\n#[test]\nfn t() { assert_eq!(two(), 2); }\n",
    });
    // The lockfile is committed (a check that writes Cargo.lock is another rule, issue 10's
    // rewrite_paths).
    execFileSync("cargo", ["generate-lockfile", "--offline"], { cwd: p.root, stdio: "ignore" });
    execFileSync("git", ["add", "Cargo.lock"], { cwd: p.root, stdio: "ignore" });
    execFileSync(
      "git",
      ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "lock"],
      { cwd: p.root, stdio: "ignore" },
    );
    // The agent leaves a stale build output in target/ (a fingerprint cargo would trust).
    const out = await cli(
      [
        "run",
        "--json",
        "--check",
        "cargo test --offline -q",
        "--",
        ...agentRun(
          p,
          "mkdir -p target/debug/.fingerprint && echo planted > target/debug/.fingerprint/x\nprintf '// two\\n' >> src/lib.rs\n",
        ),
      ],
      p.root,
      envWith(home(), {
        CARGO_HOME: process.env.CARGO_HOME ?? join(process.env.HOME ?? "", ".cargo"),
        RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(process.env.HOME ?? "", ".rustup"),
      }),
    );
    const json = JSON.parse(out.stdout);
    expect(json.checks.map((c: { status: string }) => c.status)).toEqual(["passed"]);
    expect(existsSync(join(p.root, ".turngate/cargo-target/debug"))).toBe(true);
    expect(existsSync(join(p.root, "target/debug/deps"))).toBe(false);
    // Nothing the check wrote is in the workspace scope, so the report binds.
    expect(json.verdict).toBe("verified");
  });
});

describe("turngate.config.json edited by the agent", () => {
  const risk =
    "turngate.config.json changed during the turn: the checks ran with the configuration read before the agent ran, the edit was not applied, and later turns keep that configuration until you accept the edit: review it, then waive this change or start over (--fresh)";

  test('run: a config edited to "checks": ["true"] ends needs_review; the original checks ran', async () => {
    const p = project({
      "a.txt": "good\n",
      "turngate.config.json": JSON.stringify({ checks: ["grep -qx good a.txt"] }),
    });
    const out = await cli(
      [
        "run",
        "--json",
        "--",
        ...agentRun(p, `printf '{"checks": ["true"]}' > turngate.config.json\n`),
      ],
      p.root,
      envWith(home()),
    );
    expect(out.code).toBe(2);
    const json = JSON.parse(out.stdout);
    expect(json.verdict).toBe("incomplete");
    expect(
      json.checks.map((c: { command: string; status: string }) => [c.command, c.status]),
    ).toEqual([["grep -qx good a.txt", "passed"]]);
    expect(json.changes).toEqual([
      {
        path: "turngate.config.json",
        change: "modified",
        content_digest: sha256('{"checks": ["true"]}'),
        scope: "source",
      },
    ]);
    expect(json.reports[0].checks[1]).toEqual({
      id: "turngate:config",
      kind: "review",
      description: "turngate.config.json unchanged since the baseline",
      status: "needs_review",
      required: true,
      residual_risk: risk,
    });
  });

  test("baseline/verify: the same edit ends needs_review and is reported in the text", async () => {
    const p = project({
      "a.txt": "good\n",
      "turngate.config.json": JSON.stringify({ checks: ["grep -qx good a.txt"] }),
    });
    const env = envWith(home());
    const id = /^baseline id: ([0-9a-f]{64})$/m.exec(
      (await cli(["baseline"], p.root, env)).stdout,
    )?.[1];
    p.write("turngate.config.json", JSON.stringify({ checks: ["true"] }));
    const verify = await cli(["verify", "--baseline-id", id ?? ""], p.root, env);
    expect(verify.code).toBe(2);
    expect(verify.stdout).toContain(`needs_review: turngate:config: ${risk}\n`);
  });

  test("a config created by the agent where none was also ends needs_review", async () => {
    const p = project({ "a.txt": "good\n" });
    const out = await cli(
      [
        "run",
        "--check",
        "true",
        "--",
        ...agentRun(p, `printf '{"checks": ["true"]}' > turngate.config.json\n`),
      ],
      p.root,
      envWith(home()),
    );
    expect(out.code).toBe(2);
    expect(out.stdout).toContain(`needs_review: turngate:config: ${risk}\n`);
  });
});
