/**
 * Each harness adapter's block cap (docs/hooks.md harness table, issue 35 item 3): the
 * defaults a harness documents, the harness's own variable where it has one
 * (`GOOSE_STOP_HOOK_BLOCK_CAP`), and turngate's override `TURNGATE_HOOK_BLOCK_CAP`. The
 * cap is fed to core's `decideStop` exactly as `turngate hook <harness> Stop` feeds it, so
 * the block recorded `capped` is the one after which the harness ends the turn.
 */
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_MAX_INFRASTRUCTURE_ATTEMPTS,
  decideStop,
} from "@turngate/core";
import { describe, expect, test } from "vitest";
import { ADAPTERS } from "../../src/hooks/adapters/index.js";

/** The decisions of `stops` consecutive blocked stops, each on a new digest, under `env`. */
function blockRun(harness: keyof typeof ADAPTERS, env: NodeJS.ProcessEnv, stops: number) {
  const policy = {
    maxAttempts: DEFAULT_MAX_ATTEMPTS,
    maxInfrastructureAttempts: DEFAULT_MAX_INFRASTRUCTURE_ATTEMPTS,
    harnessBlockCap: ADAPTERS[harness].blockCap(env),
  };
  let blocks = 0;
  const out: string[] = [];
  for (let i = 0; i < stops; i++) {
    const d = decideStop({ failure: "assertion", blocksThisTurn: blocks, policy });
    blocks = d.blocksThisTurn;
    out.push(`${d.action}/${d.verdict}${d.reason ? `/${d.reason}` : ""}`);
  }
  return out;
}

describe("goose block cap (GOOSE_STOP_HOOK_BLOCK_CAP)", () => {
  test("default: goose honours 8 blocks (its source's default), so the 9th is recorded capped", () => {
    expect(ADAPTERS.goose.blockCap({})).toBe(9);
    expect(blockRun("goose", {}, 9)).toEqual([
      ...Array(8).fill("block/continue"),
      "block/incomplete/capped",
    ]);
  });

  test("GOOSE_STOP_HOOK_BLOCK_CAP=N: the block after N is capped; a malformed value keeps the default", () => {
    expect(ADAPTERS.goose.blockCap({ GOOSE_STOP_HOOK_BLOCK_CAP: "3" })).toBe(4);
    expect(blockRun("goose", { GOOSE_STOP_HOOK_BLOCK_CAP: "1" }, 2)).toEqual([
      "block/continue",
      "block/incomplete/capped",
    ]);
    for (const bad of ["0", "-2", "abc", "", "1.5", "9999999"]) {
      expect([bad, ADAPTERS.goose.blockCap({ GOOSE_STOP_HOOK_BLOCK_CAP: bad })]).toEqual([bad, 9]);
    }
  });

  test("TURNGATE_HOOK_BLOCK_CAP overrides goose's own variable", () => {
    expect(
      ADAPTERS.goose.blockCap({ GOOSE_STOP_HOOK_BLOCK_CAP: "3", TURNGATE_HOOK_BLOCK_CAP: "6" }),
    ).toBe(6);
  });
});

describe("the other adapters' defaults", () => {
  test("claude-code 9, cursor 5 (its loop_limit), codex none; TURNGATE_HOOK_BLOCK_CAP sets each", () => {
    expect([
      ADAPTERS["claude-code"].blockCap({}),
      ADAPTERS.cursor.blockCap({}),
      ADAPTERS.codex.blockCap({}),
    ]).toEqual([9, 5, null]);
    const env = { TURNGATE_HOOK_BLOCK_CAP: "2" };
    expect([
      ADAPTERS["claude-code"].blockCap(env),
      ADAPTERS.cursor.blockCap(env),
      ADAPTERS.codex.blockCap(env),
    ]).toEqual([2, 2, 2]);
    // A harness that documents no cap never records capped on its own.
    expect(blockRun("codex", {}, 3)).toEqual(Array(3).fill("block/continue"));
  });
});
