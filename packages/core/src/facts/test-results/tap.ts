import { parse as parseYaml } from "yaml";
import { MAX_JSON_DEPTH } from "../../ledger/json.js";
import type {
  ParsedTest,
  TestResultParser,
  TestStatus,
  TestSuiteError,
  UnparsedTestInput,
} from "./types.js";
import { TestResultsParseError } from "./types.js";
import { capMessage, eachLine, isNodeFileEntry, jsonDepthExceeds, msOrNull } from "./util.js";

interface Point {
  name: string;
  /** The `# comment` line that named the group of this top-level point (tape's `test()` name). */
  group: string | null;
  ok: boolean;
  directive: "skip" | "todo" | null;
  reason: string | null;
  yaml: Record<string, unknown> | null;
  line: number;
  /** Its place among its level's test points (1 for the first). */
  index: number;
}

interface Entry {
  parts: string[];
  test?: ParsedTest;
  error?: { message: string };
}

interface Level {
  entries: Entry[];
  points: number;
  plan: number | null;
  subtest: string | null;
  /** The last test point of this level, while its YAML block may still follow. */
  last: { point: Point; children: Entry[] } | null;
  /** The last plain `# comment` of this level (tape names each `test()` so). */
  comment: string | null;
  /**
   * The last unhandled error node's runner printed as comments at this level (`# Error: …`
   * and the `# ` lines after it, a file's stderr): its entry, whose message grows by each
   * further comment line up to {@link ERROR_COMMENT_LINES}, and how many test points had
   * arrived before it.
   */
  error: { entry: Entry; lines: string[]; afterPoint: number } | null;
}

/** Lines of an unhandled error's comment block kept (`# Error: …`, its stack, …). */
const ERROR_COMMENT_LINES = 6;
/** node's own message for a test file that failed outside any test (`failureType: testCodeFailure`). */
const NODE_FILE_FAILED = "test failed";

/** Longest YAML diagnostic block parsed, in UTF-16 code units (a longer one is `unparsed`). */
const YAML_MAX_CHARS = 1024 * 1024;

const POINT = /^(not ok|ok)\b(?:\s+(\d+))?(?:\s*-)?(?:\s+(.*))?$/;
const PLAN = /^1\.\.(\d+)\b(?:\s*#\s*(.*))?$/;
const DIRECTIVE = /^(SKIP|TODO)\S*(?:\s+([\s\S]*))?$/i;
/** The count comments runners print at the end (`# tests 3`, `# pass  1`, `# ok`, node's `# duration_ms 5`). */
const SUMMARY_COMMENT =
  /^(tests|pass|fail|skip|skipped|todo|suites|cancelled|duration_ms|time=)\b|^ok$|^not ok$/i;

function newLevel(): Level {
  return {
    entries: [],
    points: 0,
    plan: null,
    subtest: null,
    last: null,
    comment: null,
    error: null,
  };
}

/** Splits `desc # DIRECTIVE reason` at the first unescaped `#`; unescapes `\#` and `\\`. */
function splitDirective(rest: string): Pick<Point, "name" | "directive" | "reason"> {
  let name = "";
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i] as string;
    if (c === "\\" && i + 1 < rest.length) {
      name += rest[i + 1];
      i++;
      continue;
    }
    if (c === "#") {
      const d = DIRECTIVE.exec(rest.slice(i + 1).trim());
      if (d) {
        const word = (d[1] as string).toLowerCase() as "skip" | "todo";
        const reason = d[2]?.trim();
        return { name: name.trim(), directive: word, reason: reason ? reason : null };
      }
      // A `#` with another comment after it: the rest is a comment, not part of the name.
      return { name: name.trim(), directive: null, reason: null };
    }
    name += c;
  }
  return { name: name.trim(), directive: null, reason: null };
}

/** A YAML diagnostic value as one text: strings as they are, others as compact JSON. */
function diagnosticText(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The failure text of a YAML diagnostic: its `error` / `message` / `failureType` (node's
 * runner, node-tap); else what tape writes — `operator`, `expected`, `actual` (node-tap:
 * `wanted`, `found`) and `at` — one `key: value` line each.
 */
function yamlMessage(yaml: Record<string, unknown> | null): string | null {
  if (yaml === null) return null;
  for (const key of ["error", "message", "failureType"]) {
    const v = yaml[key];
    if (typeof v === "string" && v.trim() !== "") return v;
    if (
      typeof v === "object" &&
      v !== null &&
      typeof (v as { message?: unknown }).message === "string"
    )
      return (v as { message: string }).message;
  }
  const lines: string[] = [];
  for (const key of ["operator", "expected", "actual", "wanted", "found", "at"]) {
    if (Object.hasOwn(yaml, key) && yaml[key] !== undefined)
      lines.push(`${key}: ${diagnosticText(yaml[key])}`);
  }
  return lines.length > (Object.hasOwn(yaml, "operator") ? 1 : 0) ? lines.join("\n") : null;
}

function statusOf(p: Point): TestStatus {
  if (p.directive !== null) return "skipped";
  return p.ok ? "passed" : "failed";
}

/**
 * TAP 13/14 (`tap`), as `node --test --test-reporter=tap`, node-tap, tape and TAP 14
 * producers write it: test points `ok|not ok N - description # SKIP|TODO reason`, YAML
 * diagnostic blocks (`---` … `...`, read with the `yaml` package: `duration_ms`, `error` /
 * `message`), subtests indented by 4 spaces (optionally announced by `# Subtest: name`),
 * plans `1..N`, `Bail out!`.
 *
 * A test point with subtests is a suite, not a test: its subtests get its description as
 * their suite (`" > "`-joined when nested); a failing suite none of whose subtests failed is
 * a suite error (a hook or the suite itself failed), and so is an unhandled error comment
 * (`# Error: …`, node's runner), `Bail out!`, a plan that promises more test points than
 * arrived, a stream without a top-level plan, and subtests whose parent point never came
 * (a truncated stream). A point whose YAML says `type: suite` and has no subtests (an
 * empty `describe`) is no test, nor is node's entry for a whole test file (named by its
 * absolute path: a suite error when it failed). `# SKIP` and `# TODO` points are skipped. Lines that are
 * not TAP are `unparsed`; empty input throws TestResultsParseError. This is our own small
 * reader rather than the `tap-parser` package, which needs Node's `events` module.
 */
export const parseTap: TestResultParser = (text) => {
  if (text.replace(/^\uFEFF/, "").trim() === "")
    throw new TestResultsParseError("tap", "", "empty output (expected a TAP stream)");
  const unparsed: UnparsedTestInput[] = [];
  const levels: Level[] = [newLevel()];
  let yamlLines: string[] | null = null;
  let yamlIndent = "";
  let yamlTarget: Point | null = null;
  let yamlStart = 0;
  let sawPlan = false;

  const levelAt = (n: number): Level => {
    while (levels.length <= n) levels.push(newLevel());
    return levels[n] as Level;
  };

  /** Entries of level n and below, gathered when their parent point arrives (or at EOF). */
  const takeChildren = (n: number): Entry[] => {
    const out: Entry[] = [];
    for (let i = levels.length - 1; i >= n; i--) {
      const lv = levels[i] as Level;
      closePoint(lv);
      if (i > n && lv.entries.length > 0) {
        // Deeper entries without their own parent: a truncated stream.
        const label = (levels[i - 1] as Level).subtest ?? "(unnamed subtest)";
        lv.entries.push({
          parts: [],
          error: { message: `subtest ${label} ended without a test point` },
        });
        for (const e of lv.entries) e.parts.unshift(label);
        (levels[i - 1] as Level).entries.push(...lv.entries);
        lv.entries = [];
      }
      if (i === n) {
        if (lv.plan !== null && lv.points < lv.plan)
          lv.entries.push({
            parts: [],
            error: { message: `plan 1..${lv.plan} but ${lv.points} test points arrived` },
          });
        out.push(...lv.entries);
      }
    }
    levels.length = n;
    return out;
  };

  const closePoint = (lv: Level) => {
    const last = lv.last;
    if (last === null) return;
    lv.last = null;
    const p = last.point;
    const message = capMessage(yamlMessage(p.yaml) ?? p.reason);
    if (last.children.length > 0) {
      const childFailed = last.children.some(
        (c) => c.error !== undefined || c.test?.status === "failed" || c.test?.status === "errored",
      );
      for (const c of last.children) c.parts.unshift(p.name);
      lv.entries.push(...last.children);
      if (!p.ok && p.directive === null && !childFailed)
        lv.entries.push({
          parts: [p.name],
          error: { message: message ?? "suite failed without a failing subtest" },
        });
      return;
    }
    if (p.yaml?.type === "suite" || isNodeFileEntry(p.name)) {
      if (!p.ok && p.directive === null) {
        // node's entry for a file that failed to load says only "test failed"; the error
        // itself came just before as comments (the file's stderr): the entry says that.
        const printed = lv.error;
        if (
          printed !== null &&
          printed.afterPoint === p.index - 1 &&
          (message === null || message === NODE_FILE_FAILED)
        ) {
          lv.entries = lv.entries.filter((e) => e !== printed.entry);
          lv.entries.push({ parts: [p.name], error: { message: printed.lines.join("\n") } });
        } else {
          lv.entries.push({ parts: [p.name], error: { message: message ?? "suite failed" } });
        }
      }
      return;
    }
    lv.entries.push({
      parts: p.group === null ? [] : [p.group],
      test: {
        id: "",
        name: p.name,
        suite: null,
        file: null,
        status: statusOf(p),
        duration_ms: msOrNull(p.yaml?.duration_ms),
        message: p.ok && p.directive === null ? null : message,
      },
    });
  };

  eachLine(text.replace(/^\uFEFF/, ""), (raw, lineNo) => {
    if (yamlLines !== null) {
      if (raw.trim() === "..." && raw.startsWith(yamlIndent)) {
        const body = yamlLines.join("\n");
        try {
          if (body.length > YAML_MAX_CHARS)
            throw new Error(`longer than ${YAML_MAX_CHARS} characters`);
          if (jsonDepthExceeds(body)) throw new Error(`nests deeper than ${MAX_JSON_DEPTH} levels`);
          const doc = parseYaml(body, { maxAliasCount: 100 }) as unknown;
          if (yamlTarget !== null && typeof doc === "object" && doc !== null && !Array.isArray(doc))
            yamlTarget.yaml = doc as Record<string, unknown>;
        } catch (err) {
          unparsed.push({
            line: yamlStart,
            pointer: null,
            text: yamlLines.join("\n"),
            reason: `YAML diagnostic is not valid YAML: ${(err as Error).message.split("\n")[0]}`,
          });
        }
        yamlLines = null;
        yamlTarget = null;
      } else {
        yamlLines.push(raw.startsWith(yamlIndent) ? raw.slice(yamlIndent.length) : raw.trimStart());
      }
      return;
    }
    const indent = raw.length - raw.trimStart().length;
    const line = raw.trim();
    if (line === "") return;
    const depth = Math.floor(indent / 4);
    if (line === "---") {
      const lv = levels[depth];
      if (lv?.last && indent === depth * 4 + 2) {
        yamlLines = [];
        yamlIndent = " ".repeat(indent);
        yamlTarget = lv.last.point;
        yamlStart = lineNo;
        return;
      }
    }
    if (/^TAP version \d+$/i.test(line) || /^pragma [+-]/.test(line)) return;
    const bail = /^Bail out!\s*(.*)$/.exec(line);
    if (bail) {
      closePoint(levelAt(depth));
      levelAt(depth).entries.push({
        parts: [],
        error: { message: `Bail out!${bail[1] ? ` ${bail[1]}` : ""}` },
      });
      return;
    }
    const point = POINT.exec(line);
    if (point) {
      const lv = levelAt(depth);
      closePoint(lv);
      const children = takeChildren(depth + 1);
      lv.points++;
      const { name, directive, reason } = splitDirective(point[3] ?? "");
      lv.last = {
        point: {
          name: name === "" ? (lv.subtest ?? `test ${point[2] ?? lv.points}`) : name,
          group: depth === 0 && lv.subtest === null ? lv.comment : null,
          ok: point[1] === "ok",
          directive,
          reason,
          yaml: null,
          line: lineNo,
          index: lv.points,
        },
        children,
      };
      lv.subtest = null;
      return;
    }
    const plan = PLAN.exec(line);
    if (plan) {
      const lv = levelAt(depth);
      closePoint(lv);
      lv.plan = Number(plan[1]);
      if (depth === 0) sawPlan = true;
      return;
    }
    if (line.startsWith("#")) {
      const comment = line.slice(1).trim();
      const sub = /^Subtest:\s*(.*)$/.exec(comment);
      if (sub) {
        levelAt(depth).subtest = sub[1] as string;
        return;
      }
      const lv = levelAt(depth);
      if (/^Error\b/.test(comment)) {
        const entry: Entry = { parts: [], error: { message: comment } };
        lv.entries.push(entry);
        lv.error = { entry, lines: [comment], afterPoint: lv.points };
        return;
      }
      // The lines after `# Error: …` (its stack, node's `Require stack:`) belong to it.
      if (
        lv.error !== null &&
        lv.error.afterPoint === lv.points &&
        !SUMMARY_COMMENT.test(comment)
      ) {
        // node's own frames and version line say nothing about the code.
        const noise = /^at (?:.*\()?node:/.test(comment) || /^Node\.js v\d/.test(comment);
        if (lv.error.lines.length < ERROR_COMMENT_LINES && comment !== "" && !noise) {
          lv.error.lines.push(comment);
          (lv.error.entry.error as { message: string }).message = lv.error.lines.join("\n");
        }
        return;
      }
      // tape's `# name` before each test()'s assertions; the closing counts are not names.
      if (!SUMMARY_COMMENT.test(comment)) lv.comment = comment === "" ? null : comment;
      return;
    }
    unparsed.push({ line: lineNo, pointer: null, text: raw, reason: "not a TAP line" });
  });
  if (yamlLines !== null)
    unparsed.push({
      line: yamlStart,
      pointer: null,
      text: (yamlLines as string[]).join("\n"),
      reason: "YAML diagnostic block is not closed by ...",
    });
  const entries = takeChildren(0);
  const tests: ParsedTest[] = [];
  const errors: TestSuiteError[] = [];
  if (!sawPlan && entries.some((e) => e.test !== undefined))
    errors.push({
      suite: null,
      file: null,
      message: "no plan line (1..N): the TAP stream may be truncated",
    });
  for (const e of entries) {
    const suite = e.parts.length === 0 ? null : e.parts.join(" > ");
    if (e.test) {
      const t = e.test;
      tests.push({ ...t, suite, id: suite === null ? t.name : `${suite}::${t.name}` });
    } else if (e.error) {
      errors.push({ suite, file: null, message: capMessage(e.error.message) ?? e.error.message });
    }
  }
  return { tests, errors, unparsed };
};
