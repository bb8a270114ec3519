import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { BridgeProcess } from "./helpers/bridge-process.js";

// docs/cli.md "Gapless turns" (issue 32 item 3) for the bindings' sessions: session.baseline and
// session.create's options.continue_from chain sessions across bridge processes, so no change
// made between two sessions is dropped. Real bridge processes on real temporary folders.

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const passing = { id: "t", kind: "test", description: "exit 0", command: "true", required: true };

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), "turngate-bridge-chain-"));
  writeFileSync(join(root, "lib.js"), "module.exports = 1;\n");
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

function bridgeProcess(): BridgeProcess {
  const bridge = new BridgeProcess();
  cleanups.push(() => bridge.kill());
  return bridge;
}

type Snapshot = Record<string, unknown> & { schema: string; root: string };

async function open(bridge: BridgeProcess, root: string, options: Record<string, unknown> = {}) {
  const { session_id } = await bridge.call<{ session_id: string }>("session.create", {
    root,
    options: { use_git: false, ...options },
  });
  return session_id;
}

const changedPaths = async (bridge: BridgeProcess, session_id: string) =>
  (
    await bridge.call<{ changes: { path: string }[] }>("session.observe_workspace", { session_id })
  ).changes.map((c) => c.path);

describe("gapless sessions: session.baseline → session.create options.continue_from", () => {
  test("an unverified turn's change survives a bridge restart: the next session's ledger holds it (a fresh session's does not)", async () => {
    const root = workspace();
    const first = bridgeProcess();
    const a = await open(first, root);
    writeFileSync(join(root, "lib.js"), "module.exports = 2;\n");
    const ended = await first.call<{ ended: boolean; outcome: { reason: string } }>(
      "session.end_turn",
      { session_id: a },
    );
    expect([ended.ended, ended.outcome.reason]).toEqual([false, "unverified_mutation"]);
    // The turn is open: its baseline is the one before the change.
    const { baseline } = await first.call<{ baseline: Snapshot }>("session.baseline", {
      session_id: a,
    });
    expect(baseline.schema).toBe("turngate.workspace_snapshot.v1");
    expect(baseline.root).toBe(root);
    expect(await first.end()).toBe(0);

    const second = bridgeProcess();
    const chained = await open(second, root, { continue_from: baseline });
    expect(await changedPaths(second, chained)).toEqual(["lib.js"]);
    expect(await second.call("session.effect_digest", { session_id: chained })).toEqual({
      effect_digest: sha256(`workspace|lib.js|${sha256("module.exports = 2;\n")}`),
    });
    const fresh = await open(second, root);
    expect(await changedPaths(second, fresh)).toEqual([]);
  });

  test("after an ended turn, the baseline is the state it was judged on: a change made after the decision is the next session's", async () => {
    const root = workspace();
    const first = bridgeProcess();
    const a = await open(first, root);
    writeFileSync(join(root, "lib.js"), "module.exports = 2;\n");
    await first.call("session.observe_workspace", { session_id: a });
    await first.call("session.verify_commands", {
      session_id: a,
      subject: "unit",
      commands: [passing],
      bind: true,
    });
    const ended = await first.call<{ ended: boolean }>("session.end_turn", { session_id: a });
    expect(ended.ended).toBe(true);
    // Someone writes after the turn was judged.
    writeFileSync(join(root, "later.js"), "oops\n");
    const { baseline } = await first.call<{ baseline: Snapshot }>("session.baseline", {
      session_id: a,
    });
    // The same session sees it as the next turn's change.
    expect(await changedPaths(first, a)).toEqual(["later.js"]);

    const second = bridgeProcess();
    const chained = await open(second, root, { continue_from: baseline });
    expect(await changedPaths(second, chained)).toEqual(["later.js"]);
  });

  test("a malformed continue_from or one of another root is refused at its field", async () => {
    const root = workspace();
    const bridge = bridgeProcess();
    const bad = await bridge.request("session.create", {
      root,
      options: { continue_from: { schema: "nope" } },
    });
    expect(bad.error?.data).toMatchObject({
      code: "invalid_snapshot",
      path: "options.continue_from.schema",
    });
    const other = workspace();
    const a = await open(bridge, other);
    const { baseline } = await bridge.call<{ baseline: Snapshot }>("session.baseline", {
      session_id: a,
    });
    const wrongRoot = await bridge.request("session.create", {
      root,
      options: { use_git: false, continue_from: baseline },
    });
    expect(wrongRoot.error?.data).toMatchObject({
      code: "invalid_snapshot",
      path: "options.continue_from.root",
    });
    expect(wrongRoot.error?.message).toContain(
      `snapshot.root is ${other}, but this observer watches ${root}`,
    );
    const entries = (baseline.entries as unknown[]).slice();
    const broken = await bridge.request("session.create", {
      root: other,
      options: { use_git: false, continue_from: { ...baseline, entries: [...entries, 7] } },
    });
    expect(broken.error?.data).toMatchObject({
      code: "invalid_snapshot",
      path: `options.continue_from.entries.${entries.length}`,
    });
  });
});
