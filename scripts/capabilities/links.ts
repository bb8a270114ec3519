/**
 * Local links in Markdown and whether they resolve inside the repository
 * (reference/a3s-completion-gate.md §7 check 2, applied to the whole ledger file).
 */
import fs from "node:fs";
import path from "node:path";

/** A link target found in Markdown, with its 1-based line number. */
export interface LocalLink {
  line: number;
  target: string;
}

const CODE_SPAN = /(`+)[^`]*?\1/g;
const INLINE_LINK = /\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const REFERENCE_DEFINITION = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Lists the local link targets of a Markdown text: inline links and images `[t](target)`,
 * `[t](<target> "title")` and reference definitions `[id]: target`, outside code spans and
 * fenced code blocks. Targets with a URL scheme (`https:`, `mailto:`, …) or starting with
 * `#` are not local and are left out.
 *
 * @param markdown file contents
 * @returns link targets as written (angle brackets removed), in file order
 */
export function findLocalLinks(markdown: string): LocalLink[] {
  const links: LocalLink[] = [];
  let fenced = false;
  for (const [i, raw] of markdown.split(/\r?\n/).entries()) {
    if (/^ {0,3}(```|~~~)/.test(raw)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const line = raw.replace(CODE_SPAN, "");
    const targets = [...line.matchAll(INLINE_LINK)].map((m) => m[1] ?? "");
    const def = REFERENCE_DEFINITION.exec(line);
    if (def) targets.push(def[1] ?? "");
    for (let target of targets) {
      if (target.startsWith("<") && target.endsWith(">")) target = target.slice(1, -1);
      if (!target || target.startsWith("#") || SCHEME.test(target)) continue;
      links.push({ line: i + 1, target });
    }
  }
  return links;
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

/**
 * Checks that a local link target resolves to an existing file or directory inside the
 * repository. The `#fragment` and `?query` are dropped and the rest percent-decoded; a target
 * starting with `/` is taken from the repository root (as GitHub renders it), any other
 * from `fromDir`. Symbolic links are followed before the containment check.
 *
 * @param root repository root (absolute)
 * @param fromDir directory of the Markdown file (absolute)
 * @param target link target as written
 * @returns `undefined` when fine, else the problem text:
 *   `link escapes the repository: <target>`, `link target does not exist: <target>` or
 *   `link target is not valid percent-encoding: <target>`
 */
export function checkLinkTarget(root: string, fromDir: string, target: string): string | undefined {
  const bare = target.replace(/[#?].*$/, "");
  let decoded: string;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    return `link target is not valid percent-encoding: ${target}`;
  }
  if (!decoded) return undefined;
  const resolved = decoded.startsWith("/")
    ? path.resolve(root, `.${decoded}`)
    : path.resolve(fromDir, decoded);
  if (!inside(root, resolved)) return `link escapes the repository: ${target}`;
  if (!fs.existsSync(resolved)) return `link target does not exist: ${target}`;
  if (!inside(fs.realpathSync(root), fs.realpathSync(resolved))) {
    return `link escapes the repository: ${target}`;
  }
  return undefined;
}
