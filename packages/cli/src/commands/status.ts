import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { EXIT_OK } from "../context.js";
import { type HookSession, listSessions } from "../hooks/session-state.js";
import { findWorkspace } from "../hooks/workspace.js";
import type { CliCommand } from "./types.js";

/** Schema id of `turngate status --json`. */
export const STATUS_RESULT_SCHEMA = "turngate.status.v1";

/**
 * `turngate status [--json]` (issue 19 item 5): the hook sessions of this workspace, newest
 * first — harness, session id, baseline id and time, the session it continued from
 * (`continued_from`, docs/hooks.md "A new session continues the last one"), the current turn
 * (number, carried over, blocks), the last stop in the words the person saw (`blocked`, not the gate's
 * `continue`; issue 34 item 8) with the first lines of what the agent was told, attempts per
 * digest, how many failures are cached, escalations and waivers. `--json` keeps the raw
 * verdict.
 */
export const statusCommand: CliCommand = {
  name: "status",
  register(program, ctx, state) {
    program
      .command("status")
      .summary("the agent hook sessions of this workspace: baseline, attempts, verdicts, waivers")
      .option("--root <dir>", "the workspace (default: the git top level of the cwd)")
      .option("--json", `print a ${STATUS_RESULT_SCHEMA} object instead of text`)
      .action(async (flags: { root?: string; json?: boolean }) => {
        const root = findWorkspace(flags.root, ctx.cwd);
        const sessions = await listSessions(root, ctx.env);
        const rows = await Promise.all(
          sessions.map(async ({ dir, session }) => sessionJson(dir, session)),
        );
        if (flags.json) {
          ctx.stdout.write(
            `${JSON.stringify({ schema: STATUS_RESULT_SCHEMA, root, sessions: rows }, null, 2)}\n`,
          );
        } else if (rows.length === 0) {
          ctx.stdout.write(
            `no agent hook sessions for ${root} (install the hooks with \`turngate hook install <harness>\`)\n`,
          );
        } else {
          for (const row of rows) ctx.stdout.write(sessionText(row));
        }
        state.exitCode = EXIT_OK;
      });
  },
};

/** The wire form of one session. */
async function sessionJson(dir: string, session: HookSession) {
  const cached = (await readdir(join(dir, "failures")).catch(() => [] as string[])).filter((n) =>
    n.endsWith(".json"),
  );
  const turns = [...session.history, ...(session.turn ? [session.turn] : [])];
  return {
    harness: session.harness,
    session_id: session.session_id,
    state_dir: dir,
    baseline_id: session.baseline_id,
    baseline_taken_at: session.baseline_taken_at,
    updated_at: session.updated_at,
    continued_from: session.continued_from ?? null,
    turn: session.turn
      ? {
          number: session.turn.number,
          started_at: session.turn.started_at,
          carried_over: session.turn.carried_over,
          blocks: session.turn.blocks,
          attempts: session.turn.attempts,
          tools: session.turn.tools.length,
          opt_in: session.turn.opt_in ?? null,
          start_error: session.turn.start_error ?? null,
          confinement: session.turn.confinement ?? null,
        }
      : null,
    last_verdict: session.turn?.last ?? null,
    cached_failures: cached.length,
    escalations: turns
      .filter((t) => t.last?.reason === "escalated" || t.last?.reason === "capped")
      .map((t) => ({
        turn: t.number,
        reason: t.last?.reason,
        effect_digest: t.last?.effect_digest,
        at: t.last?.at,
      })),
    waivers: session.waivers,
  };
}

type SessionRow = Awaited<ReturnType<typeof sessionJson>>;

/**
 * The last stop in the words the person saw (issue 34 item 8): `blocked` for the gate's
 * `continue`, `ended incomplete (escalated)`, `verified`, …, with the attempt, the digest and
 * the trust the stop recorded (docs/hooks.md "Confined hooks").
 */
function lastStopText(last: SessionRow["last_verdict"]): string {
  if (last === null) return "none yet";
  const word =
    last.verdict === "continue"
      ? "blocked: the agent was told to fix it and stop again"
      : last.verdict === "incomplete"
        ? `ended incomplete${last.reason ? ` (${last.reason})` : ""}, not verified`
        : last.verdict;
  const facts = [
    last.verdict === "continue" ? `attempt ${last.attempt}` : "",
    last.effect_digest ? `effect digest ${last.effect_digest}` : "",
    last.cached ? "the failing result was replayed from the cache" : "",
    last.trust !== undefined ? `trust: ${last.trust}` : "",
  ].filter((f) => f !== "");
  return `${word}${facts.length > 0 ? ` (${facts.join("; ")})` : ""}, ${last.at}`;
}

function sessionText(row: SessionRow): string {
  const lines = [`${row.harness} session ${row.session_id} (updated ${row.updated_at})`];
  lines.push(
    `  baseline: ${row.baseline_id ?? "none"}${row.baseline_taken_at ? ` (taken ${row.baseline_taken_at})` : ""}`,
  );
  const from = row.continued_from;
  if (from !== null) {
    lines.push(
      `  continued from ${from.harness} session ${from.session_id} (${from.how === "judged" ? "the state its last stop judged" : "its baseline: its last turn was not verified"})`,
    );
  }
  if (row.turn) {
    lines.push(
      `  turn ${row.turn.number}${row.turn.carried_over ? " (baseline carried over from an unverified turn)" : ""}: ${row.turn.blocks} blocked stop(s), ${row.turn.tools} tool event(s)`,
    );
    for (const [digest, a] of Object.entries(row.turn.attempts)) {
      lines.push(
        `    ${digest}: ${a.attempts} attempt(s), ${a.infrastructure_attempts} could not run`,
      );
    }
  }
  if (row.turn?.opt_in && !row.turn.opt_in.gated) {
    lines.push(
      `  not gated: ${row.turn.opt_in.why} (a user-level hook gates only projects that opted in)`,
    );
  }
  if (row.turn?.start_error) lines.push(`  the turn could not start: ${row.turn.start_error}`);
  lines.push(`  last stop: ${lastStopText(row.last_verdict)}`);
  // What the agent was told, first lines (the full text is in --json's last_verdict.message).
  const told = (row.last_verdict?.message ?? "").split("\n").slice(1, 3);
  for (const line of told) if (line.trim() !== "") lines.push(`    ${line}`);
  lines.push(`  cached failures: ${row.cached_failures}`);
  for (const e of row.escalations)
    lines.push(`  turn ${e.turn} ended incomplete (${e.reason}): ${e.effect_digest}`);
  for (const w of row.waivers)
    lines.push(`  waiver (${w.by}, ${w.at}): ${w.effect_digest} — ${w.reason}`);
  return `${lines.join("\n")}\n`;
}
