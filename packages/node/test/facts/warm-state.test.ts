/**
 * Warm-state facts and lifecycle with real background processes, and background checks
 * (harn-verification.md §1.4, §1.7, §1.8). "No orphan" is checked by pid: the warm-state
 * shell and the grandchild it forks are gone after teardown, and after the host exits.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  cancelBackground,
  finishCheck,
  ProfileStore,
  startCheck,
  startWarmState,
  teardownWarmState,
  warmStateFacts,
} from "@turngate/node";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../../test-time.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(60_000), hookTimeout: testTimeout(60_000) });

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "turngate-warm-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
async function waitFor(predicate: () => boolean, ms = testTimeout(5000)) {
  const deadline = Date.now() + ms;
  while (!predicate() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return predicate();
}
const pidOf = (file: string) => Number(readFileSync(join(root, file), "utf8").trim());

const SERVER = {
  id: "watch",
  warmMode: {
    mode: "Watch",
    readyProbe: ["test", "-f", "ready.flag"],
    startCommand: {
      mode: "shell",
      command:
        "echo started >> starts.log; echo $$ > server.pid; sleep 60 & echo $! > child.pid; wait",
    },
    stopCommand: { mode: "shell", command: "rm -f ready.flag; echo stopped >> starts.log" },
  },
};

describe("warmStateFacts", () => {
  test("probe, declared readiness, timings and cache identity; a missing probe binary is not an error", async () => {
    writeFileSync(join(root, "ready.flag"), "");
    const facts = await warmStateFacts(
      [
        {
          id: "a",
          warmMode: { readyProbe: ["test", "-f", "ready.flag"] },
          timings: { warmMs: { p95: 800 }, coldMs: { p95: 5000 } },
        },
        {
          id: "b",
          warm_state: {
            ready: false,
            probe: ["test", "-f", "ready.flag"],
            cacheIdentity: { v: 2 },
          },
        },
        {
          id: "c",
          warmMode: { probe: ["turngate-no-such-binary-xyz"] },
          expected_warm_delta_ms: "4000",
        },
        { name: "plain" },
      ],
      { root, cache_identity: { os: "linux", v: 1 } },
    );
    expect(
      facts.map((f) => [f.id, f.configured, f.available, f.ready, f.timing_kind, f.mode]),
    ).toEqual([
      ["a", true, true, true, "warm", "probe"],
      ["b", true, true, false, "cold", "probe"],
      ["c", true, false, false, "cold", "probe"],
      ["plain", false, false, false, "cold", "probe"],
    ]);
    expect([facts[0]?.warm_ms, facts[0]?.cold_ms]).toEqual([800, 5000]);
    expect(facts[1]?.cache_identity).toEqual({ os: "linux", v: 2 });
    expect(facts[2]?.expected_warm_delta_ms).toBe(4000);
    expect(facts[2]?.probe).toMatchObject({ status: "failed", exit: 127 });
    expect(facts[3]?.probe).toEqual({
      status: "not_configured",
      exit: null,
      durationMs: null,
      stdout: "",
      stderr: "",
    });
  });
});

describe("warm-state lifecycle", () => {
  test("start spawns once, a receipt is reused while warming, ready spawns nothing, teardown leaves no process", async () => {
    const first = await startWarmState(SERVER, { root });
    expect([first.status, first.reused, first.handle_id === first.started?.handle_id]).toEqual([
      "starting",
      false,
      true,
    ]);
    expect(await waitFor(() => existsSync(join(root, "child.pid")))).toBe(true);
    const server = pidOf("server.pid");
    const child = pidOf("child.pid");
    expect(server).toBe(first.started?.pid);
    expect([alive(server), alive(child)]).toEqual([true, true]);

    const again = await startWarmState(SERVER, { root, existing: first });
    expect([again.status, again.reused, again.handle_id]).toEqual([
      "starting",
      true,
      first.handle_id,
    ]);
    writeFileSync(join(root, "ready.flag"), "");
    const ready = await startWarmState(SERVER, { root });
    expect([ready.status, ready.reused, ready.handle_id]).toEqual(["ready", false, null]);
    expect(readFileSync(join(root, "starts.log"), "utf8")).toBe("started\n");

    const down = await teardownWarmState(first, { root });
    expect([down.status, down.cancelled, down.teardown?.status]).toEqual([
      "torn_down",
      true,
      "completed",
    ]);
    expect(await waitFor(() => !alive(server) && !alive(child))).toBe(true);
    expect(existsSync(join(root, "ready.flag"))).toBe(false);
    expect(readFileSync(join(root, "starts.log"), "utf8")).toBe("started\nstopped\n");
    const twice = await teardownWarmState(first, { root });
    expect(twice.cancelled).toBe(false);
  });

  // §1.8: the start command is the first of startCommand, start_command, spawnCommand,
  // spawn_command (in the warm mode, then its command, then the row); teardown runs the first
  // of teardownCommand, teardown_command, stopCommand, stop_command. Each alias alone.
  test.each([
    ["start_command", "teardownCommand", "mode"],
    ["spawnCommand", "teardown_command", "mode"],
    ["spawn_command", "stop_command", "mode"],
    ["startCommand", "stopCommand", "row"],
    ["spawnCommand", "teardownCommand", "row"],
  ])("alias %s starts and %s tears down (declared on the %s)", async (start, stop, where) => {
    const commands = {
      [start]: {
        mode: "shell",
        command: `echo ${start} >> alias.log; echo $$ > server.pid; exec sleep 60`,
      },
      [stop]: { mode: "shell", command: `echo ${stop} >> alias.log` },
    };
    const probe = { readyProbe: ["test", "-f", "ready.flag"] };
    const row =
      where === "mode"
        ? { id: "alias", warmMode: { ...probe, ...commands } }
        : { id: "alias", warmMode: probe, ...commands };
    const started = await startWarmState(row, { root });
    expect([started.status, started.reused]).toEqual(["starting", false]);
    expect(await waitFor(() => existsSync(join(root, "server.pid")))).toBe(true);
    const server = pidOf("server.pid");
    expect(server).toBe(started.started?.pid);
    const down = await teardownWarmState(started, { root });
    expect([down.status, down.cancelled, down.teardown?.status]).toEqual([
      "torn_down",
      true,
      "completed",
    ]);
    expect(await waitFor(() => !alive(server))).toBe(true);
    expect(readFileSync(join(root, "alias.log"), "utf8")).toBe(`${start}\n${stop}\n`);
  });

  test("the warm mode's start command wins over the row's; startCommand over its aliases", async () => {
    const say = (word: string) => ({
      mode: "shell",
      command: `echo ${word} >> alias.log; exec sleep 60`,
    });
    const row = {
      id: "order",
      warmMode: {
        readyProbe: ["false"],
        spawnCommand: say("mode-spawn"),
        startCommand: say("mode-start"),
      },
      startCommand: say("row-start"),
    };
    const started = await startWarmState(row, { root });
    expect(await waitFor(() => existsSync(join(root, "alias.log")))).toBe(true);
    await teardownWarmState(started, { root });
    expect(readFileSync(join(root, "alias.log"), "utf8")).toBe("mode-start\n");
  });

  test("a row without a start command is not_configured", async () => {
    const r = await startWarmState({ id: "x", warmMode: { readyProbe: ["false"] } }, { root });
    expect([r.status, r.handle_id, r.started]).toEqual(["not_configured", null, null]);
  });

  test("when the host process exits, its warm-state processes are killed (no orphan)", async () => {
    const host = fileURLToPath(new URL("./fixtures/warm-host.ts", import.meta.url));
    const out = spawnSync(
      process.execPath,
      ["--conditions=@turngate/source", "--import", "tsx", host, root, JSON.stringify(SERVER)],
      { encoding: "utf8", timeout: testTimeout(20_000) },
    );
    expect(out.status).toBe(0);
    const server = pidOf("server.pid");
    const child = pidOf("child.pid");
    expect(await waitFor(() => !alive(server) && !alive(child))).toBe(true);
  });
});

describe("startCheck / finishCheck", () => {
  test("a background check is bound to the snapshot taken at start and recorded when finished", async () => {
    writeFileSync(join(root, "a.txt"), "hello world");
    const store = new ProfileStore(join(root, ".turngate"), { now: () => Date.UTC(2026, 0, 1) });
    await store.set({ rows: [{ id: "slow", check: { rung: "R3" } }] });
    const receipt = await startCheck("slow", ["sh", "-c", "sleep 0.2; echo flaky; exit 4"], {
      root,
      snapshot_paths: ["a.txt"],
    });
    writeFileSync(join(root, "a.txt"), "changed while the check ran");
    const done = await finishCheck(store, receipt);
    expect(done.observation).toEqual({
      warm: true,
      durationMs: (done.result as { duration_ms: number }).duration_ms,
      exit: 4,
      snapshot: { "a.txt": "8618312879776256743" },
      failureSignature: "flaky",
    });
    expect(done.row?.lastRun).toEqual({
      at: "2026-01-01T00:00:00Z",
      exit: 4,
      failureSignature: "flaky",
      snapshot: { "a.txt": "8618312879776256743" },
    });
  });

  test("still running after the wait: nothing recorded; the receipt needs a row id", async () => {
    const store = new ProfileStore(join(root, ".turngate"));
    await store.set({ rows: [{ id: "slow" }] });
    const receipt = await startCheck("slow", ["sleep", "30"], { root });
    const early = await finishCheck(store, receipt, { wait_options: { timeout_ms: 50 } });
    expect([(early.result as { status: string }).status, early.observation, early.row]).toEqual([
      "running",
      null,
      null,
    ]);
    expect((await cancelBackground(receipt.started.handle_id)).cancelled).toBe(true);
    expect(await waitFor(() => !alive(receipt.started.pid))).toBe(true);
    await expect(finishCheck(store, { ...receipt, row_id: " " })).rejects.toThrow(
      "verification_finish_check: row_id must be supplied in the receipt or options",
    );
  });
});
