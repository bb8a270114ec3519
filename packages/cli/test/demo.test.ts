import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { cli, cliWithAgent } from "./helpers.js";

const sha256 = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

describe("turngate demo", () => {
  test("four scripted turns end verified, narrative, incomplete (failing check + gate message), and incomplete again when the agent only says it fixed the test", async () => {
    const result = await cliWithAgent(["demo", "--keep"], process.cwd());
    expect(result.code).toBe(0);
    const out = result.stdout;
    const root = /project kept in (\S+)\n/.exec(out)?.[1] as string;
    cleanup = () => rmSync(root, { recursive: true, force: true });
    expect(out).toMatch(
      /^turngate demo: sample project in \S+ \(git repository\), kept after the demo \(--keep\)\n/,
    );
    expect(out).toContain("\n== Turn 1 of 4: the agent fixes the slugify bug ==\n");
    expect(out).toMatch(
      /changed: 1 path\n {2}modified src\/slugify\.js\naffected: 2 targets: file:src\/slugify\.js \(fallback\), file:test\.js \(dependent\)\nchecks: 1 passed\nverified: effect digest [0-9a-f]{64}\nproof: \.turngate\/proofs\/[0-9a-f]{64}\.json\n/,
    );
    expect(out).toContain(
      "\n== Turn 2 of 4: the agent only reads the project ==\nchanged: nothing\nnarrative: the turn changed no files; nothing to verify\n",
    );
    expect(out).toContain(
      "\n== Turn 3 of 4: the agent makes slugs keep capitals and breaks a test ==\n",
    );
    expect(out).toMatch(
      /incomplete \(unverified_mutation\): the change \(effect digest [0-9a-f]{64}\) is not verified: the required checks did not all pass\. Fix it and run again, or, as the host, accept this exact change with --waive [0-9a-f]{64}:REASON\n/,
    );
    expect(out).toContain(
      [
        "failed (assertion): demo:test: exit code 1, expected 0: node test.js",
        "  last 4 lines (full log: .turngate/logs/",
      ].join("\n"),
    );
    expect(out).toContain(
      [
        '  | FAIL lower-cases every letter: expected "release-notes", got "Release-Notes"',
        "  | ok   joins words with single hyphens",
        '  | FAIL drops punctuation: expected "hello-world", got "Hello-World"',
        "  | 1 passed, 2 failed",
      ].join("\n"),
    );
    // Turn 4 changed nothing, so the file on disk is turn 3's: its digest is the one the gate
    // named, and turn 4 (the turn chain) names it again: the broken change is still unverified.
    const bytes = readFileSync(join(root, "src/slugify.js"));
    expect(bytes.toString("utf8")).not.toContain("toLowerCase");
    const turn3Digest = sha256(`workspace|src/slugify.js|${sha256(bytes)}`);
    expect(out).toContain(`the change (effect digest ${turn3Digest}) is not verified`);
    expect(out).toContain(
      `\n== Turn 4 of 4: the agent says it fixed the test, and changes nothing ==\nchanged: nothing\nincomplete (unverified_carry_over): completion gate: this turn changed nothing, but an earlier turn's changes are still unverified (src/slugify.js): they are in the workspace and no passing check covers them. Change the code so the checks pass (the next turn's checks run on them), or, as the host, accept that change with --waive ${turn3Digest}:REASON, or, as the host, start over with \`turngate run --fresh\`\n`,
    );
    expect(
      out.endsWith(
        `\nturngate demo: verified, narrative, incomplete, incomplete\nturngate demo: project kept in ${root}\n`,
      ),
    ).toBe(true);
    // The agents' own lines were collected, not printed into the test log (issue #12 item 15).
    expect(result.agent).toBe(
      [
        "agent: slugify kept punctuation; it now drops it. Edited src/slugify.js. Done!",
        "agent: src/ holds slugify.js; slugify.js is 12 lines long. No edits.",
        "agent: slugs now keep capital letters. Edited src/slugify.js. All good!",
        "agent: I fixed the failing test. Everything passes now!",
        "",
      ].join("\n"),
    );
  });

  test("without --keep the output says the temporary folder is removed, and it is (issue #12 item 6)", async () => {
    const result = await cli(["demo"], process.cwd());
    expect(result.code).toBe(0);
    const first =
      /^turngate demo: sample project in (\S+) \(git repository\), removed when the demo ends; pass --keep to keep it\n/.exec(
        result.stdout,
      );
    expect(first).not.toBeNull();
    expect(existsSync(first?.[1] as string)).toBe(false);
    expect(
      result.stdout.endsWith(
        "\nturngate demo: verified, narrative, incomplete, incomplete\nturngate demo: sample project removed (turngate demo --keep keeps it to look at)\n",
      ),
    ).toBe(true);
  });
});
