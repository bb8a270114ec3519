/**
 * A real project in a real temporary git repository (for the real-projects tests and the
 * clean-room turn benchmark): fetched from its registry, committed, its dependencies
 * installed, and any lockfile the install wrote committed too, so the baseline of the first
 * turn has a clean `git status` and the dependency folders (ignored) unchanged.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Edit, RealProject } from "./projects.js";

/** `git args` in `root` with a fixed identity; its stdout. Throws on a non-zero exit. */
export function git(root: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd: root,
    encoding: "utf8",
  });
}

/**
 * `project` in a new temporary git repository (its real path): fetched, `.gitignore`
 * extended with `project.ignore`, committed, `project.install` run, and what the install
 * wrote outside the ignored folders (lockfiles) committed. Errors: the fetch's or install's.
 */
export async function checkout(project: RealProject): Promise<string> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "turngate-real-")));
  await project.fetch(root);
  if (project.ignore.length > 0) {
    appendFileSync(join(root, ".gitignore"), `\n${project.ignore.join("\n")}\n`);
  }
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-q", "--no-gpg-sign", "-m", "registry release");
  project.install(root);
  if (git(root, "status", "--porcelain") !== "") {
    git(root, "add", "-A");
    git(root, "commit", "-q", "--no-gpg-sign", "-m", "lockfile of the installed dependencies");
  }
  return root;
}

/**
 * Write an agent script `dir/name` (keep `dir` outside the workspace) that applies `edits`
 * in its working directory; it exits 3, naming the file, when a `find` is not there exactly
 * once (so a turn cannot pass on an edit that did nothing). Output: the script's path.
 */
export function agentScript(dir: string, name: string, edits: Edit[]): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `const fs = require("node:fs"); const path = require("node:path");
for (const e of ${JSON.stringify(edits)}) {
  if ("write" in e) { fs.mkdirSync(path.dirname(e.file), { recursive: true }); fs.writeFileSync(e.file, e.write); continue; }
  if ("append" in e) { fs.appendFileSync(e.file, e.append); continue; }
  const text = fs.readFileSync(e.file, "utf8");
  if (text.split(e.find).length !== 2) { console.error("not exactly once in " + e.file + ": " + e.find); process.exit(3); }
  fs.writeFileSync(e.file, text.replace(e.find, e.replace));
}
`,
  );
  return path;
}
