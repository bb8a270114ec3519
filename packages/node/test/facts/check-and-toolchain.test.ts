/**
 * runCheck / recordCheckResult with real processes and a real store, and toolchain probes
 * (harn-verification.md §1.4, §1.6, §2.3, §2.4). The snapshot is taken before the check
 * starts, so a check that edits what it verifies binds the old bytes and shows up stale.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fnv1a64, snapshotStaleness } from "@turngate/core";
import {
  fileHashSnapshot,
  ProfileStore,
  recordCheckResult,
  runCheck,
  toolchainFacts,
} from "@turngate/node";
import { afterEach, beforeEach, describe, expect, test } from "vitest";

const NOW = Date.UTC(2026, 3, 1, 0, 0, 0);
let root: string;
let store: ProfileStore;
beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "turngate-check-"));
  writeFileSync(join(root, "a.txt"), "hello world");
  store = new ProfileStore(join(root, ".turngate"), { now: () => NOW });
  await store.set({ rows: [{ id: "unit", check: { rung: "R2" } }] });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const HELLO = "8618312879776256743"; // FNV-1a 64 of "hello world" (reference §3.1)

describe("runCheck", () => {
  test("a failing check: exit, signature from its output, snapshot bound before launch", async () => {
    const out = await runCheck(
      store,
      "unit",
      { mode: "shell", command: "echo E1 broken; exit 3" },
      {
        root,
        snapshot_paths: ["a.txt"],
      },
    );
    expect(out.result.status).toBe("failed");
    expect(out.observation).toEqual({
      warm: true,
      durationMs: out.result.duration_ms,
      exit: 3,
      snapshot: { "a.txt": HELLO },
      failureSignature: "E1 broken",
    });
    expect(out.snapshot?.snapshot).toEqual({ "a.txt": HELLO });
    expect(out.row?.lastRun).toEqual({
      at: "2026-04-01T00:00:00Z",
      exit: 3,
      failureSignature: "E1 broken",
      snapshot: { "a.txt": HELLO },
    });
    expect(out.row?.timings).toMatchObject({ samples: 1 });
  });

  test("a check that rewrites the file it verifies is bound to the old bytes: stale afterwards", async () => {
    const out = await runCheck(store, "unit", ["sh", "-c", "printf cheated > a.txt"], {
      root,
      snapshot_paths: ["a.txt"],
    });
    expect(out.observation.exit).toBe(0);
    expect(out.observation.snapshot).toEqual({ "a.txt": HELLO });
    const current = await fileHashSnapshot(root, ["a.txt"]);
    expect(current.snapshot["a.txt"]).toBe(fnv1a64(new TextEncoder().encode("cheated")));
    expect(snapshotStaleness(out.observation.snapshot, current).status).toBe("bound_stale");
  });

  test("a timed-out check is exit 124 with the fallback signature", async () => {
    const out = await runCheck(
      store,
      "unit",
      { argv: ["sleep", "5"], timeout_ms: 200 },
      { root, cold: true },
    );
    expect(out.result.status).toBe("timed_out");
    expect([out.observation.exit, out.observation.warm, out.observation.failureSignature]).toEqual([
      124,
      false,
      "check timed_out exit=124",
    ]);
    expect(out.row?.timings).toMatchObject({ samples: 1 });
  });

  test("background is refused; record: false records nothing; bad specs name the field", async () => {
    await expect(
      runCheck(store, "unit", ["true"], { root, command_options: { background: true } }),
    ).rejects.toThrow(
      "verification_run_check: background command_options are not supported; use verification_start_check",
    );
    const before = await store.read();
    const out = await runCheck(store, "unit", ["true"], { root, record: false });
    expect([out.row, out.observation.exit]).toEqual([null, 0]);
    expect(await store.read()).toEqual(before);
    await expect(runCheck(store, "unit", "true", { root })).rejects.toThrow(
      "invalid command spec at spec: command_run: spec must be an argv list or command spec dict",
    );
    await expect(runCheck(store, "unit", { command: "true" }, { root })).rejects.toThrow(
      'at spec.mode: command_run: shell mode requires mode: "shell"',
    );
  });
});

describe("recordCheckResult", () => {
  test("records a given result; unknown row → row null", async () => {
    const out = await recordCheckResult(store, "unit", { exit_code: 0, duration_ms: 42 });
    expect(out.observation).toEqual({ warm: true, durationMs: 42, exit: 0 });
    expect(out.row?.timings).toEqual({
      recentWarmMs: [42],
      warmMs: { p50: 42, p95: 42, p99: 42 },
      samples: 1,
    });
    expect((await recordCheckResult(store, "nope", { exit_code: 0 })).row).toBeNull();
    await expect(recordCheckResult(store, "", { exit_code: 0 })).rejects.toThrow(
      "row_id must not be empty",
    );
  });

  test("options.dir records at that store directory's origin; a deeper set with rows takes it", async () => {
    const root = await recordCheckResult(
      store,
      "unit",
      { exit_code: 0, duration_ms: 7 },
      { dir: "pkg/src" },
    );
    expect(root.row?.timings?.recentWarmMs).toEqual([7]);
    await store.set({ rows: [{ id: "unit" }] }, "pkg");
    const pkg = await recordCheckResult(
      store,
      "unit",
      { exit_code: 1, duration_ms: 9 },
      { dir: "pkg/src" },
    );
    expect(pkg.row?.timings?.recentWarmMs).toEqual([9]);
    expect((await store.readOwn("pkg"))?.rows?.[0]?.lastRun?.exit).toBe(1);
    expect((await store.readOwn())?.rows?.[0]?.timings?.recentWarmMs).toEqual([7]);
    await expect(
      recordCheckResult(store, "unit", { exit_code: 0 }, { dir: "../elsewhere" }),
    ).rejects.toThrow("must not contain ..");
  });
});

describe("toolchainFacts", () => {
  test("node --version, a missing binary, no probe, an overrunning probe — never an exception", async () => {
    const facts = await toolchainFacts(
      [
        { id: "node", versionProbe: ["node", "--version"], cacheIdentity: { lock: "x" } },
        { name: "ghost", probe: { spec: ["turngate-no-such-binary-xyz", "--version"] } },
        { id: "bare" },
        { id: "slow", probe: { mode: "shell", command: "sleep 5" } },
        { id: "bad", probe: "not a spec" },
      ],
      { root, timeout_ms: 300, cache_identity: { os: "linux", lock: "base" } },
    );
    const [node, ghost, bare, slow, bad] = facts;
    expect(node).toMatchObject({
      id: "node",
      name: "node",
      available: true,
      version: process.version.slice(1),
      raw_version: process.version,
      cache_identity: { os: "linux", lock: "x" },
      probe: { status: "completed", exit: 0, stdout: `${process.version}\n`, stderr: "" },
    });
    expect(ghost).toMatchObject({
      id: "ghost",
      available: false,
      version: null,
      probe: { status: "failed", exit: 127 },
    });
    expect(bare).toEqual({
      id: "bare",
      name: "bare",
      available: false,
      version: null,
      raw_version: "",
      cache_identity: { os: "linux", lock: "base" },
      probe: { status: "not_configured", exit: null, durationMs: null, stdout: "", stderr: "" },
    });
    expect(slow).toMatchObject({ available: false, probe: { status: "timed_out", exit: 124 } });
    expect(bad?.available).toBe(false);
    expect(bad?.probe.status).toBe("failed");
    expect(bad?.probe.error).toContain("spec must be an argv list or command spec dict");
  });

  test("versionPattern: the seed's go example, then each place in the order §1.6 reads them; the default takes the first dotted number", async () => {
    // The output starts with another dotted number, so the default pattern and a given one differ.
    const out = (extra: Record<string, unknown>) => ({
      spec: { mode: "shell", command: "echo 'toolbox 0.9.1: go version go1.22.5 linux/amd64'" },
      ...extra,
    });
    const go = "go([0-9]+\\.[0-9]+\\.[0-9]+)";
    const facts = await toolchainFacts(
      [
        // harn-verification seed: versionProbe {spec, versionPattern}.
        { id: "go/default", name: "go", versionProbe: out({ versionPattern: go }) },
        { id: "probe-snake", probe: out({ version_pattern: "linux/(amd)64" }) },
        { id: "probe-first", probe: out({ versionPattern: go, version_pattern: "(toolbox)" }) },
        {
          id: "row-camel",
          versionProbe: out({}),
          versionPattern: "(linux)/",
          version_pattern: "x",
        },
        { id: "row-snake", versionProbe: out({}), version_pattern: "version (go)" },
        { id: "probe-over-row", versionProbe: out({ versionPattern: go }), versionPattern: "(x)" },
        {
          id: "probe-snake-over-row",
          probe: out({ version_pattern: "linux/(amd)64" }),
          versionPattern: "(toolbox)",
        },
        { id: "options", versionProbe: out({}) },
        { id: "no-capture", versionProbe: out({ versionPattern: "rustc ([0-9.]+)" }) },
        { id: "unavailable", versionProbe: { spec: ["false"], versionPattern: go } },
      ],
      { root, version_pattern: "(toolbox) " },
    );
    expect(facts.map((f) => [f.id, f.available, f.version])).toEqual([
      ["go/default", true, "1.22.5"],
      ["probe-snake", true, "amd"],
      ["probe-first", true, "1.22.5"],
      ["row-camel", true, "linux"],
      ["row-snake", true, "go"],
      ["probe-over-row", true, "1.22.5"],
      ["probe-snake-over-row", true, "amd"],
      ["options", true, "toolbox"],
      ["no-capture", true, null],
      ["unavailable", false, null],
    ]);
    expect(facts[0]).toMatchObject({
      name: "go",
      raw_version: "toolbox 0.9.1: go version go1.22.5 linux/amd64",
    });
    const [plain] = await toolchainFacts([{ id: "default", versionProbe: out({}) }], { root });
    expect(plain?.version).toBe("0.9.1");
  });

  // Issue 36: a pattern that did not compile gave `version: null` without a word.
  test("a version pattern that does not compile is refused at its field before any probe runs", async () => {
    const marker = join(root, "probed");
    const probe = { mode: "shell", command: `echo 1.2.3; touch ${JSON.stringify(marker)}` };
    const refusal = async (rows: unknown[], options: Record<string, unknown> = {}) => {
      const error = await toolchainFacts(rows, { root, ...options }).then(
        () => null,
        (e: unknown) => e as { code: string; path: string; message: string },
      );
      return error && { code: error.code, path: error.path, message: error.message };
    };
    expect(
      await refusal([
        { id: "a", probe },
        { id: "b", probe: { spec: probe, versionPattern: "(-B" } },
      ]),
    ).toEqual({
      code: "invalid_regex",
      path: "rows.1.probe.versionPattern",
      message: `Invalid regex at rows.1.probe.versionPattern: Invalid regular expression: /(-B/u: Unterminated group (pattern "(-B")`,
    });
    expect((await refusal([{ id: "a", versionProbe: probe, version_pattern: "\\-" }]))?.path).toBe(
      "rows.0.version_pattern",
    );
    expect((await refusal([{ id: "a", probe }], { version_pattern: "[" }))?.path).toBe(
      "options.version_pattern",
    );
    expect(existsSync(marker)).toBe(false);
    const [fact] = await toolchainFacts(
      [{ id: "a", probe: { spec: probe, versionPattern: "(\\d+)\\." } }],
      { root },
    );
    expect(fact?.version).toBe("1");
    expect(existsSync(marker)).toBe(true);
  });
});
