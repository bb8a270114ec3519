import { execFileSync } from "node:child_process";
import { createHash, createPublicKey } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TurnProof } from "@turngate/core";
import { type CliContext, main } from "../src/index.js";

/** A text sink that keeps what was written. */
export class Collector {
  text = "";
  isTTY = false;
  write(text: string): boolean {
    this.text += text;
    return true;
  }
}

/**
 * Run the CLI in-process in `cwd`; returns the exit code, what went to stdout/stderr, and
 * what the agent printed (`agent`: its stdout and stderr, collected instead of leaking into
 * the test log).
 */
export async function cliWithAgent(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ code: number; stdout: string; stderr: string; agent: string }> {
  const stdout = new Collector();
  const stderr = new Collector();
  const agentOutput = new Collector();
  const ctx: CliContext = { stdout, stderr, cwd, env, agentOutput };
  const code = await main(args, ctx);
  return { code, stdout: stdout.text, stderr: stderr.text, agent: agentOutput.text };
}

/**
 * Run the CLI in-process in `cwd`; returns the exit code and what went to stdout/stderr.
 * The agent's output is collected and dropped (`cliWithAgent` returns it).
 */
export async function cli(
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await cliWithAgent(args, cwd);
  return { code, stdout, stderr };
}

/** The host's consent to `turngate run --fresh` (docs/cli.md "Gapless turns"). */
export const ALLOW_FRESH_ENV = { TURNGATE_ALLOW_FRESH: "1" } as const;

/**
 * `cli(["run", …])` as `turngate run --fresh …` with the host's consent
 * (`TURNGATE_ALLOW_FRESH=1`): a turn that starts over from the workspace as it is now
 * instead of from the state the previous run was judged on (docs/cli.md "Gapless turns"). For a
 * test that resets the workspace between runs and means each run as a first turn.
 */
export async function cliFresh(
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  if (args[0] !== "run") throw new Error(`cliFresh runs \`run\`, not ${args[0]}`);
  const { code, stdout, stderr } = await cliWithAgent(["run", "--fresh", ...args.slice(1)], cwd, {
    ...process.env,
    ...ALLOW_FRESH_ENV,
  });
  return { code, stdout, stderr };
}

/**
 * A real temporary git repository with `files` committed, and a separate temporary folder
 * for agent scripts (outside the repository, so they are not part of the turn).
 */
export function gitProject(files: Record<string, string>): {
  root: string;
  agents: string;
  write: (path: string, text: string) => void;
  agent: (name: string, source: string) => string;
  cleanup: () => void;
} {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "turngate-cli-")));
  const agents = realpathSync(mkdtempSync(join(tmpdir(), "turngate-agents-")));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  for (const [path, text] of Object.entries(files)) write(path, text);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
      cwd: root,
      stdio: "ignore",
    });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "--no-gpg-sign", "--allow-empty", "-m", "base");
  return {
    root,
    agents,
    write,
    agent(name, source) {
      const path = join(agents, name);
      writeFileSync(path, source);
      return path;
    },
    cleanup() {
      rmSync(root, { recursive: true, force: true });
      rmSync(agents, { recursive: true, force: true });
    },
  };
}

/** The last line of every `run`/`verify` text report when the host claims no sandbox. */
export const UNSANDBOXED_LINE =
  "trust: unsandboxed (the agent runs as your user: it could read the signing key and forge a waiver or a prompt event; run it with turngate run --confine, or hooks installed with --confine, to stop that)";

/**
 * The turn proof inside a proof file turngate wrote: the DSSE envelope's payload, decoded
 * (for `--format in-toto`, the Statement's predicate). The signature is not checked here.
 */
export function readProofPayload(path: string): TurnProof {
  const envelope = JSON.parse(readFileSync(path, "utf8"));
  const payload = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8"));
  return payload._type === undefined ? payload : payload.predicate;
}

/**
 * The keyid of this test process's user key (`$XDG_STATE_HOME/turngate/signing-key.pem`,
 * set up by vitest.setup.ts), computed here as the documented rule says: the SHA-256 of the
 * DER SubjectPublicKeyInfo.
 */
export function localKeyId(): string {
  const pem = readFileSync(
    join(process.env.XDG_STATE_HOME as string, "turngate", "signing-key.pem"),
    "utf8",
  );
  const der = createPublicKey(pem).export({ type: "spki", format: "der" });
  return createHash("sha256").update(der).digest("hex");
}
