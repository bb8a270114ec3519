/**
 * Issue 13 items 5 and 6 on real temporary git repositories: the read-only verifier (A3S
 * §2.18, with the workspace snapshotted around it) and continuation plus external
 * observations on the session (§1.14, §2.6, §2.12). Digests from the §2.2 formula.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TurngateValidationError } from "@turngate/core";
import { describe, expect, test } from "vitest";
import { Session } from "../../src/session/session.js";
import { useGitRepos } from "./git-repo.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const repo = useGitRepos();
const digestOf = (text: string) => sha256(`workspace|a.txt|${sha256(text)}`);

const passing = (digest: string) => ({
  subject: "review",
  status: "passed" as const,
  checks: [
    { id: "r", kind: "verifier", description: "read", required: true, status: "passed" as const },
  ],
  effect_digest: digest,
});

describe("read-only verifier (A3S §2.18 + snapshot around it)", () => {
  test("a callback's bound report verifies the turn; it runs once per turn and only when the turn mutated", async () => {
    const r = await repo({ "a.txt": "base\n" });
    let calls = 0;
    const session = await Session.start({
      root: r.root,
      verifier: ({ effectDigest, paths, toolPolicy }) => {
        calls += 1;
        expect(paths).toEqual([{ path: "a.txt", content_digest: sha256("v1\n") }]);
        expect(toolPolicy("write", {})).toMatchObject({ allowed: false, rule: "writer_tool" });
        return passing(effectDigest);
      },
    });
    expect((await session.endTurn()).completion).toEqual({ kind: "narrative" });
    expect(calls).toBe(0);
    r.write("a.txt", "v1\n");
    const result = await session.endTurn();
    expect(result.completion).toEqual({ kind: "verified", effect_digest: digestOf("v1\n") });
    expect(calls).toBe(1);
  });

  test("a verifier that writes voids its report (verifier_changed_workspace) and its change is observed", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({
      root: r.root,
      verifier: ({ effectDigest, root }) => {
        writeFileSync(join(root, "a.txt"), "sneaky\n");
        return passing(effectDigest);
      },
    });
    r.write("a.txt", "v1\n");
    await session.observeWorkspace();
    const outcome = await session.decide();
    expect(outcome).toMatchObject({
      kind: "incomplete",
      reason: "unverified_mutation",
      effect_digest: digestOf("sneaky\n"),
    });
    expect(session.verifierRun).toMatchObject({
      status: "verifier_changed_workspace",
      effectDigest: digestOf("v1\n"),
      changedPaths: ["a.txt"],
      message: "the verifier changed the workspace (a.txt); its report is void",
      report: { subject: "verifier", status: "failed", effect_digest: digestOf("v1\n") },
    });
    // Once per turn: deciding again does not run it again.
    await session.decide();
    expect(session.verifierRun?.status).toBe("verifier_changed_workspace");
  });

  test("a crashing verifier is typed, records A3S's failed verifier report and leaves the turn incomplete", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({
      root: r.root,
      verifier: () => {
        throw new Error("boom");
      },
    });
    r.write("a.txt", "v1\n");
    await session.observeWorkspace();
    expect((await session.decide()).kind).toBe("incomplete");
    expect(session.verifierRun).toEqual({
      status: "crashed",
      effectDigest: digestOf("v1\n"),
      message: "boom",
      report: {
        schema: "verification_report.v1",
        subject: "verifier",
        status: "failed",
        checks: [
          {
            id: "review",
            kind: "verifier",
            description: "rejected",
            required: true,
            status: "failed",
            residual_risk: "verifier crashed: boom",
          },
        ],
        effect_digest: digestOf("v1\n"),
      },
    });
  });

  test("a command verifier runs read-only commands and binds; a writing command is refused by the policy and never runs", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const ok = await Session.start({ root: r.root, verifier: { command: "grep -q v1 a.txt" } });
    r.write("a.txt", "v1\n");
    expect((await ok.endTurn()).completion).toEqual({
      kind: "verified",
      effect_digest: digestOf("v1\n"),
    });
    const refused = await Session.start({
      root: r.root,
      verifier: { command: "echo pwned > a.txt" },
    });
    r.write("a.txt", "v2\n");
    await refused.observeWorkspace();
    expect((await refused.decide()).kind).toBe("incomplete");
    expect(refused.verifierRun).toMatchObject({
      status: "refused",
      message:
        'verifier tool policy: a bash command containing ">" can write; the verifier is read-only',
    });
  });

  test("a failing verifier command never passes; a force-ended run does not run the verifier", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({
      root: r.root,
      verifier: { command: "grep -q nope a.txt" },
    });
    r.write("a.txt", "v1\n");
    await session.observeWorkspace();
    expect((await session.decide({ forceEnded: true })).kind).toBe("incomplete");
    expect(session.verifierRun).toBeUndefined();
    expect((await session.decide()).kind).toBe("incomplete");
    expect(session.verifierRun?.report?.status).toBe("failed");
  });
});

describe("continuation and external observations on the session (A3S §1.14, §2.6, §2.12)", () => {
  const E1 = (d: string) =>
    `completion gate: external observation ${d} still requires a workspace change. A final answer does not clear it. Bind a newer observation of the same subject or a host waiver for the observation digest.`;
  const observation = (over: object = {}) => ({
    kind: "ci",
    subject: "ci:main",
    digest: "obs-1",
    payload: "red build",
    required_action: "workspace_change" as const,
    ...over,
  });

  test("an open observation continues once per turn, then is incomplete", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root, allowContinuation: true });
    session.recordObservation(observation());
    expect(await session.decide()).toEqual({
      kind: "continue",
      reason: "external_observation",
      message: E1("obs-1"),
      effect_digest: "",
      digests: ["obs-1"],
      subjects: ["ci:main"],
    });
    expect(session.continuationCount).toBe(1);
    expect((await session.decide()).kind).toBe("incomplete");
  });

  test("never continue without allowContinuation, nor when force-ended", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const off = await Session.start({ root: r.root });
    off.recordObservation(observation());
    expect((await off.decide()).kind).toBe("incomplete");
    const forced = await Session.start({ root: r.root, allowContinuation: true });
    forced.recordObservation(observation());
    expect((await forced.decide({ forceEnded: true })).kind).toBe("incomplete");
  });

  test("the unverified-mutation path never spends the continuation", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root, allowContinuation: true });
    r.write("a.txt", "v1\n");
    await session.observeWorkspace();
    expect((await session.decide()).kind).toBe("incomplete");
    expect(session.continuationCount).toBe(0);
  });

  test("newest per subject: a later observation with action none closes it", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    session.recordObservation(observation());
    session.recordObservation(observation({ digest: "obs-2", required_action: "none" }));
    expect(await session.decide()).toEqual({ kind: "allow", terminal: { kind: "narrative" } });
  });

  test("a waiver of the current effect digest clears open observations", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const digest = digestOf("v2\n");
    const session = await Session.start({
      root: r.root,
      waivers: [{ effect_digest: digest, reason: "release owner" }],
    });
    session.recordObservation(observation());
    r.write("a.txt", "v2\n");
    await session.observeWorkspace();
    expect(await session.decide()).toEqual({
      kind: "allow",
      terminal: { kind: "waived", effect_digest: digest },
    });
  });

  test("an oversized or blank-digest observation is refused by field and nothing is recorded", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    expect(() => session.recordObservation(observation({ payload: "x".repeat(8193) }))).toThrow(
      TurngateValidationError,
    );
    let path = "";
    try {
      session.recordObservation(observation({ digest: " " }));
    } catch (error) {
      path = (error as TurngateValidationError).path;
    }
    expect(path).toBe("observation.digest");
    session.recordObservation(observation({ payload: "x".repeat(8192) }));
    expect(session.observations().length).toBe(1);
  });
});
