import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** One row of the process table. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgid: number;
  /** Session id; -1 when the source does not give it (`ps`). */
  sid: number;
  /** State letter (`R`, `S`, `D`, `Z`, `T`, …). */
  state: string;
}

/** Where process rows come from: Linux `/proc`, or `ps` (macOS and other Unix systems). */
export type ProcessSource = "proc" | "ps";

/** The source used on this platform: `proc` on Linux, `ps` elsewhere. */
export function defaultProcessSource(): ProcessSource {
  return process.platform === "linux" ? "proc" : "ps";
}

/**
 * Parse the text of `/proc/PID/stat`. The command name in parentheses may hold spaces and
 * parentheses, so fields are read after the last `)`. Output: the row, or undefined for a
 * malformed text.
 */
export function parseProcStat(text: string): ProcessInfo | undefined {
  const open = text.indexOf(" (");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return undefined;
  const fields = text.slice(close + 2).split(" ");
  const row: ProcessInfo = {
    pid: Number(text.slice(0, open)),
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    sid: Number(fields[3]),
  };
  return Number.isInteger(row.pid) && Number.isInteger(row.pgid) ? row : undefined;
}

/** `/proc/PID/stat` of one process, or undefined when it is gone or unreadable (Linux). */
export function readProcStat(pid: number): ProcessInfo | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/**
 * The command line of `pid` from `/proc/PID/cmdline` (arguments joined by single spaces),
 * or `[comm]` from its stat when the cmdline is empty (kernel threads, zombies); `""` when
 * the process is gone. On other platforms `ps -o args=`. Never throws.
 */
export function readCommandLine(
  pid: number,
  source: ProcessSource = defaultProcessSource(),
): string {
  if (source === "ps") {
    const out = spawnSync("ps", ["-o", "args=", "-p", String(pid)], { encoding: "utf8" });
    return out.status === 0 ? out.stdout.trim() : "";
  }
  try {
    const raw = readFileSync(`/proc/${pid}/cmdline`);
    const text = raw.toString("utf8").replace(/\0+$/, "").split("\0").join(" ");
    if (text !== "") return text;
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return `[${stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"))}]`;
  } catch {
    return "";
  }
}

/** The raw environment block of `pid` (`/proc/PID/environ`), or undefined when unreadable. */
export function readProcEnviron(pid: number): Buffer | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`);
  } catch {
    return undefined;
  }
}

/**
 * Every process visible to this one. `proc`: one `/proc/PID/stat` read per numeric entry
 * (processes that vanish meanwhile are skipped). `ps`: `ps -A -o pid=,ppid=,pgid=,state=`
 * (`sid` is -1). Errors: throws when `ps` cannot run or `/proc` cannot be listed.
 */
export function listProcesses(source: ProcessSource = defaultProcessSource()): ProcessInfo[] {
  if (source === "ps") {
    const out = spawnSync("ps", ["-A", "-o", "pid=,ppid=,pgid=,state="], { encoding: "utf8" });
    if (out.status !== 0) throw new Error(`ps failed: ${out.stderr || out.error?.message}`);
    const rows: ProcessInfo[] = [];
    for (const line of out.stdout.split("\n")) {
      const [pid, ppid, pgid, state] = line.trim().split(/\s+/);
      if (pid === undefined || !/^\d+$/.test(pid)) continue;
      rows.push({
        pid: Number(pid),
        ppid: Number(ppid),
        pgid: Number(pgid),
        sid: -1,
        state: state ?? "",
      });
    }
    return rows;
  }
  const rows: ProcessInfo[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const row = readProcStat(Number(entry));
    if (row) rows.push(row);
  }
  return rows;
}

/**
 * True while `pid` exists and is not a zombie (an exited, unreaped process runs nothing).
 * `proc`: its stat state is not `Z`/`X`; `ps`: `kill(pid, 0)` succeeds and `ps` does not
 * report state `Z`. Never throws.
 */
export function processRunning(
  pid: number,
  source: ProcessSource = defaultProcessSource(),
): boolean {
  if (source === "proc") {
    const row = readProcStat(pid);
    return row !== undefined && row.state !== "Z" && row.state !== "X";
  }
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  const out = spawnSync("ps", ["-o", "state=", "-p", String(pid)], { encoding: "utf8" });
  return out.status === 0 && !out.stdout.trim().startsWith("Z");
}

/**
 * Pids of the running (non-zombie) members of process group `pgid`, from `/proc` (Linux)
 * or `ps`. Used where `kill(-pgid, 0)` is not enough: it also succeeds while only zombies
 * are left (an init that is slow to reap). Errors: throws when the table cannot be read.
 */
export function runningGroupMembers(
  pgid: number,
  source: ProcessSource = defaultProcessSource(),
): number[] {
  return listProcesses(source)
    .filter((row) => row.pgid === pgid && row.state !== "Z" && row.state !== "X")
    .map((row) => row.pid);
}
