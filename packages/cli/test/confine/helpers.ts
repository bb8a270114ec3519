/**
 * Shared set-up of the confined-agent suites (docs/guarantees.md "Confined agents", issue 32): a
 * real temporary git repository, a temporary HOME and tools folder (so no attack touches the
 * machine's own files), and `turn`, which runs `turngate run --json --isolation in-place` — in
 * place, so the clean room's private home is not what defends — with or without `--confine`.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { turngate } from "../clean-room/helpers.js";
import { gitProject } from "../helpers.js";

export { row, SKIP_REASON, sandbox, sha256, writerAgent } from "../clean-room/helpers.js";

export const LIB = "module.exports = () => 1;\n";
export const TEST =
  "const f = require('./lib.js'); const got = f();\nif (got !== 1) { console.error(`expected 1, got ${got}`); process.exit(1); }\n";
export const HONEST = "module.exports = () => 2 - 1;\n";
export const BROKEN = "module.exports = () => 3;\n";

/** One test's world: the project, a temporary HOME, a tools folder, and the environment. */
export interface World {
  p: ReturnType<typeof gitProject>;
  home: string;
  tools: string;
  /** Added to the test process's environment for every turn (HOME, PATH, XDG folders). */
  env: NodeJS.ProcessEnv;
}

const cleanups: Array<() => void> = [];

/** Remove every world made so far (call from `afterEach`). */
export function cleanWorlds(): void {
  for (const cleanup of cleanups.splice(0)) cleanup();
}

/**
 * A new world: `files` committed in a real git repository, an empty HOME, a tools folder,
 * `PATH` = `pathFirst` folders, then `/usr/bin:/bin`.
 */
export function world(
  files: Record<string, string> = { "lib.js": LIB, "test.js": TEST },
  pathFirst: (w: { home: string; tools: string }) => string[] = () => [],
): World {
  const p = gitProject(files);
  const home = realpathSync(mkdtempSync(join(tmpdir(), "turngate-confine-home-")));
  const tools = realpathSync(mkdtempSync(join(tmpdir(), "turngate-confine-tools-")));
  mkdirSync(join(home, ".config"), { recursive: true });
  cleanups.push(() => {
    p.cleanup();
    rmSync(home, { recursive: true, force: true });
    rmSync(tools, { recursive: true, force: true });
  });
  const path = [...pathFirst({ home, tools }), "/usr/bin", "/bin"].join(":");
  return {
    p,
    home,
    tools,
    env: {
      HOME: home,
      PATH: path,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_CACHE_HOME: join(home, ".cache"),
      npm_config_update_notifier: "false",
      npm_config_cache: join(home, ".npm"),
    },
  };
}

/**
 * `turngate run --json --isolation in-place [--confine] --check CHECK -- node AGENT` in the
 * world's repository, with the world's environment (plus `env`).
 */
export function turn(
  w: World,
  agent: string,
  check: string,
  options: { confine: boolean; env?: NodeJS.ProcessEnv; flags?: string[] },
) {
  return turngate(
    [
      "run",
      "--json",
      "--isolation",
      "in-place",
      ...(options.confine ? ["--confine"] : []),
      ...(options.flags ?? []),
      "--check",
      check,
      "--",
      "node",
      agent,
    ],
    w.p.root,
    { ...w.env, ...(options.env ?? {}) },
  );
}
