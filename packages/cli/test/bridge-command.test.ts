import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test, vi } from "vitest";
import { testTimeout } from "../../../test-time.js";
import { cliBundleArgs } from "./cli-bundle.js";

// Bounds for hung tests and hooks in this file (test-time.ts scales them under load).
vi.setConfig({ testTimeout: testTimeout(60_000), hookTimeout: testTimeout(60_000) });

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const nodeArgs = cliBundleArgs();

/** Runs `turngate bridge --stdio`, writes `input`, optionally keeps stdin open; returns exit code and stdout lines. */
function bridge(
  input: string,
  keepStdinOpen: boolean,
): Promise<{ code: number | null; lines: string[] }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, "bridge", "--stdio"], { cwd: repoRoot });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    child.on("exit", (code) => resolve({ code, lines: out.split("\n").filter((l) => l !== "") }));
    child.stdin.write(input);
    if (!keepStdinOpen) child.stdin.end();
  });
}

describe("turngate bridge --stdio", () => {
  test("answers initialize and exits 0 after shutdown while stdin stays open", async () => {
    const { code, lines } = await bridge(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n{"jsonrpc":"2.0","id":2,"method":"shutdown"}\n',
      true,
    );
    expect(code).toBe(0);
    const [init, down] = lines.map((l) => JSON.parse(l));
    expect(init).toMatchObject({
      id: 1,
      result: { protocol: "turngate.bridge.v1", version: "0.1.0" },
    });
    expect(init.result.methods).toContain("session.verify_commands");
    expect(down).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });

  test("exits 0 on EOF", async () => {
    const { code, lines } = await bridge(
      '{"jsonrpc":"2.0","id":"a","method":"ledger.digest","params":{"records":[]}}\n',
      false,
    );
    expect(code).toBe(0);
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { jsonrpc: "2.0", id: "a", result: { effect_digest: "" } },
    ]);
  });

  test("without --stdio it is a usage error (exit 1)", () => {
    const run = spawnSync(process.execPath, [...nodeArgs, "bridge"], {
      cwd: repoRoot,
      encoding: "utf8",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("--stdio");
  });
});
