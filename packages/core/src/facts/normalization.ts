/**
 * Diagnostic signature normalization (harn-verification.md §3.7): the merged config and
 * the text pipeline that turns one diagnostic into a signature that survives line shifts,
 * ANSI colour, temp dirs and whitespace changes.
 */
import { TurngateValidationError } from "../errors.js";
import {
  charLength,
  coalesce,
  type Dict,
  display,
  isDict,
  isNil,
  RUST_WHITESPACE_CLASS,
  rustTrim,
  toInt,
  trimmedText,
} from "./harn-values.js";
import { compileRustRegex, type RustRegex, rustIsMatch, rustReplaceAll } from "./rust-regex.js";

/** One `replacements` entry: a pattern string (replaced by `" "`) or `{pattern|regex, replacement|with}`. */
export type NormalizationReplacement =
  | string
  | { pattern?: string; regex?: string; replacement?: string; with?: string };

/**
 * Normalization knobs (wire names, as Harn). Defaults: `lowercase`, `strip_ansi`,
 * `strip_locations`, `strip_temp_paths`, `collapse_whitespace`, `include_code` on unless
 * exactly `false`; `include_path`, `include_severity` on only when exactly `true`;
 * `max_chars` 4000 (≤ 0 disables truncation); pattern lists empty.
 */
export interface DiagnosticNormalization {
  lowercase?: boolean | null;
  strip_ansi?: boolean | null;
  strip_locations?: boolean | null;
  strip_temp_paths?: boolean | null;
  collapse_whitespace?: boolean | null;
  include_path?: boolean | null;
  include_code?: boolean | null;
  include_severity?: boolean | null;
  max_chars?: number | string | null;
  replacements?: NormalizationReplacement[] | null;
  strip_patterns?: string[] | string | null;
  stripPatterns?: string[] | string | null;
  ignore_patterns?: string[] | string | null;
  ignorePatterns?: string[] | string | null;
  [key: string]: unknown;
}

/** The defaults of §3.7 step 1. */
export const DEFAULT_NORMALIZATION: Readonly<DiagnosticNormalization> = Object.freeze({
  lowercase: true,
  strip_ansi: true,
  strip_locations: true,
  strip_temp_paths: true,
  collapse_whitespace: true,
  include_path: false,
  include_code: true,
  include_severity: false,
  max_chars: 4000,
  replacements: [],
  ignore_patterns: [],
  strip_patterns: [],
});

const BOOLEAN_KNOBS = [
  "lowercase",
  "strip_ansi",
  "strip_locations",
  "strip_temp_paths",
  "collapse_whitespace",
  "include_path",
  "include_code",
  "include_severity",
] as const;

/** Top-level option keys read from the options object (booleans first, in knob order). */
const KNOWN_TOP_LEVEL = [
  ...BOOLEAN_KNOBS,
  "max_chars",
  "replacements",
  "ignore_patterns",
  "strip_patterns",
  "stripPatterns",
] as const;

const CONFIG_KEYS = [
  "signatureNormalization",
  "signature_normalization",
  "diagnosticDelta",
  "diagnostic_delta",
] as const;

function invalid(path: string, message: string): never {
  throw new TurngateValidationError("diagnostic normalization options", [{ path, message }]);
}

/** Type-checks the known knobs of one config source; unknown keys are carried untouched. */
function checkSource(source: Dict, path: string): void {
  for (const key of BOOLEAN_KNOBS) {
    const v = source[key];
    if (!isNil(v) && typeof v !== "boolean") invalid(`${path}${key}`, "must be a boolean");
  }
  const max = source.max_chars;
  // A number must be an integer JSON carries exactly (the result echoes it; its schema
  // says integer): 1.5 and 1e20 are refused, as a non-numeric string is.
  const badNumber = typeof max === "number" && !Number.isSafeInteger(max);
  if (!isNil(max) && (badNumber || toInt(max) === null)) {
    invalid(`${path}max_chars`, "must be an integer");
  }
  const reps = source.replacements;
  if (!isNil(reps)) {
    if (!Array.isArray(reps)) invalid(`${path}replacements`, "must be a list");
    reps.forEach((entry, i) => {
      if (isNil(entry) || typeof entry === "string") return;
      if (!isDict(entry))
        invalid(`${path}replacements.${i}`, "must be a pattern string or {pattern, replacement}");
    });
  }
  for (const key of ["strip_patterns", "stripPatterns", "ignore_patterns", "ignorePatterns"]) {
    const v = source[key];
    if (isNil(v) || typeof v === "string") continue;
    if (!Array.isArray(v)) invalid(`${path}${key}`, "must be a list of patterns");
  }
}

function dictOrEmpty(value: unknown, path: string): Dict {
  if (!isDict(value)) return {};
  checkSource(value, path);
  return value;
}

/**
 * Merges the normalization config from `options` in Harn's precedence (§3.7), lowest first:
 * defaults; `row.signatureNormalization`, `row.signature_normalization`,
 * `row.diagnosticDelta`, `row.diagnostic_delta` (row = `options.row ?? options.profile_row`);
 * the same four on `row.check`; the first non-nil of `options.diagnosticDelta`,
 * `options.diagnostic_delta`, `options.signatureNormalization`,
 * `options.signature_normalization`; then the known knobs given at the top level of
 * `options`. Unknown keys from the sources are kept. Throws `TurngateValidationError`
 * (path names the field, e.g. `row.diagnosticDelta.lowercase`) when a known knob has the
 * wrong type.
 */
export function mergeNormalization(options: unknown): DiagnosticNormalization {
  const opts = isDict(options) ? options : {};
  const rowKey = isNil(opts.row) ? "profile_row" : "row";
  const row = isDict(opts[rowKey]) ? (opts[rowKey] as Dict) : {};
  const check = isDict(row.check) ? (row.check as Dict) : {};
  let merged: Dict = { ...DEFAULT_NORMALIZATION };
  for (const key of CONFIG_KEYS)
    merged = { ...merged, ...dictOrEmpty(row[key], `${rowKey}.${key}.`) };
  for (const key of CONFIG_KEYS)
    merged = { ...merged, ...dictOrEmpty(check[key], `${rowKey}.check.${key}.`) };
  const directKey = [
    "diagnosticDelta",
    "diagnostic_delta",
    "signatureNormalization",
    "signature_normalization",
  ].find((k) => !isNil(opts[k]));
  if (directKey !== undefined)
    merged = { ...merged, ...dictOrEmpty(opts[directKey], `${directKey}.`) };
  const top: Dict = {};
  for (const key of KNOWN_TOP_LEVEL)
    if (Object.hasOwn(opts, key) && opts[key] !== undefined) top[key] = opts[key];
  checkSource(top, "");
  return { ...merged, ...top } as DiagnosticNormalization;
}

interface CompiledReplacement {
  re: RustRegex;
  replacement: string;
}

/** A merged config with its patterns compiled once (internal). */
export interface CompiledNormalization {
  readonly config: DiagnosticNormalization;
  readonly stripAnsi: boolean;
  readonly lowercase: boolean;
  readonly stripLocations: boolean;
  readonly stripTempPaths: boolean;
  readonly collapseWhitespace: boolean;
  readonly includePath: boolean;
  readonly includeCode: boolean;
  readonly includeSeverity: boolean;
  readonly maxChars: number;
  readonly replacements: readonly CompiledReplacement[];
  readonly strip: readonly RustRegex[];
  readonly ignore: readonly RustRegex[];
}

/**
 * The patterns of a `stringList` option (trimmed, blanks and repeats dropped, in order),
 * compiled; an error names the entry as sent: `<key>.<index>` in a list (blanks and
 * repeats keep their index), `<key>` for a single string (issue 36: it was `<key>.0`).
 */
function compilePatternList(value: unknown, key: string): RustRegex[] {
  if (isNil(value)) return [];
  const entries: Array<[unknown, string]> = Array.isArray(value)
    ? value.map((v, i) => [v, `${key}.${i}`])
    : [[value, key]];
  const out: RustRegex[] = [];
  const seen = new Set<string>();
  for (const [entry, path] of entries) {
    const text = trimmedText(entry);
    if (text === "" || seen.has(text)) continue;
    seen.add(text);
    out.push(compileRustRegex(text, path));
  }
  return out;
}

/**
 * Compiles the patterns of a merged config (Rust regex syntax). Throws `InvalidRegexError`
 * (code `invalid_regex`, path e.g. `replacements.0.pattern`) for a bad pattern.
 */
export function compileNormalization(config: DiagnosticNormalization): CompiledNormalization {
  const replacements: CompiledReplacement[] = [];
  const reps = Array.isArray(config.replacements) ? config.replacements : [];
  reps.forEach((entry, i) => {
    const dict = isDict(entry);
    const pattern = dict ? trimmedText(coalesce(entry.pattern, entry.regex)) : trimmedText(entry);
    if (pattern === "") return;
    const replacement = dict ? display(coalesce(entry.replacement, entry.with, " ")) : " ";
    const key = dict ? (isNil(entry.pattern) ? "regex" : "pattern") : "";
    replacements.push({
      re: compileRustRegex(pattern, dict ? `replacements.${i}.${key}` : `replacements.${i}`),
      replacement,
    });
  });
  const stripKey = isNil(config.strip_patterns) ? "stripPatterns" : "strip_patterns";
  const ignoreKey = isNil(config.ignore_patterns) ? "ignorePatterns" : "ignore_patterns";
  const strip = compilePatternList(config[stripKey], stripKey);
  const ignore = compilePatternList(config[ignoreKey], ignoreKey);
  return {
    config,
    stripAnsi: config.strip_ansi !== false,
    lowercase: config.lowercase !== false,
    stripLocations: config.strip_locations !== false,
    stripTempPaths: config.strip_temp_paths !== false,
    collapseWhitespace: config.collapse_whitespace !== false,
    includePath: config.include_path === true,
    includeCode: config.include_code !== false,
    includeSeverity: config.include_severity === true,
    maxChars: toInt(config.max_chars) ?? 4000,
    replacements,
    strip,
    ignore,
  };
}

// The built-in patterns of §3.7 as JS regexes with Rust semantics: `\s` is Unicode
// White_Space and `\b` is a Unicode word boundary. None can match empty text, so the
// engine's own replace-all equals Rust's.
const WS = `[${RUST_WHITESPACE_CLASS}]`;
const NOT_WS_OR_COLON = `[^${RUST_WHITESPACE_CLASS}:]`;
const WORD = "[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}]";
// Rust: `\u{1b}\[[0-9;]*m` (ESC, then a colour sequence).
const ANSI = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;]*m`, "g");
// Rust: `[^\s:]+:[0-9]+(?::[0-9]+)?`. As one backtracking RegExp it takes time quadratic in
// a long run of non-space characters without a location (every start re-scans the run), so
// it is matched in two linear steps: each maximal `[^\s:]+` run, then the `:N(:N)?` after it.
// A run's leftmost start is the only start that can match (the run cannot hold a `:`), so
// this finds the same matches as the single pattern.
const LOCATION_RUN = new RegExp(`${NOT_WS_OR_COLON}+`, "gu");
const LOCATION_TAIL = /:[0-9]+(?::[0-9]+)?/y;
const LINE_COL = new RegExp(
  `(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))(?:line|col|column)${WS}+[0-9]+(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`,
  "gu",
);
const TMP = new RegExp(`/tmp/${NOT_WS_OR_COLON}*`, "gu");
const VAR_FOLDERS = new RegExp(`/var/folders/${NOT_WS_OR_COLON}*`, "gu");
const WS_RUN = new RegExp(`${WS}+`, "gu");
// Anything collapsing would change: a White_Space char other than a single space, or two spaces.
const NEEDS_COLLAPSE = new RegExp(`[${RUST_WHITESPACE_CLASS.replace(" ", "")}]| {2}`, "u");

/**
 * Replaces every `path:line[:col]` span (Rust `[^\s:]+:[0-9]+(?::[0-9]+)?`, leftmost-first,
 * left to right) with `" "`, in time linear in `text`.
 */
export function stripLocationSpans(text: string): string {
  let out = "";
  let last = 0;
  LOCATION_RUN.lastIndex = 0;
  for (let run = LOCATION_RUN.exec(text); run !== null; run = LOCATION_RUN.exec(text)) {
    LOCATION_TAIL.lastIndex = run.index + run[0].length;
    const tail = LOCATION_TAIL.exec(text);
    if (tail === null) continue;
    out += `${text.slice(last, run.index)} `;
    last = LOCATION_TAIL.lastIndex;
    LOCATION_RUN.lastIndex = last;
  }
  LOCATION_RUN.lastIndex = 0;
  return last === 0 ? text : out + text.slice(last);
}

/** Harn `truncate_text(value, limit)`: first `limit` code points + `\n... truncated <N> chars ...`. */
export function truncateChars(text: string, limit: number): string {
  if (limit <= 0 || text.length <= limit) return text;
  const total = charLength(text);
  if (total <= limit) return text;
  const kept = Array.from(text).slice(0, limit).join("");
  return `${kept}\n... truncated ${total - limit} chars ...`;
}

/**
 * Runs the §3.7 text pipeline on one joined signature: strip ANSI → replacements → strip
 * patterns → lowercase → strip locations → strip temp paths → collapse whitespace + trim →
 * truncate to `max_chars` code points.
 */
export function normalizeSignatureText(text: string, n: CompiledNormalization): string {
  let out = text;
  if (n.stripAnsi && out.includes("\u001b")) out = out.replace(ANSI, "");
  for (const r of n.replacements) out = rustReplaceAll(r.re, out, r.replacement);
  for (const re of n.strip) out = rustReplaceAll(re, out, " ");
  if (n.lowercase) out = out.toLowerCase();
  if (n.stripLocations) {
    if (out.includes(":")) out = stripLocationSpans(out);
    if (out.includes("line") || out.includes("col")) out = out.replace(LINE_COL, " ");
  }
  if (n.stripTempPaths) {
    if (out.includes("/tmp/")) out = out.replace(TMP, " ");
    if (out.includes("/var/folders/")) out = out.replace(VAR_FOLDERS, " ");
  }
  if (n.collapseWhitespace) {
    if (NEEDS_COLLAPSE.test(out)) out = out.replace(WS_RUN, " ");
    out = rustTrim(out);
  }
  if (n.maxChars > 0) out = truncateChars(out, n.maxChars);
  return out;
}

/**
 * The raw text of one entry: a non-dict → `trim(to_string(v))` (nil → `""`); a dict →
 * trimmed display of the first non-nil of `failureSignature, failure_signature, signature,
 * message, text, error, stderr, stdout, combined, result`.
 */
export function entryRawText(value: unknown): string {
  if (isNil(value)) return "";
  if (!isDict(value)) return rustTrim(display(value));
  return trimmedText(firstOf(value, RAW_TEXT_KEYS));
}

const RAW_TEXT_KEYS = [
  "failureSignature",
  "failure_signature",
  "signature",
  "message",
  "text",
  "error",
  "stderr",
  "stdout",
  "combined",
  "result",
] as const;
const PATH_KEYS = ["path", "file", "filename", "uri"] as const;
const SEVERITY_KEYS = ["severity", "level"] as const;
const CODE_KEYS = ["code", "rule", "kind"] as const;

/** First non-nil `value[key]` over `keys` (Harn `a ?? b ?? …`), without allocating. */
function firstOf(value: Dict, keys: readonly string[]): unknown {
  for (const key of keys) {
    const v = value[key];
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

function entryPath(value: Dict): string {
  return trimmedText(firstOf(value, PATH_KEYS));
}

function entryLocation(value: Dict): string {
  let path = entryPath(value);
  const line = toInt(coalesce(value.line, value.line_number));
  if (path !== "" && line !== null) {
    path = `${path}:${line}`;
    const column = toInt(coalesce(value.column, value.col));
    if (column !== null) path = `${path}:${column}`;
  }
  return path;
}

/**
 * The normalized signature of one diagnostic entry (§3.7): for a dict, optional location
 * (`include_path`), severity (`include_severity`) and code (`include_code`) parts, then the
 * raw text; joined with one space and run through {@link normalizeSignatureText}.
 */
export function entrySignature(value: unknown, n: CompiledNormalization): string {
  const parts: string[] = [];
  if (isDict(value)) {
    if (n.includePath) {
      const location = n.stripLocations ? entryPath(value) : entryLocation(value);
      if (location !== "") parts.push(location);
    }
    if (n.includeSeverity) {
      const severity = trimmedText(firstOf(value, SEVERITY_KEYS));
      if (severity !== "") parts.push(severity);
    }
    if (n.includeCode) {
      const code = trimmedText(firstOf(value, CODE_KEYS));
      if (code !== "") parts.push(code);
    }
  }
  const text = entryRawText(value);
  if (text !== "") parts.push(text);
  return normalizeSignatureText(parts.join(" "), n);
}

/** True when the signature matches any ignore pattern (unanchored search). */
export function isIgnored(signature: string, n: CompiledNormalization): boolean {
  for (const re of n.ignore) if (rustIsMatch(re, signature)) return true;
  return false;
}
