import { readFile } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";
import { baselineIdOf, recordBaselineHistory, writeBaseline } from "../baseline-store.js";
import { startChainedBaseline } from "../chained-baseline.js";
import { chooseTurnConfig } from "../config-source.js";
import { CLI_VERSION, type CliContext } from "../context.js";
import { BASELINE_HISTORY_FILE } from "../state-dir.js";
import { displayPath } from "../terminal-text.js";
import { readTurnChain, type TurnCarry, type TurnChain, turnChainPath } from "../turn-chain.js";
import type { HarnessAdapter, HookAnswer } from "./adapters/index.js";
import { configTrust } from "./confine-trust.js";
import { decideOptIn, type OptIn } from "./opt-in.js";
import {
  adoptBaseline,
  previousSession,
  type SessionOnDisk,
  takeFreshRequest,
} from "./session-chain.js";
import {
  type HookSession,
  type HookSessionPaths,
  newSession,
  TOOL_ROWS_KEPT,
  TURNS_KEPT,
  withSession,
} from "./session-state.js";
import { parseWaivePrompt } from "./waive-prompt.js";

/**
 * Terminals after which the next prompt starts a new baseline: the state the last stop
 * judged (docs/cli.md "Gapless turns"), never the workspace as it is at the prompt.
 */
export const ENDED_OK: readonly string[] = ["verified", "waived", "narrative", "distinct"];

/**
 * Item 4 of issue 32, said where a waiver is recorded and used: a prompt or a terminal is
 * not a channel an unconfined agent cannot reach.
 */
export const FORGEABLE_WAIVER =
  "An agent that runs unconfined as your user can forge this prompt (it can run `turngate hook` itself) or `turngate waive` (under a fake terminal such as `script`); run the agent confined to rule that out.";

/** What every event handler gets. */
export interface HookEventContext {
  ctx: CliContext;
  adapter: HarnessAdapter;
  payload: Record<string, unknown>;
  root: string;
  sessionId: string;
  paths: HookSessionPaths;
  /**
   * The hook comes from a user-level install (`turngate hook <harness> <event> --user`): it
   * gates only projects that opted in (`decideOptIn`, issue 34 item 4).
   */
  userLevel?: boolean;
}

/**
 * A turn starts (SessionStart, UserPromptSubmit, Cursor `beforeSubmitPrompt`; issue 19
 * item 1): a prompt `/turngate waive <digest> <reason>` records the person's waiver and is
 * kept from the model (where the harness allows); otherwise a baseline is taken in the
 * session's state folder (outside the workspace) and its id kept in the session file —
 * unless the last turn did not end verified, waived or narrative: then the baseline is
 * carried over, so changes no check passed stay in the next stop's digest (fail closed).
 * Gapless turns (docs/cli.md "Gapless turns", issue 32 item 3): after a turn that ended verified,
 * waived or narrative, the new baseline is the state its last stop judged
 * (`<session dir>/turn-chain.json`, written by the stop), not the workspace at the prompt:
 * whatever changed in between — by the person, a background process, or the agent itself
 * after a stop it ran on its own — is a change of the new turn, named "changed between
 * turns, by you or another process". When that judged state is missing or is not the last
 * stop's (its effect digest differs), the old baseline is kept, so no change is dropped.
 * A new session continues the workspace's previous one (docs/hooks.md "A new session
 * continues the last one", `previousSession`) — as does any turn of a session that has no
 * baseline of its own yet (its earlier turn starts failed, or were not gated): its first
 * gated turn starts from the state that
 * session's last stop judged when it ended verified, waived or narrative, else from that
 * session's baseline, taken over byte for byte with the host's waivers of it
 * (`adoptBaseline`), so a change no check passed is never dropped by opening a new session
 * (or by a forged turn-start event with a fresh session id); a session file of the workspace
 * that cannot be read fails the turn start (the stop repeats it). Only the host starts over:
 * `turngate hook fresh` leaves a request that the next turn start of any session takes
 * (`takeFreshRequest`), taking the workspace as it is then, with a warning.
 * A turn with no stop and no tool event yet is reused (SessionStart then UserPromptSubmit).
 * A user-level hook (`event.userLevel`) first decides whether the project opted in
 * (`decideOptIn`; kept when unverified changes are carried over): a project that did not
 * gets a turn with no baseline, whose stop passes with one line (issue 34 item 4).
 * A baseline that cannot be taken (a malformed `turngate.config.json`, …) is recorded as the
 * turn's `start_error`: the answer is an allow with a notice, and the stop repeats the cause
 * (issue 34 item 5); the old baseline, if any, stays, so no change is dropped.
 * Each new turn keeps what the harness's configuration files gave then (`configTrust`,
 * docs/hooks.md "Confined hooks"): its stops never record more trust than that.
 * Output: the answer (allow, or `handled` for a waiver prompt).
 * Errors: session-file errors propagate (the caller answers `allow` with a notice).
 */
export async function handleTurnStart(event: HookEventContext): Promise<HookAnswer> {
  const { ctx, adapter, root, sessionId, paths } = event;
  const waive = parseWaivePrompt(adapter.prompt(event.payload));
  if (waive !== undefined) {
    if ("error" in waive) return { kind: "handled", notice: `turngate: ${waive.error}` };
    await withSession(
      paths,
      () => newSession(adapter.name, sessionId, root),
      (session) => {
        session.waivers.push({
          effect_digest: waive.digest,
          reason: waive.reason,
          by: "prompt",
          at: new Date().toISOString(),
          baseline_id: session.baseline_id,
        });
      },
    );
    return {
      kind: "handled",
      notice: `turngate: waiver recorded for effect digest ${waive.digest} (${waive.reason}); the next stop of this turn whose changes have exactly this digest ends as waived. ${FORGEABLE_WAIVER}`,
    };
  }
  // Read before the turn starts: what the agent changes during the turn cannot raise it.
  const confinement = await configTrust(adapter.name, root, ctx.env, ctx.cwd);
  const notice = await withSession(
    paths,
    () => newSession(adapter.name, sessionId, root),
    async (session) => {
      const turn = session.turn;
      // The host's `turngate hook fresh`: this turn starts over, whatever came before.
      const fresh = await takeFreshRequest(root, ctx.env, paths);
      if (
        fresh === undefined &&
        turn &&
        turn.last === null &&
        turn.tools.length === 0 &&
        session.baseline_id !== null &&
        turn.start_error === undefined
      ) {
        return undefined;
      }
      let startError: string | undefined;
      // Whose state this turn continues: this session's, or — for the first turn of a new
      // session — the workspace's previous session (gapless turns across sessions).
      let prior: SessionOnDisk | undefined;
      let inherited: SessionOnDisk | undefined;
      if (fresh === undefined) {
        // A session without a baseline of its own (a new one, or one whose turns so far could
        // not start or were not gated) continues the workspace's previous session.
        if (session.baseline_id === null) {
          try {
            inherited = await previousSession(root, ctx.env, paths.dir);
          } catch (error) {
            startError = (error as Error).message;
          }
          prior = inherited;
        } else {
          prior = { dir: paths.dir, session };
        }
      }
      const priorTurn = prior?.session.turn ?? null;
      let carry =
        prior !== undefined &&
        prior.session.baseline_id !== null &&
        priorTurn !== null &&
        !(priorTurn.last !== null && ENDED_OK.includes(priorTurn.last.verdict));
      // Gapless turns: the next baseline is the state the last stop judged.
      let chain: TurnChain | undefined;
      let unchained: string | undefined;
      if (prior !== undefined && !carry && prior.session.baseline_id !== null && priorTurn?.last) {
        const last = priorTurn.last;
        chain = await readTurnChain(turnChainPath(prior.dir), root).catch((error: unknown) => {
          unchained = (error as Error).message;
          return undefined;
        });
        if (chain === undefined || chain.effectDigest !== last.effect_digest) {
          unchained ??=
            chain === undefined
              ? "it is not recorded"
              : "the recorded state is not the one the last stop judged";
          chain = undefined;
          carry = true;
        }
      }
      let optIn: OptIn | undefined;
      let between: string[] = [];
      let kept: string | undefined;
      if (event.userLevel === true) {
        // Changes no check passed yet keep the project gated, whatever its config says now.
        if (carry && priorTurn?.opt_in?.gated !== false) {
          optIn = { gated: true, why: "the last turn's changes are not verified yet" };
        } else if (startError === undefined) {
          try {
            optIn = decideOptIn(root, ctx.env);
          } catch (error) {
            // Fail closed: a user config turngate cannot read gates the turn, and the stop
            // repeats why.
            startError = (error as Error).message;
            optIn = { gated: true, why: "the user config could not be read" };
          }
        } else {
          optIn = { gated: true, why: "the turn could not start" };
        }
      }
      if (turn) {
        session.history.push({ number: turn.number, started_at: turn.started_at, last: turn.last });
        session.history = session.history.slice(-TURNS_KEPT);
      }
      if (optIn !== undefined && !optIn.gated) {
        // Not gated: no baseline (a later opted-in turn takes a fresh one).
        session.baseline_id = null;
        session.baseline_taken_at = null;
      } else if (startError === undefined && carry && inherited !== undefined) {
        // A new session after an unverified turn of the last one: its baseline, byte for byte.
        try {
          const adopted = await adoptBaseline(
            inherited,
            {
              baseline: join(inherited.dir, "baseline.json"),
              baselineHistory: join(inherited.dir, BASELINE_HISTORY_FILE),
            },
            paths,
          );
          session.baseline_id = adopted.id;
          session.baseline_taken_at = adopted.takenAt;
          // The host's waivers of that baseline still apply (they name its bytes).
          for (const waiver of inherited.session.waivers) {
            if (waiver.baseline_id !== adopted.id) continue;
            const known = session.waivers.some(
              (w) => w.effect_digest === waiver.effect_digest && w.baseline_id === adopted.id,
            );
            if (!known) session.waivers.push({ ...waiver });
          }
        } catch (error) {
          startError = `the baseline of the previous session (${inherited.session.harness} session ${inherited.session.session_id}) cannot be taken over: ${(error as Error).message}`;
        }
      } else if (!carry && startError === undefined) {
        try {
          ({ between, kept } = await takeBaseline(session, paths, root, ctx, chain));
        } catch (error) {
          startError = (error as Error).message;
        }
      }
      if (inherited !== undefined && startError === undefined) {
        session.continued_from = {
          harness: inherited.session.harness,
          session_id: inherited.session.session_id,
          how: carry ? "carried" : "judged",
          verdict: inherited.session.turn?.last?.verdict ?? null,
        };
      }
      session.turn = {
        number: (turn?.number ?? 0) + 1,
        started_at: new Date().toISOString(),
        baseline_id: session.baseline_id,
        carried_over: carry,
        blocks: 0,
        attempts: {},
        tools: [],
        last: null,
        ...(optIn !== undefined ? { opt_in: optIn } : {}),
        ...(startError !== undefined ? { start_error: startError } : {}),
        confinement,
      };
      if (startError !== undefined) {
        return `turngate: this turn could not start: ${startError}. The next stop will be blocked until this is fixed.`;
      }
      const lines: string[] = [];
      if (fresh !== undefined) {
        lines.push(
          `turngate: warning: starting over, as the host asked (\`turngate hook fresh\`, ${fresh.requested_at}): this turn's baseline is the workspace as it is now, so changes made before it are not checked by this turn.`,
        );
      }
      const from =
        inherited !== undefined
          ? `this is a new session; it continues the workspace's previous session (${inherited.session.harness} session ${inherited.session.session_id})`
          : undefined;
      if (unchained !== undefined && carry) {
        lines.push(
          from !== undefined
            ? `turngate: ${from}, but the state its last stop judged cannot be used (${unchained}); this session keeps that session's baseline, so no change is dropped: its changes stay in this turn's digest.`
            : `turngate: the state the last stop judged cannot be used (${unchained}); this turn keeps the last turn's baseline, so no change is dropped: the last turn's changes stay in this turn's digest.`,
        );
      } else if (carry) {
        const how = priorTurn?.last
          ? `${priorTurn.last.verdict}${priorTurn.last.reason ? `, ${priorTurn.last.reason}` : ""}`
          : "no stop was judged";
        lines.push(
          from !== undefined
            ? `turngate: ${from}, whose last turn did not end verified, waived or narrative (${how}): its changes stay in this session's digest until a passing check or a waiver covers them. To accept them without a passing check, a person runs \`turngate waive DIGEST --reason TEXT\` in a terminal with the digest the next stop names; \`turngate hook fresh\` (host only) starts the workspace over.`
            : `turngate: the last turn did not end verified, waived or narrative (${how}); its changes stay in this turn's digest until a passing check or a waiver covers them.`,
        );
      } else if (from !== undefined) {
        lines.push(
          `turngate: ${from}: this turn starts from the state its last stop judged (${inherited?.session.turn?.last?.verdict ?? "judged"}).`,
        );
      }
      if (kept !== undefined) lines.push(`turngate: ${kept}.`);
      if (between.length > 0) {
        lines.push(
          `turngate: changed between turns, by you or another process: ${between.map(displayPath).join(", ")} (after the last stop was judged and before this prompt); these changes are checked with this turn.`,
        );
      }
      return lines.length > 0 ? lines.join("\n") : undefined;
    },
  );
  return notice === undefined ? { kind: "allow" } : { kind: "allow", notice };
}

/**
 * Take a baseline for `session` into `paths.baseline` and record its id: with `chain`, the
 * state the last stop judged (`startChainedBaseline`), else the workspace now. The
 * configuration is `chooseTurnConfig`'s: one the agent wrote that no waiver accepted is not
 * adopted (docs/cli.md "Configuration the agent wrote").
 * Output: the paths changed since the judged state (`[]` without a chain) and, when the
 * configuration file was not adopted, the line saying so.
 */
async function takeBaseline(
  session: HookSession,
  paths: HookSessionPaths,
  root: string,
  ctx: CliContext,
  chain: TurnChain | undefined,
): Promise<{ between: string[]; kept?: string }> {
  const chosen = chooseTurnConfig(
    root,
    undefined,
    chain?.config,
    [],
    (since) =>
      `\`turngate hook fresh\`${since !== "" ? ` or a waiver of that turn (\`turngate waive ${since} --reason TEXT\`)` : ""}`,
  );
  const config = chosen.config;
  const { session: started, carry } = await startChainedBaseline({
    root,
    config,
    stateDir: paths.dir,
    env: ctx.env,
    chain,
  });
  const id = await writeBaseline(
    paths.baseline,
    started.baseline,
    config,
    CLI_VERSION,
    started.environmentBaseline,
    started.baselineTree,
    carry,
    chosen.source,
  );
  // The id is the SHA-256 of the bytes written; re-read to be sure what is on disk is ours.
  const written = await readFile(paths.baseline);
  if (baselineIdOf(written) !== id) {
    throw new Error(`the baseline ${paths.baseline} changed while it was written`);
  }
  const takenAt = new Date().toISOString();
  await recordBaselineHistory(paths.baselineHistory, { id, taken_at: takenAt });
  session.baseline_id = id;
  session.baseline_taken_at = takenAt;
  return {
    between: carry?.betweenTurns ?? [],
    ...(chosen.kept !== undefined ? { kept: chosen.kept } : {}),
  };
}

/** What a stop's turn inherits from its stored baseline (none for a first turn). */
export function hookCarry(carry: TurnCarry | undefined): TurnCarry {
  return carry ?? { previous: null, unverifiedPaths: [], unverifiedDigests: [], betweenTurns: [] };
}

/**
 * A tool ran (PostToolUse, Cursor `afterFileEdit`, …): record which tool named which path
 * (relative to the workspace when inside it), to name rows in later answers. The digest
 * never comes from here — it is always recomputed from the bytes on disk — and nothing of
 * the payload's tool output is read (a tool or MCP server could claim anything).
 * Output: allow. Errors: the session write's.
 */
export async function handleTool(event: HookEventContext): Promise<HookAnswer> {
  const touch = event.adapter.toolTouch(event.payload);
  if (!touch) return { kind: "allow" };
  await withSession(
    event.paths,
    () => newSession(event.adapter.name, event.sessionId, event.root),
    (session) => {
      if (!session.turn) return;
      const at = new Date().toISOString();
      const rows =
        touch.paths.length === 0
          ? [{ tool: touch.tool, path: null, at }]
          : touch.paths.map((path) => ({
              tool: touch.tool,
              path: workspacePath(event.root, path),
              at,
            }));
      session.turn.tools = [...session.turn.tools, ...rows].slice(-TOOL_ROWS_KEPT);
    },
  );
  return { kind: "allow" };
}

/** `path` relative to `root` when it lies inside it, else as given. */
function workspacePath(root: string, path: string): string {
  if (!isAbsolute(path)) return path;
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}
