import { join } from "node:path";
import type { CompletionWaiver, GateOutcome } from "@turngate/core";
import { TurngateError } from "@turngate/core";
import { fileFingerprint } from "@turngate/node";
import * as z from "zod";
import { CONFIG_FILE_NAME, parseConfig, readConfigFile, type TurngateConfig } from "./config.js";
import { shownPath } from "./terminal-text.js";

/**
 * The configuration a turn runs with and where it came from (docs/cli.md "Configuration the
 * agent wrote"): the file it is read from, the bytes in effect, and — when the file on disk
 * holds a configuration the agent wrote that no host action accepted yet — the effect
 * digest of the turn that wrote it.
 */
export interface ConfigSource {
  /** The configuration file (absolute): `--config`, else `<root>/turngate.config.json`. */
  path: string;
  /** The text the configuration in effect was parsed from; null: no file (the empty configuration). */
  text: string | null;
  /** Lowercase hex SHA-256 of those bytes, `"absent"` for none (`fileFingerprint`). */
  digest: string;
  /**
   * The effect digest of the turn that wrote the file as it is on disk, when that turn's
   * change to it was not accepted by the host (so the configuration in effect is the earlier
   * one); null when the file on disk is the configuration in effect or the host's.
   */
  pendingSince: string | null;
}

/** What the turn chain keeps of a turn's configuration: its source and the file as judged. */
export interface ChainConfig extends ConfigSource {
  /** `fileFingerprint` of the configuration file when the turn was judged. */
  judged: string;
}

/** The wire form of `ConfigSource` (in a stored baseline). */
export const ConfigSourceSchema = z
  .object({
    path: z.string(),
    text: z.string().nullable(),
    digest: z.string(),
    pending_since: z.string().nullable(),
  })
  .strict();

/** `ConfigSource` in its wire form (snake_case). */
export function configSourceToWire(source: ConfigSource): z.output<typeof ConfigSourceSchema> {
  return {
    path: source.path,
    text: source.text,
    digest: source.digest,
    pending_since: source.pendingSince,
  };
}

/** `ConfigSource` from its wire form. */
export function configSourceFromWire(wire: z.output<typeof ConfigSourceSchema>): ConfigSource {
  return {
    path: wire.path,
    text: wire.text,
    digest: wire.digest,
    pendingSince: wire.pending_since,
  };
}

/** The wire form of `ChainConfig` (in the turn chain, `turn-chain.json`). */
export const ChainConfigSchema = ConfigSourceSchema.extend({ judged: z.string() }).strict();

/** `ChainConfig` in its wire form (snake_case). */
export function chainConfigToWire(config: ChainConfig): z.output<typeof ChainConfigSchema> {
  return {
    path: config.path,
    text: config.text,
    digest: config.digest,
    pending_since: config.pendingSince,
    judged: config.judged,
  };
}

/** `ChainConfig` from its wire form. */
export function chainConfigFromWire(wire: z.output<typeof ChainConfigSchema>): ChainConfig {
  return {
    path: wire.path,
    text: wire.text,
    digest: wire.digest,
    pendingSince: wire.pending_since,
    judged: wire.judged,
  };
}

/** What `chooseTurnConfig` decided for a turn. */
export interface ChosenConfig {
  config: TurngateConfig;
  source: ConfigSource;
  /**
   * When the file on disk is not adopted: the one line saying so and naming the host's way
   * to adopt it (`configKeptLine`).
   */
  kept?: string;
  /** When the host's `--waive` named the turn that wrote the file on disk: that digest (it is adopted). */
  adoptedBy?: string;
}

/**
 * The configuration a chained turn runs with (docs/cli.md "Configuration the agent wrote",
 * issue 32): the file on disk (`--config`, else `<root>/turngate.config.json`), unless the
 * previous turn of the chain recorded that the file as it still is was written by the agent
 * in a turn no host action accepted (`previous.pendingSince`): then the configuration in
 * effect before is kept, from the bytes the chain stored, and the file is not even parsed.
 * The host adopts the file by changing it between turns (any other bytes are read as the
 * host's), by waiving the turn that wrote it (`waivers` naming `pendingSince`), or with
 * `--fresh` (no chain: `previous` undefined). A chain of another configuration file (the
 * host passed another `--config`) is not used.
 * `adopt` names the host's ways to adopt the file in the kept line, given the digest of the
 * turn that wrote it (default: `turngate run --fresh` or `--waive`, `adoptionByRun`).
 * Errors: `loadConfig`'s for the file on disk; `TurngateError` `turn_chain_invalid` when the
 * kept bytes no longer load, naming the fix.
 */
export function chooseTurnConfig(
  root: string,
  explicitPath: string | undefined,
  previous: ChainConfig | undefined,
  waivers: readonly CompletionWaiver[],
  adopt: (since: string) => string = adoptionByRun,
): ChosenConfig {
  const path = explicitPath ?? join(root, CONFIG_FILE_NAME);
  const pending = previous?.pendingSince ?? null;
  if (
    previous !== undefined &&
    pending !== null &&
    previous.path === path &&
    fileFingerprint(path) === previous.judged
  ) {
    if (waivers.some((waiver) => waiver.effect_digest === pending)) {
      const file = readConfigFile(root, explicitPath);
      return {
        config: file.config,
        source: { path: file.path, text: file.text, digest: file.digest, pendingSince: null },
        adoptedBy: pending,
      };
    }
    let config: TurngateConfig;
    try {
      config =
        previous.text === null
          ? { checks: [], ignores: [], rewritePaths: [] }
          : parseConfig(previous.text, path);
    } catch (error) {
      throw new TurngateError(
        "turn_chain_invalid",
        `the configuration the turn chain keeps for ${path} no longer loads (${(error as Error).message}); as the host, review ${path}, then adopt it with ${adopt(pending)}`,
      );
    }
    return {
      config,
      source: {
        path,
        text: previous.text,
        digest: previous.digest,
        pendingSince: pending,
      },
      kept: configKeptLine(shownPath(root, path), previous.text === null, pending, adopt(pending)),
    };
  }
  const file = readConfigFile(root, explicitPath);
  return {
    config: file.config,
    source: { path: file.path, text: file.text, digest: file.digest, pendingSince: null },
  };
}

/**
 * The host's ways to adopt a configuration file the agent wrote in the turn with effect
 * digest `since`, for `turngate run`: `--fresh`, or a waiver of that turn (none when it
 * has no digest).
 */
export function adoptionByRun(since: string): string {
  return `\`turngate run --fresh\`${since !== "" ? ` or \`turngate run --waive ${since}:REASON\`` : ""}`;
}

/**
 * The line a turn prints when it keeps the earlier configuration (`chooseTurnConfig`):
 * `shown` is the file as displayed, `none` says there was no configuration file before,
 * `since` the effect digest of the turn that wrote it, `adopt` the host's ways to adopt it.
 */
export function configKeptLine(shown: string, none: boolean, since: string, adopt: string): string {
  const earlier = none ? "no configuration file, as before" : "the earlier configuration";
  return `${shown} was written by the agent in a turn you have not accepted (effect digest ${since || '""'}); this turn uses ${earlier}. Review it, then adopt it with ${adopt}, or edit it yourself`;
}

/**
 * What the chain records of a turn's configuration when the turn is decided (docs/cli.md
 * "Configuration the agent wrote"): `source` as the turn ran with it, `start` the file's
 * fingerprint when the turn started and `judged` now. The file on disk is pending (not
 * adopted by the next turn) when it differs from the bytes in effect and either it changed
 * during this turn, which did not end `waived` (`effectDigest` names the turn), or it was
 * pending already and `waivers` do not name that turn. Pure.
 */
export function chainConfigAfter(
  source: ConfigSource,
  start: string,
  judged: string,
  outcome: GateOutcome,
  effectDigest: string,
  waivers: readonly CompletionWaiver[],
): ChainConfig {
  let pendingSince: string | null;
  if (judged === source.digest) pendingSince = null;
  else if (judged !== start) {
    const waived = outcome.kind === "allow" && outcome.terminal.kind === "waived";
    pendingSince = waived ? null : effectDigest;
  } else {
    const since = source.pendingSince;
    pendingSince =
      since !== null && !waivers.some((waiver) => waiver.effect_digest === since) ? since : null;
  }
  return { ...source, pendingSince, judged };
}
