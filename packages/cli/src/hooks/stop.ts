import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_MAX_INFRASTRUCTURE_ATTEMPTS,
  decideStop,
  failureCacheKey,
  type StopDecision,
  type StopFailureKind,
} from "@turngate/core";
import { serializeEnvironmentBaseline, writeFileAtomic, writeJsonAtomic } from "@turngate/node";
import * as z from "zod";
import { readBaseline } from "../baseline-store.js";
import { CLI_VERSION, type CliContext, type TextStream } from "../context.js";
import { cachedChecksLine, verdictOf } from "../render.js";
import { runTurn, type TurnResult } from "../turn.js";
import { turnChainPath } from "../turn-chain.js";
import type { HookAnswer } from "./adapters/index.js";
import type { HookTrustJudgement } from "./confine-paths.js";
import { stopTrust, trustText } from "./confine-trust.js";
import { FORGEABLE_WAIVER, type HookEventContext, hookCarry } from "./events.js";
import { decideOptIn, type OptIn } from "./opt-in.js";
import { type HookSession, newSession, readSession, withSession } from "./session-state.js";
import {
  budgetLine,
  budgetSeconds,
  STOP_ANSWER_GRACE_MS,
  type StopBudget,
  startStopBudget,
  stopBudgetMs,
  withinBudget,
} from "./stop-budget.js";
import { betweenTurnsLines, changedLines, summarizeFailure } from "./stop-text.js";

/** Schema id of a cached check failure (`<session dir>/failures/<key>.json`). */
export const CACHED_FAILURE_SCHEMA = "turngate.cached_failure.v1";

const CachedFailureSchema = z.object({
  schema: z.literal(CACHED_FAILURE_SCHEMA),
  key: z.string(),
  effect_digest: z.string(),
  lines: z.array(z.string()),
  created_at: z.string(),
});

/** What a stop concluded, for the answer and the session file. */
interface StopJudgement {
  /** The digest the attempt is counted on (or a marker such as `baseline_missing`). */
  digestKey: string;
  effectDigest: string;
  allowed?: "verified" | "waived" | "narrative" | "distinct";
  failure?: StopFailureKind;
  lines: string[];
  cached: boolean;
  /** The result cache's per-check line (`cached: unit remote`), when the config has `cache`. */
  cachedChecks?: string;
  proofPath?: string;
  /** Writes the turn proof with the stop's `loop` facts (when the turn changed something). */
  writeProof?: TurnResult["writeProof"];
  /** Where `writeProof` writes. */
  proofFile?: string;
}

/**
 * A stop (Stop, SubagentStop, Cursor `stop`; issue 19 items 1, 3, 4): run the gate like
 * `turngate verify` against the session's baseline (its id must match the one the session
 * file recorded at turn start), then apply the loop control (`decideStop`) with turngate's
 * own counters: allow when verified, waived or narrative; otherwise block with what failed,
 * its last lines and the digest — until `max_attempts` stops on one digest (or
 * `max_infrastructure_attempts` whose checks could not run), after which the stop is
 * allowed as `incomplete` / `escalated` with a request for a host waiver. A block that
 * reaches the harness's cap is recorded `incomplete` / `capped`.
 * A failing result whose checks all failed on assertions with a bound report is cached
 * under `failureCacheKey` (source tree + digest + checks + toolchain); an identical stop
 * then replays it without running the checks (`cached: true`). Passes are never cached.
 * Every stop that ran the gate on changes writes the signed turn proof
 * (`<state>/proofs/<digest>.json`) with its `loop` facts (attempt, max_attempts,
 * escalated/capped, cached), whatever the verdict; an incomplete allow names its path.
 * Fail closed: a missing or changed baseline, an unreadable session file, a check that
 * cannot run and any internal error block with a reason; a turn whose start failed blocks
 * with that start's error (issue 34 item 5). A user-level hook lets the stop of a project
 * that did not opt in pass with one line saying why (issue 34 item 4).
 * The whole stop has one time budget below the installed hook's timeout (`stopBudgetMs`,
 * docs/hooks.md "Time budget of a stop"): the clean room's dependency setup and the checks
 * draw from it; when it runs out the running process group is killed, no later check starts,
 * and the stop blocks as `could_not_run` naming the budget and what was running (counted
 * like any check that could not run, so `max_infrastructure_attempts` still escalates). If
 * turngate's own work has not ended `STOP_ANSWER_GRACE_MS` after the budget, the stop
 * answers that block anyway, kills the checks' process groups and the process exits soon
 * after the answer is written.
 * The proof's and the answer's trust (issue 32 item 2, docs/hooks.md "Confined hooks") is
 * `stopTrust`: never more than the turn start's configuration snapshot, the configuration
 * now and what the harness says of this turn (Claude Code's `permission_mode`, Codex's
 * transcript) support; an allow ends with its `trust:` line, the session file keeps it.
 * Output: the answer. Errors: none expected (the caller turns a throw into a block too).
 */
export async function handleStop(event: HookEventContext): Promise<HookAnswer> {
  const { ctx, adapter, root, paths } = event;
  const snapshot: HookSession =
    (await readSession(paths.session)) ?? newSession(adapter.name, event.sessionId, root);
  if (event.userLevel === true) {
    const optIn = snapshot.turn !== null ? snapshot.turn.opt_in : undefinedOnError(ctx.env, root);
    if (optIn !== undefined && !optIn.gated) {
      return {
        kind: "allow",
        notice: `turngate: this project is not gated (${optIn.why}); the user-level hook gates only projects that opted in.`,
      };
    }
  }
  const trust: HookTrustJudgement = await stopTrust(
    adapter.name,
    event.payload,
    root,
    ctx.env,
    ctx.cwd,
    snapshot.turn?.confinement,
  ).catch((error: unknown) => ({
    level: "unsandboxed",
    why: `the sandbox could not be judged: ${(error as Error).message}`,
  }));
  // An internal error is judged like any refusal (counted, escalated after max_attempts), so
  // a hook that fails the same way every time cannot trap the session in a loop (codex#37937).
  const budget = startStopBudget(stopBudgetMs(ctx.env));
  const judgement = await withinBudget(budget, judge(event, snapshot, trust, budget), () =>
    lateJudgement(budget),
  ).catch(
    (error: unknown): JudgeOutput => ({
      result: {
        digestKey: "internal_error",
        effectDigest: "",
        failure: "gate",
        cached: false,
        lines: [
          `turngate could not judge this stop (fail closed): internal error: ${(error as Error).message}. Tell the person; they can fix turngate's setup or waive the turn.`,
        ],
      },
    }),
  );
  budget.release();
  const config = judgement.config;
  const policy = {
    maxAttempts: config?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    maxInfrastructureAttempts:
      config?.maxInfrastructureAttempts ?? DEFAULT_MAX_INFRASTRUCTURE_ATTEMPTS,
    harnessBlockCap: adapter.blockCap(ctx.env),
  };
  const atCap = adapter.atCap(event.payload, ctx.env);
  const decision = await withSession(
    paths,
    () => newSession(adapter.name, event.sessionId, root),
    (session) => {
      const turn = session.turn ?? {
        number: 1,
        started_at: new Date().toISOString(),
        baseline_id: session.baseline_id,
        carried_over: false,
        blocks: 0,
        attempts: {},
        tools: [],
        last: null,
      };
      session.turn = turn;
      const previous = turn.attempts[judgement.result.digestKey];
      const decided = decideStop({
        ...(judgement.result.allowed !== undefined ? { allowed: judgement.result.allowed } : {}),
        ...(judgement.result.failure !== undefined ? { failure: judgement.result.failure } : {}),
        ...(previous
          ? {
              previous: {
                attempts: previous.attempts,
                infrastructureAttempts: previous.infrastructure_attempts,
              },
            }
          : {}),
        blocksThisTurn: turn.blocks,
        harnessAtCap: atCap,
        policy,
      });
      turn.attempts[judgement.result.digestKey] = {
        attempts: decided.attempts.attempts,
        infrastructure_attempts: decided.attempts.infrastructureAttempts,
      };
      turn.blocks = decided.blocksThisTurn;
      const message = answerText(
        decided,
        judgement.result,
        policy.maxAttempts,
        policy.harnessBlockCap,
        trust,
      );
      turn.last = {
        verdict: decided.verdict,
        reason: decided.reason,
        effect_digest: judgement.result.effectDigest,
        attempt: decided.attempts.attempts,
        cached: judgement.result.cached,
        at: new Date().toISOString(),
        message,
        trust: trust.level,
      };
      return { decided, message };
    },
  );
  // Every stop that ran the gate on changes leaves its turn proof, loop facts included
  // (issue 19 item 3: "visible … in the turn proof"), also an escalated or capped one.
  let message = decision.message;
  if (judgement.result.writeProof !== undefined) {
    const { decided } = decision;
    const written = await judgement.result
      .writeProof({
        loop: {
          harness: adapter.name,
          action: decided.action,
          verdict: decided.verdict,
          reason: decided.reason,
          attempt: decided.attempts.attempts,
          max_attempts: policy.maxAttempts,
          cached: judgement.result.cached,
        },
      })
      .then(
        () => "",
        // The decision stands (a failed write must not turn an escalation into another block).
        (error: unknown) => `\nthe turn proof could not be written: ${(error as Error).message}`,
      );
    message = `${message}${written}`;
  }
  if (decision.decided.action === "block") return { kind: "block", reason: message };
  return { kind: "allow", notice: message };
}

/** The judgement of a stop whose own work outlived the budget by `STOP_ANSWER_GRACE_MS`. */
function lateJudgement(budget: StopBudget): JudgeOutput {
  return {
    result: {
      digestKey: "stop_budget",
      effectDigest: "",
      failure: "could_not_run",
      cached: false,
      lines: [
        `${budgetLine(budget.ms, [])} turngate stopped waiting ${budgetSeconds(STOP_ANSWER_GRACE_MS)} after the budget ran out.`,
      ],
    },
  };
}

/** The opt-in decision now, for a stop with no turn recorded; undefined when it cannot be made. */
function undefinedOnError(env: NodeJS.ProcessEnv, root: string): OptIn | undefined {
  try {
    return decideOptIn(root, env);
  } catch {
    return undefined;
  }
}

/** The gate's result for a stop, and the configuration it ran with. */
interface JudgeOutput {
  result: StopJudgement;
  config?: { maxAttempts?: number; maxInfrastructureAttempts?: number };
}

/** The gate's result for this stop, and the configuration it ran with. */
async function judge(
  event: HookEventContext,
  session: HookSession,
  trust: HookTrustJudgement,
  budget: StopBudget,
): Promise<JudgeOutput> {
  const { ctx, root, paths } = event;
  if (session.turn?.start_error !== undefined) {
    return {
      result: {
        digestKey: "turn_start_failed",
        effectDigest: "",
        failure: "gate",
        cached: false,
        lines: [
          `turngate could not start this turn, so it cannot tell what the turn changed: ${session.turn.start_error}. Tell the person; once it is fixed, the next prompt starts the turn again.`,
        ],
      },
    };
  }
  if (session.baseline_id === null || session.turn === null) {
    return {
      result: {
        digestKey: "baseline_missing",
        effectDigest: "",
        failure: "gate",
        cached: false,
        lines: [
          `turngate has no baseline for this ${event.adapter.name} session, so it cannot tell what this turn changed (the turn-start hook did not run: install the hooks with \`turngate hook install ${event.adapter.name}\`, then start a new prompt).`,
        ],
      },
    };
  }
  let baseline: Awaited<ReturnType<typeof readBaseline>>;
  try {
    baseline = await readBaseline(paths.baseline, {
      expectedId: session.baseline_id,
      historyPath: paths.baselineHistory,
      label: paths.baseline,
    });
  } catch (error) {
    return {
      result: {
        digestKey: "baseline_invalid",
        effectDigest: "",
        failure: "gate",
        cached: false,
        lines: [
          `turngate cannot trust this turn's baseline: ${(error as Error).message}. Something other than turngate changed its state folder; a person should look at it.`,
        ],
      },
    };
  }
  const quiet = collector();
  const hookCtx: CliContext = { ...ctx, stdout: quiet, stderr: quiet };
  let cacheKey: string | undefined;
  let replay: string[] | undefined;
  // A waiver applies to the baseline it was recorded against (gapless turns): with another
  // baseline the same digest names other bytes around its rows.
  const waivers = session.waivers
    .filter((w) => w.baseline_id === undefined || w.baseline_id === session.baseline_id)
    .map((w) => ({ effect_digest: w.effect_digest, reason: w.reason }));
  const result = await runTurn(
    {
      root,
      baseline: baseline.snapshot,
      ...(baseline.gitTree ? { baselineTree: baseline.gitTree } : {}),
      config: baseline.config,
      ...(baseline.configSource ? { configSource: baseline.configSource } : {}),
      environment: baseline.environment,
      checks: [],
      waivers,
      state: paths,
      trust: trust.level,
      signing: { format: "dsse" },
      signal: budget.signal,
      // Gapless turns: the state this stop judges is the next turn's baseline.
      chain: { path: turnChainPath(paths.dir), carried: hookCarry(baseline.carry) },
      beforeChecks: async ({ effectDigest, commands, session: turnSession }) => {
        if (waivers.some((w) => w.effect_digest === effectDigest)) return false;
        const tree = await turnSession.sourceTreeNow();
        if (tree.tree === null) return false;
        cacheKey = failureCacheKey({
          sourceTree: tree.tree,
          effectDigest,
          checks: commands,
          toolchain: {
            turngate: CLI_VERSION,
            environment: serializeEnvironmentBaseline(turnSession.environmentBaseline),
          },
        });
        replay = await readCachedFailure(join(paths.failures, `${cacheKey}.json`), effectDigest);
        return replay !== undefined;
      },
    },
    hookCtx,
  );
  await writeHookLog(paths.dir, quiet.text());
  const tools = lastToolByPath(session);
  const verdict = verdictOf(result);
  const cachedChecks = cachedChecksLine(result);
  if (result.outcome.kind === "allow") {
    return {
      config: baseline.config,
      result: {
        digestKey: result.effectDigest,
        effectDigest: result.effectDigest,
        allowed: verdict as "verified" | "waived" | "narrative" | "distinct",
        cached: false,
        lines: [...betweenTurnsLines(result), ...changedLines(result, tools)],
        ...(cachedChecks !== null ? { cachedChecks } : {}),
        ...(result.proofPath ? { proofPath: result.proofPath } : {}),
        ...(result.writeProof && result.proofFile
          ? { writeProof: result.writeProof, proofFile: result.proofFile }
          : {}),
      },
    };
  }
  if (replay !== undefined) {
    return {
      config: baseline.config,
      result: {
        digestKey: result.effectDigest,
        effectDigest: result.effectDigest,
        failure: "assertion",
        cached: true,
        lines: [
          ...replay,
          "(cached: the files are byte for byte those of the last failing run, so the checks were not run again)",
          ...betweenTurnsLines(result),
        ],
        ...(result.writeProof && result.proofFile
          ? { writeProof: result.writeProof, proofFile: result.proofFile }
          : {}),
      },
    };
  }
  const summary = summarizeFailure(result, tools, event.adapter.reasonMaxChars);
  if (budget.signal.aborted) {
    // The budget ran out: whatever the checks that ended said, the stop could not run them all.
    return {
      config: baseline.config,
      result: {
        digestKey: result.effectDigest,
        effectDigest: result.effectDigest,
        failure: "could_not_run",
        cached: false,
        lines: [
          budgetLine(budget.ms, result.verification?.runs ?? []),
          ...summary.lines,
          ...betweenTurnsLines(result),
          ...changedLines(result, tools),
        ],
        ...(result.writeProof && result.proofFile
          ? { writeProof: result.writeProof, proofFile: result.proofFile }
          : {}),
      },
    };
  }
  if (summary.kind === "assertion" && cacheKey !== undefined) {
    await writeCachedFailure(paths.failures, cacheKey, result, summary.lines);
  }
  return {
    config: baseline.config,
    result: {
      digestKey: result.effectDigest,
      effectDigest: result.effectDigest,
      failure: summary.kind,
      cached: false,
      lines: [
        ...summary.lines,
        ...(cachedChecks !== null ? [cachedChecks] : []),
        ...betweenTurnsLines(result),
        ...changedLines(result, tools),
      ],
      ...(result.writeProof && result.proofFile
        ? { writeProof: result.writeProof, proofFile: result.proofFile }
        : {}),
    },
  };
}

/** The text of the answer: what the model (block) or the person (allow) reads. */
function answerText(
  decided: StopDecision,
  result: StopJudgement,
  maxAttempts: number,
  cap: number | null,
  trust: HookTrustJudgement,
): string {
  const digest = result.effectDigest === "" ? "(none)" : result.effectDigest;
  const body = result.lines.join("\n");
  if (decided.action === "allow" && decided.reason === null) {
    const proof = result.proofPath ? `\nproof: ${result.proofPath}` : "";
    const cached = result.cachedChecks ? `\n${result.cachedChecks}` : "";
    const forgeable = decided.verdict === "waived" ? `\n${FORGEABLE_WAIVER}` : "";
    return `turngate: ${decided.verdict}${result.effectDigest ? ` (effect digest ${digest})` : ""}${proof}${cached}${forgeable}\n${trustText(trust)}`;
  }
  if (decided.action === "allow" && decided.reason === "escalated") {
    return [
      `turngate: the turn ends INCOMPLETE (escalated), not verified: the stop was refused ${decided.attempts.attempts - 1} times on the same changes (effect digest ${digest}).`,
      body,
      `To accept these changes without a passing check, a person runs \`turngate waive ${digest} --reason "…"\` in a terminal, or types \`/turngate waive ${digest} <reason>\` as a prompt.`,
      result.proofFile ? `proof: ${result.proofFile}` : "",
      trustText(trust),
    ]
      .filter((l) => l !== "")
      .join("\n");
  }
  if (decided.action === "allow") {
    return [
      `turngate: the turn ends INCOMPLETE (capped), not verified: the harness will not take another block (effect digest ${digest}).`,
      body,
      result.proofFile ? `proof: ${result.proofFile}` : "",
      trustText(trust),
    ]
      .filter((l) => l !== "")
      .join("\n");
  }
  const attempt = `attempt ${decided.attempts.attempts} of ${maxAttempts} on these exact changes`;
  const could = result.failure === "could_not_run";
  const capLine =
    decided.reason === "capped"
      ? `\nThis is the ${cap}th block in this turn, the harness's cap: the turn is recorded INCOMPLETE (capped), not verified.`
      : "";
  // No digest and a gate failure: turngate could not judge the turn at all (no baseline, a
  // turn start that failed, an untrusted baseline, an internal error). Nothing in the code
  // failed, so the model is not told to fix it.
  const unjudged = result.failure === "gate" && result.effectDigest === "";
  if (unjudged) {
    return [
      `turngate blocked the stop: it could not judge this turn (attempt ${decided.attempts.attempts} of ${maxAttempts}).`,
      body,
      `This is not a failure of your code: do what the line above says, or tell the person; then stop again.${capLine}`,
    ]
      .filter((l) => l !== "")
      .join("\n");
  }
  const todo = could
    ? "Make the check able to run (a missing program, a wrong path, a hang), or tell the person it cannot run here; then stop again. Do not edit the check's configuration to make it pass: turngate uses the configuration from the start of the turn."
    : "Fix what failed, then stop again: turngate re-runs the checks on the bytes on disk (every edit changes the digest).";
  return [
    `turngate blocked the stop: the changes of this turn are not verified (effect digest ${digest}; ${attempt}).`,
    body,
    todo + capLine,
  ]
    .filter((l) => l !== "")
    .join("\n");
}

/** The tool that last touched each path in the current turn. */
function lastToolByPath(session: HookSession): Map<string, string> {
  const map = new Map<string, string>();
  for (const row of session.turn?.tools ?? []) if (row.path !== null) map.set(row.path, row.tool);
  return map;
}

/** The lines of a cached failure for `effectDigest`, or undefined (none, malformed, other digest). */
async function readCachedFailure(
  path: string,
  effectDigest: string,
): Promise<string[] | undefined> {
  try {
    const parsed = CachedFailureSchema.safeParse(JSON.parse(await readFile(path, "utf8")));
    if (!parsed.success || parsed.data.effect_digest !== effectDigest) return undefined;
    return parsed.data.lines;
  } catch {
    return undefined;
  }
}

async function writeCachedFailure(
  dir: string,
  key: string,
  result: TurnResult,
  lines: string[],
): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeJsonAtomic(join(dir, `${key}.json`), {
    schema: CACHED_FAILURE_SCHEMA,
    key,
    effect_digest: result.effectDigest,
    lines,
    created_at: new Date().toISOString(),
  });
}

/** Keep what the gate printed (progress, warnings) in `<dir>/hook.log`, last 256 KiB. */
async function writeHookLog(dir: string, text: string): Promise<void> {
  if (text === "") return;
  const path = join(dir, "hook.log");
  const before = await readFile(path, "utf8").catch(() => "");
  const next = `${before}${text}`;
  await writeFileAtomic(path, next.length > 262_144 ? next.slice(-262_144) : next);
}

/** A text sink that keeps what is written. */
function collector(): TextStream & { text(): string } {
  const parts: string[] = [];
  return {
    write(chunk: string) {
      parts.push(chunk);
      return true;
    },
    text: () => parts.join(""),
  };
}
