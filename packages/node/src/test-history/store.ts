import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { TestHistory, TestHistoryEntry } from "@turngate/core";
import { writeJsonAtomic } from "../fs/atomic.js";

/** Schema id of a stored test history file. */
export const TEST_HISTORY_SCHEMA = "turngate.test_history.v1";

/**
 * The user-level folder test histories live in (issue #16 §3), outside any workspace:
 * `$TURNGATE_STATE_HOME/test-history`, else `$XDG_STATE_HOME/turngate/test-history`, else
 * `~/.local/state/turngate/test-history`. Nothing is created.
 */
export function defaultTestHistoryDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TURNGATE_STATE_HOME) return join(env.TURNGATE_STATE_HOME, "test-history");
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), ".local", "state");
  return join(base, "turngate", "test-history");
}

/** True when `path` is `root` or lies under it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(resolve(root), resolve(path));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function validEntry(value: unknown): value is TestHistoryEntry {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    ["passed", "failed", "skipped", "errored"].includes(v.status as string) &&
    (v.file === null || typeof v.file === "string") &&
    (v.suite === null || typeof v.suite === "string")
  );
}

/**
 * The test ids and statuses of each check's last verified run, per workspace:
 * `<dir>/<sha256(root)>/<sha256(check id)>.json` holding `{schema, root, check_id,
 * updated_at, tests: {id: {status, file, suite}}}`, written atomically (write, fsync,
 * rename; the last of two concurrent writers wins, a reader never sees half a file).
 */
export class TestHistoryStore {
  readonly dir: string;
  readonly root: string;
  constructor(dir: string, root: string) {
    this.dir = resolve(dir);
    this.root = resolve(root);
  }

  /** The file of one check's history. */
  pathOf(checkId: string): string {
    return join(this.dir, sha256(this.root), `${sha256(checkId)}.json`);
  }

  /**
   * The stored history of `checkId`, or null when there is none. A file that is not a
   * history of this root and check (hand-edited, truncated) counts as none, so it can
   * never hide a vanished test by listing fewer ids — it can only be rebuilt by the next
   * verified run.
   */
  async read(checkId: string): Promise<TestHistory | null> {
    let doc: unknown;
    try {
      doc = JSON.parse(await readFile(this.pathOf(checkId), "utf8"));
    } catch {
      return null;
    }
    if (typeof doc !== "object" || doc === null) return null;
    const d = doc as Record<string, unknown>;
    if (d.schema !== TEST_HISTORY_SCHEMA || d.root !== this.root || d.check_id !== checkId)
      return null;
    if (typeof d.tests !== "object" || d.tests === null || Array.isArray(d.tests)) return null;
    const out: TestHistory = {};
    for (const [id, entry] of Object.entries(d.tests as Record<string, unknown>)) {
      if (!validEntry(entry)) return null;
      out[id] = { status: entry.status, file: entry.file, suite: entry.suite };
    }
    return out;
  }

  /** Store `tests` as the last verified run of `checkId`. Errors: rejects with the `fs` error. */
  async write(checkId: string, tests: TestHistory, at: Date = new Date()): Promise<void> {
    await writeJsonAtomic(this.pathOf(checkId), {
      schema: TEST_HISTORY_SCHEMA,
      root: this.root,
      check_id: checkId,
      updated_at: at.toISOString(),
      tests,
    });
  }
}
