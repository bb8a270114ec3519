import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, test } from "vitest";
import { makeRepo, removeRepos } from "./fixture-repo.js";

afterAll(removeRepos);

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../..");
const script = path.join(repoRoot, "scripts/check-capabilities.ts");
const tsx = path.join(repoRoot, "node_modules/.bin/tsx");

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(tsx, [script, ...args]);
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("check-capabilities CLI", () => {
  test("prints the exact success line and exits 0", async () => {
    expect(await run(["--root", makeRepo()])).toEqual({
      code: 0,
      stdout: "capability verification complete: 3 areas, 4 claims, 7 surfaces, 6 tests\n",
      stderr: "",
    });
  });

  test("prints every problem on its own line, then a count, and exits 1", async () => {
    const root = makeRepo({
      map: (s) => s.replace(/^### Go binding\n[^#]*/m, ""),
      vitest: (f) => ({ "test/gate.test.ts": (f["test/gate.test.ts"] ?? []).slice(0, 1) }),
    });
    expect(await run(["--root", root])).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "Go binding: in the capability evidence ledger but missing from the capability map (docs/capabilities.md)\n" +
        "docs/guide.md:5: links capabilities.md#go-binding, which is no area of the capability map\n" +
        'Completion gate, claim 2 ("An unbound pass never…"): cited test vitest:test/gate.test.ts > gate > blocks an unbound pass did not pass (absent from results/vitest.json)\n' +
        "capability verification failed: 3 problem(s)\n",
    });
  });

  test("--no-results says it skipped the result checks; a bad option exits 2", async () => {
    const root = makeRepo({ vitest: null, pytest: null, go: null });
    expect(await run(["--root", root, "--no-results"])).toEqual({
      code: 0,
      stdout:
        "skipped result checks (--no-results): 6 test reference(s) were looked up in the sources only\n" +
        "capability structure check complete: 3 areas, 4 claims, 7 surfaces, 6 tests\n",
      stderr: "",
    });
    expect(await run(["--bogus"])).toMatchObject({ code: 2, stdout: "" });
  });
});
