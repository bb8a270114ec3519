import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { parse as parseToml } from "smol-toml";

/**
 * The `HOME` allow-list of clean-room checks (docs/design.md §3b; docs/guarantees.md
 * "Isolation: clean-room checks"). A check in the sandbox sees a private, empty `HOME`; the few
 * settings checks legitimately need are read at baseline time (before the agent runs) and passed as
 * **values**, in environment variables, never as copied files (a copied `~/.gitconfig` or cargo
 * config can run code: `core.fsmonitor`, `[alias]`, build `rustc-wrapper`).
 *
 * | setting | read from | passed as |
 * | --- | --- | --- |
 * | git identity | `git config --global user.name` / `user.email` | `GIT_AUTHOR_NAME`, `GIT_COMMITTER_NAME`, `GIT_AUTHOR_EMAIL`, `GIT_COMMITTER_EMAIL` |
 * | npm registry | `registry=` in `~/.npmrc` | `npm_config_registry` |
 * | cargo registries | `[registries.<name>] index` and `[registry] default` in `$CARGO_HOME/config.toml` (default `~/.cargo`) | `CARGO_REGISTRIES_<NAME>_INDEX`, `CARGO_REGISTRY_DEFAULT` |
 *
 * A variable already set in the host's environment is left as it is. Values must be one
 * line; registry URLs must be `http(s)://`, `sparse+http(s)://` or `file://` (anything
 * else, such as an `${ENV}` interpolation, is left out).
 */

/** The names of the variables the allow-list can set (for docs and tests). */
export const HOME_VALUE_NAMES: readonly string[] = Object.freeze([
  "GIT_AUTHOR_NAME",
  "GIT_COMMITTER_NAME",
  "GIT_AUTHOR_EMAIL",
  "GIT_COMMITTER_EMAIL",
  "npm_config_registry",
  "CARGO_REGISTRIES_<NAME>_INDEX",
  "CARGO_REGISTRY_DEFAULT",
]);

/**
 * Read the allow-listed settings of the user's home folder (`env.HOME`, else the OS home)
 * as environment variables (see the module docs). Never throws: a setting that cannot be
 * read is left out. Output: name → value, only names not already set in `env`.
 */
export function homeValues(env: NodeJS.ProcessEnv): Record<string, string> {
  const home = env.HOME ?? homedir();
  const found: Record<string, string> = {};
  const set = (name: string, value: string | undefined): void => {
    if (value === undefined || value === "" || /[\r\n\0]/.test(value)) return;
    if (env[name] !== undefined) return;
    found[name] = value;
  };
  const identity = gitIdentity(env);
  set("GIT_AUTHOR_NAME", identity.name);
  set("GIT_COMMITTER_NAME", identity.name);
  set("GIT_AUTHOR_EMAIL", identity.email);
  set("GIT_COMMITTER_EMAIL", identity.email);
  const npmRegistry = readNpmRegistry(join(home, ".npmrc"));
  if (npmRegistry !== undefined && env.NPM_CONFIG_REGISTRY === undefined) {
    set("npm_config_registry", npmRegistry);
  }
  const cargoHome =
    env.CARGO_HOME !== undefined && isAbsolute(env.CARGO_HOME)
      ? env.CARGO_HOME
      : join(home, ".cargo");
  for (const [name, value] of Object.entries(readCargoRegistries(cargoHome))) set(name, value);
  return found;
}

/**
 * `user.name` and `user.email` of the global git configuration, in one `git config --global
 * -z --get-regexp` (the last value of each wins, as `git config --get` reads it). Never throws.
 */
export function gitIdentity(env: NodeJS.ProcessEnv): { name?: string; email?: string } {
  let out: string;
  try {
    out = execFileSync(
      "git",
      ["config", "--global", "-z", "--get-regexp", "^user\\.(name|email)$"],
      {
        env: { ...env, GIT_CONFIG_NOSYSTEM: "1" },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
        timeout: 5_000,
      },
    );
  } catch {
    return {};
  }
  const found: { name?: string; email?: string } = {};
  for (const entry of out.split("\0")) {
    const at = entry.indexOf("\n");
    const key = at < 0 ? entry : entry.slice(0, at);
    const value = at < 0 ? "" : entry.slice(at + 1).trim();
    if (key === "user.name") found.name = value;
    if (key === "user.email") found.email = value;
  }
  return found;
}

function isRegistryUrl(value: string): boolean {
  return /^(sparse\+)?https?:\/\/[^\s]+$/.test(value) || /^file:\/\/[^\s]+$/.test(value);
}

/** `registry=<url>` in an `.npmrc` (ini; the last one wins), when a registry URL. */
export function readNpmRegistry(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  let registry: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*registry\s*=\s*(.*?)\s*$/.exec(line);
    if (match?.[1] !== undefined) registry = match[1].replace(/^["']|["']$/g, "");
  }
  return registry !== undefined && isRegistryUrl(registry) ? registry : undefined;
}

/**
 * `[registries.<name>] index` and `[registry] default` of `<cargoHome>/config.toml` (or
 * `config`) as cargo's own environment variables (`CARGO_REGISTRIES_<NAME>_INDEX`, name
 * upper-cased with `-` as `_`). Never throws.
 */
export function readCargoRegistries(cargoHome: string): Record<string, string> {
  let text: string | undefined;
  for (const name of ["config.toml", "config"]) {
    try {
      text = readFileSync(join(cargoHome, name), "utf8");
      break;
    } catch {
      // next
    }
  }
  if (text === undefined) return {};
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch {
    return {};
  }
  const out: Record<string, string> = {};
  const registries = doc.registries;
  if (registries !== null && typeof registries === "object") {
    for (const [name, value] of Object.entries(registries as Record<string, unknown>)) {
      if (!/^[A-Za-z0-9_-]+$/.test(name) || value === null || typeof value !== "object") continue;
      const index = (value as Record<string, unknown>).index;
      if (typeof index === "string" && isRegistryUrl(index)) {
        out[`CARGO_REGISTRIES_${name.toUpperCase().replace(/-/g, "_")}_INDEX`] = index;
      }
    }
  }
  const registry = doc.registry;
  if (registry !== null && typeof registry === "object") {
    const fallback = (registry as Record<string, unknown>).default;
    if (typeof fallback === "string" && /^[A-Za-z0-9_-]+$/.test(fallback)) {
      out.CARGO_REGISTRY_DEFAULT = fallback;
    }
  }
  return out;
}
