/**
 * `turngate run --confine` (docs/guarantees.md "Confined agents", docs/design.md §3b): set up the
 * confined agent's sandbox for one turn — probe bubblewrap (failing closed), make the
 * placeholders of the absent gate files (`makeGatePlaceholders`), make the private `TMPDIR`,
 * resolve what the agent may write, read and see (`confinePlan` of `@turngate/node`) and
 * wrap the agent command in the launcher, with the seccomp filter that refuses new unix
 * sockets (`unixSocketFilter`) given to bubblewrap on fd 4.
 */
import { chmodSync, closeSync, copyFileSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { TurngateError } from "@turngate/core";
import {
  type AgentNetwork,
  type AgentSurvivor,
  type ConfinePlan,
  confineArgs,
  confinedAgentEnv,
  confineGatePaths,
  confinePlan,
  EGRESS_BOOTSTRAP,
  EGRESS_PROXY_PORT,
  EgressProxy,
  egressProxyEnv,
  findOnPath,
  type GatePlaceholders,
  harnessGateFiles,
  makeGatePlaceholders,
  type NativeEgress,
  nativeEgress,
  type PlaceholderRemoval,
  parseEgressAllow,
  probeSandbox,
  removeLeftoverPlaceholders,
  TURNGATE_DIR,
  unixSocketFilter,
  unixSocketFilterSupports,
} from "@turngate/node";
import { AgentSpawnError } from "./agent.js";
import type { TextStream } from "./context.js";
import { cliPackageRoot } from "./package-root.js";

/**
 * The launcher run inside the sandbox: reports the start on fd 3, closes it (and fd 4, the
 * seccomp filter's pipe, should bubblewrap have left it open), runs the agent.
 */
const LAUNCHER = 'printf started >&3; exec 3>&- 4<&-; exec "$@"';

/** The file descriptor of the IPC channel the egress bootstrap hands its socket over. */
export const EGRESS_CHANNEL_FD = 5;

/**
 * The launcher of an agent whose network goes through turngate's proxy: first the egress
 * bootstrap (`EGRESS_BOOTSTRAP`, with the Node that runs turngate and without the user's
 * `NODE_OPTIONS`), which listens inside the sandbox's network namespace and hands the socket
 * to turngate over the IPC channel on fd {@link EGRESS_CHANNEL_FD}; exit 125 when it could
 * not (its reason is on stderr, and the agent never runs). Then the channel is closed and its
 * variables unset, and the agent starts as with {@link LAUNCHER}.
 */
function proxiedLauncher(node: string): string {
  return `NODE_OPTIONS= ${shellQuote(node)} -e ${shellQuote(EGRESS_BOOTSTRAP)} || exit ${EGRESS_BOOTSTRAP_FAILED}; exec ${EGRESS_CHANNEL_FD}>&-; unset NODE_CHANNEL_FD NODE_CHANNEL_SERIALIZATION_MODE; ${LAUNCHER}`;
}

/**
 * The launcher with the native egress bootstrap (`turngate-egress`, copied into the agent's
 * private `TMPDIR`: turngate's own package may be hidden in the sandbox): it listens inside
 * the sandbox's network namespace and sends the socket over the channel on fd
 * {@link EGRESS_CHANNEL_FD}; exit 125 when it could not. Then the channel is closed and the
 * agent starts as with {@link LAUNCHER}.
 */
function nativeEgressLauncher(helper: string): string {
  return `${shellQuote(helper)} ${EGRESS_CHANNEL_FD} ${EGRESS_PROXY_PORT} || exit ${EGRESS_BOOTSTRAP_FAILED}; exec ${EGRESS_CHANNEL_FD}>&-; ${LAUNCHER}`;
}

/** `text` as one single-quoted POSIX shell word. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

/** The file descriptor bubblewrap reads the seccomp filter from (`--seccomp 4`). */
export const SECCOMP_FD = 4;

/** A confined agent, ready to start (`confineAgent`). */
export interface ConfinedAgent {
  /** The command to spawn: bubblewrap, its arguments, the launcher and the agent command. */
  argv: string[];
  /** The agent's environment (`TURNGATE_*` removed, `TMPDIR` private). */
  env: NodeJS.ProcessEnv;
  /**
   * The compiled seccomp filter (`unixSocketFilter`): the caller writes it to the command's
   * fd {@link SECCOMP_FD} (`runAgent`'s `seccompFilter`), where `argv` tells bubblewrap to
   * read it.
   */
  seccompFilter: Buffer;
  /** What the sandbox gives (for tests and `--json`'s future use). */
  plan: ConfinePlan;
  /**
   * The agent's egress proxy when its network is `proxy` (the default): the caller gives
   * the command the channel on fd {@link EGRESS_CHANNEL_FD} and serves the socket the
   * sandbox hands over on it (`runAgent`'s `egress`); `cleanup` closes it.
   */
  egress?: EgressProxy;
  /**
   * With the native bootstrap (`nativeEgress`), its channel: fd {@link EGRESS_CHANNEL_FD}
   * is `sandbox`, and the socket arrives on `host` (`receive`); without it, the channel is
   * Node's IPC channel. `cleanup` closes both ends.
   */
  egressChannel?: { host: number; sandbox: number; receive: NativeEgress["receive"] };
  /**
   * The gate files that did not exist and got a read-only placeholder for this turn
   * (`makeGatePlaceholders`), absolute paths.
   */
  placeholders: string[];
  /**
   * Remove the private `TMPDIR` and the placeholders (call once the sandbox has ended and
   * before the workspace is observed). Output: which placeholders were removed, and which were
   * kept because someone else wrote them meanwhile. Never throws.
   */
  cleanup(): PlaceholderRemoval;
}

/** What `confineAgent` needs besides the agent command. */
export interface ConfineAgentOptions {
  /** The workspace root and where the agent starts. */
  root: string;
  cwd: string;
  /** The host's environment (turngate's own: it names the hidden folders). */
  hostEnv: NodeJS.ProcessEnv;
  /** The agent's environment before scrubbing (signing key and consent already removed). */
  agentEnv: NodeJS.ProcessEnv;
  stateDir?: string;
  keyFile?: string;
  configFile?: string;
  /** `agent_writable` entries from the configuration (`~/` expanded here). */
  agentWritable?: readonly string[];
  /** Whether the agent gets its own session (no terminal); see `agentDetachedByDefault`. */
  newSession: boolean;
  /** `agent_network`: `proxy` (default) or `host`. */
  network?: AgentNetwork;
  /** `agent_network.allow`: `host:port` destinations on this machine the proxy lets through. */
  networkAllow?: readonly string[];
}

/**
 * Prepare the confined agent of one turn. bubblewrap must start here (`probeSandbox`);
 * otherwise the turn fails before the agent runs — a confined turn is never silently run
 * unconfined.
 * Every gate path of `confineGatePaths` that does not exist gets an empty placeholder, journaled
 * in the state folder (`stateDir`, else `<root>/.turngate`), which the sandbox binds
 * read-only: the agent can create no gate file (docs/design.md §3b).
 * Output: {@link ConfinedAgent}; the caller runs `argv` with `env`, a start report on fd 3 and
 * `seccompFilter` on fd {@link SECCOMP_FD}, and calls `cleanup` once the agent's sandbox has
 * ended and before it observes the workspace.
 * Errors: `TurngateError` `confine_unavailable` naming why bubblewrap cannot start and the
 * fix, or that the seccomp filter does not know this machine's architecture (only x86_64
 * and aarch64; docs/design.md §3b), or that a placeholder could not be made;
 * `AgentSpawnError` when the agent program is not found on the agent's `PATH`.
 */
export async function confineAgent(
  agent: readonly string[],
  options: ConfineAgentOptions,
): Promise<ConfinedAgent> {
  const sandbox = await probeSandbox(options.hostEnv);
  if (!sandbox.available) {
    throw new TurngateError(
      "confine_unavailable",
      `--confine (or "confine_agent": true) needs bubblewrap, which cannot start a sandbox here: ${sandbox.reason}. turngate does not run a confined turn unconfined: fix the sandbox, or drop --confine / "confine_agent" (then the agent runs as your user and can forge a waiver or a prompt event)`,
    );
  }
  if (!unixSocketFilterSupports(process.arch)) {
    throw new TurngateError(
      "confine_unavailable",
      `--confine (or "confine_agent": true) needs the seccomp filter that refuses unix sockets to the agent, and it is written for x86_64 and aarch64 only, not ${process.arch}: without it the agent could ask a server of yours outside the sandbox (tmux, D-Bus, docker) to act for it. turngate does not run a confined turn without it: drop --confine / "confine_agent" (then the agent runs as your user and can forge a waiver or a prompt event)`,
    );
  }
  const program = agent[0] ?? "";
  if (!program.includes("/") && findOnPath(program, options.agentEnv.PATH ?? "") === undefined) {
    throw new AgentSpawnError(
      agent.join(" "),
      `${program} not found on PATH; check the command after --`,
    );
  }
  const home = options.hostEnv.HOME || homedir();
  const writable = (options.agentWritable ?? []).map((entry) =>
    entry.startsWith("~/") ? join(home, entry.slice(2)) : entry,
  );
  // The gate files that do not exist get placeholders, bound read-only like the others, so
  // the agent cannot create them either (removed before the workspace is observed).
  const workspace = realpathSync(options.root);
  let placeholders: GatePlaceholders;
  try {
    placeholders = makeGatePlaceholders(
      workspace,
      options.stateDir ?? join(workspace, TURNGATE_DIR),
      confineGatePaths(workspace, options.agentWritable ?? []),
    );
  } catch (error) {
    throw new TurngateError(
      "confine_unavailable",
      `--confine could not make the placeholders that keep the absent gate files (turngate.config.json, the harnesses' hook settings) from being created by the agent: ${(error as Error).message}. turngate does not run a confined turn without them: make the workspace writable to turngate, or drop --confine`,
    );
  }
  let privateTmp: string;
  try {
    privateTmp = mkdtempSync(join(tmpBase(options.root), "turngate-agent-tmp-"));
  } catch (error) {
    placeholders.remove();
    throw error;
  }
  let cliRoot: string | undefined;
  try {
    cliRoot = cliPackageRoot();
  } catch {
    cliRoot = undefined;
  }
  const plan = confinePlan({
    workspace: options.root,
    cwd: options.cwd,
    tmpdir: privateTmp,
    env: options.hostEnv,
    ...(options.stateDir !== undefined ? { stateDir: options.stateDir } : {}),
    ...(options.keyFile !== undefined ? { keyFile: options.keyFile } : {}),
    ...(options.configFile !== undefined ? { configFile: options.configFile } : {}),
    readOnly: harnessGateFiles(workspace, options.hostEnv),
    hide: cliRoot !== undefined ? [cliRoot] : [],
    agentWritable: writable,
    newSession: options.newSession,
    network: options.network ?? "proxy",
  });
  const egress =
    plan.network === "proxy"
      ? new EgressProxy({
          allow: (options.networkAllow ?? []).flatMap((entry) => {
            const parsed = parseEgressAllow(entry);
            return typeof parsed === "string" ? [] : [parsed];
          }),
        })
      : undefined;
  const env = confinedAgentEnv(options.agentEnv, plan.tmpdir);
  const native = egress !== undefined ? nativeEgressIn(options.hostEnv, plan.tmpdir) : undefined;
  const launcher =
    egress === undefined
      ? LAUNCHER
      : native !== undefined
        ? nativeEgressLauncher(native.helper)
        : proxiedLauncher(process.execPath);
  return {
    argv: [
      sandbox.bwrap,
      ...confineArgs(plan, SECCOMP_FD),
      "--",
      "/bin/sh",
      "-c",
      launcher,
      "turngate-agent",
      ...agent,
    ],
    env: egress !== undefined ? egressProxyEnv(env) : env,
    seccompFilter: unixSocketFilter(),
    plan,
    ...(egress !== undefined ? { egress } : {}),
    ...(native !== undefined ? { egressChannel: native.channel } : {}),
    placeholders: placeholders.created.filter((p) => p.role === "gate").map((p) => p.path),
    cleanup() {
      egress?.close();
      if (native !== undefined) {
        // An end runAgent closed already is -1 (its number may belong to another file now).
        for (const end of ["host", "sandbox"] as const) {
          const fd = native.channel[end];
          native.channel[end] = -1;
          if (fd < 0) continue;
          try {
            closeSync(fd);
          } catch {
            // closed already
          }
        }
      }
      rmSync(privateTmp, { recursive: true, force: true });
      return placeholders.remove();
    },
  };
}

/**
 * The native egress bootstrap for one confined turn (`nativeEgress`): its program copied into
 * the agent's private temporary folder `tmp` (visible in the sandbox, where turngate's own
 * package may be hidden) and a fresh channel; undefined when the addon or its program is not
 * built, or the copy or the channel cannot be made (the Node bootstrap is used then).
 */
function nativeEgressIn(
  env: NodeJS.ProcessEnv,
  tmp: string,
): { helper: string; channel: NonNullable<ConfinedAgent["egressChannel"]> } | undefined {
  const native = nativeEgress(env);
  if (native === undefined) return undefined;
  try {
    const helper = join(tmp, ".turngate-egress");
    copyFileSync(native.helper, helper);
    chmodSync(helper, 0o555);
    const [host, sandbox] = native.channel();
    return { helper, channel: { host, sandbox, receive: native.receive } };
  } catch {
    return undefined;
  }
}

/**
 * The line after a confined agent that exited non-zero (found by the new-user trial: tools
 * that write a cache in the home folder fail with "read-only file system" and say nothing of
 * the sandbox): what it may write, and how to give a tool a cache it can write.
 */
export const CONFINED_AGENT_FAILED_HINT =
  'turngate: the agent ran confined: it can write only the workspace and its private $TMPDIR; your home folder, tool caches (~/.npm, ~/go, ~/.cargo, ~/.cache) and /tmp are read-only to it, and its network goes through turngate\'s proxy (HTTPS_PROXY). If a tool failed on a read-only file system, point its cache at $TMPDIR or the workspace (npm --cache "$TMPDIR/npm", GOPATH="$TMPDIR/go"), or list the folder in "agent_writable" in turngate.config.json\n';

/**
 * The line naming what the confined agent's egress proxy refused (`EgressProxy.refused`),
 * or undefined when it refused nothing: the destinations (the first 5, then a count) with
 * why, and how to allow one. For stderr after the agent's turn.
 */
export function egressRefusedLine(egress: EgressProxy | undefined): string | undefined {
  if (egress === undefined || egress.refusedCount === 0) return undefined;
  const shown = egress.refused.slice(0, 5).map((r) => `${r.destination} (${r.reason})`);
  const more = egress.refusedCount - shown.length;
  return `turngate: the confined agent's network proxy refused ${egress.refusedCount} connection${egress.refusedCount === 1 ? "" : "s"} to this machine: ${shown.join(", ")}${more > 0 ? `, +${more} more` : ""}. A server of yours outside the sandbox would have acted for the agent unconfined; to let the agent reach one, list it in turngate.config.json: "agent_network": {"allow": ["host:port"]}\n`;
}

/** The folder the private `TMPDIR` is made in: the system's, unless it lies in the workspace. */
function tmpBase(root: string): string {
  const base = tmpdir();
  const rel = base.startsWith(root) ? base.slice(root.length) : undefined;
  if (rel !== undefined && (rel === "" || rel.startsWith("/"))) return "/tmp";
  return isAbsolute(base) ? base : "/tmp";
}

/** The launcher's exit code when the egress bootstrap could not start the proxy. */
export const EGRESS_BOOTSTRAP_FAILED = 125;

/**
 * The error of a confined turn whose sandbox was not set up (bubblewrap exited before the
 * agent started): its message is above, on stderr. Exit {@link EGRESS_BOOTSTRAP_FAILED} is
 * the egress bootstrap's failure, named as such. `TurngateError` `confine_failed`.
 */
export function confineFailed(exitCode: number): TurngateError {
  if (exitCode === EGRESS_BOOTSTRAP_FAILED) {
    return new TurngateError(
      "confine_failed",
      `the confined agent's network proxy could not start in its sandbox (its message is above): the agent did not run. If the machine refuses it, "agent_network": "host" in turngate.config.json gives the agent the host's network instead (a server of yours on 127.0.0.1 could then act for it), or drop --confine`,
    );
  }
  return new TurngateError(
    "confine_failed",
    `bubblewrap could not set up the confined agent's sandbox (exit ${exitCode}; its message is above): the agent did not run. Check that the workspace, the state folder and every agent_writable folder exist, or drop --confine`,
  );
}

/**
 * The survivors of a confined turn without bubblewrap's own teardown (docs/guarantees.md,
 * "Confined agents"): bubblewrap's outer process reports the agent's exit as soon as its
 * init inside the PID namespace sends the status, so that init (the same command line,
 * `argv`, reparented to turngate) can still be ending when the survivors are first looked
 * for, and was listed as a process "the agent left running". Only such a process that
 * `exited` by itself within the grace is dropped: nothing the agent starts outlives the
 * namespace's init, and one that had to be killed, or could not be, is still reported.
 * Input: the settlement's survivors and the confined agent's `argv`. Output: the
 * survivors to report. Such an init read as a zombie (`[bwrap]`: no arguments left) is the
 * same process. Pure.
 */
export function withoutSandboxTeardown(
  survivors: readonly AgentSurvivor[],
  argv: readonly string[],
): AgentSurvivor[] {
  const own = argv.join(" ");
  // Read while it was already a zombie, the init's command line is its name in brackets
  // (`process-table.ts`: the kernel keeps no arguments then; names are cut at 15 bytes).
  const program = argv[0] ?? "";
  const zombie = `[${program.slice(program.lastIndexOf("/") + 1).slice(0, 15)}]`;
  return survivors.filter(
    (survivor) =>
      !(
        survivor.outcome === "exited" &&
        (survivor.command_line === own || survivor.command_line === zombie)
      ),
  );
}

/**
 * Remove what a confined turn that never ended (turngate killed while its agent ran) left in
 * the workspace: the gate-file placeholders its journal in `stateDir` names
 * (`removeLeftoverPlaceholders`, docs/design.md §3b), before a turn reads the configuration
 * or observes the workspace. One line on `stderr` says what was removed, and one names any
 * placeholder kept because someone else wrote it meanwhile. Never throws.
 */
export function removeConfineLeftovers(stateDir: string, stderr: TextStream): void {
  const { removed, kept } = removeLeftoverPlaceholders(stateDir);
  if (removed.length > 0) {
    stderr.write(
      `turngate: removed ${removed.length} empty placeholder(s) that a confined turn which did not end left in the workspace: ${removed.join(", ")}\n`,
    );
  }
  if (kept.length > 0) placeholdersKeptLine(kept, stderr);
}

/** The line naming placeholders someone else wrote while the confined turn ran (kept). */
export function placeholdersKeptLine(kept: readonly string[], stderr: TextStream): void {
  if (kept.length === 0) return;
  stderr.write(
    `turngate: kept ${kept.join(", ")}: a placeholder of the confined turn that another process wrote or replaced while the agent ran (the agent could not), so it is theirs now\n`,
  );
}
