/**
 * Finding a recorded (NFC) workspace path on disk when the file system stores the name in
 * another Unicode normalization form (e.g. an NFD name `e\u0301.txt` written by macOS
 * tools or an archive): the workspace observer records every path in NFC, so a plain
 * `join(root, path)` would miss such a file and `turngate proof verify` would call it
 * deleted.
 */
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The on-disk path of the recorded workspace path `recorded` (`/`-separated, relative to
 * `root`): `join(root, recorded)` when something is there; otherwise each path component
 * is looked up in turn — kept as written when it exists, else replaced by the one entry
 * of its directory whose NFC form equals the component's NFC form. When a component has
 * no such entry, or more than one, or a directory cannot be listed, the plain
 * `join(root, recorded)` is returned (the caller then finds nothing there). Never throws.
 */
export async function resolveRecordedPath(root: string, recorded: string): Promise<string> {
  const plain = join(root, recorded);
  if (await exists(plain)) return plain;
  let dir = root;
  for (const component of recorded.split("/")) {
    const direct = join(dir, component);
    if (await exists(direct)) {
      dir = direct;
      continue;
    }
    let entries: string[];
    try {
      entries = await readdir(dir);
    } catch {
      return plain;
    }
    const wanted = component.normalize("NFC");
    const matches = entries.filter((entry) => entry.normalize("NFC") === wanted);
    if (matches.length !== 1) return plain;
    dir = join(dir, matches[0] as string);
  }
  return dir;
}
