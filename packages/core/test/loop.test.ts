import { describe, expect, it } from "vitest";
import { decideStop, failureCacheKey, type LoopPolicy } from "../src/index.js";

const policy: LoopPolicy = { maxAttempts: 3, maxInfrastructureAttempts: 3, harnessBlockCap: 8 };

describe("decideStop (issue 19 loop control)", () => {
  it("allows a verified stop with the counters unchanged", () => {
    expect(
      decideStop({
        allowed: "verified",
        previous: { attempts: 2, infrastructureAttempts: 0 },
        blocksThisTurn: 2,
        policy,
      }),
    ).toEqual({
      action: "allow",
      verdict: "verified",
      reason: null,
      attempts: { attempts: 2, infrastructureAttempts: 0 },
      blocksThisTurn: 2,
    });
  });

  it("blocks attempts 1 to max_attempts on one digest, then escalates the next", () => {
    let previous: { attempts: number; infrastructureAttempts: number } | undefined;
    let blocks = 0;
    const seen: string[] = [];
    for (let i = 0; i < 4; i++) {
      const d = decideStop({
        failure: "assertion",
        ...(previous ? { previous } : {}),
        blocksThisTurn: blocks,
        policy,
      });
      seen.push(`${d.action}:${d.verdict}:${d.reason}:${d.attempts.attempts}`);
      previous = d.attempts;
      blocks = d.blocksThisTurn;
    }
    expect(seen).toEqual([
      "block:continue:null:1",
      "block:continue:null:2",
      "block:continue:null:3",
      "allow:incomplete:escalated:4",
    ]);
    expect(blocks).toBe(3);
  });

  it("counts could-not-run stops under their own cap", () => {
    const d = decideStop({
      failure: "could_not_run",
      previous: { attempts: 1, infrastructureAttempts: 1 },
      blocksThisTurn: 1,
      policy: { ...policy, maxAttempts: 10, maxInfrastructureAttempts: 1 },
    });
    expect(d).toEqual({
      action: "allow",
      verdict: "incomplete",
      reason: "escalated",
      attempts: { attempts: 2, infrastructureAttempts: 2 },
      blocksThisTurn: 1,
    });
  });

  it("records the block that reaches the harness cap as incomplete/capped", () => {
    const d = decideStop({ failure: "assertion", blocksThisTurn: 7, policy });
    expect(d).toEqual({
      action: "block",
      verdict: "incomplete",
      reason: "capped",
      attempts: { attempts: 1, infrastructureAttempts: 0 },
      blocksThisTurn: 8,
    });
    expect(decideStop({ failure: "assertion", blocksThisTurn: 6, policy }).reason).toBeNull();
  });

  it("allows as incomplete/capped when the harness will not honour a block (Cursor loop_limit)", () => {
    const d = decideStop({ failure: "gate", blocksThisTurn: 5, harnessAtCap: true, policy });
    expect(d.action).toBe("allow");
    expect(d.verdict).toBe("incomplete");
    expect(d.reason).toBe("capped");
  });

  it("escalation wins over the cap", () => {
    const d = decideStop({
      failure: "assertion",
      previous: { attempts: 3, infrastructureAttempts: 0 },
      blocksThisTurn: 7,
      harnessAtCap: true,
      policy,
    });
    expect(d.reason).toBe("escalated");
  });

  it("rejects a policy value below 1 and a negative block count", () => {
    expect(() =>
      decideStop({ failure: "gate", blocksThisTurn: 0, policy: { ...policy, maxAttempts: 0 } }),
    ).toThrow("invalid stop input at policy.maxAttempts");
    expect(() => decideStop({ failure: "gate", blocksThisTurn: -1, policy })).toThrow(
      "invalid stop input at blocksThisTurn",
    );
  });
});

describe("failureCacheKey", () => {
  const base = {
    sourceTree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    effectDigest: "ab".repeat(32),
    checks: [{ id: "test", command: "npm test" }],
    toolchain: { shell: "/bin/sh", path: "/usr/bin" },
  };
  it("is a stable SHA-256 of the canonical key and changes with every part", () => {
    const key = failureCacheKey(base);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(failureCacheKey({ ...base, checks: [{ command: "npm test", id: "test" }] })).toBe(key);
    expect(failureCacheKey({ ...base, sourceTree: "5".repeat(40) })).not.toBe(key);
    expect(failureCacheKey({ ...base, effectDigest: "cd".repeat(32) })).not.toBe(key);
    expect(failureCacheKey({ ...base, checks: [{ id: "test", command: "npm t" }] })).not.toBe(key);
    // A check's cwd is part of its identity (issue 15): the same command in another folder.
    expect(
      failureCacheKey({
        ...base,
        checks: [{ id: "test", command: "npm test", cwd: "packages/c" }],
      }),
    ).not.toBe(key);
    expect(
      failureCacheKey({ ...base, toolchain: { shell: "/bin/bash", path: "/usr/bin" } }),
    ).not.toBe(key);
  });
  it("refuses an empty tree id", () => {
    expect(() => failureCacheKey({ ...base, sourceTree: "" })).toThrow(
      "invalid failure key input at sourceTree: must be a git tree id",
    );
  });
});
