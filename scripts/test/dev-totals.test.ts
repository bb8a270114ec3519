import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, test } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, "../..");
const totals = path.join(repoRoot, "scripts/ci/totals.mjs");
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, [totals, ...args], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe("scripts/dev closing total (issue #12 item 15)", () => {
  test("says what each number counts on stderr; the last stdout line stays exactly N passed, N failed", () => {
    expect(run("tests=812:1", "matrix cells=144:0", "ledger check=1:0")).toEqual({
      code: 0,
      stdout: "957 passed, 1 failed\n",
      stderr:
        "[dev] total: tests 812 passed, 1 failed; matrix cells 144 passed, 0 failed; ledger check 1 passed, 0 failed\n",
    });
    expect(run("tests=0:0").stdout).toBe("0 passed, 0 failed\n");
  });

  test("a malformed count is refused naming it", () => {
    expect(run("tests=12")).toEqual({
      code: 2,
      stdout: "",
      stderr: 'totals: expected <what>=<passed>:<failed>, got "tests=12"\n',
    });
  });

  test("scripts/dev prints the breakdown before the closing line", () => {
    const dev = readFileSync(path.join(repoRoot, "scripts/dev"), "utf8");
    expect(dev).toContain(
      'node scripts/ci/totals.mjs "tests=$TESTS_P:$TESTS_F" "tests on the TypeScript path=${TS_P:-0}:${TS_F:-0}" \\\n      "matrix cells=$CELLS_P:$CELLS_F" "ledger check=$LEDGER_P:$LEDGER_F" "bite check=$BITE_P:$BITE_F"',
    );
  });
});

describe(".gitignore (issue #12 item 16)", () => {
  test("a non-editable pip install's bindings/python/build/ is ignored; the binding's sources are not", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "turngate-gitignore-"));
    temps.push(dir);
    copyFileSync(path.join(repoRoot, ".gitignore"), path.join(dir, ".gitignore"));
    for (const file of [
      "bindings/python/build/lib/turngate/__init__.py",
      "bindings/python/build/bdist.linux-x86_64/x",
      "bindings/python/turngate/client.py",
    ]) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), "x\n");
    }
    const git = (...args: string[]) =>
      spawnSync("git", args, { cwd: dir, encoding: "utf8" }).stdout;
    git("init", "-q");
    expect(git("status", "--porcelain", "--untracked-files=all")).toBe(
      "?? .gitignore\n?? bindings/python/turngate/client.py\n",
    );
  });
});
