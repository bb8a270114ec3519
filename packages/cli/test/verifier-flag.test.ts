/**
 * `turngate run --verifier CMD` (issue 13 item 5): the read-only verifier runs once before the
 * gate on a real repository; a writing verifier command is refused and never runs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { cli, gitProject } from "./helpers.js";

const WRITE_42 = `require("node:fs").writeFileSync("value.txt", "42\\n");`;
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups) cleanup();
  cleanups = [];
});

describe("turngate run --verifier", () => {
  test("a passing read-only verifier bound to the digest verifies the turn although the check failed", async () => {
    const p = gitProject({ "value.txt": "0\n" });
    cleanups.push(p.cleanup);
    const agent = p.agent("agent.js", WRITE_42);
    const result = await cli(
      [
        "run",
        "--check",
        "grep -q 99 value.txt",
        "--verifier",
        "grep -q 42 value.txt",
        "--",
        "node",
        agent,
      ],
      p.root,
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("verified: effect digest ");
  });

  test("a verifier command that writes is refused unrun: the file is untouched and the failing turn stays incomplete", async () => {
    const p = gitProject({ "value.txt": "0\n" });
    cleanups.push(p.cleanup);
    const agent = p.agent("agent.js", WRITE_42);
    const result = await cli(
      [
        "run",
        "--check",
        "grep -q 99 value.txt",
        "--verifier",
        "echo 99 > value.txt",
        "--",
        "node",
        agent,
      ],
      p.root,
    );
    expect(result.code).toBe(2);
    expect(readFileSync(join(p.root, "value.txt"), "utf8")).toBe("42\n");
  });
});
