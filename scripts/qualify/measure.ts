/**
 * Measurement helpers of `pnpm qualify` (issue #18): nearest-rank percentiles (A3S's rule,
 * a3s-completion-gate.md §8: index = ceil(n·p/100) − 1 clamped to [0, n−1]), machine
 * information and process resources read from /proc on Linux.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { arch, cpus, loadavg, platform, release, totalmem } from "node:os";
import type { PerfMachine } from "../../packages/core/src/schemas/perf-qualification.js";

/** Nearest-rank percentile `p` (0–100) of `samples` (any order); throws on an empty list. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new Error("percentile of no samples");
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((sorted.length * p) / 100) - 1));
  return sorted[index] as number;
}

/** `VmRSS` / `VmHWM` (bytes) of this process from /proc/self/status; null off Linux. */
export function memoryStatus(): { rss: number | null; peak: number | null } {
  try {
    const text = readFileSync("/proc/self/status", "utf8");
    const kib = (key: string) => {
      const m = new RegExp(`^${key}:\\s+(\\d+) kB$`, "m").exec(text);
      return m === null ? null : Number(m[1]) * 1024;
    };
    return { rss: kib("VmRSS"), peak: kib("VmHWM") };
  } catch {
    return { rss: null, peak: null };
  }
}

/** Bytes this process read from storage (`read_bytes` of /proc/self/io); null when unreadable. */
export function readBytes(): number | null {
  try {
    const m = /^read_bytes:\s+(\d+)$/m.exec(readFileSync("/proc/self/io", "utf8"));
    return m === null ? null : Number(m[1]);
  } catch {
    return null;
  }
}

/** CPU ms of this process's waited-for children (cutime + cstime of /proc/self/stat); null off Linux. */
export function childrenCpuMs(): number | null {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // After "(comm) ": state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
    const ticks = Number(fields[13]) + Number(fields[14]);
    const hz = 100; // USER_HZ on Linux
    return (ticks * 1000) / hz;
  } catch {
    return null;
  }
}

function firstLine(cmd: string, args: string[], cwd: string): string | null {
  try {
    const out = execFileSync(cmd, args, {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 10_000,
    });
    return out.trim().split("\n")[0]?.trim() || null;
  } catch {
    return null;
  }
}

/** The processor model: the first `model name` of /proc/cpuinfo, else the CPU list's. */
function processor(): string {
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"));
    if (m !== null) return (m[1] as string).trim();
  } catch {}
  return cpus()[0]?.model ?? "unknown";
}

/** Machine information of a report: OS, CPUs, memory, tool versions, the checkout's commit and dirty flag. */
export function machineInfo(root: string): PerfMachine {
  const status = firstLine("git", ["status", "--porcelain", "--untracked-files=no"], root);
  const commit = firstLine("git", ["rev-parse", "HEAD"], root);
  return {
    os: platform(),
    os_release: release(),
    arch: arch(),
    logical_cpus: Math.max(1, cpus().length),
    processor: processor(),
    memory_bytes: totalmem(),
    load_average: loadavg().map((v) => Math.round(v * 100) / 100),
    node: process.version,
    python: firstLine("python3", ["--version"], root),
    go: firstLine("go", ["version"], root),
    rust: firstLine("rustc", ["--version"], root),
    git_commit: commit,
    git_dirty: commit === null ? null : status !== null,
  };
}
