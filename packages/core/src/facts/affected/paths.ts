/**
 * Path helpers of the affected-target facts (harn-verification.md §2.13), plus the
 * workspace-relative form our parsers give absolute tool paths (our change: `cargo
 * metadata` prints absolute `manifest_path`s, changed paths are relative; §7 item 6).
 */
import { display, isNil } from "../harn-values.js";

/**
 * Harn `clean_path` (§2.13): `to_string(v ?? "")`, trimmed, every `\` → `/`, leading `./`
 * stripped repeatedly. Input any value; output a string (possibly `""`).
 */
export function cleanPath(value: unknown): string {
  let text = (isNil(value) ? "" : display(value)).trim().replaceAll("\\", "/");
  while (text.startsWith("./")) text = text.slice(2);
  return text;
}

/**
 * Harn `path_under(root, path)` (§2.13): both cleaned; an empty path → false; root `""`
 * or `"."` → true; else `path == root` or `path` starts with `root + "/"`.
 */
export function pathUnder(root: unknown, path: unknown): boolean {
  const r = cleanPath(root);
  const p = cleanPath(path);
  if (p === "") return false;
  if (r === "" || r === ".") return true;
  const base = r.endsWith("/") ? r.slice(0, -1) : r;
  return p === base || p.startsWith(`${base}/`);
}

/** Parent folder: `"a/b/c.toml"` → `"a/b"`, `"c.toml"` → `""`, `""` → `""` (§2.13). */
export function dirnameOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "" : path.slice(0, i);
}

/**
 * The workspace-relative form of a tool-printed path (our change): cleaned; when `root`
 * is given and the path is absolute and lies under it, the root prefix is stripped
 * (`/w/crates/a/Cargo.toml` with root `/w` → `crates/a/Cargo.toml`); the root itself → `""`.
 * Any other path is returned cleaned. Pure string work: no symlink resolution.
 */
export function relativeToRoot(path: unknown, root: string | undefined): string {
  const p = cleanPath(path);
  if (root === undefined || root === "") return p;
  let r = cleanPath(root);
  while (r.length > 1 && r.endsWith("/")) r = r.slice(0, -1);
  if (r === "" || !isAbsoluteText(p)) return p;
  if (p === r) return "";
  if (p.startsWith(`${r}/`)) return p.slice(r.length + 1);
  return p;
}

/** `/x` or a Windows drive path `C:/x`. */
export function isAbsoluteText(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:\//.test(path);
}
