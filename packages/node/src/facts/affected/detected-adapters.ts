/**
 * The adapters turngate finds on its own (`detectAdapters`, docs/design.md §4 "Affected
 * targets"), and the environment they run in. They run on the host, outside every sandbox,
 * on files the agent may have written this turn, so no file of the workspace may choose
 * what they execute or where they connect (docs/guarantees.md "Confined agents": found by
 * the new-user trial of confined agents):
 *
 * - `go list` runs with {@link GO_LIST_ENV} (`GOTOOLCHAIN=local`: a `toolchain` line in
 *   `go.mod` cannot switch to another toolchain; `GOPROXY=off`, `GOSUMDB=off`: nothing is
 *   fetched — a module the agent names would otherwise be downloaded by turngate, outside
 *   the confined agent's proxy; `-mod=readonly -buildvcs=false`);
 * - `cargo metadata` (`--no-deps --locked --offline`: no build script, no network) runs with
 *   `RUSTUP_TOOLCHAIN` set to your default toolchain when rustup is installed, because
 *   rustup's `cargo` otherwise obeys a `rust-toolchain.toml` in the workspace, whose
 *   `path` can name a folder of the agent's holding its own `cargo`. When rustup is
 *   installed and no default toolchain can be read, the cargo adapter is left out (the code
 *   index's fallback covers the turn).
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { GO_LIST_ENV } from "../code-index/go-list.js";

/** `env NAME=value …` words that set `vars` for the command after them. */
function envWords(vars: Readonly<Record<string, string>>): string[] {
  return ["env", ...Object.entries(vars).map(([name, value]) => `${name}=${value}`)];
}

/**
 * The toolchain rustup's `cargo` must use for a command run on the host in `root`:
 * `RUSTUP_TOOLCHAIN` when `env` sets it, else the `default_toolchain` of rustup's
 * `settings.toml` (`$RUSTUP_HOME`, else `~/.rustup`). Output: the toolchain name;
 * `undefined` when rustup is not installed (there is no proxy to obey a toolchain file);
 * `null` when it is and no default can be read. Never throws.
 */
export function rustupToolchain(env: NodeJS.ProcessEnv): string | undefined | null {
  const pinned = env.RUSTUP_TOOLCHAIN?.trim();
  if (pinned) return pinned;
  const home = env.RUSTUP_HOME || join(env.HOME || homedir(), ".rustup");
  const settings = join(home, "settings.toml");
  if (!existsSync(home)) return undefined;
  try {
    const parsed = parseToml(readFileSync(settings, "utf8")) as { default_toolchain?: unknown };
    const name = parsed.default_toolchain;
    return typeof name === "string" && /^[A-Za-z0-9._+-]+$/.test(name) ? name : null;
  } catch {
    return null;
  }
}

/**
 * Adapter rows for what the workspace at `root` has: `pnpm-workspace.yaml` → the built-in
 * `pnpm.workspace.v1` (no command); `Cargo.toml` → `cargo metadata --format-version 1
 * --no-deps --locked --offline` (`cargo.metadata.v1`; `--locked`: the lockfile is never
 * rewritten), run as `env RUSTUP_TOOLCHAIN=<default> cargo …` when rustup is installed
 * (left out when its default cannot be read: {@link rustupToolchain}); `go.mod` → `env
 * GOFLAGS=… GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local go list -mod=readonly -json ./...`
 * (`go.list.v1`; `-mod=readonly`: go.mod and go.sum are never rewritten). `env`: the
 * environment the commands will run with (default `process.env`). Synchronous file checks
 * only.
 */
export function detectAdapters(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  const has = (f: string) => existsSync(join(root, f));
  if (has("pnpm-workspace.yaml")) rows.push({ id: "pnpm", parser_id: "pnpm.workspace.v1" });
  if (has("Cargo.toml")) {
    const toolchain = rustupToolchain(env);
    const cargo = [
      "cargo",
      "metadata",
      "--format-version",
      "1",
      "--no-deps",
      "--locked",
      "--offline",
    ];
    if (toolchain !== null) {
      rows.push({
        id: "cargo",
        parser_id: "cargo.metadata.v1",
        spec:
          toolchain === undefined
            ? cargo
            : [...envWords({ RUSTUP_TOOLCHAIN: toolchain }), ...cargo],
      });
    }
  }
  if (has("go.mod"))
    rows.push({
      id: "go",
      parser_id: "go.list.v1",
      spec: [...envWords(GO_LIST_ENV), "go", "list", "-mod=readonly", "-json", "./..."],
    });
  return rows;
}
