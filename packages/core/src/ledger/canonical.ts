import { TurngateValidationError } from "../errors.js";
import type { MutationRecord } from "../schemas/ledger.js";
import {
  type ContentHasher,
  NOBLE_CONTENT_HASHER,
  type TextSink,
  toContentHasher,
} from "./content-hasher.js";
import { escapeLedgerField, unescapeLedgerField } from "./escape.js";
import { compareCodePoints } from "./order.js";
import { ledgerOrder } from "./row-order.js";

/** Ledger order, A3S §2.1: by path, then by tool, in code-point (UTF-8 byte) order. */
export function compareRecords(a: MutationRecord, b: MutationRecord): number {
  return compareCodePoints(a.path, b.path) || compareCodePoints(a.tool, b.tool);
}

/**
 * A stored ledger row: the record plus whether it is plain — every field printable ASCII
 * (U+0020–U+007E) other than `\` and `|`. A plain row renders unescaped and orders by
 * plain UTF-16 comparison (equal to code-point order for ASCII).
 */
export interface LedgerRow extends MutationRecord {
  readonly plain: boolean;
}

const NOT_PLAIN = /[^\x20-\x5b\x5d-\x7b\x7d\x7e]/;

/** True when `field` is printable ASCII without `\` or `|` (escaping leaves it unchanged). */
export function isPlainField(field: string): boolean {
  return !NOT_PLAIN.test(field);
}

/** Wraps a record for storage in a ledger (copies the three fields); `plain` as checked by the caller. */
export function toLedgerRow(record: MutationRecord, plain: boolean): LedgerRow {
  return {
    tool: record.tool,
    path: record.path,
    content_digest: record.content_digest,
    plain,
  };
}

/**
 * `compareRecords` for stored rows, faster: two plain rows (ASCII only) compare with the
 * engine's native string comparison, which is code-point order for ASCII.
 */
export function compareLedgerRows(a: LedgerRow, b: LedgerRow): number {
  if (!(a.plain && b.plain)) return compareRecords(a, b);
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  if (a.tool === b.tool) return 0;
  return a.tool < b.tool ? -1 : 1;
}

/**
 * A stably sorted copy of `records` in ledger order (`compareRecords`; rows with equal
 * (path, tool) keep their order). Sorted by `ledgerOrder` (native numeric sort of packed
 * path chunks), which gives the same order as a stable sort with `compareRecords`.
 */
export function sortRecords<T extends MutationRecord>(records: readonly T[]): T[] {
  const n = records.length;
  if (n <= SMALL_SORT) return insertionSorted(records);
  const paths: string[] = new Array(n);
  const tools: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const r = records[i] as T;
    paths[i] = r.path;
    tools[i] = r.tool;
  }
  const order = ledgerOrder(paths, tools);
  const sorted: T[] = new Array(n);
  for (let i = 0; i < n; i++) sorted[i] = records[order[i] as number] as T;
  return sorted;
}

/** Up to this many records are sorted by insertion (packing keys costs more for so few). */
const SMALL_SORT = 8;

/** A stable insertion-sorted copy of `records` by `compareRecords` (small inputs). */
function insertionSorted<T extends MutationRecord>(records: readonly T[]): T[] {
  const sorted = records.slice();
  for (let i = 1; i < sorted.length; i++) {
    const r = sorted[i] as T;
    let j = i - 1;
    while (j >= 0 && compareRecords(sorted[j] as T, r) > 0) {
      sorted[j + 1] = sorted[j] as T;
      j--;
    }
    sorted[j + 1] = r;
  }
  return sorted;
}

/** One row of the canonical text: `{tool}|{path}|{content_digest}`, each field escaped. */
export function canonicalLedgerRow(record: MutationRecord): string {
  return `${escapeLedgerField(record.tool)}|${escapeLedgerField(record.path)}|${escapeLedgerField(record.content_digest)}`;
}

/**
 * The exact text the effect digest hashes (A3S §2.2 with docs/design.md §3's escaping): rows
 * sorted stably by (path, tool), each rendered by `canonicalLedgerRow`, joined by a single
 * `\n`, with no trailing newline and no header. An empty ledger gives `""`.
 * Throws `TurngateValidationError` (path `N.field`) when a row is not three strings.
 */
export function canonicalLedgerText(records: readonly MutationRecord[]): string {
  assertRecords(records);
  return sortRecords(records).map(canonicalLedgerRow).join("\n");
}

/**
 * The effect digest, A3S §2.2: lowercase 64-hex SHA-256 of the UTF-8 bytes of
 * `canonicalLedgerText(records)`; `""` for no records. Throws `TurngateValidationError`
 * for malformed rows.
 */
export function effectDigest(records: readonly MutationRecord[]): string {
  assertRecords(records);
  return digestOfSortedRecords(sortRecords(records));
}

/** Writes one `tool|path|content_digest` row; `plain` rows need no escaping. */
function writeRow(sink: TextSink, r: MutationRecord, plain: boolean): void {
  sink.write(plain ? r.tool : escapeLedgerField(r.tool));
  sink.write("|");
  sink.write(plain ? r.path : escapeLedgerField(r.path));
  sink.write("|");
  sink.write(plain ? r.content_digest : escapeLedgerField(r.content_digest));
}

/**
 * Effect digest of rows that are already in ledger order (no sort, no copy): the rows'
 * canonical text is hashed in small batches (see `Sha256TextSink`), never built whole.
 */
export function digestOfSortedRecords(
  records: readonly MutationRecord[],
  hasher: ContentHasher = NOBLE_CONTENT_HASHER,
): string {
  if (records.length === 0) return "";
  const sink = toContentHasher(hasher).textSink();
  for (let i = 0; i < records.length; i++) {
    if (i > 0) sink.write("\n");
    writeRow(sink, records[i] as MutationRecord, false);
  }
  return sink.hex();
}

/**
 * `digestOfSortedRecords` for stored rows: plain rows are written without an escape check.
 * `hasher`: the SHA-256 (default `@noble/hashes`; every hasher gives the same digest).
 */
export function digestOfLedgerRows(
  rows: readonly LedgerRow[],
  hasher: ContentHasher = NOBLE_CONTENT_HASHER,
): string {
  if (rows.length === 0) return "";
  const sink = toContentHasher(hasher).textSink();
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i] as LedgerRow;
    if (i > 0) sink.write("\n");
    writeRow(sink, r, r.plain);
  }
  return sink.hex();
}

/**
 * Splits a canonical ledger text back into its rows (the inverse of
 * `canonicalLedgerText` on sorted rows; it exists to show and test that the text is
 * injective, and for proof checking). `""` → `[]`. Throws `TurngateValidationError` when a
 * row does not have exactly three fields or holds a malformed escape.
 */
export function parseCanonicalLedgerText(text: string): MutationRecord[] {
  if (text === "") return [];
  return text.split("\n").map((row, i) => {
    const fields = splitRow(row);
    if (fields.length !== 3) {
      throw new TurngateValidationError("canonical ledger text", [
        { path: `rows.${i}`, message: `expected 3 fields, found ${fields.length}` },
      ]);
    }
    const [tool, path, digest] = fields as [string, string, string];
    return {
      tool: unescapeLedgerField(tool, `rows.${i}.tool`),
      path: unescapeLedgerField(path, `rows.${i}.path`),
      content_digest: unescapeLedgerField(digest, `rows.${i}.content_digest`),
    };
  });
}

/** Splits a row at its unescaped `|` (a `\` always escapes the next character). */
function splitRow(row: string): string[] {
  const fields: string[] = [];
  let start = 0;
  for (let i = 0; i < row.length; i++) {
    const c = row.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x7c) {
      fields.push(row.slice(start, i));
      start = i + 1;
    }
  }
  fields.push(row.slice(start));
  return fields;
}

function assertRecords(records: readonly MutationRecord[]): void {
  if (!Array.isArray(records)) {
    throw new TurngateValidationError("mutation records", [
      { path: "", message: "expected an array" },
    ]);
  }
  for (let i = 0; i < records.length; i++) {
    const r = records[i] as unknown as Record<string, unknown> | null;
    for (const key of ["tool", "path", "content_digest"] as const) {
      if (typeof r !== "object" || r === null || typeof r[key] !== "string") {
        throw new TurngateValidationError("mutation records", [
          { path: `${i}.${key}`, message: "expected a string" },
        ]);
      }
    }
  }
}
