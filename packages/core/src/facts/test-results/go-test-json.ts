import * as z from "zod";
import type { ParsedTest, TestResultParser, TestSuiteError, UnparsedTestInput } from "./types.js";
import { capMessage, eachLine, parseJsonLine, secondsToMs } from "./util.js";

/** One `go test -json` event (test2json's `TestEvent`, plus the build events of Go ≥ 1.24). */
export const GoTestEventSchema = z.looseObject({
  Action: z.string(),
  Package: z.string().optional(),
  Test: z.string().optional(),
  Elapsed: z.number().optional(),
  Output: z.string().optional(),
  FailedBuild: z.string().optional(),
  ImportPath: z.string().optional(),
});

interface GoTest {
  pkg: string;
  name: string;
  action: "pass" | "fail" | "skip" | null;
  elapsed: number | undefined;
  output: string[];
  order: number;
}

interface GoPackage {
  action: string | null;
  output: string[];
  failedBuild: string | null;
}

const FRAMING = /^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (PASS|FAIL|SKIP):)/;

function testMessage(output: readonly string[]): string | null {
  return capMessage(
    output
      .filter((l) => !FRAMING.test(l))
      .join("")
      .replace(/^\s+/, ""),
  );
}

/**
 * `go test -json` (`go_test_json`): one test2json event per line. Every test reaching
 * `pass` / `fail` / `skip` is a test with `id` `package::TestName/sub`, `suite` the
 * package, `duration_ms` from `Elapsed` (s); a failure's or skip's message is its own
 * output without the `=== RUN` / `--- FAIL` framing lines. A test with subtests is a
 * suite, not a test: when it failed and none of its subtests did, that is a suite error.
 * Suite errors also: a build failure (`build-fail`, or a package `fail` with
 * `FailedBuild`; the message is the build output), a package that failed with no failing
 * test (a crash in `TestMain` or `init`, a timeout), and a test that started but never
 * finished (errored, "no result"). Lines that are not JSON events are `unparsed`.
 */
export const parseGoTestJson: TestResultParser = (text) => {
  const unparsed: UnparsedTestInput[] = [];
  const tests = new Map<string, GoTest>();
  const packages = new Map<string, GoPackage>();
  const buildOutput = new Map<string, string[]>();
  const pkgOf = (name: string): GoPackage => {
    let p = packages.get(name);
    if (!p) {
      p = { action: null, output: [], failedBuild: null };
      packages.set(name, p);
    }
    return p;
  };
  eachLine(text.replace(/^\uFEFF/, ""), (line, lineNo) => {
    if (line.trim() === "") return;
    if (!line.trimStart().startsWith("{")) {
      unparsed.push({
        line: lineNo,
        pointer: null,
        text: line,
        reason: "not a go test -json event",
      });
      return;
    }
    const raw = parseJsonLine(line, lineNo, unparsed);
    if (raw === undefined) return;
    const r = GoTestEventSchema.safeParse(raw);
    if (!r.success) {
      unparsed.push({
        line: lineNo,
        pointer: null,
        text: line,
        reason: `not a go test -json event: ${r.error.issues[0]?.message ?? "unexpected shape"}`,
      });
      return;
    }
    const e = r.data;
    if (e.Action === "build-output" || e.Action === "build-fail") {
      const key = e.ImportPath ?? "";
      const out = buildOutput.get(key) ?? [];
      if (e.Output !== undefined) out.push(e.Output);
      buildOutput.set(key, out);
      return;
    }
    const pkgName = e.Package ?? "";
    if (e.Test === undefined) {
      const p = pkgOf(pkgName);
      if (e.Action === "output" && e.Output !== undefined) p.output.push(e.Output);
      else if (e.Action === "pass" || e.Action === "fail" || e.Action === "skip") {
        p.action = e.Action;
        if (e.FailedBuild !== undefined) p.failedBuild = e.FailedBuild;
      }
      return;
    }
    pkgOf(pkgName);
    const key = `${pkgName}::${e.Test}`;
    let t = tests.get(key);
    if (!t) {
      t = {
        pkg: pkgName,
        name: e.Test,
        action: null,
        elapsed: undefined,
        output: [],
        order: tests.size,
      };
      tests.set(key, t);
    }
    if (e.Action === "output" && e.Output !== undefined) t.output.push(e.Output);
    else if (e.Action === "pass" || e.Action === "fail" || e.Action === "skip") {
      t.action = e.Action;
      t.elapsed = e.Elapsed;
    }
  });

  const parents = new Set<string>();
  const failedBelow = new Set<string>();
  for (const t of tests.values()) {
    const parts = t.name.split("/");
    for (let i = 1; i < parts.length; i++) {
      const ancestor = `${t.pkg}::${parts.slice(0, i).join("/")}`;
      parents.add(ancestor);
      if (t.action === "fail" || t.action === null) failedBelow.add(ancestor);
    }
  }
  const out: ParsedTest[] = [];
  const errors: TestSuiteError[] = [];
  const failedIn = new Set<string>();
  for (const [key, t] of tests) {
    const broken = t.action === "fail" || t.action === null;
    if (broken) failedIn.add(t.pkg);
    if (parents.has(key)) {
      if (broken && !failedBelow.has(key))
        errors.push({
          suite: t.pkg,
          file: null,
          message: `${t.name} failed outside its subtests${(() => {
            const m = testMessage(t.output);
            return m === null ? "" : `: ${m}`;
          })()}`,
        });
      continue;
    }
    out.push({
      id: key,
      name: t.name,
      suite: t.pkg === "" ? null : t.pkg,
      file: null,
      status:
        t.action === "pass"
          ? "passed"
          : t.action === "skip"
            ? "skipped"
            : t.action === "fail"
              ? "failed"
              : "errored",
      duration_ms: secondsToMs(t.elapsed),
      message:
        t.action === "pass"
          ? null
          : t.action === null
            ? (capMessage(
                `no result: the test started but never finished\n${testMessage(t.output) ?? ""}`,
              ) ?? null)
            : testMessage(t.output),
    });
  }
  for (const [name, p] of packages) {
    if (p.failedBuild !== null) {
      const build = buildOutput.get(p.failedBuild);
      errors.push({
        suite: name,
        file: null,
        message: capMessage(`build failed\n${(build ?? []).join("")}`) ?? "build failed",
      });
    } else if (p.action === "fail" && !failedIn.has(name)) {
      errors.push({
        suite: name,
        file: null,
        message:
          capMessage(`package failed with no failing test\n${p.output.join("")}`) ??
          "package failed",
      });
    }
  }
  // Build failures whose package never reported (an older go, or a build-only run).
  const reported = new Set([...packages.values()].map((p) => p.failedBuild));
  for (const [importPath, lines] of buildOutput) {
    if (!reported.has(importPath))
      errors.push({
        suite: importPath,
        file: null,
        message: capMessage(`build failed\n${lines.join("")}`) ?? "build failed",
      });
  }
  return { tests: out, errors, unparsed };
};
