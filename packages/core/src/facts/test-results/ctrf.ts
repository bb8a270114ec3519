import * as z from "zod";
import { badElement, readRoot } from "./json-root.js";
import type { ParsedTest, TestResultParser, TestStatus, UnparsedTestInput } from "./types.js";
import { capMessage, msOrNull } from "./util.js";

const CtrfTest = z.looseObject({
  name: z.string(),
  status: z.enum(["passed", "failed", "skipped", "pending", "other"]),
  duration: z.number().optional(),
  message: z.string().nullish(),
  trace: z.string().nullish(),
  filePath: z.string().nullish(),
  suite: z.union([z.string(), z.array(z.string())]).nullish(),
});

/** Root of a CTRF document: `{results: {tool: {name}, summary, tests: [...]}}`. */
export const CtrfRootSchema = z.looseObject({
  results: z.looseObject({
    tool: z.looseObject({ name: z.string() }),
    tests: z.array(z.unknown()),
  }),
});

const STATUS: Record<z.infer<typeof CtrfTest>["status"], TestStatus> = {
  passed: "passed",
  failed: "failed",
  skipped: "skipped",
  pending: "skipped",
  other: "errored",
};

/**
 * CTRF JSON (`ctrf`, the Common Test Report Format, spec 0.0.x and 1.x): each
 * `results.tests[i]` is a test. Status `passed`/`failed`/`skipped` map to themselves,
 * `pending` to skipped, `other` to errored; `duration` is already in ms; `suite` (a string
 * or, in newer reports, a list of names joined by `" > "`); `filePath` is the file;
 * `message` (else `trace`) the message; `id` is `suite::name`. Elements of the wrong
 * shape are `unparsed` (pointer `/results/tests/i`). A document that is not JSON or has no
 * `results.tool.name` / `results.tests` throws TestResultsParseError.
 */
export const parseCtrf: TestResultParser = (text) => {
  const root = readRoot("ctrf", CtrfRootSchema, text);
  const tests: ParsedTest[] = [];
  const unparsed: UnparsedTestInput[] = [];
  root.results.tests.forEach((raw, i) => {
    const r = CtrfTest.safeParse(raw);
    if (!r.success) {
      unparsed.push(badElement(`/results/tests/${i}`, raw, r.error));
      return;
    }
    const t = r.data;
    const suite = Array.isArray(t.suite)
      ? t.suite.length === 0
        ? null
        : t.suite.join(" > ")
      : t.suite && t.suite !== ""
        ? t.suite
        : null;
    const status = STATUS[t.status];
    tests.push({
      id: suite === null ? t.name : `${suite}::${t.name}`,
      name: t.name,
      suite,
      file: t.filePath ?? null,
      status,
      duration_ms: msOrNull(t.duration),
      message: status === "passed" ? null : capMessage(t.message ?? t.trace),
    });
  });
  return { tests, errors: [], unparsed };
};
