import { createHash } from "node:crypto";
import { probeSandbox } from "@turngate/node";
import { main } from "../../src/main.js";
import { Collector, type gitProject } from "../helpers.js";

/** Whether the check sandbox starts here, and why not (a skip reason for clean-room tests). */
export const sandbox = await probeSandbox();
export const SKIP_REASON = sandbox.available ? "" : ` (skipped: ${sandbox.reason})`;

export const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

/** A workspace ledger row of `path` holding `content`. */
export const row = (path: string, content: string) => ({
  tool: "workspace",
  path,
  content_digest: sha256(content),
});

/** `turngate <args>` in-process in `cwd` with `env` on top of the test's environment; the JSON outcome when `--json`. */
export async function turngate(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string; json: TurnJson }> {
  const stdout = new Collector();
  const stderr = new Collector();
  const code = await main(args, {
    stdout,
    stderr,
    cwd,
    env: { ...process.env, ...env },
    agentOutput: new Collector(),
  });
  let json = {} as TurnJson;
  if (args.includes("--json")) json = JSON.parse(stdout.text) as TurnJson;
  return { code, stdout: stdout.text, stderr: stderr.text, json };
}

/** The parts of `turngate.turn_result.v1` these tests read. */
export interface TurnJson {
  verdict: string;
  effect_digest: string;
  exit_code: number;
  isolation: { mode: string; requested: string; available: boolean; reason?: string };
  outcome: { kind: string; reason?: string; message?: string };
  checks: { id: string; status: string; exit_code: number | null; log_path: string | null }[];
  binding: Record<string, unknown> | null;
}

/** A project (a real temporary git repository) removed after the test. */
export type Project = ReturnType<typeof gitProject>;

/** An agent script that writes `files` (path → text, relative to its cwd or absolute) and removes `remove`. */
export function writerAgent(
  p: Project,
  files: Record<string, string>,
  extra = "",
  name = "agent.js",
): string {
  return p.agent(
    name,
    `const fs = require("node:fs"); const path = require("node:path");
for (const [f, t] of Object.entries(${JSON.stringify(files)})) {
  fs.mkdirSync(path.dirname(f), { recursive: true }); fs.writeFileSync(f, t);
}
${extra}`,
  );
}
