import { lstatSync } from "node:fs";
import { absolutePath } from "../stat/stat-cache.js";

/**
 * Answers "is every parent directory of this relative path a real directory?" for one
 * snapshot, with one `lstat` per distinct directory.
 *
 * git lists tracked paths from its index, so after an agent replaces `src/` with a symlink,
 * `src/a.ts` is still listed, and `lstat("src/a.ts")` would resolve through the link (lstat
 * only refuses to follow the last component). Paths below a symlinked, missing or
 * non-directory parent are therefore treated as absent, as git itself does; the symlink is
 * listed on its own (git reports it as an untracked file).
 */
export class ParentDirCheck {
  readonly #root: string;
  readonly #known = new Map<string, boolean>();
  #lastDir = "";
  #lastOk = true;

  constructor(root: string) {
    this.#root = root;
  }

  /** True if all parent directories of `fsPath` (relative, `/`-separated) are directories. */
  parentsAreDirectories(fsPath: string): boolean {
    const slash = fsPath.lastIndexOf("/");
    if (slash < 0) return true;
    // Listings are sorted, so consecutive paths usually share their directory.
    if (slash === this.#lastDir.length && fsPath.startsWith(this.#lastDir)) return this.#lastOk;
    this.#lastDir = fsPath.slice(0, slash);
    this.#lastOk = this.#isRealDirectory(this.#lastDir);
    return this.#lastOk;
  }

  #isRealDirectory(dir: string): boolean {
    const known = this.#known.get(dir);
    if (known !== undefined) return known;
    const slash = dir.lastIndexOf("/");
    let ok = slash < 0 || this.#isRealDirectory(dir.slice(0, slash));
    if (ok) {
      try {
        ok =
          lstatSync(absolutePath(this.#root, dir), { throwIfNoEntry: false })?.isDirectory() ??
          false;
      } catch {
        ok = false;
      }
    }
    this.#known.set(dir, ok);
    return ok;
  }
}
