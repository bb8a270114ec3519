//! The mutation ledger's order and effect digest in one call (`ledgerDigest`, issue 17).
//!
//! The same rules as `@turngate/core`'s pure path (`ledger/row-order.ts`, `canonical.ts`,
//! `escape.ts`), applied to the JavaScript strings' UTF-16 code units so that lone
//! surrogates behave exactly as there:
//! - order: by path, then by tool, in code-point order (JavaScript's code-unit order with
//!   U+E000–U+FFFF moved before the surrogates, `compareCodePoints`); stable;
//! - text: rows `{tool}|{path}|{content_digest}` joined by `\n`, each field escaped (`\\`,
//!   `\|`, `\n`, `\r`, `\t`, `\xNN` for other C0/DEL/C1 controls, `\uNNNN` for an unpaired
//!   surrogate, everything else as is);
//! - digest: lowercase 64-hex SHA-256 of the text's UTF-8 bytes (`sha2`, SHA-NI when the
//!   CPU has it), `""` for no rows.

use crate::errors::{thrown, INVALID_ARG};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;
use sha2::{Digest, Sha256};

const HEX: &[u8; 16] = b"0123456789abcdef";

fn is_control(c: u16) -> bool {
    c <= 0x1f || (0x7f..=0x9f).contains(&c)
}

fn push_utf8(out: &mut Vec<u8>, cp: u32) {
    if cp < 0x80 {
        out.push(cp as u8);
    } else if cp < 0x800 {
        out.extend_from_slice(&[0xc0 | (cp >> 6) as u8, 0x80 | (cp & 0x3f) as u8]);
    } else if cp < 0x10000 {
        out.extend_from_slice(&[
            0xe0 | (cp >> 12) as u8,
            0x80 | ((cp >> 6) & 0x3f) as u8,
            0x80 | (cp & 0x3f) as u8,
        ]);
    } else {
        out.extend_from_slice(&[
            0xf0 | (cp >> 18) as u8,
            0x80 | ((cp >> 12) & 0x3f) as u8,
            0x80 | ((cp >> 6) & 0x3f) as u8,
            0x80 | (cp & 0x3f) as u8,
        ]);
    }
}

/// Appends the UTF-8 bytes of `escapeLedgerField(field)` to `out`.
pub fn escape_into(out: &mut Vec<u8>, field: &[u16]) {
    if field
        .iter()
        .all(|&c| (0x20..0x7f).contains(&c) && c != 0x5c && c != 0x7c)
    {
        // Plain (nearly every field of a ledger): the units are the bytes.
        out.extend(field.iter().map(|&c| c as u8));
        return;
    }
    let mut i = 0;
    while i < field.len() {
        let c = field[i];
        // Printable ASCII other than `\` and `|` (nearly every character of a ledger).
        if (0x20..0x7f).contains(&c) && c != 0x5c && c != 0x7c {
            out.push(c as u8);
            i += 1;
            continue;
        }
        let next = field.get(i + 1).copied().unwrap_or(0);
        if (0xd800..=0xdbff).contains(&c) && (0xdc00..=0xdfff).contains(&next) {
            let cp = 0x10000 + ((u32::from(c) - 0xd800) << 10) + (u32::from(next) - 0xdc00);
            push_utf8(out, cp);
            i += 2;
            continue;
        }
        match c {
            0x5c => out.extend_from_slice(b"\\\\"),
            0x7c => out.extend_from_slice(b"\\|"),
            0x0a => out.extend_from_slice(b"\\n"),
            0x0d => out.extend_from_slice(b"\\r"),
            0x09 => out.extend_from_slice(b"\\t"),
            c if is_control(c) => out.extend_from_slice(&[
                b'\\',
                b'x',
                HEX[usize::from(c >> 4)],
                HEX[usize::from(c & 15)],
            ]),
            0xd800..=0xdfff => out.extend_from_slice(&[
                b'\\',
                b'u',
                HEX[usize::from(c >> 12)],
                HEX[usize::from((c >> 8) & 15)],
                HEX[usize::from((c >> 4) & 15)],
                HEX[usize::from(c & 15)],
            ]),
            c => push_utf8(out, u32::from(c)),
        }
        i += 1;
    }
}

/// One row's three fields as slices of the joined text.
struct Row<'a> {
    tool: &'a [u16],
    path: &'a [u16],
    digest: &'a [u16],
}

/// Bytes rendered before they are fed to the hash.
const RENDER_CHUNK: usize = 64 * 1024;

/// Appends `units` mapped so that comparing the bytes (`memcmp`) gives `compareCodePoints`'
/// order (JavaScript's code-unit order, but at the first differing unit, when both are from
/// U+D800 up, U+E000–U+FFFF sort before the surrogates): U+E000–U+FFFF move down by 0x800
/// and surrogates up by 0x2000 (the same fix-up, applied to every unit: it is injective and
/// keeps the order of any two units it does not fix up, so the first differing unit decides
/// alike). Each mapped unit is written in UTF-8's byte layout (1 byte below 0x80, 2 below
/// 0x800, else 3), which is prefix-free and keeps numeric order, so byte order of the
/// sequences is the order of the unit sequences, and an ASCII path costs one byte a unit.
fn push_order_key(keys: &mut Vec<u8>, units: &[u16]) {
    for &u in units {
        if u < 0x80 {
            keys.push(u as u8);
            continue;
        }
        let m = u32::from(if u >= 0xe000 {
            u - 0x800
        } else if u >= 0xd800 {
            u + 0x2000
        } else {
            u
        });
        if m < 0x800 {
            keys.extend_from_slice(&[0xc0 | (m >> 6) as u8, 0x80 | (m & 0x3f) as u8]);
        } else {
            keys.extend_from_slice(&[
                0xe0 | (m >> 12) as u8,
                0x80 | ((m >> 6) & 0x3f) as u8,
                0x80 | (m & 0x3f) as u8,
            ]);
        }
    }
}

/// Rows above which the order is sorted on the rayon pool.
const PARALLEL_SORT_ROWS: usize = 4096;

/// Rows rendered per task of the parallel render (a power of two: the row index splits
/// into chunk and offset by shifting).
const RENDER_ROWS_LOG2: u32 = 13;

/// One chunk of rows rendered: order keys and escaped row texts, with spans local to it.
struct Rendered {
    /// Path then tool of each row as order-key bytes (see push_order_key).
    keys: Vec<u8>,
    /// Per row: key start, path end, tool end.
    spans: Vec<(u32, u32, u32)>,
    /// `{tool}|{path}|{content_digest}` of each row, escaped, one after another.
    text: Vec<u8>,
    /// Per row: end of its text (its start is the previous row's end).
    ends: Vec<u32>,
}

/// Renders `rows` front to back (memory read in order): order keys and row texts.
fn render(rows: &[Row]) -> Rendered {
    let units: usize = rows
        .iter()
        .map(|row| row.tool.len() + row.path.len() + row.digest.len() + 2)
        .sum();
    let mut out = Rendered {
        keys: Vec::with_capacity(units),
        spans: Vec::with_capacity(rows.len()),
        text: Vec::with_capacity(units),
        ends: Vec::with_capacity(rows.len()),
    };
    for row in rows {
        let start = out.keys.len() as u32;
        push_order_key(&mut out.keys, row.path);
        let path_end = out.keys.len() as u32;
        push_order_key(&mut out.keys, row.tool);
        out.spans.push((start, path_end, out.keys.len() as u32));
        escape_into(&mut out.text, row.tool);
        out.text.push(b'|');
        escape_into(&mut out.text, row.path);
        out.text.push(b'|');
        escape_into(&mut out.text, row.digest);
        out.ends.push(out.text.len() as u32);
    }
    out
}

/// The ledger order of `rows` (stable) and the SHA-256 of their canonical text in it.
fn order_and_digest(rows: &[Row]) -> (Vec<u32>, String) {
    // Rendered in chunks on the rayon pool; the hash then copies whole rendered rows in
    // ledger order instead of re-reading scattered UTF-16 fields.
    let size = 1usize << RENDER_ROWS_LOG2;
    let chunks: Vec<Rendered> = if rows.len() > size {
        rows.par_chunks(size).map(render).collect()
    } else {
        vec![render(rows)]
    };
    let locate = |index: u32| -> (&Rendered, usize) {
        let i = index as usize;
        (&chunks[i >> RENDER_ROWS_LOG2], i & (size - 1))
    };
    let mut order: Vec<u32> = (0..rows.len() as u32).collect();
    // Unstable sort with the index as the last key: the same result as a stable sort.
    let compare = |a: &u32, b: &u32| {
        let (ca, ia) = locate(*a);
        let (cb, ib) = locate(*b);
        let (sa, pa, ta) = ca.spans[ia];
        let (sb, pb, tb) = cb.spans[ib];
        ca.keys[sa as usize..pa as usize]
            .cmp(&cb.keys[sb as usize..pb as usize])
            .then_with(|| ca.keys[pa as usize..ta as usize].cmp(&cb.keys[pb as usize..tb as usize]))
            .then_with(|| a.cmp(b))
    };
    if rows.len() >= PARALLEL_SORT_ROWS {
        order.par_sort_unstable_by(compare);
    } else {
        order.sort_unstable_by(compare);
    }
    let mut hasher = Sha256::new();
    let mut out: Vec<u8> = Vec::with_capacity(RENDER_CHUNK + 1024);
    for (k, &index) in order.iter().enumerate() {
        if k > 0 {
            out.push(b'\n');
        }
        let (chunk, i) = locate(index);
        let start = if i == 0 {
            0
        } else {
            chunk.ends[i - 1] as usize
        };
        out.extend_from_slice(&chunk.text[start..chunk.ends[i] as usize]);
        if out.len() >= RENDER_CHUNK {
            hasher.update(&out);
            out.clear();
        }
    }
    let digest = if rows.is_empty() {
        String::new()
    } else {
        hasher.update(&out);
        let bytes = hasher.finalize();
        let mut hex = String::with_capacity(64);
        for b in bytes.iter() {
            hex.push(HEX[usize::from(b >> 4)] as char);
            hex.push(HEX[usize::from(b & 15)] as char);
        }
        hex
    };
    (order, digest)
}

/// What `ledgerDigest` returns.
#[napi(object)]
pub struct LedgerDigestResult {
    /// Row indices in ledger order (by path, then tool, code-point order; stable).
    pub order: Uint32Array,
    /// Lowercase 64-hex SHA-256 of the canonical ledger text; `""` for no rows.
    pub digest: String,
}

/// `ledgerDigest(chunks, lengths)`: the chunks, one after another, are every row's tool,
/// path and content digest concatenated (row after row; split into chunks anywhere, so no
/// JavaScript string passes V8's length cap), `lengths` their lengths in UTF-16 code units
/// (three per row). Returns the ledger order and the effect digest. Throws
/// `ERR_TURNGATE_INVALID_ARG` (path `lengths`) when the lengths are not three per row or do
/// not add up to the chunks' length.
#[napi]
pub fn ledger_digest_joined(
    chunks: Vec<Utf16String>,
    lengths: Uint32Array,
) -> Result<LedgerDigestResult> {
    let joined: Vec<u16>;
    let units: &[u16] = if chunks.len() == 1 {
        &chunks[0]
    } else {
        joined = chunks.iter().flat_map(|c| c.iter().copied()).collect();
        &joined
    };
    let lengths: &[u32] = &lengths;
    if !lengths.len().is_multiple_of(3) {
        return Err(thrown(
            INVALID_ARG,
            "lengths",
            "lengths: expected three lengths (tool, path, content digest) per row",
        ));
    }
    let mut rows = Vec::with_capacity(lengths.len() / 3);
    let mut at = 0usize;
    let mut take = |n: u32| -> Option<&[u16]> {
        let end = at.checked_add(n as usize)?;
        let slice = units.get(at..end)?;
        at = end;
        Some(slice)
    };
    for three in lengths.chunks_exact(3) {
        match (take(three[0]), take(three[1]), take(three[2])) {
            (Some(tool), Some(path), Some(digest)) => rows.push(Row { tool, path, digest }),
            _ => {
                return Err(thrown(
                    INVALID_ARG,
                    "lengths",
                    "lengths: add up to more than the fields' length",
                ))
            }
        }
    }
    if at != units.len() {
        return Err(thrown(
            INVALID_ARG,
            "lengths",
            "lengths: add up to less than the fields' length",
        ));
    }
    let (order, digest) = order_and_digest(&rows);
    Ok(LedgerDigestResult {
        order: Uint32Array::new(order),
        digest,
    })
}
