import * as z from "zod";
import { badElement, readRoot } from "./json-root.js";
import type {
  ParsedTest,
  TestResultParser,
  TestStatus,
  TestSuiteError,
  UnparsedTestInput,
} from "./types.js";
import { capMessage, msOrNull } from "./util.js";

const Assertion = z.looseObject({
  ancestorTitles: z.array(z.string()),
  title: z.string(),
  fullName: z.string().optional(),
  status: z.string(),
  duration: z.number().nullish(),
  failureMessages: z.array(z.string()).nullish(),
});

const FileResult = z.looseObject({
  name: z.string(),
  status: z.string().optional(),
  message: z.string().nullish(),
  assertionResults: z.array(z.unknown()),
});

/** Root of Jest's `--json` / Vitest's `--reporter=json` output. */
export const JestJsonRootSchema = z.looseObject({
  testResults: z.array(z.unknown()),
  success: z.boolean().optional(),
  numFailedTests: z.number().optional(),
  numRuntimeErrorTestSuites: z.number().optional(),
});

function status(s: string): TestStatus {
  if (s === "passed") return "passed";
  if (s === "failed") return "failed";
  return "skipped"; // pending, skipped, todo, disabled, focused-out
}

/**
 * Jest `--json` and Vitest `--reporter=json` (`jest_json`; Vitest writes Jest's shape):
 * each `testResults[i].assertionResults[j]` is a test with `suite` = `ancestorTitles`
 * joined by `" > "` (null at the top level), `file` = the file result's `name`, `id` =
 * `file::suite > title` (`file::title` at the top level); `passed`/`failed` keep their
 * status, `pending`/`skipped`/`todo`/`disabled` are skipped; `duration` is ms; the message
 * is the first `failureMessages` entry. Suite errors: a file result whose `message` is
 * not empty while none of its tests failed (a file that failed to load, a failing hook;
 * Jest also repeats failing tests' messages there), and a document with
 * `success: false` although no test and no file failed (Jest counts unhandled errors
 * that way). Elements of the wrong shape are `unparsed`; a document that is not JSON or
 * has no `testResults` list throws TestResultsParseError.
 */
export const parseJestJson: TestResultParser = (text) => {
  const root = readRoot("jest_json", JestJsonRootSchema, text);
  const tests: ParsedTest[] = [];
  const errors: TestSuiteError[] = [];
  const unparsed: UnparsedTestInput[] = [];
  root.testResults.forEach((rawFile, i) => {
    const f = FileResult.safeParse(rawFile);
    if (!f.success) {
      unparsed.push(badElement(`/testResults/${i}`, rawFile, f.error));
      return;
    }
    const file = f.data.name;
    const fileMessage = capMessage(f.data.message);
    const before = tests.length;
    f.data.assertionResults.forEach((rawTest, j) => {
      const a = Assertion.safeParse(rawTest);
      if (!a.success) {
        unparsed.push(badElement(`/testResults/${i}/assertionResults/${j}`, rawTest, a.error));
        return;
      }
      const t = a.data;
      const suite = t.ancestorTitles.length === 0 ? null : t.ancestorTitles.join(" > ");
      const st = status(t.status);
      tests.push({
        id: `${file}::${suite === null ? t.title : `${suite} > ${t.title}`}`,
        name: t.title,
        suite,
        file,
        status: st,
        duration_ms: msOrNull(t.duration),
        message: st === "failed" ? capMessage(t.failureMessages?.[0]) : null,
      });
    });
    // Jest repeats its failing tests' messages in the file's `message`; only a message no
    // failing test explains (a file that failed to load, a failing hook) is a suite error.
    const explained = tests.slice(before).some((t) => t.status === "failed");
    if (fileMessage !== null && !explained)
      errors.push({ suite: null, file, message: fileMessage });
  });
  if (root.success === false && errors.length === 0 && !tests.some((t) => t.status === "failed")) {
    errors.push({
      suite: null,
      file: null,
      message: "the run reported success: false without a failing test (an unhandled error?)",
    });
  }
  return { tests, errors, unparsed };
};
