/**
 * The confined agent's seccomp filter (docs/design.md §3b, `isolation/seccomp-unix.ts`): the exact
 * bytes bubblewrap reads, and what the program decides for each architecture, run on a small
 * classic-BPF interpreter (the real kernel's answer on this machine is in
 * packages/cli/test/confine/unix-sockets.test.ts).
 */
import { describe, expect, test } from "vitest";
import {
  AUDIT_ARCH_AARCH64,
  AUDIT_ARCH_X86_64,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_EPERM,
  SECCOMP_RET_KILL_PROCESS,
  SOCK_FILTER_BYTES,
  unixSocketFilter,
  unixSocketFilterSupports,
} from "../../src/isolation/index.js";

/**
 * Run the classic-BPF `program` on one `seccomp_data` (nr, arch, args[0] low word; the rest
 * zero) and return what it returns. Knows only the instructions the filter uses; throws on
 * any other, on a jump out of the program, and on running off its end.
 */
function run(program: Buffer, nr: number, arch: number, arg0: number): number {
  const data = Buffer.alloc(64);
  data.writeUInt32LE(nr >>> 0, 0);
  data.writeUInt32LE(arch >>> 0, 4);
  data.writeUInt32LE(arg0 >>> 0, 16);
  const count = program.length / SOCK_FILTER_BYTES;
  let a = 0;
  let pc = 0;
  while (pc < count) {
    const at = pc * SOCK_FILTER_BYTES;
    const code = program.readUInt16LE(at);
    const jt = program.readUInt8(at + 2);
    const jf = program.readUInt8(at + 3);
    const k = program.readUInt32LE(at + 4);
    pc += 1;
    if (code === 0x20) a = data.readUInt32LE(k);
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x35) pc += a >= k ? jt : jf;
    else if (code === 0x05) pc += k;
    else if (code === 0x06) return k;
    else throw new Error(`unknown instruction ${code.toString(16)} at ${pc - 1}`);
  }
  throw new Error("ran off the end of the program");
}

const AUDIT_ARCH_I386 = 0x40000003;
const AUDIT_ARCH_ARM = 0x40000028;

describe("unixSocketFilter", () => {
  test("the exact program: 15 sock_filter instructions, little-endian", () => {
    const program = unixSocketFilter();
    expect(program.length).toBe(15 * 8);
    const lines = [];
    for (let i = 0; i < program.length; i += 8) {
      lines.push(program.subarray(i, i + 8).toString("hex"));
    }
    expect(lines).toEqual([
      "2000000004000000", //  0 ld [4]                       arch
      "150000043e0000c0", //  1 jeq 0xc000003e, +0, +4        x86_64, else 6
      "2000000000000000", //  2 ld [0]                       nr
      "35000a0000000040", //  3 jge 0x40000000, +10, +0       x32 ABI: kill
      "1500050029000000", //  4 jeq 41, +5, +0                socket: check the domain
      "0500000003000000", //  5 ja +3                         io_uring_setup check
      "15000007b70000c0", //  6 jeq 0xc00000b7, +0, +7        aarch64, else kill
      "2000000000000000", //  7 ld [0]                       nr
      "15000100c6000000", //  8 jeq 198, +1, +0               socket: check the domain
      "15000302a9010000", //  9 jeq 425, +3, +2               io_uring_setup: EPERM, else allow
      "2000000010000000", // 10 ld [16]                      args[0], low word
      "1500010001000000", // 11 jeq 1, +1, +0                 AF_UNIX: EPERM, else allow
      "060000000000ff7f", // 12 ret ALLOW
      "0600000001000500", // 13 ret ERRNO | EPERM
      "0600000000000080", // 14 ret KILL_PROCESS
    ]);
  });

  test("x86_64 and aarch64: socket(AF_UNIX) → EPERM, other domains and socketpair allowed; io_uring_setup → EPERM; x32 and unknown architectures killed", () => {
    const program = unixSocketFilter();
    const cases: [string, number, number, number, number][] = [
      ["x86_64 socket(AF_UNIX)", 41, AUDIT_ARCH_X86_64, 1, SECCOMP_RET_EPERM],
      ["x86_64 socket(AF_INET)", 41, AUDIT_ARCH_X86_64, 2, SECCOMP_RET_ALLOW],
      ["x86_64 socket(AF_INET6)", 41, AUDIT_ARCH_X86_64, 10, SECCOMP_RET_ALLOW],
      ["x86_64 socket(AF_NETLINK)", 41, AUDIT_ARCH_X86_64, 16, SECCOMP_RET_ALLOW],
      ["x86_64 socketpair(AF_UNIX)", 53, AUDIT_ARCH_X86_64, 1, SECCOMP_RET_ALLOW],
      ["x86_64 connect", 42, AUDIT_ARCH_X86_64, 1, SECCOMP_RET_ALLOW],
      ["x86_64 write", 1, AUDIT_ARCH_X86_64, 1, SECCOMP_RET_ALLOW],
      ["x86_64 io_uring_setup", 425, AUDIT_ARCH_X86_64, 1, SECCOMP_RET_EPERM],
      [
        "x86_64 x32 socket(AF_UNIX)",
        0x40000000 + 41,
        AUDIT_ARCH_X86_64,
        1,
        SECCOMP_RET_KILL_PROCESS,
      ],
      ["x86_64 x32 read", 0x40000000, AUDIT_ARCH_X86_64, 0, SECCOMP_RET_KILL_PROCESS],
      ["aarch64 socket(AF_UNIX)", 198, AUDIT_ARCH_AARCH64, 1, SECCOMP_RET_EPERM],
      ["aarch64 socket(AF_INET)", 198, AUDIT_ARCH_AARCH64, 2, SECCOMP_RET_ALLOW],
      ["aarch64 socketpair(AF_UNIX)", 199, AUDIT_ARCH_AARCH64, 1, SECCOMP_RET_ALLOW],
      ["aarch64 nr 41 (not socket there)", 41, AUDIT_ARCH_AARCH64, 1, SECCOMP_RET_ALLOW],
      ["aarch64 io_uring_setup", 425, AUDIT_ARCH_AARCH64, 1, SECCOMP_RET_EPERM],
      ["x86_64 nr 198 (not socket there)", 198, AUDIT_ARCH_X86_64, 1, SECCOMP_RET_ALLOW],
      ["i386 socketcall", 102, AUDIT_ARCH_I386, 1, SECCOMP_RET_KILL_PROCESS],
      ["i386 socket", 359, AUDIT_ARCH_I386, 1, SECCOMP_RET_KILL_PROCESS],
      ["arm32 socket", 281, AUDIT_ARCH_ARM, 1, SECCOMP_RET_KILL_PROCESS],
      ["unknown arch", 41, 0, 1, SECCOMP_RET_KILL_PROCESS],
    ];
    expect(cases.map(([name, nr, arch, arg0]) => [name, run(program, nr, arch, arg0)])).toEqual(
      cases.map(([name, , , , want]) => [name, want]),
    );
    expect([SECCOMP_RET_ALLOW, SECCOMP_RET_EPERM, SECCOMP_RET_KILL_PROCESS]).toEqual([
      0x7fff0000, 0x00050001, 0x80000000,
    ]);
  });

  test("only x64 and arm64 are supported; anywhere else a confined turn must refuse to start", () => {
    expect(
      ["x64", "arm64", "ia32", "arm", "riscv64", "ppc64", "s390x"].map((arch) => [
        arch,
        unixSocketFilterSupports(arch),
      ]),
    ).toEqual([
      ["x64", true],
      ["arm64", true],
      ["ia32", false],
      ["arm", false],
      ["riscv64", false],
      ["ppc64", false],
      ["s390x", false],
    ]);
  });
});
