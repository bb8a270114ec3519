/**
 * Runs a claim's cited vitest tests with one curated wrong change applied (issue 35 item 2;
 * `./wrong-changes.ts`). The change is applied in memory only: a Vite plugin serves the changed
 * text whenever vitest loads the file, so nothing in the working tree is written and an
 * interrupted run leaves no half-changed file. The tests run in-process through vitest's Node
 * API with the repository's own vitest config. A test that loads the file in a child process
 * (a built `dist/`, a spawned CLI) does not see the change; such a claim cites a test that
 * imports the source, or its change is never caught and the check says so.
 */
import fs from "node:fs";
import path from "node:path";
import { startVitest } from "vitest/node";
import type { VitestReference } from "./test-references.js";
import { applyWrongChange, type TestRunOutcome, type WrongChange } from "./wrong-changes.js";

/** Options of {@link runCitedTests}. */
export interface CitedTestsOptions {
  /** Repository root (vitest's root; its vitest config is used when present). */
  root: string;
  /** Test file globs replacing the config's `include` (fixtures); default the config's. */
  include?: string[];
}

/** Escapes `text` for use inside a regular expression. */
function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

interface TaskLike {
  type: string;
  name: string;
  mode: string;
  result?: { state?: string };
  tasks?: TaskLike[];
  suite?: TaskLike;
}

/** The test's describe chain and title joined by " > ", as a reference writes it. */
function fullName(task: TaskLike, parents: string[]): string {
  return [...parents, task.name].join(" > ");
}

/**
 * Applies `change` in memory and runs the tests `refs` name.
 *
 * @returns how many of the named tests ran and how many failed; a test of the same files that
 *   the name pattern also matched but that is not named is not counted
 * @throws Error when `find` does not occur exactly once in the file
 */
export async function runCitedTests(
  change: WrongChange,
  refs: VitestReference[],
  options: CitedTestsOptions,
): Promise<TestRunOutcome> {
  const root = path.resolve(options.root);
  const target = path.join(root, change.file);
  const changed = applyWrongChange(fs.readFileSync(target, "utf8"), change);
  const realTarget = fs.realpathSync(target);
  let served = 0;
  const plugin = {
    name: "turngate-wrong-change",
    enforce: "pre" as const,
    load(id: string) {
      const file = id.split("?")[0] ?? "";
      if (file !== target && file !== realTarget) return null;
      served++;
      return changed;
    },
  };
  const files = [...new Set(refs.map((r) => r.file))];
  const wanted = new Set(refs.map((r) => `${r.file} > ${r.name}`));
  const pattern = `^(${refs.map((r) => escapeRegExp(r.name.split(" > ").join(" "))).join("|")})$`;
  const exitCode = process.exitCode;
  const vitest = await startVitest(
    "test",
    files,
    {
      root,
      run: true,
      watch: false,
      reporters: [{}],
      testNamePattern: pattern,
      passWithNoTests: true,
      ...(options.include ? { include: options.include } : {}),
    },
    { plugins: [plugin] },
  );
  let ran = 0;
  let failed = 0;
  try {
    for (const file of vitest.state.getFiles()) {
      const rel = path.relative(root, file.filepath).split(path.sep).join("/");
      const walk = (task: TaskLike, parents: string[]) => {
        if (task.type === "test") {
          if (task.mode !== "run" || !wanted.has(`${rel} > ${fullName(task, parents)}`)) return;
          ran++;
          if (task.result?.state === "fail") failed++;
          return;
        }
        const next = task.type === "suite" ? [...parents, task.name] : parents;
        for (const child of task.tasks ?? []) walk(child, next);
      };
      for (const child of (file as unknown as TaskLike).tasks ?? []) walk(child, []);
    }
  } finally {
    await vitest.close();
    // startVitest sets a failing exit code when a test fails; here a failure is the expected outcome.
    process.exitCode = exitCode;
  }
  if (served === 0 && ran > 0) {
    return {
      ran,
      failed: 0,
      error: `no cited test loaded ${change.file}, so the change was never seen`,
    };
  }
  return { ran, failed };
}
