/**
 * Structure-only look-up of cited tests in the repository's sources (issue 35 item 1:
 * `--no-results` sees a deleted test id). No test runs; each reference is matched against
 * the text of its test file:
 *
 * - vitest: the file exists and every title segment (describe names and test name) is a
 *   string literal of the file (comments skipped). A literal holding a placeholder — `%s`,
 *   `%d`, `%i`, `%f`, `%j`, `%o`, `%#`, `$name`, `$a.b`, `${…}` — matches any text in its
 *   place, when the literal is the first argument of a `describe`/`test`/`it` call or of a
 *   curried one (`test.each(rows)("%s → %s", …)`); elsewhere only exact literals count.
 * - pytest: the module exists and defines `def <name>` (parameters `[…]` dropped), and
 *   `class <Class>` for each class in the node id.
 * - go: a `*_test.go` file in the package's directory (found from the `go.mod` files in the
 *   repository) declares `func <TestName>(` (subtests after `/` are not looked up).
 * - matrix: `test-matrix/vectors/<group>.json` exists and `test-matrix/runtimes.json` names
 *   the runtime.
 */
import fs from "node:fs";
import path from "node:path";
import type { TestReference } from "./test-references.js";

/** Directory of the test-matrix vector groups, relative to the repository root. */
export const MATRIX_VECTORS_DIR = "test-matrix/vectors";
/** The test-matrix runtime list, relative to the repository root. */
export const MATRIX_RUNTIMES_FILE = "test-matrix/runtimes.json";

const SKIPPED_DIRS = new Set(["node_modules", "dist", "target", "build", "results", "stryker"]);
/** Source text before a title: `describe(`, `test.skipIf(x)(`, `test.each(rows)(`, … */
const TITLE_CALL = /(?:\b(?:describe|suite|test|it|bench)(?:\.\w+)*|\))\s*\(\s*$/;
const PLACEHOLDER = /%[sdifjo#%]|\$\{[^}]*\}|\$[A-Za-z_][\w.]*/g;

/** Looks references up in a repository's sources, reading each file at most once. */
export interface TestPresence {
  /**
   * Why the reference names no test in the sources, or `undefined` when it does.
   *
   * @returns e.g. `test file does not exist`, `"<segment>" is not a title in <file>`
   */
  problem(ref: TestReference): string | undefined;
}

/** Undoes the escapes of a JavaScript string literal that a test title may hold. */
function unescapeLiteral(body: string): string {
  return body.replace(/\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[\s\S])/g, (_, e) => {
    if (e[0] === "u" && e.length > 1) {
      return String.fromCodePoint(Number.parseInt(e.replace(/[u{}]/g, ""), 16));
    }
    if (e[0] === "x" && e.length === 3) return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    return ({ n: "\n", t: "\t", r: "\r" } as Record<string, string>)[e] ?? e;
  });
}

/** The titles a vitest file can produce: exact literals and placeholder patterns. */
interface Titles {
  exact: Set<string>;
  patterns: RegExp[];
}

/**
 * The string literals of a JavaScript or TypeScript source, comments skipped: `"…"`, `'…'`
 * and template literals (whose `${…}` parts are kept as written, to become placeholders),
 * each with whether it is the first argument of a test or describe call.
 */
function stringLiterals(source: string): Array<{ text: string; titlePosition: boolean }> {
  const out: Array<{ text: string; titlePosition: boolean }> = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    const next = source[i + 1];
    if (ch === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      i = end < 0 ? source.length : end;
    } else if (ch === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (ch === '"' || ch === "'" || ch === "`") {
      let j = i + 1;
      let depth = 0;
      while (j < source.length) {
        const c = source[j];
        if (c === "\\") j += 2;
        else if (ch === "`" && c === "$" && source[j + 1] === "{") {
          depth++;
          j += 2;
        } else if (ch === "`" && depth > 0 && c === "}") {
          depth--;
          j++;
        } else if (c === ch && depth === 0) break;
        else if (c === "\n" && ch !== "`") break;
        else j++;
      }
      const before = source.slice(Math.max(0, i - 200), i);
      out.push({
        text: unescapeLiteral(source.slice(i + 1, j)),
        titlePosition: TITLE_CALL.test(before),
      });
      i = j + 1;
    } else {
      i++;
    }
  }
  return out;
}

function titlesOf(source: string): Titles {
  const exact = new Set<string>();
  const patterns: RegExp[] = [];
  for (const { text: literal, titlePosition } of stringLiterals(source)) {
    exact.add(literal);
    if (titlePosition && literal.search(PLACEHOLDER) >= 0) {
      const parts = literal.split(PLACEHOLDER).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
      patterns.push(new RegExp(`^${parts.join("[\\s\\S]*")}$`));
    }
  }
  return { exact, patterns };
}

/** `go.mod` module paths → their directories (repo-relative), longest module path first. */
function goModules(root: string): Array<{ module: string; dir: string }> {
  const found: Array<{ module: string; dir: string }> = [];
  const walk = (rel: string, depth: number) => {
    if (depth > 6) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isFile() && e.name === "go.mod") {
        const text = fs.readFileSync(path.join(root, rel, e.name), "utf8");
        const module = /^module\s+(\S+)/m.exec(text)?.[1];
        if (module) found.push({ module, dir: rel });
      } else if (e.isDirectory() && !e.name.startsWith(".") && !SKIPPED_DIRS.has(e.name)) {
        walk(rel ? `${rel}/${e.name}` : e.name, depth + 1);
      }
    }
  };
  walk("", 0);
  return found.sort((a, b) => b.module.length - a.module.length);
}

/**
 * Opens a look-up over the repository at `root`.
 *
 * @param root repository root (absolute)
 */
export function openTestPresence(root: string): TestPresence {
  const texts = new Map<string, string | null>();
  const read = (rel: string): string | null => {
    if (!texts.has(rel)) {
      try {
        texts.set(rel, fs.readFileSync(path.join(root, rel), "utf8"));
      } catch {
        texts.set(rel, null);
      }
    }
    return texts.get(rel) ?? null;
  };
  const titles = new Map<string, Titles>();
  let modules: Array<{ module: string; dir: string }> | undefined;
  let runtimes: string[] | null | undefined;

  const vitest = (file: string, name: string): string | undefined => {
    const source = read(file);
    if (source === null) return "test file does not exist";
    let t = titles.get(file);
    if (t === undefined) {
      t = titlesOf(source);
      titles.set(file, t);
    }
    const known = t;
    for (const segment of name.split(" > ")) {
      if (!known.exact.has(segment) && !known.patterns.some((p) => p.test(segment))) {
        return `"${segment}" is not a test or describe title in ${file}`;
      }
    }
    return undefined;
  };

  const pytest = (file: string, nodeId: string): string | undefined => {
    const source = read(file);
    if (source === null) return "test file does not exist";
    const parts = nodeId.split("::").slice(1);
    const name = (parts.pop() ?? "").replace(/\[.*$/s, "");
    for (const cls of parts) {
      if (!new RegExp(`^\\s*class\\s+${escapeRegExp(cls)}\\b`, "m").test(source)) {
        return `class ${cls} is not defined in ${file}`;
      }
    }
    if (!new RegExp(`^\\s*(async\\s+)?def\\s+${escapeRegExp(name)}\\s*\\(`, "m").test(source)) {
      return `def ${name} is not defined in ${file}`;
    }
    return undefined;
  };

  const go = (importPath: string, test: string): string | undefined => {
    modules ??= goModules(root);
    const mod = modules.find(
      (m) => importPath === m.module || importPath.startsWith(`${m.module}/`),
    );
    if (mod === undefined) return `no go.mod in the repository declares a module for ${importPath}`;
    const sub = importPath.slice(mod.module.length).replace(/^\//, "");
    const dir = [mod.dir, sub].filter(Boolean).join("/");
    const name = test.split("/")[0] ?? "";
    const decl = new RegExp(`^func\\s+${escapeRegExp(name)}\\s*\\(`, "m");
    let files: string[];
    try {
      files = fs.readdirSync(path.join(root, dir)).filter((f) => f.endsWith("_test.go"));
    } catch {
      return `package directory ${dir || "."} does not exist`;
    }
    if (files.some((f) => decl.test(read(`${dir ? `${dir}/` : ""}${f}`) ?? ""))) return undefined;
    return `func ${name} is not declared in ${dir || "."}/*_test.go`;
  };

  const matrix = (group: string, runtime: string): string | undefined => {
    if (read(`${MATRIX_VECTORS_DIR}/${group}.json`) === null) {
      return `vector group file ${MATRIX_VECTORS_DIR}/${group}.json does not exist`;
    }
    if (runtimes === undefined) {
      const text = read(MATRIX_RUNTIMES_FILE);
      try {
        const list = text === null ? null : (JSON.parse(text) as Array<{ name?: unknown }>);
        runtimes = Array.isArray(list) ? list.map((r) => String(r?.name)) : null;
      } catch {
        runtimes = null;
      }
    }
    if (runtimes === null) return `${MATRIX_RUNTIMES_FILE} is missing or not a runtime list`;
    if (!runtimes.includes(runtime)) {
      return `runtime ${runtime} is not in ${MATRIX_RUNTIMES_FILE}`;
    }
    return undefined;
  };

  return {
    problem(ref) {
      switch (ref.runner) {
        case "vitest":
          return vitest(ref.file, ref.name);
        case "pytest":
          return pytest(ref.file, ref.nodeId);
        case "go":
          return go(ref.importPath, ref.test);
        case "matrix":
          return matrix(ref.group, ref.runtime);
      }
    },
  };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
