/**
 * Temporary folders removed after each test, and git with a fixed identity: shared by the
 * tests that build real repositories (the key's tree, the turn's tree).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

/** Runs `cleanup` after the current test (after those registered later: last in, first out). */
export function onCleanup(cleanup: () => void): void {
  cleanups.push(cleanup);
}

/** A new folder under the system temp folder (real path), removed after the test. */
export function temp(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** `git <args>` in `cwd` as user t <t@example.invalid>; its stdout, trimmed. Throws on failure. */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    cwd,
    stdio: "pipe",
  })
    .toString()
    .trim();
