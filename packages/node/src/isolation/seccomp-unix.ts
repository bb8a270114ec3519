/**
 * The confined agent's seccomp filter (docs/design.md §3b, "Confined agent"; docs/guarantees.md
 * "Confined agents"): a classic-BPF program that bubblewrap installs (`--seccomp FD`) on the
 * agent's whole process tree, so that no process of the agent can open a new unix socket.
 * Without it, a socket file on a read-only mount still connects, and a server of the user's
 * outside the sandbox (a tmux server's `run-shell`, the D-Bus session bus's `systemd-run
 * --user`, the docker socket, an abstract unix socket) runs what the agent asks, unconfined.
 * Claude Code's sandbox refuses unix sockets the same way.
 *
 * The program, in the order it decides:
 *
 * 1. `seccomp_data.arch` (offset 4) is `AUDIT_ARCH_X86_64` or `AUDIT_ARCH_AARCH64`; any other
 *    (the i386 or arm32 compatibility entries, whose socket calls go through `socketcall`)
 *    kills the process: an unknown ABI is never allowed through.
 * 2. On x86_64, a syscall number with the x32 bit (`nr >= 0x40000000`) kills the process.
 * 3. `socket(domain, …)` (x86_64: 41; aarch64: 198) with `domain` (the low 32 bits of
 *    argument 0, offset 16: the kernel reads an `int`) equal to `AF_UNIX` (1) fails with
 *    `EPERM`; every other domain (TCP and UDP for the agent's model) is allowed.
 * 4. `io_uring_setup` (425 on both) fails with `EPERM`: io_uring's `IORING_OP_SOCKET` makes a
 *    socket without the `socket` syscall. Programs that use io_uring fall back to plain calls.
 * 5. Everything else is allowed, `socketpair` included (libuv, Node and Python give child
 *    processes their stdio through it; a pair is connected to itself, never to a server).
 *
 * The checks are not filtered (they create unix sockets in tests; their sandbox shows no
 * user socket, `sandbox.ts`).
 */

/** One classic-BPF instruction (`struct sock_filter`) whose jumps name labels. */
type Step =
  | { op: "ld"; offset: number }
  | { op: "jeq" | "jge"; k: number; jt: string | null; jf: string | null }
  | { op: "ja"; to: string }
  | { op: "ret"; k: number }
  | { op: "label"; name: string };

/** `BPF_LD | BPF_W | BPF_ABS`: load the 32-bit word at `k` of `seccomp_data`. */
const LD_W_ABS = 0x20;
/** `BPF_JMP | BPF_JEQ | BPF_K`, `BPF_JMP | BPF_JGE | BPF_K`, `BPF_JMP | BPF_JA`. */
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JA = 0x05;
/** `BPF_RET | BPF_K`. */
const RET_K = 0x06;

/** `seccomp_data` offsets: `nr`, `arch`, the low word of `args[0]` (little-endian). */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

/** `AUDIT_ARCH_X86_64`, `AUDIT_ARCH_AARCH64` (linux/audit.h). */
export const AUDIT_ARCH_X86_64 = 0xc000003e;
export const AUDIT_ARCH_AARCH64 = 0xc00000b7;
/** `__X32_SYSCALL_BIT`: set in `nr` by a call through the x32 ABI. */
const X32_SYSCALL_BIT = 0x40000000;
/** `AF_UNIX` (= `AF_LOCAL`). */
const AF_UNIX = 1;
/** `SECCOMP_RET_ALLOW`, `SECCOMP_RET_ERRNO | EPERM`, `SECCOMP_RET_KILL_PROCESS`. */
export const SECCOMP_RET_ALLOW = 0x7fff0000;
export const SECCOMP_RET_EPERM = 0x00050000 | 1;
export const SECCOMP_RET_KILL_PROCESS = 0x80000000;

/**
 * The `socket` syscall number per Node `process.arch` the filter knows; `io_uring_setup` is
 * 425 on both.
 */
export const SOCKET_SYSCALL: Readonly<Record<string, number>> = Object.freeze({
  x64: 41,
  arm64: 198,
});
const IO_URING_SETUP = 425;

/** The program as labelled steps (see the module docs for the rules, in this order). */
const PROGRAM: readonly Step[] = [
  { op: "ld", offset: ARCH },
  { op: "jeq", k: AUDIT_ARCH_X86_64, jt: null, jf: "aarch64" },
  { op: "ld", offset: NR },
  { op: "jge", k: X32_SYSCALL_BIT, jt: "kill", jf: null },
  { op: "jeq", k: SOCKET_SYSCALL.x64 as number, jt: "domain", jf: null },
  { op: "ja", to: "io_uring" },
  { op: "label", name: "aarch64" },
  { op: "jeq", k: AUDIT_ARCH_AARCH64, jt: null, jf: "kill" },
  { op: "ld", offset: NR },
  { op: "jeq", k: SOCKET_SYSCALL.arm64 as number, jt: "domain", jf: null },
  { op: "label", name: "io_uring" },
  { op: "jeq", k: IO_URING_SETUP, jt: "eperm", jf: "allow" },
  { op: "label", name: "domain" },
  { op: "ld", offset: ARG0_LOW },
  { op: "jeq", k: AF_UNIX, jt: "eperm", jf: "allow" },
  { op: "label", name: "allow" },
  { op: "ret", k: SECCOMP_RET_ALLOW },
  { op: "label", name: "eperm" },
  { op: "ret", k: SECCOMP_RET_EPERM },
  { op: "label", name: "kill" },
  { op: "ret", k: SECCOMP_RET_KILL_PROCESS },
];

/** The size of one `struct sock_filter`: u16 code, u8 jt, u8 jf, u32 k. */
export const SOCK_FILTER_BYTES = 8;

/**
 * The compiled filter (docs/design.md §3b): an array of `struct sock_filter` (8 bytes each:
 * u16 code, u8 jt, u8 jf, u32 k, little-endian, as the kernels of both supported
 * architectures read it), what bubblewrap's `--seccomp FD` reads from its file descriptor.
 * Output: a new Buffer of 15 instructions (120 bytes). Pure; never throws.
 */
export function unixSocketFilter(): Buffer {
  const at = new Map<string, number>();
  let count = 0;
  for (const step of PROGRAM) {
    if (step.op === "label") at.set(step.name, count);
    else count += 1;
  }
  const out = Buffer.alloc(count * SOCK_FILTER_BYTES);
  // A jump's offset counts the instructions after it (the next one is 0).
  const skip = (label: string | null, pc: number) =>
    label === null ? 0 : (at.get(label) as number) - pc - 1;
  let pc = 0;
  for (const step of PROGRAM) {
    if (step.op === "label") continue;
    const base = pc * SOCK_FILTER_BYTES;
    let code: number;
    let jt = 0;
    let jf = 0;
    let k: number;
    if (step.op === "ld") {
      code = LD_W_ABS;
      k = step.offset;
    } else if (step.op === "ja") {
      code = JA;
      k = skip(step.to, pc);
    } else if (step.op === "ret") {
      code = RET_K;
      k = step.k;
    } else {
      code = step.op === "jeq" ? JEQ_K : JGE_K;
      jt = skip(step.jt, pc);
      jf = skip(step.jf, pc);
      k = step.k;
    }
    out.writeUInt16LE(code, base);
    out.writeUInt8(jt, base + 2);
    out.writeUInt8(jf, base + 3);
    out.writeUInt32LE(k >>> 0, base + 4);
    pc += 1;
  }
  return out;
}

/**
 * Whether the filter knows the architecture `arch` (Node's `process.arch`): `x64` and
 * `arm64`. Elsewhere every process of the sandbox would be killed at its first syscall, so a
 * confined turn must refuse to start (`confine_unavailable`). Pure.
 */
export function unixSocketFilterSupports(arch: string = process.arch): boolean {
  return Object.hasOwn(SOCKET_SYSCALL, arch);
}
