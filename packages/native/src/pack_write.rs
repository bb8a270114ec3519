//! Write blobs into a repository as one pack (`objects/pack/pack-<hash>.{pack,idx}`), for the
//! clean room's index update (`room_index.rs`). One pack file and one index file per call,
//! where loose objects would create a file (and often a fan-out folder) per blob: the room's
//! `.git` is fingerprinted by walking every file in it, so each extra file costs every later
//! check.
//!
//! The formats are git's (`gitformat-pack`): a version 2 pack of whole (undeltified),
//! zlib-compressed blobs, its trailing checksum the repository's hash (SHA-1 or SHA-256) of
//! everything before it; a version 2 pack index: the fan-out table, the sorted object ids,
//! the CRC32 of each packed entry, the 31-bit offsets, the pack's checksum and the index's
//! own. Both files are written to temporary names and renamed into place, the pack first,
//! so a reader that finds the index finds the whole pack. Packs over 2 GiB are refused (no
//! 64-bit offset table); the caller keeps blobs well under that.

use gix::hash::{Kind, ObjectId};
use std::io::Write;
use std::path::Path;

/// Offsets a version 2 index holds without its 64-bit table.
const MAX_OFFSET: u64 = 0x7fff_ffff;

/// Type code of a blob in a pack entry's header.
const BLOB: u8 = 3;

/// Write `blobs` (`(id, bytes)`, ids computed by the caller with `kind`; sorted and without
/// duplicates) as one pack into `objects_dir/pack`. Errors: a message naming what failed
/// (compression, a write or rename in the pack folder, a pack over 2 GiB).
pub fn write_pack(
    objects_dir: &Path,
    kind: Kind,
    blobs: &[(&[u8], ObjectId)],
) -> Result<(), String> {
    let mut pack: Vec<u8> = Vec::new();
    pack.extend_from_slice(b"PACK");
    pack.extend_from_slice(&2u32.to_be_bytes());
    pack.extend_from_slice(&(blobs.len() as u32).to_be_bytes());
    let mut crcs = Vec::with_capacity(blobs.len());
    let mut offsets = Vec::with_capacity(blobs.len());
    for (bytes, _) in blobs {
        let start = pack.len();
        if start as u64 > MAX_OFFSET {
            return Err("the blobs exceed one pack's 2 GiB".into());
        }
        offsets.push(start as u32);
        entry_header(&mut pack, bytes.len() as u64);
        let mut z = gix_zlib::stream::deflate::Write::new(pack, gix_zlib::Compression::BEST_SPEED);
        z.write_all(bytes)
            .and_then(|()| z.flush())
            .map_err(|e| format!("cannot compress a blob: {e}"))?;
        pack = z.into_inner();
        crcs.push(crc32fast::hash(&pack[start..]));
    }
    let pack_sum = checksum(kind, &pack)?;
    pack.extend_from_slice(pack_sum.as_slice());

    let mut idx: Vec<u8> = Vec::new();
    idx.extend_from_slice(b"\xfftOc");
    idx.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for (_, id) in blobs {
        fanout[id.as_slice()[0] as usize] += 1;
    }
    let mut total = 0u32;
    for count in fanout {
        total += count;
        idx.extend_from_slice(&total.to_be_bytes());
    }
    for (_, id) in blobs {
        idx.extend_from_slice(id.as_slice());
    }
    for crc in &crcs {
        idx.extend_from_slice(&crc.to_be_bytes());
    }
    for offset in &offsets {
        idx.extend_from_slice(&offset.to_be_bytes());
    }
    idx.extend_from_slice(pack_sum.as_slice());
    let idx_sum = checksum(kind, &idx)?;
    idx.extend_from_slice(idx_sum.as_slice());

    let dir = objects_dir.join("pack");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    let name = format!("pack-{}", pack_sum.to_hex());
    place(&dir, &format!("{name}.pack"), &pack)?;
    place(&dir, &format!("{name}.idx"), &idx)
}

/// A pack entry's header: the type and the size, 4 bits then 7 bits per byte, low first.
fn entry_header(out: &mut Vec<u8>, size: u64) {
    let mut byte = (BLOB << 4) | (size & 0x0f) as u8;
    let mut rest = size >> 4;
    while rest != 0 {
        out.push(byte | 0x80);
        byte = (rest & 0x7f) as u8;
        rest >>= 7;
    }
    out.push(byte);
}

fn checksum(kind: Kind, bytes: &[u8]) -> Result<ObjectId, String> {
    let mut hasher = gix::hash::hasher(kind);
    hasher.update(bytes);
    hasher
        .try_finalize()
        .map_err(|e| format!("cannot hash the pack: {e}"))
}

/// Write `bytes` to `dir/name` through a temporary file in `dir` (read-only, as git leaves
/// packs), renamed into place. An existing file of that name is the same content (its name
/// is its checksum) and is kept.
fn place(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let target = dir.join(name);
    if target.exists() {
        return Ok(());
    }
    let temp = dir.join(format!("tmp_{}_{name}", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o444)
        .open(&temp)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| std::fs::rename(&temp, &target));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(format!("cannot write {}: {e}", target.display()));
    }
    Ok(())
}
