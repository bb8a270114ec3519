/**
 * The claim-level capability map (docs/capabilities.md "Claims"; issue 35 item 1):
 * one `### <Area>` section per area, each a numbered list of claims, each claim one
 * sentence followed by the tests that fail when it stops being true. The format is written
 * down in CAPABILITY_VERIFICATION.md "Claims" and docs/contributing.md.
 *
 *     ### Completion gate
 *
 *     1. Waivers are host-only.
 *        - `vitest:packages/core/test/gate.test.ts > decideCompletion > …`
 *        - `pytest:bindings/python/tests/test_client.py::test_waived`
 *
 * Every non-blank line of an area section is a claim line (`N. <sentence>`) or one of its
 * reference lines (indented `- \`<reference>\``) or code lines (indented
 * `- code: \`<path>:<start>-<end>\``, the lines that implement the sentence, read by the bite
 * check: `./bite.ts`); anything else is a problem, so no sentence can sit in an area without
 * tests.
 */
import { type CodeRange, parseCodeRange } from "./code-ranges.js";
import { parseTestReference, type TestReference } from "./test-references.js";

/** One claim: its number, line, sentence and the references listed under it. */
export interface Claim {
  /** The number written before the sentence (1-based, consecutive within the area). */
  number: number;
  /** 1-based line of the claim in the map file. */
  line: number;
  /** The sentence as written, trimmed. */
  text: string;
  refs: TestReference[];
  /** The lines that implement the sentence (`- code: \`<path>:<start>-<end>\`` items), in order. */
  code: CodeRange[];
}

/** One area of the map: its heading and its claims in order. */
export interface ClaimArea {
  area: string;
  /** 1-based line of the `### ` heading. */
  line: number;
  claims: Claim[];
}

/** Result of {@link parseClaims}. */
export interface ClaimMap {
  areas: ClaimArea[];
  /** Problem texts, prefixed with the area and claim or with `<file>:<line>:`. */
  problems: string[];
}

const AREA_HEADING = /^###\s+(.+?)\s*#*\s*$/;
const CLAIM_LINE = /^(\d+)\.\s+(.*)$/;
const REFERENCE_LINE = /^\s+[-*]\s+(.*)$/;
const CODE_SPAN_ITEM = /^`([^`]+)`$/;
const CODE_RANGE_ITEM = /^code:\s*(.*)$/;
const CODE_SPANS = /(`+)[^`]*?\1/g;
const LINK_TARGETS = /\]\([^)]*\)/g;
/** A sentence end followed by the start of another sentence. */
const INNER_SENTENCE_END = /[.!?]["')\]]*\s+["'(]*[\p{Lu}\d]/u;

/**
 * How a claim is named in problems: `<Area>, claim <n> ("<first words>…")`.
 *
 * @param area area name
 * @param claim the claim (only `number` and `text` are read)
 */
export function claimOwner(area: string, claim: Pick<Claim, "number" | "text">): string {
  const words = claim.text.split(/\s+/).filter(Boolean);
  const head = words.slice(0, 4).join(" ");
  return `${area}, claim ${claim.number} ("${head}${words.length > 4 ? "…" : ""}")`;
}

/**
 * Problem with a claim's sentence: empty, not ending in a full stop, or holding more than one
 * sentence (a sentence end followed by a capital or a digit, outside code spans and link
 * targets).
 */
function sentenceProblem(text: string): string | undefined {
  if (!text) return "is empty";
  const prose = text.replace(CODE_SPANS, "code").replace(LINK_TARGETS, "]");
  if (!/[.!?]["')\]]*$/.test(prose)) return "does not end with a full stop";
  if (INNER_SENTENCE_END.test(prose.replace(/[.!?]["')\]]*$/, ""))) {
    return "holds more than one sentence (write each as its own claim with its own tests)";
  }
  return undefined;
}

/**
 * Reads the areas and claims of the map section: the lines from `heading` to the next `## `
 * heading (or the end of the file). Lines before the first `### ` heading are the section's
 * introduction and are not read. Fenced code is not allowed inside an area.
 *
 * Problems (prefixed as shown):
 * - `<file>: missing heading "<heading>"`
 * - `<file>: "<heading>" has no areas (### headings)`
 * - `<file>:<line>: text outside a claim in <Area> (every sentence of an area is a numbered claim with its tests)`
 * - `<file>:<line>: test reference outside a claim in <Area>`
 * - `<Area>: has no claims`
 * - `<Area>, claim <n> ("…"): numbered <n>, expected <m>`
 * - `<Area>, claim <n> ("…"): sentence is empty | does not end with a full stop | holds more than one sentence …`
 * - `<Area>, claim <n> ("…"): cites no test`
 * - `<Area>, claim <n> ("…"): <reference problem>` for an item that is not a reference
 * - `<Area>, claim <n> ("…"): code: …` for a `code:` item that is not `\`<path>:<start>-<end>\``
 *
 * @param text whole map file
 * @param heading the map section's heading line, e.g. `## Claims`
 * @param file file name used as a problem prefix, e.g. `docs/capabilities.md`
 */
export function parseClaims(text: string, heading: string, file: string): ClaimMap {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trimEnd() === heading);
  if (start < 0) return { areas: [], problems: [`${file}: missing heading "${heading}"`] };
  const problems: string[] = [];
  const areas: ClaimArea[] = [];
  let area: ClaimArea | undefined;
  let claim: Claim | undefined;
  /** Problems of one claim, collected until the claim ends (they need its full sentence). */
  const pending = new Map<Claim, string[]>();

  for (let i = start + 1; i < lines.length; i++) {
    const raw = lines[i] ?? "";
    const lineNo = i + 1;
    if (/^#{1,2}\s/.test(raw)) break;
    const heading3 = AREA_HEADING.exec(raw);
    if (heading3 && raw.startsWith("### ")) {
      area = { area: heading3[1] ?? "", line: lineNo, claims: [] };
      areas.push(area);
      claim = undefined;
      continue;
    }
    if (area === undefined || raw.trim() === "") continue;
    const claimLine = CLAIM_LINE.exec(raw);
    if (claimLine) {
      const number = Number(claimLine[1]);
      claim = { number, line: lineNo, text: (claimLine[2] ?? "").trim(), refs: [], code: [] };
      area.claims.push(claim);
      const own: string[] = [];
      const expected = area.claims.length;
      if (number !== expected) own.push(`numbered ${number}, expected ${expected}`);
      const sentence = sentenceProblem(claim.text);
      if (sentence) own.push(`sentence ${sentence}`);
      pending.set(claim, own);
      continue;
    }
    const refLine = REFERENCE_LINE.exec(raw);
    if (refLine && claim !== undefined) {
      const item = (refLine[1] ?? "").trim();
      const codeItem = CODE_RANGE_ITEM.exec(item);
      if (codeItem) {
        const range = parseCodeRange((codeItem[1] ?? "").trim(), lineNo);
        if (typeof range === "string") pending.get(claim)?.push(range);
        else claim.code.push(range);
        continue;
      }
      const span = CODE_SPAN_ITEM.exec(item);
      const parsed = span
        ? parseTestReference((span[1] ?? "").trim())
        : `"${item}" is not a test reference in backticks (text belongs in the claim's sentence)`;
      if (typeof parsed === "string") pending.get(claim)?.push(parsed);
      else claim.refs.push(parsed);
      continue;
    }
    problems.push(
      refLine
        ? `${file}:${lineNo}: test reference outside a claim in ${area.area}`
        : `${file}:${lineNo}: text outside a claim in ${area.area} (every sentence of an area is a numbered claim with its tests)`,
    );
  }

  if (areas.length === 0) problems.push(`${file}: "${heading}" has no areas (### headings)`);
  for (const a of areas) {
    if (a.claims.length === 0) problems.push(`${a.area}: has no claims`);
    for (const c of a.claims) {
      const owner = claimOwner(a.area, c);
      for (const p of pending.get(c) ?? []) problems.push(`${owner}: ${p}`);
      if (c.refs.length === 0) problems.push(`${owner}: cites no test`);
    }
  }
  return { areas, problems };
}

/**
 * The anchor GitHub gives a heading: lower case, characters other than letters, marks,
 * digits, spaces, `-` and `_` removed, spaces turned into `-` (duplicates are not numbered).
 *
 * @param heading heading text without the leading `#`s, e.g. `Proof ↔ commit`
 * @returns e.g. `proof--commit`
 */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}
