import { execFileSync } from "node:child_process";

const NOBODY = 65534;

/**
 * Why a permission-denied read cannot be produced here, or undefined when it can.
 * As root, `chmod 000` does not stop reads, so the tests drop the effective uid to
 * `nobody` (seteuid, reversible because the saved uid stays 0); that needs CAP_SETUID.
 */
export function permissionTrickUnavailable(): string | undefined {
  if (typeof process.getuid !== "function" || typeof process.seteuid !== "function") {
    return "no POSIX uid functions on this platform";
  }
  if (process.getuid() !== 0) return undefined; // chmod 000 already denies reads
  try {
    process.seteuid(NOBODY);
    process.seteuid(0);
    return undefined;
  } catch (error) {
    return `running as root without CAP_SETUID (${String(error)})`;
  }
}

/**
 * Runs `fn` so that permission bits are enforced: as root, hands `tree` to `nobody`
 * (chown -R), points HOME at `home` (git must not read root's config) and switches the
 * effective uid/gid to `nobody` for the duration; as a normal user just runs `fn`.
 */
export async function withPermissionsEnforced<T>(
  tree: string,
  home: string,
  fn: () => Promise<T>,
): Promise<T> {
  if (process.getuid?.() !== 0) return fn();
  execFileSync("chown", ["-R", `${NOBODY}:${NOBODY}`, tree]);
  const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
  process.env.HOME = home;
  process.env.XDG_CONFIG_HOME = home;
  process.setegid?.(NOBODY);
  process.seteuid?.(NOBODY);
  try {
    return await fn();
  } finally {
    process.seteuid?.(0);
    process.setegid?.(0);
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
