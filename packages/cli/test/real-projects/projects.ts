/**
 * The nine real projects of issue 31's "Done when" (docs/guarantees.md, "Isolation: clean-room
 * checks"): where each comes from (a registry), how its dependencies are installed before the turn
 * (so the dependency folders are in the baseline, unchanged), two correct changes, and a real bug
 * whose failing test must be named. Versions are pinned.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fetchCrate, fetchGoModule, fetchNpm, fetchPyPI, run } from "./fetch.js";

/** One file edit of an agent: replace `find` (exactly one occurrence) or write `write`. */
export type Edit =
  | { file: string; find: string; replace: string }
  | { file: string; write: string }
  | { file: string; append: string };

/** A real project and the three turns run on it. */
export interface RealProject {
  name: string;
  /** Programs that must be on PATH (else the project is skipped, naming them). */
  needs: string[];
  /** Put the project's files into `dest` (an empty folder). */
  fetch: (dest: string) => Promise<void>;
  /** Lines of the project's `.gitignore` (its dependency folders and build outputs). */
  ignore: string[];
  /** Install the dependencies in `root` after the first commit (new lockfiles are committed). */
  install: (root: string) => void;
  /** Two correct changes, one per turn. */
  turns: [Edit[], Edit[]];
  /** A real bug in the project's own code. */
  bug: Edit[];
  /** The name of a test the bug fails, as the turn's output names it. */
  failing: string;
  /** A line of that test's assertion message (expected vs got), as the failure digest quotes it. */
  assertion: string;
  /** Check outputs that must not appear in the workspace (they stay in the clean room). */
  absent: string[];
}

const PYTEST = "pytest==9.0.3";

function pythonInstall(extra: string[]): (root: string) => void {
  return (root) => {
    run("python3", ["-m", "venv", ".venv"], root);
    run(join(root, ".venv/bin/pip"), ["install", "-q", PYTEST, ...extra, "-e", "."], root);
  };
}

/** Two correct Python turns: a helper in `module` with its test in `test`, then a refactor of both. */
function pythonTurns(module: string, test: string, importLine: string): [Edit[], Edit[]] {
  return [
    [
      { file: module, append: "\n\ndef _turngate_double(x):\n    return 2 * x\n" },
      {
        file: test,
        write: `${importLine}\n\n\ndef test_turngate_double():\n    assert _turngate_double(21) == 42\n`,
      },
    ],
    [
      { file: module, find: "    return 2 * x\n", replace: "    return x + x\n" },
      {
        file: test,
        append: "\n\ndef test_turngate_double_negative():\n    assert _turngate_double(-3) == -6\n",
      },
    ],
  ];
}

function goTurns(dir: string, pkg: string): [Edit[], Edit[]] {
  return [
    [
      {
        file: `${dir}/turngate_double.go`,
        write: `package ${pkg}\n\nfunc turngateDouble(x int) int {\n\treturn 2 * x\n}\n`,
      },
      {
        file: `${dir}/turngate_double_test.go`,
        write: `package ${pkg}\n\nimport "testing"\n\nfunc TestTurngateDouble(t *testing.T) {\n\tif got := turngateDouble(21); got != 42 {\n\t\tt.Fatalf("turngateDouble(21) = %d", got)\n\t}\n}\n`,
      },
    ],
    [
      { file: `${dir}/turngate_double.go`, find: "\treturn 2 * x\n", replace: "\treturn x + x\n" },
      {
        file: `${dir}/turngate_double_test.go`,
        append: `\nfunc TestTurngateDoubleNegative(t *testing.T) {\n\tif got := turngateDouble(-3); got != -6 {\n\t\tt.Fatalf("turngateDouble(-3) = %d", got)\n\t}\n}\n`,
      },
    ],
  ];
}

function rustTurns(crate: string): [Edit[], Edit[]] {
  return [
    [
      {
        file: "src/lib.rs",
        append:
          "\n/// Twice `x` (added by a turn).\n#[doc(hidden)]\npub fn turngate_double(x: u64) -> u64 {\n    2 * x\n}\n",
      },
      {
        file: "tests/turngate.rs",
        write: `#[test]\nfn turngate_double() {\n    assert_eq!(${crate}::turngate_double(21), 42);\n}\n`,
      },
    ],
    [
      { file: "src/lib.rs", find: "    2 * x\n}\n", replace: "    x + x\n}\n" },
      {
        file: "tests/turngate.rs",
        append: `\n#[test]\nfn turngate_double_zero() {\n    assert_eq!(${crate}::turngate_double(0), 0);\n}\n`,
      },
    ],
  ];
}

/** Cargo.lock from the registry index before the turn (the clean room has no network). */
function cargoInstall(root: string): void {
  run("cargo", ["fetch"], root);
}

export const PROJECTS: readonly RealProject[] = [
  {
    name: "more-itertools 10.5.0 (PyPI, pytest)",
    needs: ["python3"],
    fetch: async (dest) => fetchPyPI("more-itertools", "10.5.0", dest),
    ignore: [".venv/", "__pycache__/", ".pytest_cache/", "*.egg-info/"],
    install: pythonInstall([]),
    turns: pythonTurns(
      "more_itertools/more.py",
      "tests/test_turngate.py",
      "from more_itertools.more import _turngate_double",
    ),
    bug: [
      {
        file: "more_itertools/more.py",
        find: "def chunked(iterable, n, strict=False):\n",
        replace: "def chunked(iterable, n, strict=False):\n    n = n + 1 if n else n\n",
      },
    ],
    failing: "ChunkedTests::test_even",
    assertion:
      "AssertionError: Lists differ: [['A', 'B', 'C', 'D'], ['E', 'F']] != [['A', 'B', 'C'], ['D', 'E', 'F']]",
    absent: [".pytest_cache", "more_itertools/__pycache__"],
  },
  {
    name: "six 1.17.0 (PyPI, pytest)",
    needs: ["python3"],
    fetch: async (dest) => fetchPyPI("six", "1.17.0", dest),
    ignore: [".venv/", "__pycache__/", ".pytest_cache/", "*.egg-info/"],
    install: pythonInstall([]),
    turns: pythonTurns("six.py", "test_turngate.py", "from six import _turngate_double"),
    bug: [
      {
        file: "six.py",
        find: "    byte2int = operator.itemgetter(0)\n",
        replace: "    byte2int = operator.itemgetter(-1)\n",
      },
    ],
    failing: "test_byte2int",
    assertion: "AssertionError: assert 4 == 3",
    absent: [".pytest_cache", "__pycache__"],
  },
  {
    name: "packaging 24.2 (PyPI, src layout, pytest)",
    needs: ["python3"],
    fetch: async (dest) => fetchPyPI("packaging", "24.2", dest),
    ignore: [".venv/", "__pycache__/", ".pytest_cache/", "*.egg-info/"],
    install: pythonInstall(["pretend==1.0.9"]),
    turns: pythonTurns(
      "src/packaging/utils.py",
      "tests/test_turngate.py",
      "from packaging.utils import _turngate_double",
    ),
    bug: [
      {
        file: "src/packaging/utils.py",
        find: '    value = _canonicalize_regex.sub("-", name).lower()\n',
        replace: '    value = _canonicalize_regex.sub("-", name)\n',
      },
    ],
    failing: "test_canonicalize_name",
    assertion: "AssertionError: assert 'Foo' == 'foo'",
    absent: [".pytest_cache", "src/packaging/__pycache__"],
  },
  {
    name: "go-cmp v0.7.0 (Go module proxy, go test)",
    needs: ["go"],
    fetch: async (dest) => fetchGoModule("github.com/google/go-cmp", "v0.7.0", dest),
    ignore: [],
    install: (root) => run("go", ["mod", "download"], root),
    turns: goTurns("cmp/cmpopts", "cmpopts"),
    bug: [
      {
        file: "cmp/cmpopts/equate.go",
        find: "(vx.Len() == 0 && vy.Len() == 0)",
        replace: "(vx.Len() == 0 || vy.Len() == 0)",
      },
    ],
    failing: "TestOptions",
    assertion: "Equal = true, want false",
    absent: [],
  },
  {
    name: "golang.org/x/sync v0.10.0 (Go module proxy, go test)",
    needs: ["go"],
    fetch: async (dest) => fetchGoModule("golang.org/x/sync", "v0.10.0", dest),
    ignore: [],
    install: (root) => run("go", ["mod", "download"], root),
    turns: goTurns("semaphore", "semaphore"),
    bug: [
      {
        file: "semaphore/semaphore.go",
        find: "success := s.size-s.cur >= n && s.waiters.Len() == 0",
        replace: "success := s.size-s.cur > n && s.waiters.Len() == 0",
      },
    ],
    failing: "TestWeightedTryAcquire",
    assertion: "panic: semaphore: released more than held",
    absent: [],
  },
  {
    name: "semver 1.0.23 (crates.io, cargo test)",
    needs: ["cargo"],
    fetch: (dest) => fetchCrate("semver", "1.0.23", dest),
    ignore: ["target/"],
    install: cargoInstall,
    turns: rustTurns("semver"),
    bug: [
      {
        file: "src/eval.rs",
        find: "    if let Some(patch) = cmp.patch {\n        if ver.patch != patch {\n            return false;\n        }\n    }\n\n    ver.pre == cmp.pre\n",
        replace:
          "    if let Some(patch) = cmp.patch {\n        if ver.patch < patch {\n            return false;\n        }\n    }\n\n    ver.pre == cmp.pre\n",
      },
    ],
    failing: "test_exact",
    assertion: "matched 1.0.1",
    absent: ["target"],
  },
  {
    name: "itoa 1.0.11 (crates.io, cargo test)",
    needs: ["cargo"],
    fetch: (dest) => fetchCrate("itoa", "1.0.11", dest),
    ignore: ["target/"],
    install: cargoInstall,
    turns: rustTurns("itoa"),
    bug: [
      {
        file: "src/lib.rs",
        find: "8081828384858687888990919293949596979899",
        replace: "8081828384858687888990919293945996979899",
      },
    ],
    failing: "test_u64_half",
    assertion: 'left: "4294967259"',
    absent: ["target"],
  },
  {
    name: "minimist 1.2.8 (npm, tape + nyc)",
    needs: ["npm"],
    fetch: async (dest) => {
      fetchNpm("minimist", "1.2.8", dest);
      // The tarball's scripts lint with a configuration it does not ship (pretest), audit
      // over the network (posttest) and run publish guards on install (prepublish): the
      // tests are `nyc tape`, which is what these turns check.
      const path = join(dest, "package.json");
      const pkg = JSON.parse(readFileSync(path, "utf8")) as Record<string, Record<string, string>>;
      pkg.devDependencies = {
        nyc: pkg.devDependencies?.nyc as string,
        tape: pkg.devDependencies?.tape as string,
      };
      for (const script of ["pretest", "posttest", "prepublish", "prepublishOnly", "prepack"]) {
        delete pkg.scripts?.[script];
      }
      writeFileSync(path, `${JSON.stringify(pkg, null, "\t")}\n`);
    },
    ignore: ["node_modules/", ".nyc_output/", "coverage/"],
    install: (root) => run("npm", ["install", "--no-audit", "--no-fund"], root),
    turns: [
      [
        {
          file: "index.js",
          append: "\nmodule.exports.turngateDouble = function (x) { return 2 * x; };\n",
        },
        {
          file: "test/turngate.js",
          write:
            "'use strict';\n\nvar test = require('tape');\nvar parse = require('../');\n\ntest('turngate double', function (t) {\n\tt.equal(parse.turngateDouble(21), 42);\n\tt.end();\n});\n",
        },
      ],
      [
        { file: "index.js", find: "{ return 2 * x; }", replace: "{ return x + x; }" },
        {
          file: "test/turngate.js",
          append:
            "\ntest('turngate double negative', function (t) {\n\tt.equal(parse.turngateDouble(-3), -6);\n\tt.end();\n});\n",
        },
      ],
    ],
    bug: [{ file: "index.js", find: "(/^0x[0-9a-f]+$/i)", replace: "(/^0x[0-9]+$/i)" }],
    failing: "nums",
    assertion: "hex: '0xdeadbeef'",
    absent: [".nyc_output", "coverage"],
  },
  {
    name: "TypeScript + vitest (typescript 5.9.3, vitest 4.1.12 from npm)",
    needs: ["npm"],
    fetch: async (dest) => {
      const files: Record<string, string> = {
        "package.json": `${JSON.stringify(
          {
            name: "slug-kit",
            version: "1.0.0",
            private: true,
            type: "module",
            scripts: { test: "vitest run", typecheck: "tsc --noEmit" },
            devDependencies: { typescript: "5.9.3", vitest: "4.1.12" },
          },
          null,
          2,
        )}\n`,
        "tsconfig.json":
          '{ "compilerOptions": { "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": true, "noEmit": true, "skipLibCheck": true }, "include": ["src", "test"] }\n',
        "src/slug.ts":
          '/** Lower-case words of `text` joined by `sep`. */\nexport function slugify(text: string, sep = "-"): string {\n  return text\n    .normalize("NFKD")\n    .replace(/[\\u0300-\\u036f]/g, "")\n    .toLowerCase()\n    .split(/[^a-z0-9]+/)\n    .filter((word) => word !== "")\n    .join(sep);\n}\n',
        "test/slug.test.ts":
          'import { describe, expect, test } from "vitest";\nimport { slugify } from "../src/slug.js";\n\ndescribe("slugify", () => {\n  test("joins words with dashes", () => {\n    expect(slugify("Hello, World!")).toBe("hello-world");\n  });\n  test("drops accents", () => {\n    expect(slugify("Crème Brûlée")).toBe("creme-brulee");\n  });\n  test("takes a separator", () => {\n    expect(slugify("a b c", "_")).toBe("a_b_c");\n  });\n});\n',
      };
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(dirname(join(dest, file)), { recursive: true });
        writeFileSync(join(dest, file), text);
      }
    },
    ignore: ["node_modules/"],
    install: (root) => run("npm", ["install", "--no-audit", "--no-fund"], root),
    turns: [
      [
        {
          file: "src/double.ts",
          write:
            "/** Twice `x`. */\nexport function double(x: number): number {\n  return 2 * x;\n}\n",
        },
        {
          file: "test/double.test.ts",
          write:
            'import { expect, test } from "vitest";\nimport { double } from "../src/double.js";\n\ntest("doubles", () => {\n  expect(double(21)).toBe(42);\n});\n',
        },
      ],
      [
        { file: "src/double.ts", find: "  return 2 * x;\n", replace: "  return x + x;\n" },
        {
          file: "test/double.test.ts",
          append: '\ntest("doubles negatives", () => {\n  expect(double(-3)).toBe(-6);\n});\n',
        },
      ],
    ],
    bug: [{ file: "src/slug.ts", find: "    .join(sep);\n", replace: '    .join("-");\n' }],
    failing: "takes a separator",
    assertion: "AssertionError: expected 'a-b-c' to be 'a_b_c'",
    absent: ["node_modules/.vite", "node_modules/.vitest"],
  },
];
