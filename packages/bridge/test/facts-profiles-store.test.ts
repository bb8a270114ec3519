/**
 * `facts.profile_matches`, `facts.ladder_plan`, `facts.hud_model` and `facts.hud_text` with
 * `store_dir` through the real stdio server (issue 35 item 4): they read the profile store
 * `facts.run_check` records into, seen from `options.dir` (the HUD: else `state.dir`), and
 * answer exactly what `@turngate/node`'s `ProfileStore` answers in process. A bad `dir` is
 * `invalid_params` naming the wire field; an in-process endpoint refuses `store_dir`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dispatchStateless } from "@turngate/bridge/pure";
import { hudText } from "@turngate/core";
import { ProfileStore } from "@turngate/node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BridgeProcess } from "./helpers/bridge-process.js";

const ROOT_SET = {
  schemaVersion: 1,
  rows: [
    { id: "unit", check: { rung: "R1", command: "true", resourceClass: "cheap" } },
    { id: "lint", check: { rung: "R1", command: "true" } },
    { id: "full", check: { rung: "R4", command: "make test" } },
  ],
};
const CORE_SET = {
  schemaVersion: 1,
  rows: [
    { id: "core-unit", scope: { language: "ts" }, check: { rung: "R0", command: "true" } },
    { id: "full", check: { rung: "R5", command: "make all" } },
  ],
};

describe("profile, ladder and HUD methods reading the store (store_dir)", () => {
  let bridge: BridgeProcess;
  let root: string;
  let store: string;
  beforeAll(async () => {
    bridge = new BridgeProcess();
    root = mkdtempSync(join(tmpdir(), "turngate-profiles-store-"));
    store = join(root, "store");
    mkdirSync(join(store, "verification-profiles.d/packages/core"), { recursive: true });
    writeFileSync(join(store, "verification-profiles.json"), JSON.stringify(ROOT_SET));
    writeFileSync(
      join(store, "verification-profiles.d/packages/core/verification-profiles.json"),
      JSON.stringify(CORE_SET),
    );
    // The host records a run with facts.run_check; the ladder then reads its timing.
    await bridge.call("facts.run_check", {
      root,
      store_dir: store,
      row_id: "lint",
      spec: ["true"],
    });
  });
  afterAll(() => {
    bridge.kill();
    rmSync(root, { recursive: true, force: true });
  });

  test("ladder_plan reads the record set seen from options.dir, with the timing run_check recorded", async () => {
    const top = await bridge.call<{ selected: Array<Record<string, unknown>> }>(
      "facts.ladder_plan",
      {
        store_dir: store,
      },
    );
    expect(top.selected.map((e) => e.row_id)).toEqual(["unit", "lint", "full"]);
    const lint = top.selected[1] as { p95_ms: number; row: { timings: { samples: number } } };
    expect(lint.row.timings.samples).toBe(1);
    expect(lint.p95_ms).not.toBe(999999);
    const core = await bridge.call<{ selected: Array<Record<string, unknown>> }>(
      "facts.ladder_plan",
      { store_dir: store, query: { language: "TS" }, options: { dir: "packages/core" } },
    );
    expect(core.selected.map((e) => [e.row_id, e.rung])).toEqual([
      ["core-unit", "R0"],
      ["full", "R5"],
    ]);
    // The same answer as the Node API's.
    const node = new ProfileStore(store);
    expect(core).toEqual(await node.ladderPlan({ language: "TS" }, { dir: "packages/core" }));
    expect(top).toEqual(await node.ladderPlan({}, {}));
  });

  test("profile_matches, hud_model and hud_text answer what ProfileStore answers; the HUD falls back to state.dir", async () => {
    const node = new ProfileStore(store);
    const matches = await bridge.call<{ matches: unknown[] }>("facts.profile_matches", {
      store_dir: store,
      query: { language: "ts" },
      options: { dir: "packages/core" },
    });
    expect(matches.matches).toEqual(await node.matches({ language: "ts" }, "packages/core"));
    expect(matches.matches).toHaveLength(2);

    const state = { started_ms: 0, dir: "packages/core", language: "ts" };
    const model = await bridge.call<Record<string, unknown>>("facts.hud_model", {
      store_dir: store,
      state,
      options: { now_ms: 61_000 },
    });
    expect(model).toEqual(await node.hudModel(state, { now_ms: 61_000 }));
    expect((model.next_check as { row_id: string }).row_id).toBe("core-unit");
    const text = await bridge.call<{ text: string }>("facts.hud_text", {
      store_dir: store,
      model_or_state: state,
      options: { now_ms: 61_000 },
    });
    expect(text.text).toBe(hudText(model));
    expect(text.text.split("\n")).toEqual([
      "[verification]",
      "elapsed: 1m1s",
      "next check: R0 true - est 16m39s (p95 warm)",
      "full verify: R5 make all - est 16m39s (p95 warm)",
    ]);
  });

  test("no store file: no rows; without store_dir, options.dir changes nothing", async () => {
    const empty = await bridge.call<Record<string, unknown>>("facts.ladder_plan", {
      store_dir: join(root, "nothing-here"),
    });
    expect([empty.reason, empty.selected]).toEqual(["no_profile_rows", []]);
    const inline = await bridge.call<{ selected: Array<{ row_id: string }> }>("facts.ladder_plan", {
      options: { profiles: ROOT_SET, dir: "packages/core" },
    });
    expect(inline.selected.map((e) => e.row_id)).toEqual(["unit", "lint", "full"]);
  });

  test("a bad dir, store_dir with inline profiles and a corrupt store are typed errors naming the field", async () => {
    const err = async (method: string, params: unknown) =>
      (await bridge.request(method, params)).error?.data;
    expect(await err("facts.ladder_plan", { store_dir: store, options: { dir: "../up" } })).toEqual(
      {
        code: "invalid_params",
        path: "options.dir",
        message: expect.stringContaining('"../up": must not contain ..'),
      },
    );
    expect(
      await err("facts.profile_matches", { store_dir: store, options: { dir: "/etc" } }),
    ).toMatchObject({ code: "invalid_params", path: "options.dir" });
    expect(
      await err("facts.hud_model", { store_dir: store, state: { dir: "a/../../b" } }),
    ).toMatchObject({ code: "invalid_params", path: "state.dir" });
    expect(
      await err("facts.hud_text", { store_dir: store, model_or_state: {}, options: { dir: 7 } }),
    ).toMatchObject({ code: "invalid_params", path: "options.dir" });
    expect(
      await err("facts.ladder_plan", { store_dir: store, options: { profiles: ROOT_SET } }),
    ).toEqual({
      code: "invalid_params",
      path: "options.profiles",
      message:
        "options.profiles: pass either store_dir (read the profile store) or options.profiles (a record set inline), not both",
    });
    expect(await err("facts.ladder_plan", { store_dir: "" })).toMatchObject({
      code: "invalid_params",
      path: "store_dir",
    });
    const corrupt = join(root, "corrupt");
    mkdirSync(corrupt);
    writeFileSync(join(corrupt, "verification-profiles.json"), "{not json");
    expect(await err("facts.ladder_plan", { store_dir: corrupt })).toMatchObject({
      code: "profile_store_invalid",
      message: expect.stringContaining("is not a verification profile record set"),
    });
  });

  test("a line of 256 KiB or more is still served with the store (the worker hands it back)", async () => {
    const padding = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [`pad-${i}`, { note: "x".repeat(100) }]),
    );
    const plan = await bridge.call<{ selected: Array<{ row_id: string }> }>("facts.ladder_plan", {
      store_dir: store,
      options: { warm_state_facts: padding },
    });
    expect(plan.selected.map((e) => e.row_id)).toEqual(["unit", "lint", "full"]);
  });

  test("in process (Pyodide, @turngate/bridge/pure) store_dir is refused naming it", () => {
    for (const method of ["facts.ladder_plan", "facts.profile_matches", "facts.hud_text"]) {
      const params =
        method === "facts.hud_text"
          ? { store_dir: store, model_or_state: {} }
          : { store_dir: store };
      expect(() => dispatchStateless(method, params)).toThrow(
        expect.objectContaining({ code: "invalid_params", path: "store_dir" }),
      );
    }
    expect(() => dispatchStateless("facts.hud_model", { store_dir: store, state: {} })).toThrow(
      "store_dir: this endpoint runs in-process and reads no files",
    );
  });
});
