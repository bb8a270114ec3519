/**
 * Capability sentences outside the map (issue 35 item 1: README and docs/ may not state a
 * capability the capability map does not hold). A sentence with a claim marker — a word
 * that states what turngate guarantees — must sit in a paragraph, list item or table row
 * that links the map area proving it (`capabilities.md#<area anchor>`). The vocabulary is
 * written down in CAPABILITY_VERIFICATION.md "Claims outside the map".
 */
import fs from "node:fs";
import path from "node:path";

/** Claim markers of README.md: unconditional statements about what turngate does. */
export const README_MARKERS =
  /\b(guarantee[sd]?|always|never|cannot|refuse[sd]?|fails? closed|proven|proves)\b(?!\.md)/i;
/** Claim markers of the reference docs (docs/*.md): the narrower, guarantee-only list. */
export const DOCS_MARKERS = /\b(guarantee[sd]?|always|fails? closed|proven|proves)\b(?!\.md)/i;
/** Files of docs/ that are not held to the marker rule: the map itself, the design, contributing. */
export const EXEMPT_DOCS: readonly string[] = ["capabilities.md", "contributing.md", "design.md"];

const CODE_SPANS = /(`+)[^`]*?\1/g;
const TABLE_SEPARATOR = /^\s*\|(\s*:?-+:?\s*\|)+\s*$/;
const INLINE_LINK_TARGET = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const INLINE_LINK = /!?\[([^\]]*)\]\([^)]*\)/g;
const MAP_LINK = /(?:^|\/)capabilities\.md#(.+)$/;

/** A paragraph, list item or table row: its first line and its text (lines joined by spaces). */
interface Block {
  line: number;
  text: string;
}

/** Splits Markdown into blocks, leaving out headings, table headers, blank lines and fenced code. */
function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  let fenced = false;
  for (const [i, raw] of markdown.split(/\r?\n/).entries()) {
    if (/^ {0,3}(```|~~~)/.test(raw)) {
      fenced = !fenced;
      current = undefined;
      continue;
    }
    if (fenced || raw.trim() === "" || /^ {0,3}#/.test(raw)) {
      current = undefined;
      continue;
    }
    if (raw.trimStart().startsWith("|")) {
      // A separator row makes the row above it a header: column names state nothing.
      if (TABLE_SEPARATOR.test(raw)) blocks.pop();
      else blocks.push({ line: i + 1, text: raw });
      current = undefined;
    } else if (/^\s*([-*+]|\d+[.)])\s/.test(raw) || current === undefined) {
      current = { line: i + 1, text: raw.trim() };
      blocks.push(current);
    } else {
      current.text += ` ${raw.trim()}`;
    }
  }
  return blocks;
}

/**
 * Problems with one Markdown file: every block holding a claim marker must link a map area.
 *
 * @param file repo-relative name used as the problem prefix, e.g. `README.md`
 * @param markdown file contents
 * @param markers the file's claim-marker pattern
 * @param anchors the anchors of the map's areas
 * @returns problem texts:
 *   `<file>:<line>: "<sentence>" states a capability ("<marker>") but links no capability map area (capabilities.md#<area>)`
 *   or `<file>:<line>: links capabilities.md#<anchor>, which is no area of the capability map`
 */
export function markerProblems(
  file: string,
  markdown: string,
  markers: RegExp,
  anchors: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  for (const block of blocksOf(markdown)) {
    const targets = [...block.text.replace(CODE_SPANS, "").matchAll(INLINE_LINK_TARGET)].map(
      (m) => m[1] ?? "",
    );
    let linked = false;
    for (const target of targets) {
      const anchor = MAP_LINK.exec(target)?.[1];
      if (anchor === undefined) continue;
      if (anchors.has(decodeURIComponent(anchor))) linked = true;
      else
        problems.push(
          `${file}:${block.line}: links capabilities.md#${anchor}, which is no area of the capability map`,
        );
    }
    if (linked) continue;
    const prose = block.text
      .replace(CODE_SPANS, "code")
      .replace(INLINE_LINK, "$1")
      .replace(/^\s*([-*+]|\d+[.)])\s+/, "");
    const marker = markers.exec(prose);
    if (!marker) continue;
    const sentence =
      prose
        .split(/(?<=[.!?])\s+(?=[^a-z])|\s\|\s/)
        .find((s) => markers.test(s))
        ?.replace(/^\|\s*|\s*\|$/g, "")
        .trim() ?? prose.trim();
    const shown = sentence.length > 120 ? `${sentence.slice(0, 119)}…` : sentence;
    problems.push(
      `${file}:${block.line}: "${shown}" states a capability ("${marker[0]}") but links no capability map area (capabilities.md#<area>)`,
    );
  }
  return problems;
}

/**
 * Checks README.md (with {@link README_MARKERS}) and every docs/*.md but {@link EXEMPT_DOCS}
 * (with {@link DOCS_MARKERS}). Missing files are skipped.
 *
 * @param root repository root (absolute)
 * @param anchors the anchors of the map's areas
 */
export function claimMarkerProblems(root: string, anchors: ReadonlySet<string>): string[] {
  const files: Array<[string, RegExp]> = [["README.md", README_MARKERS]];
  let docs: string[] = [];
  try {
    docs = fs.readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md"));
  } catch {
    docs = [];
  }
  for (const f of docs.sort())
    if (!EXEMPT_DOCS.includes(f)) files.push([`docs/${f}`, DOCS_MARKERS]);
  const problems: string[] = [];
  for (const [file, markers] of files) {
    let text: string;
    try {
      text = fs.readFileSync(path.join(root, file), "utf8");
    } catch {
      continue;
    }
    problems.push(...markerProblems(file, text, markers, anchors));
  }
  return problems;
}
