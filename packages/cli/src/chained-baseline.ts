import { Session } from "@turngate/node";
import type { TurngateConfig } from "./config.js";
import { turnCheckEnvironment } from "./turn.js";
import { carryOf, type TurnCarry, type TurnChain } from "./turn-chain.js";

/** What `startChainedBaseline` gives: the started session and, when chained, the carry. */
export interface ChainedBaseline {
  /**
   * A session whose `baseline` is the snapshot to store: the chain's judged state, or the
   * workspace now when there is no chain. Its `environmentBaseline` and `baselineTree` go
   * beside it (`writeBaseline`).
   */
  session: Session;
  /** With a chain: what the next turn inherits, including the paths changed since it. */
  carry?: TurnCarry;
}

/**
 * Start a turn's baseline the gapless way (docs/cli.md "Gapless turns", issue 32 item 3; used by
 * `turngate baseline` and the hooks' turn start): with `chain` (the state the previous turn
 * was judged on), the baseline is that state, not the workspace now, and the paths that
 * changed since — by the user or another process — are read now and returned in
 * `carry.betweenTurns`; they are rows of the next turn's ledger because they differ from
 * the baseline. Without a chain, the baseline is the workspace as it is now.
 * Input: the workspace root, its loaded configuration, the state folder (for the checks'
 * environment), turngate's environment, the chain or undefined.
 * Output: the session and the carry. Errors: `Session.start`'s and the observer's (a chain
 * of another root is `WorkspaceObserverError`).
 */
export async function startChainedBaseline(options: {
  root: string;
  config: TurngateConfig;
  stateDir: string;
  env: NodeJS.ProcessEnv;
  chain: TurnChain | undefined;
}): Promise<ChainedBaseline> {
  const { root, config, chain } = options;
  const session = await Session.start({
    root,
    ignores: config.ignores,
    ...(config.outputs !== undefined ? { outputs: config.outputs } : {}),
    ...(config.defaultOutputs !== undefined ? { defaultOutputs: config.defaultOutputs } : {}),
    env: options.env,
    checkEnvironment: turnCheckEnvironment(root, config, options.stateDir, undefined),
    ...(chain !== undefined ? { baseline: chain.snapshot } : {}),
    ...(chain?.gitTree !== undefined ? { baselineTree: chain.gitTree } : {}),
  });
  if (chain === undefined) return { session };
  // Only the workspace changes are used; the environment baseline was taken just now.
  const between = (await session.observeWorkspace({ userFiles: false })).changes.map(
    (change) => change.path,
  );
  return { session, carry: carryOf(chain, between) };
}
