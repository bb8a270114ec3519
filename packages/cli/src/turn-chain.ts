import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { CompletionWaiver, GateOutcome } from "@turngate/core";
import { TurngateError } from "@turngate/core";
import {
  loadSnapshot,
  pruneSnapshots,
  type SourceTree,
  snapshotStoreDir,
  storeSnapshot,
  type WorkspaceSnapshot,
  writeFileAtomic,
} from "@turngate/node";
import * as z from "zod";
import {
  type ChainConfig,
  ChainConfigSchema,
  chainConfigFromWire,
  chainConfigToWire,
} from "./config-source.js";
import type { CliContext } from "./context.js";
import { shownPath } from "./terminal-text.js";
import {
  CHAIN_RECORD_FILE,
  chainTextDigest,
  readChainRecord,
  writeChainRecord,
} from "./turn-chain-record.js";

/** Schema id of the turn chain file (`<state dir>/turn-chain.json`). */
export const TURN_CHAIN_SCHEMA = "turngate.turn-chain.v1";

/** File name of the turn chain in the state folder (`.turngate/` or `--state-dir`). */
export const TURN_CHAIN_FILE = "turn-chain.json";

/** Environment variable by which the host consents to `turngate run --fresh` without a terminal. */
export const ALLOW_FRESH_ENV = "TURNGATE_ALLOW_FRESH";

/**
 * What `turngate run` keeps between turns (docs/cli.md "Gapless turns", issue 32 item 3): the
 * state the last turn was judged on — the next turn's baseline — and the paths it left
 * unverified.
 */
export interface TurnChain {
  /** The workspace root the chain belongs to (absolute). */
  root: string;
  /** When the turn was decided (ISO 8601). */
  endedAt: string;
  /** How it ended: `verified`, `waived`, `narrative`, or `incomplete`/`continue`. */
  verdict: string;
  /** Its gate reason when it was not allowed, else null. */
  reason: string | null;
  /** Its effect digest (`""` when it changed nothing). */
  effectDigest: string;
  /** Paths no passing check or waiver has covered yet, sorted; `[]` after an allowed turn. */
  unverifiedPaths: string[];
  /**
   * The effect digests of the unverified turns since the last allowed one, oldest first:
   * a host that waives all of them (`--waive DIGEST:REASON`) lets a turn that changes
   * nothing end `waived`.
   */
  unverifiedDigests: string[];
  /** The workspace as the turn was judged (`Session.judgedSnapshot`). */
  snapshot: WorkspaceSnapshot;
  /**
   * When turngate last sealed the workspace's clean room in this chain (ms since the epoch,
   * `Session.roomSealedMs` of the last turn that wrote the room's manifest; a turn that does
   * not open the room copies it forward), or null when no turn of the chain did. The next
   * turn trusts the room's records only when written before it (docs/design.md §3b "Gapless
   * turns"): what an agent writes in the room during a turn that changes nothing is after it.
   * Absent in chains written before (read as null: the room is re-proven once).
   */
  roomSealedAt?: number | null;
  /** Its git tree id of the source scope, or why there is none. */
  gitTree?: SourceTree;
  /**
   * The configuration it ran with and whether the file on disk is one the agent wrote and the
   * host has not accepted (docs/cli.md "Configuration the agent wrote"); absent in chains
   * written before: the next turn reads the file.
   */
  config?: ChainConfig;
}

/**
 * What one turn inherits from the turns before it (docs/cli.md "Gapless turns"), when the caller
 * already knows it instead of `runTurn` reading the chain file: `turngate verify` (read from
 * the baseline `turngate baseline` stored) and the hooks' stop (from the session file).
 */
export interface TurnCarry {
  /** The previous judged turn, or null (none, or a fresh start). */
  previous: {
    verdict: string;
    reason: string | null;
    endedAt: string;
    /**
     * The chain's `roomSealedAt` (ms, or null: no turn sealed the room); absent in a carry
     * stored before it existed (the room's trust anchor is then the previous turn's end).
     */
    roomSealedAt?: number | null;
  } | null;
  /** Paths the previous turns left unverified (sorted); `[]` after an allowed turn. */
  unverifiedPaths: string[];
  /** Their effect digests, oldest first (`TurnChain.unverifiedDigests`). */
  unverifiedDigests: string[];
  /**
   * Paths that changed after the previous turn was judged and before this turn's baseline
   * was stored: "changed between turns, by you or another process" (rows of this turn).
   */
  betweenTurns: string[];
}

/** The carry of a chain read back (`readTurnChain`), with the paths changed since it. */
export function carryOf(chain: TurnChain, betweenTurns: readonly string[]): TurnCarry {
  return {
    previous: {
      verdict: chain.verdict,
      reason: chain.reason,
      endedAt: chain.endedAt,
      roomSealedAt: chain.roomSealedAt ?? null,
    },
    unverifiedPaths: [...chain.unverifiedPaths],
    unverifiedDigests: [...chain.unverifiedDigests],
    betweenTurns: [...betweenTurns],
  };
}

/**
 * The host's request to start a turn chain over (`turngate run --fresh`, `turngate baseline
 * --fresh`; docs/cli.md "Gapless turns") for the chain at `chainPath`. Allowed when standard
 * input is a terminal or `TURNGATE_ALLOW_FRESH=1` is in turngate's environment; then prints
 * a warning on stderr naming what the previous turn left unverified and a configuration file
 * the agent wrote that the new chain adopts (docs/cli.md "Configuration the agent wrote"; a
 * damaged chain is only named). Errors: `TurngateError` `fresh_needs_host` otherwise, saying how to consent.
 */
export async function startFresh(chainPath: string, root: string, ctx: CliContext): Promise<void> {
  const tty = ctx.stdinIsTTY ?? process.stdin.isTTY === true;
  if (!tty && ctx.env[ALLOW_FRESH_ENV] !== "1") {
    throw new TurngateError(
      "fresh_needs_host",
      `--fresh drops the turn chain (what the previous turns were judged on and left unverified), so only the host may ask for it: run turngate from an interactive terminal, or set ${ALLOW_FRESH_ENV}=1 in turngate's environment (turngate removes it from the agent's)`,
    );
  }
  let unverified = "";
  try {
    const chain = await readTurnChain(chainPath, root);
    if (chain !== undefined && chain.unverifiedPaths.length > 0) {
      unverified = ` (the previous turn left these unverified: ${chain.unverifiedPaths.join(", ")})`;
    }
    if (chain?.config !== undefined && chain.config.pendingSince !== null) {
      unverified += `; it adopts ${shownPath(root, chain.config.path)}, which the agent wrote in the turn with effect digest ${chain.config.pendingSince || '""'}: review it first`;
    }
  } catch (error) {
    unverified = ` (the previous chain could not be read: ${(error as Error).message})`;
  }
  ctx.stderr.write(
    `turngate: warning: --fresh: starting over: this turn's baseline is the workspace as it is now, so changes made before it are not checked by this turn${unverified}\n`,
  );
}

const ChainFileSchema = z
  .object({
    schema: z.literal(TURN_CHAIN_SCHEMA),
    root: z.string(),
    ended_at: z.string(),
    verdict: z.string(),
    reason: z.string().nullable(),
    effect_digest: z.string(),
    unverified_paths: z.array(z.string()),
    unverified_digests: z.array(z.string()),
    git_tree: z.object({ tree: z.string().nullable(), reason: z.string().nullable() }).optional(),
    config: ChainConfigSchema.optional(),
    room_sealed_at: z.number().nullable().optional(),
    snapshot: z.unknown(),
  })
  .strict();

/** `<state dir>/turn-chain.json`. */
export function turnChainPath(stateDir: string): string {
  return join(stateDir, TURN_CHAIN_FILE);
}

/**
 * Read the turn chain at `path` for the workspace `root`; `undefined` when there is none
 * (the first `turngate run` of this workspace and state folder).
 * Errors: `TurngateError` `turn_chain_invalid` when the file is not JSON, not a
 * `turngate.turn-chain.v1` or its snapshot is malformed, and `turn_chain_other_root` when
 * it belongs to another workspace (a state folder shared by two workspaces); both name the
 * file and the fix (`turngate run --fresh`, by the host); `turn_chain_missing` when the file
 * is gone though the record outside the workspace (`turn-chain-record.ts`) says turngate
 * wrote one, and `turn_chain_invalid` when the file is not the chain that record names (it
 * was replaced). Never silently starts over: a damaged or removed chain must not make an
 * unverified change disappear.
 */
export async function readTurnChain(path: string, root: string): Promise<TurnChain | undefined> {
  const record = await readChainRecord(chainSnapshotDir(path));
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      throw invalidChain(path, (error as Error).message);
    }
    if (record === undefined) return undefined;
    throw new TurngateError(
      "turn_chain_missing",
      `the turn chain ${path} is gone, but turngate wrote one (its turn ended at ${record.endedAt}; recorded in ${join(chainSnapshotDir(path), CHAIN_RECORD_FILE)}): starting over would drop what the earlier turns left unverified; as the host, start over with \`turngate run --fresh\` (it takes the workspace as it is now as the baseline)`,
    );
  }
  if (record !== undefined && chainTextDigest(text) !== record.sha256) {
    throw invalidChain(
      path,
      `it is not the chain turngate last wrote (its SHA-256 differs from the one recorded in ${join(chainSnapshotDir(path), CHAIN_RECORD_FILE)}): it was replaced or edited`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw invalidChain(path, `not JSON: ${(error as Error).message}`);
  }
  const parsed = ChainFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join(".")}` : "";
    throw invalidChain(
      path,
      `not a ${TURN_CHAIN_SCHEMA} file${where}: ${issue?.message ?? "invalid"}`,
    );
  }
  const file = parsed.data;
  if (file.root !== root) {
    throw new TurngateError(
      "turn_chain_other_root",
      `the turn chain ${path} belongs to the workspace ${file.root}, not ${root}: give each workspace its own --state-dir, or start this workspace over with \`turngate run --fresh\` (host only)`,
    );
  }
  let snapshot: WorkspaceSnapshot;
  try {
    snapshot = await loadSnapshot(chainSnapshotDir(path), file.snapshot);
  } catch (error) {
    throw invalidChain(path, `snapshot: ${(error as Error).message}`);
  }
  const chain: TurnChain = {
    root: file.root,
    endedAt: file.ended_at,
    verdict: file.verdict,
    reason: file.reason,
    effectDigest: file.effect_digest,
    unverifiedPaths: file.unverified_paths,
    unverifiedDigests: file.unverified_digests,
    snapshot,
    roomSealedAt: file.room_sealed_at ?? null,
  };
  if (file.config) chain.config = chainConfigFromWire(file.config);
  if (file.git_tree) {
    chain.gitTree =
      file.git_tree.tree !== null
        ? { tree: file.git_tree.tree, reason: null }
        : { tree: null, reason: file.git_tree.reason ?? "no git tree id" };
  }
  return chain;
}

/**
 * The folder holding a turn chain's entries file (`snapshotStoreDir` of its state folder,
 * outside the workspace; see `storeSnapshot`).
 */
export function chainSnapshotDir(chainPath: string): string {
  return snapshotStoreDir(dirname(chainPath), "chain");
}

/**
 * Store `chain` at `path` atomically (temporary file + rename), as
 * `turngate.turn-chain.v1` JSON; the snapshot's entries go to a content-addressed file in
 * {@link chainSnapshotDir} (not written again when unchanged), and the files no longer named
 * are removed after the chain is written; then the record of it (`writeChainRecord`) goes
 * beside them. Errors: the `fs` error of a write.
 */
export async function writeTurnChain(path: string, chain: TurnChain): Promise<void> {
  const snapshot = await storeSnapshot(chainSnapshotDir(path), chain.snapshot);
  const file = {
    schema: TURN_CHAIN_SCHEMA,
    root: chain.root,
    ended_at: chain.endedAt,
    verdict: chain.verdict,
    reason: chain.reason,
    effect_digest: chain.effectDigest,
    unverified_paths: chain.unverifiedPaths,
    unverified_digests: chain.unverifiedDigests,
    ...(chain.gitTree ? { git_tree: chain.gitTree } : {}),
    ...(chain.config ? { config: chainConfigToWire(chain.config) } : {}),
    ...(chain.roomSealedAt !== undefined ? { room_sealed_at: chain.roomSealedAt } : {}),
    snapshot,
  };
  const text = `${JSON.stringify(file)}\n`;
  await writeFileAtomic(path, text);
  await writeChainRecord(chainSnapshotDir(path), text, chain.endedAt);
  if (snapshot.entries_file !== undefined) {
    await pruneSnapshots(chainSnapshotDir(path), [snapshot.entries_file.sha256]);
  }
}

/**
 * The paths a turn leaves unverified for the next one: none after an allowed turn
 * (verified: the checks passed on the whole workspace; waived; narrative, which after an
 * unverified turn is never the outcome), else the earlier unverified paths plus this
 * turn's ledger paths, sorted and distinct. Pure.
 */
export function unverifiedAfter(
  outcome: GateOutcome,
  previous: readonly string[],
  ledgerPaths: readonly string[],
): string[] {
  if (outcome.kind === "allow") return [];
  return [...new Set([...previous, ...ledgerPaths])].sort();
}

/**
 * The effect digests still unverified after a turn: none after an allowed turn, else the
 * earlier ones plus this turn's (when it changed something), distinct, in order. Pure.
 */
export function unverifiedDigestsAfter(
  outcome: GateOutcome,
  previous: readonly string[],
  effectDigest: string,
): string[] {
  if (outcome.kind === "allow") return [];
  return [...new Set([...previous, ...(effectDigest === "" ? [] : [effectDigest])])];
}

/**
 * The gate outcome of a turn that changed nothing after turns that left `paths` (effect
 * digests `digests`) unverified: `waived` (the last digest) when the host's `waivers` name
 * every one of `digests`, else `incomplete` with reason `unverified_carry_over` — never
 * `narrative`. `fresh` names the host's way to start over (default `turngate run --fresh`).
 * Pure.
 */
export function carryOverOutcome(
  paths: readonly string[],
  digests: readonly string[],
  waivers: readonly CompletionWaiver[],
  fresh = "turngate run --fresh",
): GateOutcome {
  const waived = new Set(waivers.map((waiver) => waiver.effect_digest));
  const last = digests.at(-1);
  if (last !== undefined && digests.every((digest) => waived.has(digest))) {
    return { kind: "allow", terminal: { kind: "waived", effect_digest: last } };
  }
  const waive =
    digests.length > 0
      ? `, or, as the host, accept ${digests.length === 1 ? "that change" : "those changes"} with ${digests.map((d) => `--waive ${d}:REASON`).join(" ")}`
      : "";
  return {
    kind: "incomplete",
    reason: "unverified_carry_over",
    message: `completion gate: this turn changed nothing, but an earlier turn's changes are still unverified (${paths.join(", ")}): they are in the workspace and no passing check covers them. Change the code so the checks pass (the next turn's checks run on them)${waive}, or, as the host, start over with \`${fresh}\``,
    effect_digest: "",
    paths: [...paths],
  };
}

function invalidChain(path: string, message: string): TurngateError {
  return new TurngateError(
    "turn_chain_invalid",
    `invalid turn chain ${path}: ${message}; as the host, start over with \`turngate run --fresh\` (it takes the workspace as it is now as the baseline)`,
  );
}
