/**
 * The result cache's host settings (issue 20 item 2–3): which signers a hit may come from,
 * and whether this host uploads. Both come from OUTSIDE the workspace — the agent edits
 * `turngate.config.json`, so nothing there can make a result trusted or enable uploads:
 * - `TURNGATE_CACHE_TRUSTED_KEYS`: PEM text holding one or more Ed25519 public keys (or
 *   private keys, whose public half is used), or a `:`-separated list of PEM file paths;
 * - `TURNGATE_CACHE_WRITE=1` (or `true`): this host uploads results (typically CI);
 * - the user config file `$XDG_CONFIG_HOME/turngate/cache.json` (else
 *   `~/.config/turngate/cache.json`): `{"trusted_keys": ["<PEM or path>", …], "write": bool,
 *   "trust_own_key": bool}`.
 * Key files inside the workspace are refused (the agent could replace them), also through a
 * symlinked path (both sides are compared after `realpath`).
 *
 * Settings that lower the bar — `trusted_keys` and `trust_own_key` of the user config file —
 * are honoured only where the agent cannot write that file (issue 32 item 5,
 * docs/guarantees.md "Confined agents"): when the agent is confined (`turngate run --confine`: the
 * user config folder is invisible to it), or when the file and every folder above it are not
 * writable by this process's user (an administrator's read-only file). Otherwise they are refused
 * with a warning naming `--confine`: an unconfined agent runs as the same user and could add its
 * own key, or turn `trust_own_key` on and sign a forged pass with the key it can read.
 * `TURNGATE_CACHE_TRUSTED_KEYS` is the host's environment, out of the agent's reach.
 *
 * `trust_own_key` (default false): local store entries signed with this host's own turn
 * signing key are accepted. Off by default because an agent running as the same user can
 * read that key (`~/.local/state/turngate/signing-key.pem`) and sign a forged pass into the
 * local store, which it can also write; turn it on only where the agent cannot read the key
 * (another user, a sandbox). Entries signed by a trusted key (e.g. a remote hit stored
 * locally) are accepted either way.
 */
import { createPublicKey, type KeyObject } from "node:crypto";
import { accessSync, constants, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { keyIdOf } from "../proofs/signing-key.js";

/** Environment variable naming the trusted cache signers. */
export const CACHE_TRUSTED_KEYS_ENV = "TURNGATE_CACHE_TRUSTED_KEYS";
/** Environment variable enabling uploads on this host. */
export const CACHE_WRITE_ENV = "TURNGATE_CACHE_WRITE";

/** A public key a cached result may be signed by. */
export interface TrustedCacheKey {
  publicKey: KeyObject;
  /** `keyIdOf(publicKey)`: lowercase hex SHA-256 of its DER SPKI. */
  keyid: string;
  /** Where it came from: `env`, `user_config`, or `own` (this host's signing key, local entries only). */
  source: "env" | "user_config" | "own";
}

/** What {@link cacheHostSettings} found. */
export interface CacheHostSettings {
  trustedKeys: TrustedCacheKey[];
  /** Whether this host enables uploads (env or user config). */
  write: boolean;
  /** Whether local entries signed with this host's own signing key are accepted (user config `trust_own_key`). */
  trustOwnKey: boolean;
  /** The user config file read (absent when there is none). */
  userConfigPath?: string;
  /** Entries that could not be used, each a sentence (printed as warnings). */
  warnings: string[];
}

/** `$XDG_CONFIG_HOME/turngate/cache.json`, else `$HOME/.config/turngate/cache.json`. */
export function userCacheConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : join(env.HOME && env.HOME !== "" ? env.HOME : homedir(), ".config");
  return join(base, "turngate", "cache.json");
}

/**
 * True when this process's user could replace `path`: the file itself or any folder above
 * it is writable (`access W_OK`). An unconfined agent runs as this user.
 */
export function userCanReplace(path: string): boolean {
  let current = resolve(path);
  for (;;) {
    try {
      accessSync(current, constants.W_OK);
      return true;
    } catch {
      // not writable (or absent): look at the folder above
    }
    const parent = dirname(current);
    if (parent === current) return false;
    current = parent;
  }
}

/** Options of {@link cacheHostSettings}. */
export interface CacheHostOptions {
  /**
   * The agent of this turn is confined (`turngate run --confine`): it cannot write the user
   * config file, so its `trusted_keys` and `trust_own_key` are honoured. Default false.
   */
  confined?: boolean;
}

/**
 * Read the host's cache settings (see the module docs). Input: the environment, the
 * workspace root (key files inside it are refused) and whether the agent is confined.
 * Output: {@link CacheHostSettings} (duplicate keys kept once). Never throws: an unreadable
 * file, a bad key or a bar-lowering setting the agent could have written is a warning.
 */
export function cacheHostSettings(
  env: NodeJS.ProcessEnv,
  root: string,
  options: CacheHostOptions = {},
): CacheHostSettings {
  const warnings: string[] = [];
  const keys = new Map<string, TrustedCacheKey>();
  const add = (spec: string, source: "env" | "user_config", label: string) => {
    for (const key of keysFrom(spec, root, label, warnings)) {
      if (!keys.has(keyIdOf(key)))
        keys.set(keyIdOf(key), { publicKey: key, keyid: keyIdOf(key), source });
    }
  };
  const fromEnv = env[CACHE_TRUSTED_KEYS_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") add(fromEnv, "env", CACHE_TRUSTED_KEYS_ENV);
  let write = ["1", "true", "yes"].includes((env[CACHE_WRITE_ENV] ?? "").trim().toLowerCase());
  const path = userCacheConfigPath(env);
  let userConfigPath: string | undefined;
  let trustOwnKey = false;
  let text: string | undefined;
  try {
    text = readFileSync(path, "utf8");
    userConfigPath = path;
  } catch {
    text = undefined;
  }
  if (text !== undefined) {
    if (insideRoot(path, root)) {
      warnings.push(`${path} is inside the workspace: ignored (the agent could edit it)`);
    } else {
      try {
        const value = JSON.parse(text) as {
          trusted_keys?: unknown;
          write?: unknown;
          trust_own_key?: unknown;
        };
        const agentWritable = options.confined !== true && userCanReplace(path);
        const lowers = [
          ...(value.trust_own_key === true ? ["trust_own_key"] : []),
          ...(Array.isArray(value.trusted_keys) && value.trusted_keys.length > 0
            ? ["trusted_keys"]
            : []),
        ];
        if (agentWritable && lowers.length > 0) {
          warnings.push(
            `${path} ${lowers.join(" and ")}: refused: the agent runs as your user and could have written this file (run the agent with --confine, make the file read-only to that user, or give keys in TURNGATE_CACHE_TRUSTED_KEYS)`,
          );
        } else if (value.trust_own_key === true) trustOwnKey = true;
        if (Array.isArray(value.trusted_keys)) {
          // Refused above when the agent could have written them.
          for (const [i, spec] of agentWritable ? [] : value.trusted_keys.entries()) {
            if (typeof spec === "string") add(spec, "user_config", `${path} trusted_keys.${i}`);
            else warnings.push(`${path} trusted_keys.${i}: not a string`);
          }
        } else if (value.trusted_keys !== undefined) {
          warnings.push(`${path} trusted_keys: not a list`);
        }
        if (value.write === true) write = true;
      } catch (error) {
        warnings.push(`${path}: not JSON (${(error as Error).message})`);
      }
    }
  }
  return {
    trustedKeys: [...keys.values()],
    write,
    trustOwnKey,
    ...(userConfigPath !== undefined ? { userConfigPath } : {}),
    warnings,
  };
}

const PEM_BLOCK = /-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g;

function keysFrom(spec: string, root: string, label: string, warnings: string[]): KeyObject[] {
  if (spec.includes("-----BEGIN")) return pemKeys(spec, label, warnings);
  const out: KeyObject[] = [];
  for (const part of spec.split(":")) {
    if (part.trim() === "") continue;
    const path = resolve(part.trim());
    if (insideRoot(path, root)) {
      warnings.push(
        `${label}: ${path} is inside the workspace: ignored (the agent could replace it)`,
      );
      continue;
    }
    try {
      out.push(...pemKeys(readFileSync(path, "utf8"), `${label} (${path})`, warnings));
    } catch (error) {
      warnings.push(
        `${label}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      );
    }
  }
  return out;
}

function pemKeys(text: string, label: string, warnings: string[]): KeyObject[] {
  const out: KeyObject[] = [];
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) warnings.push(`${label}: no PEM key found`);
  for (const block of blocks) {
    try {
      const key = createPublicKey(block);
      if (key.asymmetricKeyType !== "ed25519") {
        warnings.push(`${label}: not an Ed25519 key (${key.asymmetricKeyType})`);
        continue;
      }
      out.push(key);
    } catch (error) {
      warnings.push(`${label}: not a key (${(error as Error).message})`);
    }
  }
  return out;
}

/** `realpath` of `path`, or its resolved form when it does not exist (yet). */
function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function insideRoot(path: string, root: string): boolean {
  const rel = relative(real(root), real(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
