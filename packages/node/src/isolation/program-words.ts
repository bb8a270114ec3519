/**
 * Which workspace files a harness's command runs (docs/design.md §3b "Harness programs"):
 * the reading of one hook command string, or one MCP server's `command` and `args`, that
 * `harness-programs.ts` applies to every harness setting. Pure string analysis plus `stat`
 * of candidate paths; nothing is run.
 *
 * A word names a program file when it is
 * - the program of a simple command (after `NAME=VALUE` assignments, redirections and the
 *   wrappers `env`, `exec`, `command`, `nohup`, `nice`, `ionice`, `time`, `timeout`,
 *   `stdbuf`, `xargs`) written as a path (with a `/`; a bare name is looked up on `PATH`);
 * - the script of an interpreter (`node`, `python3`, `bash`, `ruby`, `deno run`, `tsx`, …:
 *   its first word that is not an option), or its `-m` module (`python3 -m pkg.hook`:
 *   `pkg/hook.py`, `pkg/hook/__main__.py`, the packages' `__init__.py`), or a file it preloads
 *   (`node -r ./x.js`, `--import`);
 * - a shell's `-c` script, read as a command again; `cd DIR` in a list, and a runner's
 *   `--directory`/`--cwd`/`--prefix`/`--project`/`-C DIR`, move where later words resolve;
 * - any other word with a script's extension (`.sh`, `.py`, `.js`, `.ts`, …).
 * A program path is resolved as Node and Python would: a folder runs its `index.js`
 * (`.mjs`, `.cjs`) or `__main__.py`; an absent name without extension runs the existing
 * `.js`/`.mjs`/`.cjs`/`.py` beside it.
 * Data words (a log that `tee` appends to, a database path, a notes file `cat` prints) name
 * nothing. `$CLAUDE_PROJECT_DIR`, `$CURSOR_PROJECT_DIR`, `$PWD`, `$(pwd)` and
 * `$(git rev-parse --show-toplevel)` (with `${…}` and `${…:-default}` forms) read as the
 * workspace root, `$HOME` and `~` as the home folder, whatever characters those paths hold.
 * A program or script word still computed after that (`$RUNNER`, `$(cat x)`) is unresolved:
 * the caller cannot tell which file it runs.
 */
import { readdirSync, statSync } from "node:fs";
import { basename, extname, isAbsolute, join, relative, resolve } from "node:path";
import {
  commandSubstitutions,
  type ShellWord,
  shellWords,
  splitShellCommand,
} from "@turngate/core";

/** Where a command's words resolve: the workspace root, the home folder, its working folder. */
export interface CommandScope {
  root: string;
  home: string;
  cwd: string;
  /**
   * Absolute folders `python -m` also looks in, after `cwd`: the `PYTHONPATH` of the
   * settings' `env` block (`pythonPathFolders`).
   */
  pythonPath?: readonly string[];
}

/** What a command names: workspace program files (absolute), and words it computes. */
export interface CommandPrograms {
  paths: string[];
  /** Program or script words computed when the command runs, as written. */
  unresolved: string[];
}

/** Variables a harness sets to the project folder when it runs a hook; read as the root. */
export const PROJECT_DIR_VARIABLES: readonly string[] = Object.freeze([
  "CLAUDE_PROJECT_DIR",
  "CURSOR_PROJECT_DIR",
  "PWD",
]);

/** Extensions of script files: such a word names a program wherever it stands. */
const SCRIPT_EXTENSIONS: ReadonlySet<string> = new Set(
  ".sh .bash .zsh .fish .py .pyw .js .mjs .cjs .ts .mts .cts .jsx .tsx .rb .pl .php .lua .ps1 .bat .cmd".split(
    " ",
  ),
);

/** Interpreters whose first non-option word is the script they run. */
const INTERPRETERS: ReadonlySet<string> = new Set(
  "node nodejs tsx ts-node ts-node-esm esno jiti python python2 python3 pypy pypy3 ruby perl php lua Rscript sh bash dash zsh ksh mksh ash fish pwsh source .".split(
    " ",
  ),
);

/** Shells whose `-c` argument is a command string. */
const SHELLS: ReadonlySet<string> = new Set("sh bash dash zsh ksh mksh ash yash posh".split(" "));

/** Wrappers that run the rest of their words as a command, and how many leading positionals they take. */
const WRAPPERS: Readonly<Record<string, number>> = {
  env: 0,
  exec: 0,
  command: 0,
  nohup: 0,
  nice: 0,
  ionice: 0,
  time: 0,
  stdbuf: 0,
  xargs: 0,
  timeout: 1,
};

/** Wrapper options that take the next word as their value. */
const WRAPPER_VALUE_OPTIONS: ReadonlySet<string> = new Set(
  "-u -C -S -n -c -p -o -f -s -k -i -e -I -L -P -d -a --unset --chdir --signal --kill-after --adjustment --output --format".split(
    " ",
  ),
);

/** Options that move where a runner resolves the words after them (`uv --directory d run x.py`). */
const DIRECTORY_OPTIONS: ReadonlySet<string> = new Set([
  "--directory",
  "--cwd",
  "--prefix",
  "--project",
  "--dir",
  "-C",
]);

/** Interpreter options whose value is a file they load (`node -r ./setup.js`). */
const PRELOAD_OPTIONS: ReadonlySet<string> = new Set(["-r", "--require", "--import", "--loader"]);

/** Interpreter options that take a value that is not a file. */
const INTERPRETER_VALUE_OPTIONS: ReadonlySet<string> = new Set(
  "-W -X -O -I -P --input-type --conditions --env-file --title --project --compiler".split(" "),
);

const ROOT_TOKEN = "\u0001turngate-root\u0001";
const HOME_TOKEN = "\u0001turngate-home\u0001";

/**
 * The program files and computed program words of one shell command string (a hook's
 * `command`, `apiKeyHelper`, …). Input: the command, its scope. Never throws.
 */
export function shellCommandPrograms(command: string, scope: CommandScope): CommandPrograms {
  const out: CommandPrograms = { paths: [], unresolved: [] };
  readShell(tokenized(command), scope, out, 0);
  return out;
}

/**
 * The program files and computed words of an argument vector (an MCP server's `command`
 * and `args`, Codex's `notify`): each word is one argument, with `${VAR}`, `${VAR:-d}` and
 * `$VAR` of the project variables and `HOME` expanded (Claude Code expands them in
 * `.mcp.json`); another `${…}` leaves the word computed. Never throws.
 */
export function argvPrograms(argv: readonly string[], scope: CommandScope): CommandPrograms {
  const out: CommandPrograms = { paths: [], unresolved: [] };
  const words = argv.map((arg) => {
    const text = tokenized(arg);
    return /\$\{|\$[A-Za-z_]|\$\(|`/.test(text) ? null : restore(text, scope);
  });
  readWords(words, argv, scope.cwd, scope, out, 0);
  return out;
}

/** The command with the root's and home's spellings replaced by tokens no shell rule touches. */
function tokenized(command: string): string {
  let text = command;
  for (const name of PROJECT_DIR_VARIABLES) {
    text = text.replace(
      new RegExp(`\\$\\{${name}(?::?[-=?+][^}]*)?\\}|\\$${name}(?![A-Za-z0-9_])`, "g"),
      ROOT_TOKEN,
    );
  }
  text = text.replace(/\$\(\s*pwd\s*\)|`\s*pwd\s*`/g, ROOT_TOKEN);
  text = text.replace(
    /\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)|`\s*git\s+rev-parse\s+--show-toplevel\s*`/g,
    ROOT_TOKEN,
  );
  text = text.replace(/\$\{HOME(?::?[-=?+][^}]*)?\}|\$HOME(?![A-Za-z0-9_])/g, HOME_TOKEN);
  return text.replace(/(^|[\s=:'"(])~(?=\/|$|[\s'")])/g, `$1${HOME_TOKEN}`);
}

function restore(value: string, scope: CommandScope): string {
  return value.split(ROOT_TOKEN).join(scope.root).split(HOME_TOKEN).join(scope.home);
}

/** Reserved words that open or continue a compound command: the command follows them. */
const LEADING_KEYWORDS: ReadonlySet<string> = new Set([
  "if",
  "then",
  "else",
  "elif",
  "do",
  "while",
  "until",
  "!",
  "{",
  "time",
]);

/** Words that end a compound command, or a segment that is a word list, not a command. */
const NOT_A_COMMAND: ReadonlySet<string> = new Set([
  "fi",
  "done",
  "esac",
  "}",
  "for",
  "case",
  "select",
  "function",
  "in",
]);

function readShell(text: string, scope: CommandScope, out: CommandPrograms, depth: number): void {
  if (depth > 8) return;
  let cwd = scope.cwd;
  let previousOp: string | null = null;
  for (const segment of splitShellCommand(text)) {
    const op = previousOp;
    previousOp = segment.op;
    const body = segment.text.trim();
    // A subshell or group: its inside is a command list of its own.
    if (/^\(.*\)$/s.test(body) || /^\{.*\}$/s.test(body)) {
      readShell(body.slice(1, -1), { ...scope, cwd }, out, depth + 1);
      continue;
    }
    const raw: ShellWord[] = [];
    let stdin: string | null | undefined;
    const all = shellWords(body);
    for (let i = 0; i < all.length; i++) {
      const word = all[i] as ShellWord;
      // Command substitutions run too: `echo "$(./ctx.sh)"`.
      for (const inner of commandSubstitutions(word.raw)) {
        readShell(inner, { ...scope, cwd }, out, depth + 1);
      }
      const lone = /^\d*(?:[<>]{1,2}|&>{1,2}|[<>]&|>\|)$/.exec(word.raw);
      if (lone !== null) {
        const target = all[i + 1];
        if (word.raw === "<" && target !== undefined) stdin = target.value;
        i++; // the redirection's target
        continue;
      }
      if (/^\d*(?:[<>]|&>)/.test(word.raw)) {
        if (/^<[^<&]/.test(word.raw)) stdin = shellWords(word.raw.slice(1))[0]?.value ?? null;
        continue;
      }
      raw.push(word);
    }
    while (raw.length > 0 && LEADING_KEYWORDS.has(raw[0]?.value ?? "")) raw.shift();
    if (raw.length === 0 || NOT_A_COMMAND.has(raw[0]?.value ?? "")) continue;
    // A function definition `f() {` is not a command.
    if (/^[A-Za-z_][\w-]*\(\)$/.test(raw[0]?.raw ?? "")) continue;
    while (raw.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(raw[0]?.raw ?? "")) raw.shift();
    const values = raw.map((w) => (w.value === null ? null : restore(w.value, scope)));
    if (values[0] === "cd" || values[0] === "pushd") {
      const args = values.slice(1);
      let k = 0;
      while (
        k < args.length &&
        typeof args[k] === "string" &&
        /^-/.test(args[k] as string) &&
        args[k] !== "-"
      ) {
        k++;
        if (args[k - 1] === "--") break;
      }
      const target = args[k];
      cwd = target === null ? cwd : target === undefined ? scope.home : resolve(cwd, target);
      continue;
    }
    const reads = readWords(
      values,
      raw.map((w) => w.raw),
      cwd,
      { ...scope, cwd },
      out,
      depth,
    );
    if (reads === "stdin") {
      // A shell or interpreter with no script runs what it reads: a file, or a pipe.
      if (typeof stdin === "string") addProgram(restore(stdin, scope), cwd, { ...scope, cwd }, out);
      else if (stdin === null || op === "|" || op === "|&") out.unresolved.push(body);
    }
  }
}

/** Runners whose first word that is not an option is a command of its own (`npx tsx x.ts`). */
const DIRECT_RUNNERS: ReadonlySet<string> = new Set(["npx", "pnpx", "bunx", "uvx"]);

/** Runners whose `run`/`exec`/`dlx`/`x` subcommand is followed by a command of its own. */
const SUB_RUNNERS: ReadonlySet<string> = new Set(
  "uv poetry pdm hatch pipenv rye pipx conda mamba pixi npm pnpm yarn".split(" "),
);

/** Package managers whose other subcommands run a script of the project's manifest. */
const SCRIPT_RUNNERS: Readonly<Record<string, string>> = {
  npm: "package.json's scripts",
  pnpm: "package.json's scripts",
  yarn: "package.json's scripts",
  make: "the Makefile",
  gmake: "the Makefile",
  just: "the justfile",
  task: "the Taskfile",
};

/** npm's subcommands that run a package.json script. */
const NPM_SCRIPT_COMMANDS: ReadonlySet<string> = new Set([
  "run",
  "run-script",
  "rum",
  "urn",
  "test",
  "t",
  "tst",
  "start",
  "stop",
  "restart",
]);

/**
 * Reads one simple command's words (values; null = computed) from its program on.
 * Output: `"stdin"` when the program is a shell or an interpreter given no script (it runs
 * what it reads), else `"done"`.
 */
function readWords(
  values: readonly (string | null)[],
  raws: readonly string[],
  cwd: string,
  scope: CommandScope,
  out: CommandPrograms,
  depth: number,
): "stdin" | "done" {
  let i = 0;
  let here = cwd;
  // Wrappers: the command they run starts after their options and positionals.
  while (i < values.length) {
    const value = values[i];
    if (value === null || value === undefined) break;
    const positionals = WRAPPERS[basename(value)];
    if (positionals === undefined) break;
    i++;
    let left = positionals;
    while (i < values.length) {
      const v = values[i];
      if (v === null || v === undefined) break;
      if (v === "--") {
        i++;
        break;
      }
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(v)) i++;
      else if (v === "-C" || v === "--chdir") {
        const dir = values[i + 1];
        if (typeof dir === "string") here = resolve(here, dir);
        i += 2;
      } else if (v.startsWith("-") && v.length > 1) i += WRAPPER_VALUE_OPTIONS.has(v) ? 2 : 1;
      else if (left > 0) {
        left--;
        i++;
      } else break;
    }
  }
  const program = values[i];
  if (program === undefined) return "done";
  if (program === null) {
    out.unresolved.push(raws[i] ?? "");
    return "done";
  }
  const name = basename(program);
  // A bare name is looked up on PATH, except a script a runner starts (`uv run server.py`).
  if (program.includes("/") || (depth > 0 && SCRIPT_EXTENSIONS.has(extname(program)))) {
    addProgram(program, here, scope, out);
  }
  const rest = values.slice(i + 1);
  const restRaw = raws.slice(i + 1);
  const sub = { ...scope, cwd: here };
  // The first word of `rest` that is not an option (DIRECTORY_OPTIONS move `here`).
  const firstWord = (from = 0): number => {
    let k = from;
    while (k < rest.length) {
      const v = rest[k];
      if (typeof v !== "string") return k;
      if (v === "--") return k + 1;
      if (!v.startsWith("-") || v.length === 1) return k;
      const eq = v.indexOf("=");
      const option = eq < 0 ? v : v.slice(0, eq);
      if (DIRECTORY_OPTIONS.has(option)) {
        const dir = eq < 0 ? rest[k + 1] : v.slice(eq + 1);
        if (typeof dir === "string") here = resolve(here, dir);
        sub.cwd = here;
        k += eq < 0 ? 2 : 1;
      } else k++;
    }
    return k;
  };
  const runRest = (from: number) =>
    readWords(rest.slice(from), restRaw.slice(from), here, sub, out, depth + 1);
  if (SHELLS.has(name)) {
    const c = rest.findIndex((v) => typeof v === "string" && /^-[a-z]*c[a-z]*$/.test(v));
    if (c >= 0) {
      const script = rest[c + 1];
      if (script === null) out.unresolved.push(restRaw[c + 1] ?? "");
      else if (script !== undefined) readShell(tokenized(script), sub, out, depth + 1);
      return "done";
    }
  }
  if (DIRECT_RUNNERS.has(name)) {
    runRest(firstWord());
    return "done";
  }
  if (name === "go") {
    const at = firstWord();
    if (rest[at] === "run") addGoPackage(rest[firstWord(at + 1)], here, scope, out);
    return "done";
  }
  if (name === "bun" || name === "deno") {
    const at = firstWord();
    const word = rest[at];
    if (word === "x") {
      runRest(at + 1);
      return "done";
    }
    const target = word === "run" ? rest[firstWord(at + 1)] : word;
    if (target === null) out.unresolved.push(raws.join(" "));
    else if (
      typeof target === "string" &&
      (target.includes("/") || SCRIPT_EXTENSIONS.has(extname(target)))
    ) {
      addProgram(target, here, scope, out);
    } else if (word === "run" && target !== undefined) {
      out.unresolved.push(
        `${raws.join(" ")} (what runs is in ${name === "bun" ? "package.json's scripts" : "deno.json's tasks"})`,
      );
    }
    return "done";
  }
  if (SUB_RUNNERS.has(name) || SCRIPT_RUNNERS[name] !== undefined) {
    const at = firstWord();
    const word = rest[at];
    if (
      SUB_RUNNERS.has(name) &&
      (word === "exec" ||
        word === "dlx" ||
        word === "x" ||
        (word === "run" && !(name in SCRIPT_RUNNERS)))
    ) {
      runRest(firstWord(at + 1));
      return "done";
    }
    const decides = SCRIPT_RUNNERS[name];
    const runsScript =
      decides !== undefined &&
      (name === "npm"
        ? typeof word === "string" && NPM_SCRIPT_COMMANDS.has(word)
        : name !== "yarn" && name !== "pnpm"
          ? true
          : word !== "install" && word !== "add" && word !== "i");
    if (runsScript) out.unresolved.push(`${raws.join(" ")} (what runs is in ${decides})`);
    return "done";
  }
  const scriptOf = INTERPRETERS.has(name) || /^python\d+(\.\d+)?$/.test(name);
  if (!scriptOf) return "done"; // a program's arguments are its data
  const shell = SHELLS.has(name);
  let k = 0;
  while (k < rest.length) {
    const v = rest[k];
    if (v === null || v === undefined) {
      out.unresolved.push(restRaw[k] ?? "");
      return "done";
    }
    if (shell && /^[-+]o$/.test(v)) {
      k += 2;
      continue;
    }
    if (v === "--") {
      k++;
      continue;
    }
    if ((v.startsWith("-") && v.length > 1) || (shell && /^\+[A-Za-z]+$/.test(v))) {
      const eq = v.indexOf("=");
      const option = eq < 0 ? v : v.slice(0, eq);
      const inline = eq < 0 ? undefined : v.slice(eq + 1);
      const next = inline ?? rest[k + 1];
      const step = inline === undefined ? 2 : 1;
      if (shell) {
        k++;
        continue;
      }
      if (
        option === "-m" ||
        (option.startsWith("-m") &&
          option.length > 2 &&
          inline === undefined &&
          !option.startsWith("--"))
      ) {
        const module = option === "-m" ? next : option.slice(2);
        if (typeof module === "string") addModule(module, here, scope, out);
        else if (module === null) out.unresolved.push(raws.join(" "));
        return "done";
      }
      // Inline code (`python3 -c`, `node -e`): no file.
      if (["-c", "-e", "--eval", "-p", "--print"].includes(option)) return "done";
      if (PRELOAD_OPTIONS.has(option) && typeof next === "string") {
        if (/^\.{0,2}\//.test(next)) addProgram(next, here, scope, out);
        k += step;
        continue;
      }
      k += inline === undefined && INTERPRETER_VALUE_OPTIONS.has(option) ? 2 : 1;
      continue;
    }
    // The script: an absent bare word without an extension is a subcommand, not a file.
    if (v.includes("/") || extname(v) !== "" || kindOf(resolve(here, v)) !== "absent") {
      addProgram(v, here, scope, out);
    }
    return "done";
  }
  return "stdin";
}

/** Adds the Go files `go run PACKAGE` builds: a `.go` file, or a folder's non-test `.go` files. */
function addGoPackage(
  word: string | null | undefined,
  cwd: string,
  scope: CommandScope,
  out: CommandPrograms,
): void {
  if (word === null) {
    out.unresolved.push("go run $…");
    return;
  }
  if (word === undefined || !(word.startsWith(".") || word.startsWith("/"))) return;
  const path = resolve(cwd, word.replace(/\/\.\.\.$/, ""));
  if (!inside(path, scope.root)) return;
  if (kindOf(path) !== "folder") {
    out.paths.push(path);
    return;
  }
  try {
    for (const entry of readdirSync(path)) {
      if (entry.endsWith(".go") && !entry.endsWith("_test.go")) out.paths.push(join(path, entry));
    }
  } catch {
    // unreadable: nothing named
  }
}
/** Adds the file `word` runs as a program (see the module docs for folders and bare names). */
function addProgram(word: string, cwd: string, scope: CommandScope, out: CommandPrograms): void {
  // An npm package name (`npx @scope/server`) is not a path.
  if (word.startsWith("@")) return;
  const path = resolve(cwd, word);
  if (!inside(path, scope.root)) return;
  const kind = kindOf(path);
  if (kind === "folder") {
    for (const entry of ["index.js", "index.mjs", "index.cjs", "__main__.py"]) {
      const file = join(path, entry);
      if (kindOf(file) === "file") out.paths.push(file);
    }
    return;
  }
  if (kind === "absent" && extname(path) === "") {
    const siblings = [".js", ".mjs", ".cjs", ".py"]
      .map((ext) => `${path}${ext}`)
      .filter((file) => kindOf(file) === "file");
    if (siblings.length > 0) {
      out.paths.push(...siblings);
      return;
    }
  }
  out.paths.push(path);
}

/**
 * Adds the files `python -m module` runs: the module or package, and the packages'
 * `__init__.py`, looked for in `cwd` and then in each `scope.pythonPath` folder (every
 * folder where it exists counts: which one Python picks depends on `sys.path`). When it
 * exists in none, the file it would be in `cwd` (a program that may appear later).
 */
function addModule(module: string, cwd: string, scope: CommandScope, out: CommandPrograms): void {
  const parts = module.split(".").filter((p) => p !== "");
  if (parts.length === 0) return;
  let any = false;
  for (const folder of [cwd, ...(scope.pythonPath ?? [])]) {
    const base = join(folder, ...parts);
    const candidates = [`${base}.py`, join(base, "__main__.py"), join(base, "__init__.py")];
    for (let n = 1; n < parts.length; n++)
      candidates.push(join(folder, ...parts.slice(0, n), "__init__.py"));
    const found = candidates.filter((file) => inside(file, scope.root) && kindOf(file) === "file");
    if (found.length > 0) {
      out.paths.push(...found);
      any = true;
    }
  }
  const base = join(cwd, ...parts);
  if (!any && inside(`${base}.py`, scope.root)) out.paths.push(`${base}.py`);
}

/**
 * The folders of a `PYTHONPATH` value (`:`-separated) as absolute paths: the project
 * variables, `$HOME` and `~` expanded as in commands, a relative entry (and an empty one,
 * which Python reads as the current folder) resolved against `scope.cwd`; an entry with any
 * other variable is left out (it names no folder until it runs). Never throws.
 */
export function pythonPathFolders(value: string, scope: CommandScope): string[] {
  const folders: string[] = [];
  for (const entry of value.split(":")) {
    const text = tokenized(entry);
    if (/\$\{|\$[A-Za-z_]|\$\(|`/.test(text)) continue;
    folders.push(resolve(scope.cwd, restore(text, scope)));
  }
  return folders;
}

function kindOf(path: string): "file" | "folder" | "absent" {
  try {
    return statSync(path).isDirectory() ? "folder" : "file";
  } catch {
    return "absent";
  }
}

/** Whether `path` lies inside `root` (not the root itself). */
function inside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}
