/**
 * Test references cited by the map's claims and the surface ledger's Tests cells
 * (CAPABILITY_VERIFICATION.md "Test references";
 * issue 6 "Deliver" item 2: a reference names a test exactly as its runner reports it).
 *
 * Syntax, one reference per backtick span (one per `- ` item under a claim; several separated
 * by `<br>` in a Tests cell):
 * - `vitest:<file from repo root> > <describe> > … > <test name>`
 * - `pytest:<node id with the file path from the repo root>`
 * - `go:<package import path> <TestName>` (subtests `TestName/sub`)
 * - `matrix:<vector group> > <runtime>`: that cell of the test matrix (results/matrix.json,
 *   written by `test-matrix/run --json`) passed every vector of the group
 */

/** A vitest test: repo-relative POSIX file path and the ancestor titles + title joined by " > ". */
export interface VitestReference {
  runner: "vitest";
  /** The reference as written, without backticks, e.g. `vitest:a.test.ts > suite > case`. */
  text: string;
  file: string;
  name: string;
}

/** A pytest test: its node id (`path::name`, `path::Class::name`, params kept). */
export interface PytestReference {
  runner: "pytest";
  text: string;
  /** Repo-relative POSIX path of the test module (the node id up to the first `::`). */
  file: string;
  nodeId: string;
}

/** A Go test: package import path and test name as `go test -json` reports them. */
export interface GoReference {
  runner: "go";
  text: string;
  importPath: string;
  test: string;
}

/** A test-matrix cell: one vector group on one runtime (test-matrix/runtimes.json names). */
export interface MatrixReference {
  runner: "matrix";
  text: string;
  group: string;
  runtime: string;
}

/** Any test reference. */
export type TestReference = VitestReference | PytestReference | GoReference | MatrixReference;

/** Result of {@link parseTestsCell}: the references and the items that are not references. */
export interface TestsCell {
  refs: TestReference[];
  /** Problem texts (without row prefix), one per malformed item. */
  malformed: string[];
}

const BR = /<br\s*\/?>/i;
const CODE_SPAN = /^`([^`]+)`$/;

/**
 * Parses one reference (the text inside the backticks).
 *
 * @param text e.g. `pytest:bindings/python/tests/test_client.py::test_verified`
 * @returns the parsed reference, or a string explaining why `text` is not one
 */
export function parseTestReference(text: string): TestReference | string {
  const colon = text.indexOf(":");
  const runner = colon < 0 ? "" : text.slice(0, colon);
  const body = text.slice(colon + 1);
  switch (runner) {
    case "vitest": {
      const sep = body.indexOf(" > ");
      const file = sep < 0 ? "" : body.slice(0, sep).trim();
      const name = sep < 0 ? "" : body.slice(sep + 3).trim();
      if (!file || !name) return `vitest reference "${text}" needs "<file> > <test name>"`;
      return checkPath(file, text) ?? { runner, text, file, name };
    }
    case "pytest": {
      const sep = body.indexOf("::");
      const file = sep < 0 ? "" : body.slice(0, sep);
      if (!file.endsWith(".py") || sep + 2 >= body.length) {
        return `pytest reference "${text}" needs a node id "<path>.py::<test name>"`;
      }
      return checkPath(file, text) ?? { runner, text, file, nodeId: body };
    }
    case "go": {
      const parts = body.split(" ");
      const [importPath, test] = parts;
      if (parts.length !== 2 || !importPath || !test) {
        return `go reference "${text}" needs "<import path> <TestName>"`;
      }
      return { runner, text, importPath, test };
    }
    case "matrix": {
      const sep = body.indexOf(" > ");
      const group = sep < 0 ? "" : body.slice(0, sep).trim();
      const runtime = sep < 0 ? "" : body.slice(sep + 3).trim();
      if (!group || !runtime)
        return `matrix reference "${text}" needs "<vector group> > <runtime>"`;
      return { runner, text, group, runtime };
    }
    default:
      return `"${text}" is not a test reference (vitest:…, pytest:…, go:… or matrix:…)`;
  }
}

function checkPath(file: string, text: string): string | undefined {
  const segments = file.split("/");
  if (
    file.startsWith("/") ||
    file.includes("\\") ||
    segments.some((s) => s === ".." || s === ".")
  ) {
    return `test reference "${text}" must name its file by a plain path from the repository root`;
  }
  return undefined;
}

/**
 * Parses a Tests cell: items separated by `<br>` (`<br/>`, `<br />`), each one backtick span
 * holding a reference. Empty items (e.g. a trailing `<br>`) are ignored.
 *
 * @param cell the trimmed cell text
 * @returns the references in order and one problem text per item that is not a reference
 */
export function parseTestsCell(cell: string): TestsCell {
  const refs: TestReference[] = [];
  const malformed: string[] = [];
  for (const raw of cell.split(BR)) {
    const item = raw.trim();
    if (!item) continue;
    const span = CODE_SPAN.exec(item);
    if (!span) {
      malformed.push(`"${item}" is not a test reference in backticks`);
      continue;
    }
    const parsed = parseTestReference((span[1] ?? "").trim());
    if (typeof parsed === "string") malformed.push(parsed);
    else refs.push(parsed);
  }
  return { refs, malformed };
}
