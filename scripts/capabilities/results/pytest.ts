/**
 * Index of a pytest JUnit XML report (`--junitxml`, pytest 9, xunit2). A testcase has
 * `classname` (the module path relative to pytest's rootdir with `/` → `.` and `.py` dropped,
 * then any classes) and `name` (test name with parameters); a `<failure>` or `<error>` child
 * means failed, `<skipped>` means skipped (xfail included). Implements the pytest part of
 * issue 6 "Deliver" item 3.
 *
 * References name the module from the repository root, but pytest's rootdir may be a
 * subdirectory (e.g. the binding's own pyproject.toml), so a reference matches the JUnit
 * class name computed from the module path relative to any of its ancestor directories;
 * the longest (most specific) match wins.
 */
import { XMLParser } from "fast-xml-parser";
import type { PytestReference } from "../test-references.js";
import {
  type Recorded,
  ResultsFormatError,
  type ResultsIndex,
  recordWorst,
  toOutcome,
} from "./outcome.js";

/** Looks up pytest references in one parsed report. */
export type PytestResults = ResultsIndex<PytestReference>;

type XmlNode = Record<string, unknown>;

function children(node: XmlNode, tag: string): XmlNode[] {
  const v = node[tag];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map((c) => (typeof c === "object" && c !== null ? c : {}));
}

function collectTestcases(node: XmlNode, out: XmlNode[]): void {
  out.push(...children(node, "testcase"));
  for (const suite of children(node, "testsuite")) collectTestcases(suite, out);
}

function statusOf(tc: XmlNode): Recorded {
  if (tc.failure !== undefined) return { status: "failed" };
  if (tc.error !== undefined) return { status: "failed", detail: "(error)" };
  if (tc.skipped !== undefined) {
    const s = children(tc, "skipped")[0];
    return s?.["@_type"] === "pytest.xfail"
      ? { status: "skipped", detail: "(xfail)" }
      : { status: "skipped" };
  }
  return { status: "passed" };
}

/**
 * The JUnit keys (`classname::name`) a node id can appear under, most specific first: one per
 * possible rootdir among the module's ancestor directories.
 *
 * @param nodeId e.g. `bindings/python/tests/test_a.py::TestK::test_m[x]`
 * @returns e.g. `["bindings.python.tests.test_a.TestK::test_m[x]", "python.tests…", …]`
 */
export function junitKeys(nodeId: string): string[] {
  const bracket = nodeId.indexOf("[");
  const address = bracket < 0 ? nodeId : nodeId.slice(0, bracket);
  const params = bracket < 0 ? "" : nodeId.slice(bracket);
  const names = address.split("::");
  const modulePath = (names[0] ?? "").replace(/\.py$/, "").split("/");
  const classes = names.slice(1, -1);
  const name = (names[names.length - 1] ?? "") + params;
  const keys: string[] = [];
  for (let i = 0; i < modulePath.length; i++) {
    keys.push(`${[...modulePath.slice(i), ...classes].join(".")}::${name}`);
  }
  return keys;
}

/**
 * Parses a pytest JUnit XML report.
 *
 * @param text contents of the report
 * @param shownFile report name used in messages, e.g. `results/pytest.xml`
 * @throws ResultsFormatError when the XML is malformed, has no `<testsuites>`/`<testsuite>`
 *   root, or a testcase lacks `classname` or `name`
 */
export function parsePytestResults(text: string, shownFile: string): PytestResults {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@_" });
  let doc: XmlNode;
  try {
    doc = parser.parse(text, true) as XmlNode;
  } catch (err) {
    throw new ResultsFormatError(shownFile, `not valid XML (${(err as Error).message})`);
  }
  const roots = [
    ...children(doc, "testsuites"),
    ...children(doc, "testsuite").map((s) => ({ testsuite: s })),
  ];
  if (roots.length === 0)
    throw new ResultsFormatError(shownFile, "has no <testsuites> or <testsuite> root");
  const testcases: XmlNode[] = [];
  for (const r of roots) collectTestcases(r, testcases);
  const tests = new Map<string, Recorded>();
  for (const tc of testcases) {
    const classname = tc["@_classname"];
    const name = tc["@_name"];
    if (typeof classname !== "string" || typeof name !== "string") {
      throw new ResultsFormatError(shownFile, "a <testcase> lacks classname or name");
    }
    recordWorst(tests, `${classname}::${name}`, statusOf(tc));
  }
  return {
    outcome(ref) {
      const key = junitKeys(ref.nodeId).find((k) => tests.has(k));
      return toOutcome(key === undefined ? undefined : tests.get(key), `from ${shownFile}`);
    },
  };
}
