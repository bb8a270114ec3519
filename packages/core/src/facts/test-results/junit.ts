import { XMLParser, XMLValidator } from "fast-xml-parser";
import type { ParsedTest, TestResultParser, TestStatus, TestSuiteError } from "./types.js";
import { TestResultsParseError } from "./types.js";
import { capMessage, isNodeFileEntry, secondsToMs } from "./util.js";

type XmlNode = Record<string, unknown>;

const ARRAYS = new Set([
  "testsuite",
  "testcase",
  "failure",
  "error",
  "skipped",
  "rerunFailure",
  "rerunError",
  "flakyFailure",
  "flakyError",
  "#comment",
]);

/** The one parser, built on first use (start-up, issue 17: most turns parse no JUnit). */
let parser: XMLParser | undefined;
const newParser = () =>
  new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "@",
    textNodeName: "#text",
    commentPropName: "#comment",
    alwaysCreateTextNode: true,
    parseTagValue: false,
    parseAttributeValue: false,
    processEntities: true,
    htmlEntities: true,
    isArray: (name) => ARRAYS.has(name),
  });

function list(node: XmlNode, key: string): XmlNode[] {
  const v = node[key];
  if (!Array.isArray(v)) return [];
  return v.map((e) => (typeof e === "object" && e !== null ? (e as XmlNode) : { "#text": e }));
}

function attr(node: XmlNode, name: string): string | null {
  const v = node[`@${name}`];
  return typeof v === "string" ? v : null;
}

function text(node: XmlNode): string | null {
  const v = node["#text"];
  return typeof v === "string" && v !== "" ? v : null;
}

function count(node: XmlNode, name: string): number {
  const v = attr(node, name);
  const n = v === null ? 0 : Number(v);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

// `message` values that say nothing: node's todo (`"true"`), gotestsum's `"Failed"`.
const PLACEHOLDER = new Set(["", "true", "Failed"]);

/** The message of a `<failure>`/`<error>`/`<skipped>` element: its `message` attribute, else (empty or a placeholder) its text. */
function elementMessage(el: XmlNode | undefined): string | null {
  if (el === undefined) return null;
  const m = attr(el, "message");
  if (m !== null && !PLACEHOLDER.has(m.trim())) return capMessage(m);
  return capMessage(text(el));
}

function firstOf(node: XmlNode, key: string): XmlNode | undefined {
  const v = node[key];
  if (!Array.isArray(v) || v.length === 0) return undefined;
  const e = v[0];
  return typeof e === "object" && e !== null ? (e as XmlNode) : { "#text": e };
}

function caseStatus(tc: XmlNode): { status: TestStatus; message: string | null } {
  const failure = firstOf(tc, "failure") ?? firstOf(tc, "rerunFailure");
  if (failure) return { status: "failed", message: elementMessage(failure) };
  const error = firstOf(tc, "error") ?? firstOf(tc, "rerunError");
  if (error) return { status: "errored", message: elementMessage(error) };
  const skipped = firstOf(tc, "skipped");
  if (skipped) return { status: "skipped", message: elementMessage(skipped) };
  return PASSED;
}

const PASSED = { status: "passed", message: null } as const;

interface Walk {
  tests: ParsedTest[];
  errors: TestSuiteError[];
}

function comments(node: XmlNode, suite: string | null, file: string | null, out: Walk): void {
  for (const c of list(node, "#comment")) {
    const body = (text(c) ?? "").trim();
    // node --test's junit reporter writes unhandled errors as `<!-- Error: … -->`.
    if (/^Error\b/.test(body)) out.errors.push({ suite, file, message: capMessage(body) ?? body });
  }
}

function suiteLabel(path: readonly string[]): string | null {
  return path.length === 0 ? null : path.join(" > ");
}

function walkCases(node: XmlNode, path: string[], file: string | null, out: Walk): void {
  const cases = node.testcase;
  if (!Array.isArray(cases)) return;
  const last = path[path.length - 1];
  const base = suiteLabel(path);
  const labels = new Map<string, string | null>();
  for (const raw of cases) {
    const tc: XmlNode = typeof raw === "object" && raw !== null ? (raw as XmlNode) : {};
    const name = attr(tc, "name") ?? "";
    const classname = attr(tc, "classname");
    let suite = base;
    if (classname !== null && classname !== "" && classname !== name && classname !== last) {
      let label = labels.get(classname);
      if (label === undefined) {
        label = base === null ? classname : `${base} > ${classname}`;
        labels.set(classname, label);
      }
      suite = label;
    }
    const { status, message } = caseStatus(tc);
    if (classname === "test" && isNodeFileEntry(name)) {
      if (status === "failed" || status === "errored")
        out.errors.push({ suite, file: name, message: message ?? "test file failed" });
      continue;
    }
    out.tests.push({
      id: suite === null ? name : `${suite}::${name}`,
      name,
      suite,
      file: attr(tc, "file") ?? file,
      status,
      duration_ms: secondsToMs(attr(tc, "time")),
      message,
    });
  }
}

function walkSuite(
  suite: XmlNode,
  parent: string[],
  inheritedFile: string | null,
  out: Walk,
): void {
  const name = attr(suite, "name");
  const path = name !== null && name !== "" ? [...parent, name] : parent;
  const file = attr(suite, "file") ?? attr(suite, "filepath") ?? inheritedFile;
  const before = out.tests.length;
  const errorsBefore = out.errors.length;
  // Unhandled-error comments first: they are what a reader must see.
  comments(suite, suiteLabel(path), file, out);
  // A `<failure>`/`<error>` directly under a suite (a failed suite set-up) is a suite error.
  for (const key of ["error", "failure"]) {
    const el = firstOf(suite, key);
    if (el)
      out.errors.push({
        suite: suiteLabel(path),
        file,
        message: elementMessage(el) ?? `suite ${key}`,
      });
  }
  walkCases(suite, path, file, out);
  for (const child of list(suite, "testsuite")) walkSuite(child, path, file, out);
  // A suite may declare failures its test cases do not show (a hook or a whole file that
  // failed): the declared count is evidence too.
  let shown = 0;
  for (let i = before; i < out.tests.length; i++) {
    const st = (out.tests[i] as ParsedTest).status;
    if (st === "failed" || st === "errored") shown++;
  }
  const declared = count(suite, "failures") + count(suite, "errors");
  const ownErrors = out.errors.length - errorsBefore;
  if (declared > shown + ownErrors) {
    out.errors.push({
      suite: suiteLabel(path),
      file,
      message: `suite declares ${declared} failures/errors but its test cases show ${shown}`,
    });
  }
}

/** fast-xml-parser names unclosed tags as a JSON list (`Invalid '["a","b"]' found.`): say what it means. */
function validatorMessage(msg: string): string {
  const m = /^Invalid '(\[[\s\S]*\])' found\.$/.exec(msg);
  if (!m) return msg;
  try {
    const tags = JSON.parse(m[1] as string) as unknown;
    if (Array.isArray(tags) && tags.every((t) => typeof t === "string"))
      return `unclosed ${tags.map((t) => `<${t}>`).join(", ")} (a truncated document?)`;
  } catch {}
  return msg;
}

/**
 * JUnit XML (`junit`): the common dialects — Maven surefire (`<testsuite>` root,
 * `rerunFailure`/`flakyFailure`), pytest `--junitxml`, jest-junit, gotestsum and
 * `node --test --test-reporter=junit` (nested `<testsuite>`s, test cases directly under
 * `<testsuites>`, unhandled errors as `<!-- Error: … -->` comments, and one entry per test
 * file named by its absolute path — the file, not a test: dropped when it passed, a suite
 * error when it failed).
 *
 * Each `<testcase>` is a test: `failure`/`rerunFailure` → failed, `error`/`rerunError` →
 * errored, `skipped` → skipped (pytest's xfail too), else passed (a surefire `flakyFailure`
 * alone passed on rerun). `suite` is the enclosing suite names plus the classname, joined
 * by `" > "`; `id` is `suite::name`; `time` (seconds) becomes `duration_ms`; `file` is the
 * case's or suite's `file` attribute. A suite whose declared `failures + errors` exceed
 * what its cases show gives a suite error. The document is checked with fast-xml-parser's
 * validator first: malformed or truncated XML throws TestResultsParseError (path `line:N`),
 * and so does a root that is neither `<testsuites>` nor `<testsuite>`.
 */
export const parseJunit: TestResultParser = (input) => {
  const body = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  if (!/\S/.test(body))
    throw new TestResultsParseError("junit", "", "empty output (expected a JUnit XML document)");
  const valid = XMLValidator.validate(body);
  if (valid !== true) {
    throw new TestResultsParseError(
      "junit",
      `line:${valid.err.line}`,
      validatorMessage(valid.err.msg),
    );
  }
  let doc: XmlNode;
  try {
    parser ??= newParser();
    doc = parser.parse(body) as XmlNode;
  } catch (error) {
    // fast-xml-parser's own limits (nesting depth, entity expansion) throw plain errors.
    throw new TestResultsParseError("junit", "", (error as Error).message);
  }
  const out: Walk = { tests: [], errors: [] };
  const root = doc.testsuites;
  if (typeof root === "object" && root !== null) {
    const r = root as XmlNode;
    comments(r, null, null, out);
    walkCases(r, [], null, out);
    for (const s of list(r, "testsuite")) walkSuite(s, [], null, out);
  } else if (Array.isArray(doc.testsuite)) {
    for (const s of list(doc, "testsuite")) walkSuite(s, [], null, out);
  } else {
    const names = Object.keys(doc).filter((k) => !k.startsWith("?") && !k.startsWith("#"));
    throw new TestResultsParseError(
      "junit",
      "",
      `root element is ${names[0] === undefined ? "missing" : `<${names[0]}>`}, expected <testsuites> or <testsuite>`,
    );
  }
  return { tests: out.tests, errors: out.errors, unparsed: [] };
};
