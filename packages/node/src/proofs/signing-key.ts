import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { TurngateError } from "@turngate/core";

/** Environment variable naming the signing key: a PEM text, or the path of a PEM file. */
export const SIGNING_KEY_ENV = "TURNGATE_SIGNING_KEY";
/** File name of the key generated in the user's state folder. */
export const SIGNING_KEY_FILE = "signing-key.pem";
/** File name of its public half, written beside it (not secret). */
export const PUBLIC_KEY_FILE = "signing-key.pub.pem";

/** An Ed25519 key pair turngate signs proofs with, and where it came from. */
export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Lowercase hex SHA-256 of the public key's DER SubjectPublicKeyInfo ({@link keyIdOf}). */
  keyid: string;
  /** `flag` (`--key`), `env` (`TURNGATE_SIGNING_KEY`), `state` (an existing state-folder key), `generated` (created now). */
  source: "flag" | "env" | "state" | "generated";
  /** The key file, absent for a PEM given inline in the environment. */
  path?: string;
}

/** A key turngate trusts when it verifies, and where it came from. */
export interface TrustedKey {
  publicKey: KeyObject;
  keyid: string;
  source: "flag" | "env" | "state";
  path?: string;
}

/**
 * The keyid turngate writes and checks: the lowercase hex SHA-256 (64 characters) of the
 * public key's DER-encoded SubjectPublicKeyInfo (`openssl pkey -pubin -outform DER | sha256sum`).
 * Input: a public or private Ed25519 KeyObject (a private key's public half is used).
 */
export function keyIdOf(key: KeyObject): string {
  const pub = key.type === "private" ? createPublicKey(key) : key;
  return createHash("sha256")
    .update(pub.export({ type: "spki", format: "der" }))
    .digest("hex");
}

/**
 * The user's turngate state folder: `$XDG_STATE_HOME/turngate`, else
 * `$HOME/.local/state/turngate` (`os.homedir()` when `HOME` is unset). Nothing is created.
 */
export function userStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, "turngate");
  return join(env.HOME || homedir(), ".local", "state", "turngate");
}

/** Options of {@link resolveSigningKey}. */
export interface ResolveSigningKeyOptions {
  /** `--key FILE` (absolute, or relative to `cwd`). */
  keyFile?: string;
  /** Environment read for `TURNGATE_SIGNING_KEY`, `XDG_STATE_HOME`, `HOME`. */
  env?: NodeJS.ProcessEnv;
  /** The workspace root: a key file inside it is refused (the agent could replace it). */
  root?: string;
  /** Resolves a relative `keyFile`; default `process.cwd()`. */
  cwd?: string;
  /** How errors name `keyFile` (their message prefix and `path`); default `--key`. */
  keyFileLabel?: string;
}

/**
 * The key that signs this turn's proof (issue 10 "Proofs that cannot be forged"), in order:
 * 1. `--key FILE`: a PEM file holding an Ed25519 private key (PKCS#8);
 * 2. `TURNGATE_SIGNING_KEY`: the PEM text itself (starts with `-----BEGIN`) or a file path;
 * 3. `<user state folder>/signing-key.pem` ({@link userStateDir}), generated on first use:
 *    the folder is created `0700`, the key written `0600` to a temporary file and
 *    hard-linked into place, so the key appears whole or not at all, and when two processes
 *    race the first link wins and both use that key. Its public half is written beside it
 *    as `signing-key.pub.pem`.
 * Errors: `TurngateError` `signing_key_invalid` (naming `--key` or `TURNGATE_SIGNING_KEY`)
 * when the key cannot be read or is not an Ed25519 private key;
 * `signing_key_in_workspace` when the key file or the state folder lies inside `root`.
 */
export function resolveSigningKey(options: ResolveSigningKeyOptions = {}): SigningKey {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  if (options.keyFile !== undefined) {
    const label = options.keyFileLabel ?? "--key";
    const path = resolve(cwd, options.keyFile);
    refuseInsideWorkspace(path, options.root, label);
    return { ...privateKeyFrom(readKeyFile(path, label), label), source: "flag", path };
  }
  const fromEnv = env[SIGNING_KEY_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    if (fromEnv.trimStart().startsWith("-----BEGIN")) {
      return { ...privateKeyFrom(fromEnv, SIGNING_KEY_ENV), source: "env" };
    }
    const path = resolve(cwd, fromEnv);
    refuseInsideWorkspace(path, options.root, SIGNING_KEY_ENV);
    return {
      ...privateKeyFrom(readKeyFile(path, SIGNING_KEY_ENV), SIGNING_KEY_ENV),
      source: "env",
      path,
    };
  }
  const dir = userStateDir(env);
  refuseInsideWorkspace(dir, options.root, "the user state folder (XDG_STATE_HOME or HOME)");
  const path = join(dir, SIGNING_KEY_FILE);
  const generated = !existsSync(path) && createKeyOnce(path);
  const key = privateKeyFrom(readKeyFile(path, path), path);
  return { ...key, source: generated ? "generated" : "state", path };
}

/**
 * The key `proof verify` trusts when no `--public-key` is given: the public half of
 * `TURNGATE_SIGNING_KEY` when set, else of the state-folder key when it exists; `undefined`
 * when there is none (nothing is generated). With `publicKeyFile`, that file: a PEM public
 * key (SPKI) or a private key whose public half is used.
 * Errors: `TurngateError` `signing_key_invalid` naming `--public-key` or
 * `TURNGATE_SIGNING_KEY` when the key cannot be read or is not Ed25519.
 */
export function trustedPublicKey(
  options: {
    publicKeyFile?: string;
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    /** How errors name `publicKeyFile`; default `--public-key`. */
    publicKeyFileLabel?: string;
  } = {},
): TrustedKey | undefined {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  if (options.publicKeyFile !== undefined) {
    const label = options.publicKeyFileLabel ?? "--public-key";
    const path = resolve(cwd, options.publicKeyFile);
    const publicKey = publicKeyFrom(readKeyFile(path, label), label);
    return { publicKey, keyid: keyIdOf(publicKey), source: "flag", path };
  }
  const fromEnv = env[SIGNING_KEY_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    if (fromEnv.trimStart().startsWith("-----BEGIN")) {
      const publicKey = publicKeyFrom(fromEnv, SIGNING_KEY_ENV);
      return { publicKey, keyid: keyIdOf(publicKey), source: "env" };
    }
    const path = resolve(cwd, fromEnv);
    const publicKey = publicKeyFrom(readKeyFile(path, SIGNING_KEY_ENV), SIGNING_KEY_ENV);
    return { publicKey, keyid: keyIdOf(publicKey), source: "env", path };
  }
  const path = join(userStateDir(env), SIGNING_KEY_FILE);
  if (!existsSync(path)) return undefined;
  const publicKey = publicKeyFrom(readKeyFile(path, path), path);
  return { publicKey, keyid: keyIdOf(publicKey), source: "state", path };
}

/** PEM (SPKI) text of a key's public half, ending with a newline. */
export function publicKeyPem(key: KeyObject): string {
  const pub = key.type === "private" ? createPublicKey(key) : key;
  return pub.export({ type: "spki", format: "pem" }).toString();
}

function keyError(where: string, message: string): TurngateError {
  return Object.assign(new TurngateError("signing_key_invalid", `${where}: ${message}`), {
    path: where,
  });
}

function readKeyFile(path: string, where: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw keyError(where, `cannot read the key file ${path} (${code})`);
  }
}

function privateKeyFrom(pem: string, where: string): Omit<SigningKey, "source" | "path"> {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch (error) {
    throw keyError(
      where,
      `not a PEM private key (${(error as Error).message}); generate one with \`openssl genpkey -algorithm ed25519\``,
    );
  }
  if (privateKey.asymmetricKeyType !== "ed25519") {
    throw keyError(where, `an ${privateKey.asymmetricKeyType} key, expected ed25519`);
  }
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, keyid: keyIdOf(publicKey) };
}

function publicKeyFrom(pem: string, where: string): KeyObject {
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey(pem);
  } catch (error) {
    throw keyError(where, `not a PEM public or private key (${(error as Error).message})`);
  }
  if (publicKey.asymmetricKeyType !== "ed25519") {
    throw keyError(where, `an ${publicKey.asymmetricKeyType} key, expected ed25519`);
  }
  return publicKey;
}

function refuseInsideWorkspace(path: string, root: string | undefined, where: string): void {
  if (root === undefined) return;
  const inside = relative(realExisting(root), realExisting(path));
  if (inside === "" || (!inside.startsWith("..") && !isAbsolute(inside))) {
    throw Object.assign(
      new TurngateError(
        "signing_key_in_workspace",
        `${where}: ${path} is inside the workspace ${root}, where the agent can read or replace it; keep the key outside the workspace`,
      ),
      { path: where },
    );
  }
}

/** `path` with symlinks resolved in its longest existing prefix. */
function realExisting(path: string): string {
  let existing = resolve(path);
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) return path;
    rest.unshift(existing.slice(parent.length + (parent.endsWith("/") ? 0 : 1)));
    existing = parent;
  }
  return join(realpathSync(existing), ...rest);
}

/**
 * Create an Ed25519 key at `path` unless one appears first. Returns true when this call's
 * key was linked into place, false when another process's key won the race.
 */
function createKeyOnce(path: string): boolean {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const { privateKey } = generateKeyPairSync("ed25519");
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const tmp = join(dir, `.${SIGNING_KEY_FILE}.${process.pid}.${randomBytes(6).toString("hex")}`);
  const fd = openSync(tmp, "wx", 0o600);
  try {
    writeSync(fd, pem);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(tmp, 0o600); // the umask may have narrowed it further, never widened: make it exact
  let won = true;
  try {
    linkSync(tmp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    won = false;
  } finally {
    unlinkSync(tmp);
  }
  if (won) writePublicKeyFile(dir, privateKey);
  return won;
}

function writePublicKeyFile(dir: string, privateKey: KeyObject): void {
  const tmp = join(dir, `.${PUBLIC_KEY_FILE}.${process.pid}.${randomBytes(6).toString("hex")}`);
  const fd = openSync(tmp, "wx", 0o644);
  try {
    writeSync(fd, publicKeyPem(privateKey));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, join(dir, PUBLIC_KEY_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    unlinkSync(tmp);
  }
}
