/**
 * Placeholders for the gate files a confined turn protects but that do not exist when it
 * starts (docs/design.md §3b "Confined agent", docs/guarantees.md "Confined agents").
 *
 * bubblewrap can only bind over a path that exists, and a mount point it creates inside the
 * writable workspace bind lands in the real workspace anyway. So, for each protected path of
 * {@link confineGatePaths} that is absent after the baseline was taken, turngate creates an
 * empty placeholder itself — an empty file, or an empty folder — (and the missing folders
 * above it), which the sandbox then binds read-only like any existing gate file: inside, the
 * agent sees an empty read-only file or folder it can neither write, nor replace, nor remove
 * (a mount point), so it cannot create `.claude/settings.local.json` with
 * `disableAllHooks`, a `turngate.config.json` with weaker checks, or `.codex/hooks.json`.
 *
 * After the agent's sandbox has ended, and before the workspace is observed, each placeholder
 * that is still turngate's (the same device and inode, still empty) is removed, innermost
 * first, so none of them is ever in a snapshot, a digest or a proof. Reliably: the
 * placeholders are written to a journal in the turn's state folder (which the confined agent
 * cannot write) before any is created, and the next turngate command with that state folder
 * removes what a turn that never ended (turngate killed) left ({@link removeLeftoverPlaceholders}).
 * A placeholder someone else wrote into or replaced while the turn ran (the host installing
 * hooks in the meantime) is theirs and is kept.
 */
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { AGENT_WRITABLE_IN_WORKSPACE, CONFINE_READ_ONLY, GIT_ALWAYS_READ_ONLY } from "./confine.js";

/** File name of the placeholder journal in the turn's state folder. */
export const PLACEHOLDER_JOURNAL = "confine-placeholders.json";

/** Schema id of that journal. */
export const PLACEHOLDER_JOURNAL_SCHEMA = "turngate.confine_placeholders.v1";

/** A path a confined turn keeps read-only, and what it is when it exists. */
export interface GatePath {
  /** Absolute path inside the workspace. */
  path: string;
  kind: "file" | "folder";
}

/**
 * The kind of each protected workspace path of {@link CONFINE_READ_ONLY} and
 * {@link GIT_ALWAYS_READ_ONLY}: folders (`.git`, `.turngate`, `.codex`, `.agents/plugins`,
 * `.claude/agents`, `.claude/skills`, `.claude/commands`,
 * `.git/hooks`, `.git/info`), else files.
 */
const FOLDERS: ReadonlySet<string> = new Set([
  ".git",
  ".turngate",
  ".codex",
  ".agents/plugins",
  ".claude/agents",
  ".claude/skills",
  ".claude/commands",
  ".git/hooks",
  ".git/info",
]);

/**
 * The workspace paths a confined agent must not write, existing or not
 * (docs/design.md §3b): {@link CONFINE_READ_ONLY} — `.git` unless `agentWritable` lists it —
 * and, with a writable `.git` folder, {@link GIT_ALWAYS_READ_ONLY}. Input: the workspace's
 * real path and the `agent_writable` entries. Output: absolute paths with their kind, in
 * the order of those lists. Pure apart from one `lstat` of `.git`.
 */
export function confineGatePaths(
  workspace: string,
  agentWritable: readonly string[] = [],
): GatePath[] {
  const gitWritable = agentWritable.includes(AGENT_WRITABLE_IN_WORKSPACE);
  const out: GatePath[] = [];
  for (const rel of CONFINE_READ_ONLY) {
    if (rel === ".git" && gitWritable) continue;
    out.push({ path: join(workspace, rel), kind: FOLDERS.has(rel) ? "folder" : "file" });
  }
  if (gitWritable) {
    let gitFolder = false;
    try {
      gitFolder = lstatSync(join(workspace, ".git")).isDirectory();
    } catch {
      gitFolder = false;
    }
    // An absent `.git` is the agent's to create (it may commit); a pointer file has no hooks.
    if (gitFolder) {
      for (const rel of GIT_ALWAYS_READ_ONLY) {
        out.push({ path: join(workspace, rel), kind: FOLDERS.has(rel) ? "folder" : "file" });
      }
    }
  }
  return out;
}

/** One placeholder turngate created (in the journal). */
export interface Placeholder {
  /** Absolute path. */
  path: string;
  kind: "file" | "folder";
  /** `gate`: the protected path itself (bound read-only); `parent`: a folder made to hold one. */
  role: "gate" | "parent";
  /** Device and inode once created (absent in a journal written just before creation). */
  dev?: number;
  ino?: number;
}

/** What a turn's placeholders became when they were removed. */
export interface PlaceholderRemoval {
  /** Removed: never seen by an observation. */
  removed: string[];
  /** Kept: someone else wrote into or replaced it while the turn ran (theirs now). */
  kept: string[];
}

/** The placeholders of one confined turn ({@link makeGatePlaceholders}). */
export interface GatePlaceholders {
  /** In creation order (parents before what they hold). */
  created: readonly Placeholder[];
  /**
   * Remove them, innermost first, and the journal (call once the sandbox has ended and
   * before the workspace is observed). Never throws.
   */
  remove(): PlaceholderRemoval;
}

interface JournalFile {
  schema: typeof PLACEHOLDER_JOURNAL_SCHEMA;
  workspace: string;
  created_at: string;
  placeholders: Placeholder[];
}

/**
 * Create the placeholders of the `gates` that do not exist (see the module docs): the
 * journal `<journalDir>/confine-placeholders.json` is written first (the paths), then each
 * missing folder above a gate path (`parent`) and the gate path itself (`gate`: an empty
 * file, mode 0644, or an empty folder) is created exclusively, then the journal is written
 * again with each one's device and inode. A gate path whose parent exists as something other
 * than a folder gets none (the agent cannot create it either). Input: the workspace's real
 * path, the journal's folder (created when missing; the turn's state folder), the gate
 * paths. Output: the handle that removes them.
 * Errors: the `fs` error of a write (after removing what was already created): the caller
 * fails the confined turn before the agent runs.
 */
export function makeGatePlaceholders(
  workspace: string,
  journalDir: string,
  gates: readonly GatePath[],
): GatePlaceholders {
  const planned: Placeholder[] = [];
  for (const gate of gates) {
    if (exists(gate.path)) continue;
    const missing: string[] = [];
    let folder = dirname(gate.path);
    let blocked = false;
    while (folder !== workspace && isInside(workspace, folder)) {
      const state = kindAt(folder);
      if (state === "folder") break;
      if (state === "other") {
        blocked = true;
        break;
      }
      missing.unshift(folder);
      folder = dirname(folder);
    }
    if (blocked) continue;
    for (const parent of missing) {
      if (!planned.some((p) => p.path === parent)) {
        planned.push({ path: parent, kind: "folder", role: "parent" });
      }
    }
    planned.push({ path: gate.path, kind: gate.kind, role: "gate" });
  }
  const journal = join(journalDir, PLACEHOLDER_JOURNAL);
  const created: Placeholder[] = [];
  if (planned.length === 0) return { created, remove: () => ({ removed: [], kept: [] }) };
  try {
    mkdirSync(journalDir, { recursive: true });
    writeJournal(journal, workspace, planned);
    for (const placeholder of planned) {
      try {
        if (placeholder.kind === "folder") mkdirSync(placeholder.path);
        else closeSync(openSync(placeholder.path, "wx", 0o644));
      } catch (error) {
        // Made by someone else in the meantime: it exists, so it is bound like any other.
        if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
        throw error;
      }
      const stat = lstatSync(placeholder.path);
      created.push({ ...placeholder, dev: stat.dev, ino: stat.ino });
    }
    writeJournal(journal, workspace, created);
  } catch (error) {
    removePlaceholders(created, true);
    try {
      unlinkSync(journal);
    } catch {
      // nothing was written
    }
    throw error;
  }
  let done = false;
  return {
    created,
    remove() {
      if (done) return { removed: [], kept: [] };
      done = true;
      const removal = removePlaceholders(created, true);
      try {
        unlinkSync(journal);
      } catch {
        // already gone
      }
      return removal;
    },
  };
}

/**
 * Remove what a confined turn that never ended left (turngate killed while the agent ran):
 * the placeholders its journal in `journalDir` names that are still turngate's — the
 * recorded device and inode (when recorded), still empty — innermost first; then the
 * journal. Call before a turn reads the configuration or observes the workspace. A journal
 * turngate cannot read is left in place and reported in `kept`.
 * Output: what was removed and what was kept. Never throws.
 */
export function removeLeftoverPlaceholders(journalDir: string): PlaceholderRemoval {
  const journal = join(journalDir, PLACEHOLDER_JOURNAL);
  if (!existsSync(journal)) return { removed: [], kept: [] };
  let file: JournalFile;
  try {
    file = JSON.parse(readFileSync(journal, "utf8")) as JournalFile;
    if (file.schema !== PLACEHOLDER_JOURNAL_SCHEMA || !Array.isArray(file.placeholders)) {
      return { removed: [], kept: [journal] };
    }
  } catch {
    return { removed: [], kept: [journal] };
  }
  const placeholders = file.placeholders.filter(
    (p) =>
      typeof p?.path === "string" &&
      (p.kind === "file" || p.kind === "folder") &&
      isInside(file.workspace, p.path),
  );
  const removal = removePlaceholders(placeholders, false);
  try {
    unlinkSync(journal);
  } catch {
    // already gone
  }
  return removal;
}

/**
 * Remove `placeholders` in reverse order: a file only when it is still a regular file of
 * size 0 with the recorded device and inode (`needInode`: they must be recorded), a folder
 * only when it is still a folder with them and empty (`rmdir`). A parent folder that holds
 * other files stays without being reported (they are ordinary changes).
 */
function removePlaceholders(
  placeholders: readonly Placeholder[],
  needInode: boolean,
): PlaceholderRemoval {
  const removed: string[] = [];
  const kept: string[] = [];
  for (const placeholder of [...placeholders].reverse()) {
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(placeholder.path);
    } catch {
      continue; // already gone
    }
    const same =
      placeholder.ino !== undefined && placeholder.dev !== undefined
        ? stat.ino === placeholder.ino && stat.dev === placeholder.dev
        : !needInode;
    try {
      if (placeholder.kind === "file" && same && stat.isFile() && stat.size === 0) {
        unlinkSync(placeholder.path);
        removed.push(placeholder.path);
      } else if (placeholder.kind === "folder" && same && stat.isDirectory()) {
        rmdirSync(placeholder.path);
        removed.push(placeholder.path);
      } else {
        kept.push(placeholder.path);
      }
    } catch (error) {
      // A folder made to hold a gate file that now holds other files too (the agent's, beside
      // the gate files) stays: those files are changes like any other.
      const notEmpty = (error as NodeJS.ErrnoException).code === "ENOTEMPTY";
      if (!(notEmpty && placeholder.role === "parent")) kept.push(placeholder.path);
    }
  }
  return { removed, kept };
}

function writeJournal(path: string, workspace: string, placeholders: readonly Placeholder[]): void {
  const file: JournalFile = {
    schema: PLACEHOLDER_JOURNAL_SCHEMA,
    workspace,
    created_at: new Date().toISOString(),
    placeholders: [...placeholders],
  };
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`);
  renameSync(temporary, path);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

function kindAt(path: string): "folder" | "absent" | "other" {
  try {
    return lstatSync(path).isDirectory() ? "folder" : "other";
  } catch {
    return "absent";
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}
