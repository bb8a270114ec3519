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
import { statSync } from "node:fs";
import { basename, extname, isAbsolute, join, relative, resolve } from "node:path";
import { type ShellWord, shellWords, splitShellCommand } from "@turngate/core";

/** Where a command's words resolve: the workspace root, the home folder, its working folder. */
export interface CommandScope {
  root: string;
  home: string;
  cwd: string;
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
  "node nodejs bun deno tsx ts-node ts-node-esm esno jiti python python2 python3 pypy pypy3 ruby perl php lua Rscript sh bash dash zsh ksh mksh ash fish pwsh source .".split(
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
  "-W -X -O --eval -e -p --print --input-type --conditions -C --env-file --title".split(" "),
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

function readShell(text: string, scope: CommandScope, out: CommandPrograms, depth: number): void {
  if (depth > 8) return;
  let cwd = scope.cwd;
  for (const segment of splitShellCommand(text)) {
    let body = segment.text.trim();
    // A subshell or group: its inside is a command list of its own.
    if (/^\(.*\)$/s.test(body) || /^\{.*\}$/s.test(body)) {
      readShell(body.slice(1, -1), { ...scope, cwd }, out, depth + 1);
      continue;
    }
    body = body.replace(/^(?:!\s+)/, "");
    const raw: ShellWord[] = [];
    const all = shellWords(body);
    for (let i = 0; i < all.length; i++) {
      const word = all[i] as ShellWord;
      if (/^\d*(?:[<>]{1,2}|&>{1,2}|[<>]&|>\|)$/.test(word.raw)) {
        i++; // the redirection's target
        continue;
      }
      if (/^\d*(?:[<>]|&>)/.test(word.raw)) continue;
      raw.push(word);
    }
    while (raw.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(raw[0]?.raw ?? "")) raw.shift();
    const values = raw.map((w) => (w.value === null ? null : restore(w.value, scope)));
    if (values[0] === "cd" || values[0] === "pushd") {
      const target = values[1];
      cwd = target === null ? cwd : target === undefined ? scope.home : resolve(cwd, target);
      continue;
    }
    readWords(
      values,
      raw.map((w) => w.raw),
      cwd,
      { ...scope, cwd },
      out,
      depth,
    );
  }
}

/** Reads one simple command's words (values; null = computed) from its program on. */
function readWords(
  values: readonly (string | null)[],
  raws: readonly string[],
  cwd: string,
  scope: CommandScope,
  out: CommandPrograms,
  depth: number,
): void {
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
  if (program === undefined) return;
  if (program === null) {
    out.unresolved.push(raws[i] ?? "");
    return;
  }
  const name = basename(program);
  // A bare name is looked up on PATH, except a script a runner starts (`uv run server.py`).
  if (program.includes("/") || (depth > 0 && SCRIPT_EXTENSIONS.has(extname(program)))) {
    addProgram(program, here, scope, out);
  }
  const rest = values.slice(i + 1);
  const restRaw = raws.slice(i + 1);
  if (SHELLS.has(name)) {
    const c = rest.findIndex((v) => typeof v === "string" && /^-[a-z]*c[a-z]*$/.test(v));
    if (c >= 0) {
      const script = rest[c + 1];
      if (script === null) out.unresolved.push(restRaw[c + 1] ?? "");
      else if (script !== undefined)
        readShell(tokenized(script), { ...scope, cwd: here }, out, depth + 1);
      return;
    }
  }
  let k = 0;
  // `deno run x.ts`, `bun run x.ts`, `uv run x.py`: the subcommand is not the script.
  const scriptOf = INTERPRETERS.has(name) || /^python\d+(\.\d+)?$/.test(name);
  let wantScript = scriptOf;
  while (k < rest.length) {
    const v = rest[k];
    if (typeof v === "string" && SHELLS.has(name) && /^\+[A-Za-z]+$/.test(v)) {
      k += v === "+o" ? 2 : 1;
      continue;
    }
    if (v === null || v === undefined) {
      if (wantScript) out.unresolved.push(restRaw[k] ?? "");
      wantScript = false;
      k++;
      continue;
    }
    if (v.startsWith("-") && v.length > 1) {
      const eq = v.indexOf("=");
      const option = eq < 0 ? v : v.slice(0, eq);
      const inline = eq < 0 ? undefined : v.slice(eq + 1);
      const next = inline ?? rest[k + 1];
      const step = inline === undefined ? 2 : 1;
      if (DIRECTORY_OPTIONS.has(option) && typeof next === "string") {
        here = resolve(here, next);
        k += step;
        continue;
      }
      if (scriptOf && option === "-m" && typeof next === "string") {
        addModule(next, here, scope, out);
        return;
      }
      const shell = SHELLS.has(name);
      // Inline code (`python3 -c`, `node -e`): no file. A shell's `-e` is errexit.
      if (scriptOf && !shell && ["-c", "-e", "--eval", "-p", "--print"].includes(option)) return;
      if (shell) {
        k += option === "-o" ? 2 : 1;
        continue;
      }
      if (scriptOf && PRELOAD_OPTIONS.has(option) && typeof next === "string") {
        if (next.startsWith(".") || next.includes("/")) addProgram(next, here, scope, out);
        k += step;
        continue;
      }
      if (inline === undefined && scriptOf && INTERPRETER_VALUE_OPTIONS.has(option)) k += 2;
      else {
        if (inline !== undefined && SCRIPT_EXTENSIONS.has(extname(inline))) {
          addProgram(inline, here, scope, out);
        }
        k++;
      }
      continue;
    }
    if (wantScript && (v === "run" || v === "exec")) {
      k++;
      continue;
    }
    if (wantScript) {
      addProgram(v, here, scope, out);
      wantScript = false;
    } else if (v === "run" || v === "exec") {
      // A runner (`uv run`, `npx`, `pnpm exec`): what follows is a command of its own.
      readWords(rest.slice(k + 1), restRaw.slice(k + 1), here, scope, out, depth + 1);
      return;
    } else if (SCRIPT_EXTENSIONS.has(extname(v))) {
      addProgram(v, here, scope, out);
    }
    k++;
  }
}

/** Adds the file `word` runs as a program (see the module docs for folders and bare names). */
function addProgram(word: string, cwd: string, scope: CommandScope, out: CommandPrograms): void {
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

/** Adds the files `python -m module` runs: the module or package, and the packages' `__init__.py`. */
function addModule(module: string, cwd: string, scope: CommandScope, out: CommandPrograms): void {
  const parts = module.split(".").filter((p) => p !== "");
  if (parts.length === 0) return;
  const base = join(cwd, ...parts);
  const candidates = [`${base}.py`, join(base, "__main__.py"), join(base, "__init__.py")];
  for (let n = 1; n < parts.length; n++)
    candidates.push(join(cwd, ...parts.slice(0, n), "__init__.py"));
  const found = candidates.filter((file) => inside(file, scope.root) && kindOf(file) === "file");
  if (found.length > 0) out.paths.push(...found);
  else if (inside(`${base}.py`, scope.root)) out.paths.push(`${base}.py`);
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
