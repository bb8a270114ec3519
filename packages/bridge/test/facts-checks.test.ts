/**
 * `facts.run_check`, `facts.toolchain` and `facts.warm_state` through the real stdio server
 * (they run commands and write the profile store; harn-verification.md §1.4, §1.6, §1.7).
 * FNV-1a 64 of "hello world" is Harn's reference vector (§3.1).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { statelessMethodNames } from "@turngate/bridge/pure";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { BridgeProcess } from "./helpers/bridge-process.js";

describe("facts.run_check / facts.toolchain / facts.warm_state over stdio", () => {
  let bridge: BridgeProcess;
  let root: string;
  beforeAll(() => {
    bridge = new BridgeProcess();
    root = mkdtempSync(join(tmpdir(), "turngate-facts-checks-"));
    writeFileSync(join(root, "a.txt"), "hello world");
  });
  afterAll(() => {
    bridge.kill();
    rmSync(root, { recursive: true, force: true });
  });

  test("run_check records into the store; the snapshot is taken before the check", async () => {
    const store = join(root, "store");
    const first = await bridge.call<Record<string, unknown>>("facts.run_check", {
      root,
      store_dir: store,
      row_id: "unit",
      spec: { mode: "shell", command: "echo boom; exit 2" },
      options: { snapshot_paths: ["a.txt"] },
    });
    expect(first.row).toBeNull(); // no store yet: nothing to record into
    expect(first.observation).toMatchObject({
      exit: 2,
      failureSignature: "boom",
      snapshot: { "a.txt": "8618312879776256743" },
    });
    writeFileSync(
      join(store, "verification-profiles.json"),
      JSON.stringify({ schemaVersion: 1, rows: [{ id: "unit" }] }),
    );
    const second = await bridge.call<Record<string, unknown>>("facts.run_check", {
      root,
      store_dir: store,
      row_id: "unit",
      spec: ["true"],
    });
    expect((second.row as { lastRun: unknown }).lastRun).toMatchObject({ exit: 0 });
    const saved = JSON.parse(readFileSync(join(store, "verification-profiles.json"), "utf8"));
    expect(saved.rows[0].timings.samples).toBe(1);
  });

  test("run_check errors: background, a bad spec, a corrupt store", async () => {
    const err = async (params: unknown) =>
      (await bridge.request("facts.run_check", params)).error?.data;
    const base = { root, store_dir: join(root, "s2"), row_id: "x" };
    expect(
      await err({ ...base, spec: ["true"], options: { command_options: { background: true } } }),
    ).toMatchObject({
      code: "background_not_supported",
    });
    expect(await err({ ...base, spec: "true" })).toMatchObject({
      code: "invalid_params",
      path: "spec",
    });
    writeFileSync(join(root, "bad"), "");
    const bad = join(root, "bad-store");
    await bridge.call("facts.run_check", {
      ...base,
      store_dir: bad,
      spec: ["true"],
      options: { record: false },
    });
    writeFileSync(join(root, "bad-store-file"), "");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, "verification-profiles.json"), "[1]");
    expect(await err({ ...base, store_dir: bad, spec: ["true"] })).toMatchObject({
      code: "profile_store_invalid",
    });
    expect(readFileSync(join(bad, "verification-profiles.json"), "utf8")).toBe("[1]");
  });

  test("toolchain: node --version is available, a missing binary is not", async () => {
    const out = await bridge.call<{ facts: Array<Record<string, unknown>> }>("facts.toolchain", {
      root,
      rows: [
        { id: "node", versionProbe: ["node", "--version"] },
        { id: "ghost", probe: ["turngate-no-such-binary-xyz"] },
      ],
    });
    expect(out.facts.map((f) => [f.id, f.available, f.version])).toEqual([
      ["node", true, process.version.slice(1)],
      ["ghost", false, null],
    ]);
  });

  test("warm_state: a declared warm mode and a probe", async () => {
    const out = await bridge.call<{ facts: Array<Record<string, unknown>> }>("facts.warm_state", {
      root,
      rows: [
        { id: "w", warmMode: { warm: true } },
        { id: "p", warmMode: { readyProbe: ["test", "-f", "a.txt"] } },
      ],
    });
    expect(out.facts.map((f) => [f.id, f.ready, f.timing_kind, f.available])).toEqual([
      ["w", true, "warm", false],
      ["p", true, "warm", true],
    ]);
  });

  test("they are server-only (not in the in-process table)", () => {
    expect(statelessMethodNames()).not.toContain("facts.run_check");
    expect(statelessMethodNames()).not.toContain("facts.toolchain");
  });
});

describe("background checks and warm state over stdio", () => {
  let bridge: BridgeProcess;
  let root: string;
  beforeAll(() => {
    bridge = new BridgeProcess();
    root = mkdtempSync(join(tmpdir(), "turngate-facts-bg-"));
  });
  afterAll(() => {
    bridge.kill();
    rmSync(root, { recursive: true, force: true });
  });
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  test("start_check then finish_check records the observation", async () => {
    const store = join(root, "store");
    mkdirSync(store, { recursive: true });
    writeFileSync(
      join(store, "verification-profiles.json"),
      JSON.stringify({ rows: [{ id: "bg" }] }),
    );
    const receipt = await bridge.call<{ started: { pid: number } }>("facts.start_check", {
      root,
      row_id: "bg",
      spec: ["sh", "-c", "sleep 0.2; echo late; exit 6"],
    });
    const done = await bridge.call<Record<string, unknown>>("facts.finish_check", {
      store_dir: store,
      receipt,
    });
    expect(done.observation).toMatchObject({ exit: 6, failureSignature: "late" });
    expect((done.row as { lastRun: unknown }).lastRun).toMatchObject({
      exit: 6,
      failureSignature: "late",
    });
    const foreign = { ...receipt, started: { ...receipt.started, handle_id: "bg-not-mine" } };
    expect(
      (await bridge.request("facts.finish_check", { store_dir: store, receipt: foreign })).error
        ?.data,
    ).toMatchObject({
      code: "unknown_handle",
    });
  });

  test("start_warm_state spawns, teardown_warm_state kills the group (checked by pid)", async () => {
    const row = {
      id: "srv",
      warmMode: {
        readyProbe: ["test", "-f", "never"],
        startCommand: { mode: "shell", command: "sleep 60 & echo $! > child.pid; wait" },
      },
    };
    const receipt = await bridge.call<{ status: string; started: { pid: number } }>(
      "facts.start_warm_state",
      { root, row },
    );
    expect(receipt.status).toBe("starting");
    const deadline = Date.now() + testTimeout(5000);
    while (!existsSync(join(root, "child.pid")) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const child = Number(readFileSync(join(root, "child.pid"), "utf8"));
    expect([alive(receipt.started.pid), alive(child)]).toEqual([true, true]);
    const down = await bridge.call<{ cancelled: boolean }>("facts.teardown_warm_state", {
      root,
      receipt,
    });
    expect(down.cancelled).toBe(true);
    const until = Date.now() + testTimeout(5000);
    while ((alive(receipt.started.pid) || alive(child)) && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    expect([alive(receipt.started.pid), alive(child)]).toEqual([false, false]);
    expect(
      (await bridge.call<{ cancelled: boolean }>("facts.teardown_warm_state", { root, receipt }))
        .cancelled,
    ).toBe(false);
  });
});
