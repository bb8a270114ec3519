/**
 * Settling a background workspace child (A3S §2.4; `Session.settleWorkspaceChild`): a
 * tool result with `workspace_child` opens a child the gate waits for; the host settles it
 * when the task has finished, and the re-read that follows puts the child's writes on the
 * ledger. Real temporary git repositories; digests computed here from the formula.
 */
import { createHash } from "node:crypto";
import { TurngateValidationError } from "@turngate/core";
import { describe, expect, test } from "vitest";
import { Session } from "../../src/session/session.js";
import { useGitRepos } from "./git-repo.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const passing = {
  id: "c:ok",
  kind: "test",
  description: "passes",
  command: "true",
  required: true,
};

const repo = useGitRepos();

const OPEN_TASK_1 =
  "completion gate: background workspace task task-1 has not been observed. A final answer does not observe its writes.";

describe("Session.settleWorkspaceChild", () => {
  test("a child stays open across re-reads until settled; settling re-reads its writes and a bound check verifies the turn", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    expect(session.observeTool("bash", 0, { workspace_child: " task-1 " })).toEqual([]);
    expect(session.openWorkspaceChildren).toEqual(["task-1"]);
    r.write("out/child.txt", "from the child\n");
    await session.observeWorkspace();
    expect(await session.decide()).toEqual({
      kind: "incomplete",
      reason: "open_children",
      message: OPEN_TASK_1,
      effect_digest: sha256(`workspace|out/child.txt|${sha256("from the child\n")}`),
      task_ids: ["task-1"],
    });

    const settlement = await session.settleWorkspaceChild("task-1");
    const digest = sha256(`workspace|out/child.txt|${sha256("from the child\n")}`);
    expect(settlement).toEqual({
      settled: true,
      openChildren: [],
      delta: {
        changes: [
          {
            path: "out/child.txt",
            change: "added",
            content_digest: sha256("from the child\n"),
            scope: "source",
          },
        ],
        complete: true,
        unreadable: [],
      },
    });
    expect(session.effectDigest).toBe(digest);
    // The replay of the tool observations on the next re-read does not reopen the child.
    r.write("a.txt", "changed later\n");
    await session.observeWorkspace();
    expect(session.openWorkspaceChildren).toEqual([]);
    const later = sha256(
      [
        `workspace|a.txt|${sha256("changed later\n")}`,
        `workspace|out/child.txt|${sha256("from the child\n")}`,
      ].join("\n"),
    );
    expect(await session.decide()).toMatchObject({
      kind: "incomplete",
      reason: "unverified_mutation",
      effect_digest: later,
    });
    const verified = await session.verifyCommands("host:test", [passing], { bind: true });
    expect(verified.binding).toEqual({ bound: true, effectDigest: later });
    expect(await session.decide()).toEqual({
      kind: "allow",
      terminal: { kind: "verified", effect_digest: later },
    });
  });

  test("settling before any re-read still puts the child's writes on the ledger (never narrative)", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    session.observeTool("bash", 0, { workspace_child: "task-1" });
    r.write("a.txt", "child wrote this\n");
    const settlement = await session.settleWorkspaceChild("task-1");
    expect(settlement.settled).toBe(true);
    const digest = sha256(`workspace|a.txt|${sha256("child wrote this\n")}`);
    expect(await session.decide()).toMatchObject({
      kind: "incomplete",
      reason: "unverified_mutation",
      effect_digest: digest,
    });
  });

  test("an unknown id settles nothing; a blank id is refused at task_id; a later tool result reopens the id", async () => {
    const r = await repo({ "a.txt": "base\n" });
    const session = await Session.start({ root: r.root });
    session.observeTool("bash", 0, { workspace_child: "task-1" });
    session.observeTool("bash", 0, { workspace_child: "task-2" });
    const unknown = await session.settleWorkspaceChild("task-9");
    expect(unknown).toEqual({
      settled: false,
      openChildren: ["task-1", "task-2"],
      delta: { changes: [], complete: true, unreadable: [] },
    });
    let caught: unknown;
    try {
      await session.settleWorkspaceChild("  ");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TurngateValidationError);
    expect((caught as TurngateValidationError).path).toBe("task_id");
    expect((caught as Error).message).toBe("invalid workspace child at task_id: must not be blank");

    expect((await session.settleWorkspaceChild("task-1")).openChildren).toEqual(["task-2"]);
    expect((await session.settleWorkspaceChild("task-2")).openChildren).toEqual([]);
    expect(await session.decide()).toEqual({ kind: "allow", terminal: { kind: "narrative" } });
    // The same id started again is a new child: open until settled again.
    session.observeTool("bash", 0, { workspace_child: "task-1" });
    await session.observeWorkspace();
    expect(session.openWorkspaceChildren).toEqual(["task-1"]);
    expect((await session.settleWorkspaceChild("task-1")).settled).toBe(true);
    await session.observeWorkspace();
    expect(session.openWorkspaceChildren).toEqual([]);
  });
});
