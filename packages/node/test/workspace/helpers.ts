import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Known SHA-256 digests (computed with `sha256sum`, not with the code under test). */
export const SHA = {
  "hello\n": "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03",
  "hello world\n": "a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447",
  "HELLO\n": "3b09aeb6f5f5336beb205d7f720371bc927cd46c21922e334d47ba264acb5ba4",
  "line1\r\nline2\r\n": "4ad3ef64dfb83f7a8f789bce6f30cc1f8d18491b14db4c875309b150d2a7d213",
  "target.txt": "199b3badd968634ea14e351d1134ada738894a90a2efa66983101ece99a33572",
  "../outside.txt": "c3df92a4954c2880e429fa586dc098d93cea8d503221cec3ca72c809f29741fc",
  "../elsewhere": "b8543627c760485944d30231e661918e1e706e365a5c40124f37de2a17ea8048",
  aaaa: "61be55a8e2f6b4e172338bddf184d6dbee29c98853e0a0485ecee7f27b9af0b4",
  bbbb: "81cc5b17018674b401b42f35ba07bb79e211239c23bffe658da1577e3e646877",
  "x\n": "73cb3858a687a8494ca3323053016282f3dad39d42cf62ca4e79dda2aac7d9ac",
  "nested\n": "370a8c04b8a65bb4494275eec227f1b694db04c76da6b0b8ae88ed1ab19790a3",
  "kept\n": "78051faade059d70866df6a3fb83ef348721fd74a87e93ef95c493f87d0d236b",
  "tracked\n": "e544535ca87c45bbcf3495423e0781d4fba16276f78a5e07a1049447cdc1e63e",
  "process.exit(0)\n": "d546961614a68d141d3a4e14ca29064b4b620c5779e38f3cf32f2abed20ae879",
  "*\n": "cdbcae15105d6b781e620813c79c7e868740d4e9cc53ce6f5fcbbc12387adf4b",
  "*.js\n": "cf2571c2617299e67d92d3f813f403c0e0d3ddda1af0e4060e954a73bc81177e",
  "*.log\noverride.js\n": "4260b869f2b906fd6f4b32c5f5c50ff2c88d64c12101e3bc9d0b99aecc13c2ad",
  "*.log\nbuild/\n*.tmp\ncache/\n":
    "8175fd424f2f0807afb28c289d3c88e13cff66ba40770d574d813910a8fde882",
  bytes0to255: "40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880",
  /** 300,000 × "a" (larger than the 256 KiB synchronous-hash limit). */
  a300000: "12e1b9b179b29a4f7e5889b185d7ac71bff0ad1f49a7b391d0911b737a0f5381",
  /** bytes i % 251 for i in 0..1 MiB+3 (several 256 KiB read chunks plus a tail). */
  mod251x1MiBplus3: "aca6f4d81a88030dc3e4b99988449ba2943885a56a5ebda5be275f64149677fe",
} as const;

/** A fresh empty directory under the OS temp dir; remove it with {@link removeDir}. */
export function makeTempDir(prefix = "tg-ws-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Removes a directory tree, ignoring errors. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Writes `content` to `root/rel`, creating parent directories. */
export function write(root: string, rel: string, content: string | Uint8Array): void {
  const abs = join(root, rel);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, content);
}

/** Runs git in `cwd` with a fixed identity and no user or system config. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.invalid",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.invalid",
    },
  });
}

/** `git init` in `dir`, then commits every file in `files` (rel path → content). */
export function initRepo(dir: string, files: Record<string, string | Uint8Array> = {}): void {
  git(dir, "init", "-q", "-b", "main", ".");
  for (const [rel, content] of Object.entries(files)) write(dir, rel, content);
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "--allow-empty", "-m", "initial");
}

/**
 * The delta restricted to the source scope (issue 10): tests of the source-scope rules use
 * it, so the harness rows (`.git/info/exclude`, `.git/config`) and ignored rows their setup
 * produces are left to the scope tests.
 */
export function sourceScope<T extends { changes: { scope: string }[] }>(delta: T): T {
  return { ...delta, changes: delta.changes.filter((c) => c.scope === "source") };
}
