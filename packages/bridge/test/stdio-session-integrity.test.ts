/**
 * Gate-integrity session methods over the real stdio server: settling a background
 * workspace child (session.settle_child) and refusing a blank verification command
 * (session.verify_commands). Expected digests are computed here from the formula (A3S §2.2).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BridgeProcess } from "./helpers/bridge-process.js";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("bridge session.settle_child and blank commands", () => {
  let bridge: BridgeProcess;
  let root: string;
  beforeAll(() => {
    bridge = new BridgeProcess();
    root = realpathSync(mkdtempSync(join(tmpdir(), "turngate-bridge-settle-")));
    writeFileSync(join(root, "a.txt"), "base\n");
  });
  afterAll(() => {
    bridge.kill();
    rmSync(root, { recursive: true, force: true });
  });

  async function session(): Promise<string> {
    const created = await bridge.call<{ session_id: string }>("session.create", {
      root,
      options: { use_git: false },
    });
    return created.session_id;
  }

  test("a workspace child blocks decide until session.settle_child, which re-reads its writes", async () => {
    const id = await session();
    await bridge.call("session.observe_tool", {
      session_id: id,
      tool: "bash",
      exit_code: 0,
      metadata: { workspace_child: "task-1" },
    });
    writeFileSync(join(root, "child.txt"), "from the child\n");
    await bridge.call("session.observe_workspace", { session_id: id });
    const digest = sha256(`workspace|child.txt|${sha256("from the child\n")}`);
    expect(await bridge.call("session.decide", { session_id: id })).toEqual({
      kind: "incomplete",
      reason: "open_children",
      message:
        "completion gate: background workspace task task-1 has not been observed. A final answer does not observe its writes.",
      effect_digest: digest,
      task_ids: ["task-1"],
    });
    expect(
      await bridge.call("session.settle_child", { session_id: id, task_id: "task-1" }),
    ).toEqual({
      settled: true,
      open_children: [],
      effect_digest: digest,
      changes: [
        {
          path: "child.txt",
          change: "added",
          content_digest: sha256("from the child\n"),
          scope: "source",
        },
      ],
      complete: true,
      unreadable: [],
    });
    await bridge.call("session.observe_workspace", { session_id: id });
    expect(await bridge.call("session.decide", { session_id: id })).toMatchObject({
      kind: "incomplete",
      reason: "unverified_mutation",
      effect_digest: digest,
    });
    expect(
      await bridge.call("session.settle_child", { session_id: id, task_id: "task-1" }),
    ).toMatchObject({ settled: false, open_children: [] });
    rmSync(join(root, "child.txt"));
  });

  test("a blank task_id is invalid_params at task_id", async () => {
    const id = await session();
    const answer = await bridge.request("session.settle_child", { session_id: id, task_id: " " });
    expect(answer.error?.data).toEqual({
      code: "invalid_params",
      path: "task_id",
      message: "task_id: must not be blank",
    });
  });

  test("a blank verification command is invalid_params at commands.0.command and runs nothing", async () => {
    const id = await session();
    for (const command of ["", "  \t"]) {
      const answer = await bridge.request("session.verify_commands", {
        session_id: id,
        subject: "blank",
        commands: [{ id: "c", kind: "test", description: "d", command, required: true }],
      });
      expect(answer.error?.data).toEqual({
        code: "invalid_params",
        path: "commands.0.command",
        message: "commands.0.command: must not be blank",
      });
    }
    expect(await bridge.call("session.reports", { session_id: id })).toEqual({ reports: [] });
  });
});
