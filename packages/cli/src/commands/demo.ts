import { execFileSync } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { GIT_SAFETY_ENV, gitSafetyArgs } from "@turngate/node";
import { type CliContext, EXIT_INTERNAL, EXIT_OK } from "../context.js";
import { cliPackageRoot } from "../package-root.js";
import { renderTurnText, turnJson, verdictOf } from "../render.js";
import { resolveStatePaths } from "../state-dir.js";
import { runTurn } from "../turn.js";
import { turnChainPath } from "../turn-chain.js";
import type { CliCommand } from "./types.js";

/** The shipped demo folder (`project/` and `agents/`), resolved from src/, dist/ or the bundle. */
export const DEMO_DIR = join(cliPackageRoot(), "demo");

/** The scripted turns, in order: agent script, what it does, and the verdict it must get. */
export const DEMO_TURNS: ReadonlyArray<{ script: string; title: string; expected: string }> = [
  { script: "fix-bug.js", title: "the agent fixes the slugify bug", expected: "verified" },
  { script: "read-only.js", title: "the agent only reads the project", expected: "narrative" },
  {
    script: "break-test.js",
    title: "the agent makes slugs keep capitals and breaks a test",
    expected: "incomplete",
  },
  {
    script: "claims-fixed.js",
    title: "the agent says it fixed the test, and changes nothing",
    expected: "incomplete",
  },
];

/**
 * `turngate demo`: copy the sample project to a temporary folder, make it a git
 * repository, and run the scripted agent turns ({@link DEMO_TURNS}) through `runTurn` with
 * `turngate run`'s turn chain (docs/design.md §3b "Gapless turns": the last turn changes
 * nothing after an unverified one, and stays incomplete), printing each verdict. The folder
 * is removed at the end, and the output says so, unless `--keep` is given (then its path is
 * printed last). Exit 0 when the verdicts are verified, narrative, incomplete and
 * incomplete, as they must be; 1 otherwise.
 */
export const demoCommand: CliCommand = {
  name: "demo",
  register(program, ctx, state) {
    program
      .command("demo")
      .summary(
        "run four scripted agent turns on a sample project: verified, narrative, incomplete, incomplete",
      )
      .description(
        "Copies the sample project shipped with turngate to a temporary folder, makes it a git repository and runs four scripted agent turns through the same code path as `turngate run`: one fixes a bug (verified), one only reads (narrative), one breaks a test (incomplete), and one says it fixed the test but changes nothing (still incomplete: the broken change was never verified). Needs only Node and, optionally, git.",
      )
      .option("--keep", "keep the temporary project folder and print where it is")
      .option("--json", "print one JSON outcome per turn (a JSON array) instead of text")
      .action(async (flags: { keep?: boolean; json?: boolean }) => {
        state.exitCode = await runDemo(ctx, flags);
      });
  },
};

async function runDemo(
  ctx: CliContext,
  flags: { keep?: boolean; json?: boolean },
): Promise<number> {
  const root = await mkdtemp(join(tmpdir(), "turngate-demo-"));
  try {
    await cp(join(DEMO_DIR, "project"), root, { recursive: true });
    const git = initGit(root);
    // The checks run `node test.js` through sh: make sure this Node is the one found.
    const env = {
      ...ctx.env,
      PATH: [dirname(process.execPath), ctx.env.PATH ?? ""].filter(Boolean).join(delimiter),
    };
    const turnCtx: CliContext = { ...ctx, env };
    // The turns chain as `turngate run`'s do: each starts from the state the last one judged.
    const chainPath = turnChainPath(resolveStatePaths(root, undefined, root).dir);
    if (!flags.json) {
      const fate = flags.keep
        ? "kept after the demo (--keep)"
        : "removed when the demo ends; pass --keep to keep it";
      ctx.stdout.write(
        `turngate demo: sample project in ${root}${git ? " (git repository)" : " (git not found: plain folder)"}, ${fate}\n`,
      );
    }
    const verdicts: string[] = [];
    const outcomes: unknown[] = [];
    for (const [index, turn] of DEMO_TURNS.entries()) {
      if (!flags.json) {
        ctx.stdout.write(`\n== Turn ${index + 1} of ${DEMO_TURNS.length}: ${turn.title} ==\n`);
      }
      const agent = [process.execPath, join(DEMO_DIR, "agents", turn.script)];
      const result = await runTurn(
        {
          root,
          agent,
          agentStdoutToStderr: flags.json === true,
          checks: [],
          waivers: [],
          chain: { path: chainPath },
        },
        turnCtx,
      );
      verdicts.push(verdictOf(result));
      if (flags.json) outcomes.push(turnJson(result));
      else ctx.stdout.write(renderTurnText(result));
    }
    const expected = DEMO_TURNS.map((turn) => turn.expected);
    const asExpected = verdicts.every((verdict, i) => verdict === expected[i]);
    if (flags.json) {
      ctx.stdout.write(`${JSON.stringify(outcomes, null, 2)}\n`);
    } else {
      ctx.stdout.write(
        `\nturngate demo: ${verdicts.join(", ")}${asExpected ? "" : ` (expected ${expected.join(", ")})`}\n`,
      );
      ctx.stdout.write(
        flags.keep
          ? `turngate demo: project kept in ${root}\n`
          : "turngate demo: sample project removed (turngate demo --keep keeps it to look at)\n",
      );
    }
    return asExpected ? EXIT_OK : EXIT_INTERNAL;
  } finally {
    if (!flags.keep) await rm(root, { recursive: true, force: true });
  }
}

/** `git init` + first commit of the sample project; false when git is unavailable. */
function initGit(root: string): boolean {
  const git = (...args: string[]) =>
    execFileSync(
      "git",
      [
        ...gitSafetyArgs(),
        "-c",
        "user.name=turngate demo",
        "-c",
        "user.email=demo@turngate.invalid",
        ...args,
      ],
      { cwd: root, stdio: "ignore", env: { ...process.env, ...GIT_SAFETY_ENV } },
    );
  try {
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "--no-gpg-sign", "-m", "sample project");
    return true;
  } catch {
    return false;
  }
}
