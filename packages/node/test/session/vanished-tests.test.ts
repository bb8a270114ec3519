/**
 * Vanished tests (issue #16 §3) through `Session` on a real git repository with real
 * pytest runs: the last verified run's test ids are kept in a user-level folder outside the
 * workspace; a deleted test file is not flagged, a test deselected with `-k` (the agent
 * edits pytest.ini) or newly skipped is, and only a verified turn or a host waiver of the
 * flagged digest moves the baseline.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { VerificationCommandInput } from "@turngate/core";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { Session } from "../../src/session/session.js";
import { TestHistoryStore } from "../../src/test-history/store.js";
import { pythonTestEnv } from "../python-env.js";
import { tempDir } from "../runner/helpers.js";
import { useGitRepos } from "./git-repo.js";

const repo = useGitRepos();
let state: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  state = await tempDir("vanished-state");
});
afterEach(async () => {
  await state.cleanup();
});

const CHECK: VerificationCommandInput = {
  id: "unit",
  kind: "test",
  description: "unit tests",
  command: "python3 -m pytest -q -p no:cacheprovider --junitxml={results}",
  required: true,
  results: { format: "junit" },
};
const A = "def test_one():\n    assert True\n\n\ndef test_two():\n    assert True\n";
const B = "def test_three():\n    assert True\n";
const FILES = { "tests/test_a.py": A, "tests/test_b.py": B, "app.py": "x = 1\n" };

async function turn(
  root: string,
  change: () => void,
  waivers: { effect_digest: string; reason: string }[] = [],
  baseline?: Session["baseline"],
) {
  const session = await Session.start({
    root,
    ...(baseline ? { baseline } : {}),
    logDir: join(state.path, "logs"),
    testHistoryDir: join(state.path, "history"),
    env: pythonTestEnv(),
    waivers,
  });
  change();
  await session.observeWorkspace();
  const result = await session.verifyCommands("checks", [CHECK], { bind: true });
  const outcome = await session.decide();
  return {
    check: result.report.checks[0],
    outcome,
    digest: session.effectDigest,
    baseline: session.baseline,
  };
}

describe("vanished tests", () => {
  test("a verified turn stores the ids; deleting a test file is not flagged", async () => {
    const r = await repo(FILES);
    const first = await turn(r.root, () => r.write("app.py", "x = 2\n"));
    expect(first.outcome).toEqual({
      kind: "allow",
      terminal: { kind: "verified", effect_digest: first.digest },
    });
    const stored = await new TestHistoryStore(join(state.path, "history"), r.root).read("unit");
    expect(Object.keys(stored ?? {}).sort()).toEqual([
      "pytest > tests.test_a::test_one",
      "pytest > tests.test_a::test_two",
      "pytest > tests.test_b::test_three",
    ]);
    // The history lives outside the workspace.
    expect(existsSync(join(r.root, ".turngate", "history"))).toBe(false);

    const second = await turn(r.root, () => rmSync(join(r.root, "tests/test_b.py")));
    expect(second.check?.residual_risk).toBeUndefined();
    expect(second.check?.status).toBe("passed");
    expect(second.check?.residual_risk).toBeUndefined();
    expect(second.outcome.kind).toBe("allow");
  });

  test("cheat: a test deselected with -k in pytest.ini is flagged tests_disappeared", async () => {
    const r = await repo(FILES);
    await turn(r.root, () => r.write("app.py", "x = 2\n"));
    const flagged = await turn(r.root, () =>
      r.write("pytest.ini", '[pytest]\naddopts = -k "not test_two"\n'),
    );
    expect(flagged.check?.status).toBe("needs_review");
    expect(flagged.check?.residual_risk).toBe(
      "tests_disappeared: 1 test of the last verified run is gone: pytest > tests.test_a::test_two",
    );
    expect(flagged.outcome.kind).toBe("incomplete");
    // The flagged turn did not move the baseline: the next turn is flagged again.
    const again = await turn(r.root, () =>
      r.write("pytest.ini", '[pytest]\naddopts = -k "not test_two"\n# again\n'),
    );
    expect(again.check?.status).toBe("needs_review");
  });

  test("cheat: a passing test now skipped is flagged tests_skipped", async () => {
    const r = await repo(FILES);
    await turn(r.root, () => r.write("app.py", "x = 2\n"));
    const flagged = await turn(r.root, () =>
      r.write(
        "tests/test_b.py",
        "import pytest\n\n\n@pytest.mark.skip(reason='flaky')\ndef test_three():\n    assert True\n",
      ),
    );
    expect(flagged.check?.status).toBe("needs_review");
    expect(flagged.check?.residual_risk).toBe(
      "tests_skipped: 1 test that passed in the last verified run is skipped: pytest > tests.test_b::test_three",
    );
  });

  test("a host waiver of the flagged digest moves the baseline; a waiver of another digest does not", async () => {
    const r = await repo(FILES);
    await turn(r.root, () => r.write("app.py", "x = 2\n"));
    const ini = '[pytest]\naddopts = -k "not test_two"\n';
    const flagged = await turn(r.root, () => r.write("pytest.ini", ini));
    expect(flagged.check?.status).toBe("needs_review");
    const historyFile = new TestHistoryStore(join(state.path, "history"), r.root).pathOf("unit");
    const before = readFileSync(historyFile, "utf8");

    // The flagged turn again (its baseline, the same bytes), with a waiver of another digest.
    const wrong = await turn(
      r.root,
      () => {},
      [{ effect_digest: "a".repeat(64), reason: "unrelated" }],
      flagged.baseline,
    );
    expect(wrong.digest).toBe(flagged.digest);
    expect(wrong.outcome.kind).toBe("incomplete");
    expect(readFileSync(historyFile, "utf8")).toBe(before);

    // Once more, with the host's waiver of the flagged digest.
    const waived = await turn(
      r.root,
      () => {},
      [{ effect_digest: flagged.digest, reason: "test_two moved to the slow suite" }],
      flagged.baseline,
    );
    expect(waived.digest).toBe(flagged.digest);
    expect(waived.outcome).toEqual({
      kind: "allow",
      terminal: { kind: "waived", effect_digest: flagged.digest },
    });
    const after = await new TestHistoryStore(join(state.path, "history"), r.root).read("unit");
    expect(Object.keys(after ?? {}).sort()).toEqual([
      "pytest > tests.test_a::test_one",
      "pytest > tests.test_b::test_three",
    ]);
    const next = await turn(r.root, () => r.write("app.py", "x = 3\n"));
    expect(next.check?.status).toBe("passed");
    expect(next.outcome.kind).toBe("allow");
  });
});
