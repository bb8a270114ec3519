//! The clean room's proof (`roomProveAsync`; `@turngate/node`'s
//! `isolation/room-proof.ts` has the same rules on the TypeScript path, and
//! `isolation/room-manifest.ts` the record layout).
//!
//! One call walks the room (`room_walk.rs`: one `readdir` per folder that holds a named
//! entry, in parallel per level, except the folders whose record from the last proof shows
//! them unchanged), `lstat`s every named entry in parallel and compares it with the record the
//! manifest kept when turngate wrote it. An entry is proven unread only when kind, digest,
//! size, mtime, ctime, inode and mode all equal the record and its ctime is before the stamp;
//! one whose `lstat` equals the record that way but whose recorded digest is not the
//! snapshot's holds the older bytes turngate wrote, and is copied without being read (the
//! TypeScript path reads it and comes to the same); any other entry of the right kind is
//! re-hashed (SHA-256 of the bytes, or of a
//! symlink's link text) and kept when the bytes are the snapshot's; every other entry is to
//! be copied. What the room holds that the snapshot does not name is listed for removal.
//! Given the workspace (`early`), the entries recorded with other bytes (most of a turn's
//! changes) are copied meanwhile on other threads (`room_copy.rs`), and indexed when the
//! room's `.git` is ready.

use crate::errors::{thrown, INVALID_ARG};
use crate::hash::{hash_path, Algorithm, Hashed};
use crate::paths::{check_relative, check_root, join};
use crate::room_copy::{copy_early, Early};
use crate::room_prestat::{stats_from, Ahead, RoomPrestat};
use crate::room_walk::{walk, DirRecords, WalkInput, DIR_RECORD};
use crate::stat::{runs, stat_run_with};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::os::unix::fs::MetadataExt;

/// Bytes per record (see `room-manifest.ts`).
pub(crate) const RECORD: usize = 72;
const KIND_AT: usize = 68;
pub(crate) const FILE: u8 = 1;
pub(crate) const SYMLINK: u8 = 2;

/// What `roomProveAsync` found.
#[napi(object)]
pub struct RoomProof {
    /// One record per snapshot entry, in its order: the kept record (proven), a new one
    /// (re-hashed), or zeros with kind 0 (to copy).
    pub records: Buffer,
    /// Indices of the entries to copy from the workspace, ascending.
    pub copy: Vec<u32>,
    /// Indices of the entries proven by re-hashing, ascending (their bytes are right, but
    /// turngate did not write them: the caller updates the room's index for them).
    pub rehashed: Vec<u32>,
    /// Non-folders in the room the snapshot does not name as that kind (any order).
    pub extra_files: Vec<String>,
    /// Folders in the room that hold no named entry (kept caches included; any order).
    pub extra_dirs: Vec<String>,
    /// Recorded paths the snapshot no longer names (any order).
    pub gone: Vec<String>,
    /// The folder records of this proof (`room_walk.rs`): `dirPaths.length` × 32 bytes.
    pub dir_records: Buffer,
    /// The folders of `dirRecords`, in order (`""` the root).
    pub dir_paths: Vec<String>,
    /// Whether the entries' paths are the recorded paths, in the same order (the manifest's
    /// path block can then be kept as it is).
    pub aligned: bool,
    /// Indices of the entries this call copied from the workspace (given `workspace`),
    /// ascending: their records are the copies'. Not in `copy` or `rehashed`.
    pub copied: Vec<u32>,
    /// Whether `copy` holds the files whose owner-execute bit is not the snapshot's (given
    /// `workspace` and `modes`); otherwise the caller checks.
    pub modes_checked: bool,
    /// Whether the room's index holds every entry of `copied` as copied (asked with
    /// `index`): its blobs and entries were written after the early copies.
    pub indexed: bool,
}

enum Outcome {
    Proven(usize),
    Rehashed([u8; RECORD]),
    Copy,
}

fn invalid(field: &str, message: &str) -> Error {
    thrown(INVALID_ARG, field, &format!("{field}: {message}"))
}

pub(crate) fn hex_digest(text: &str) -> Option<[u8; 32]> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    // Every digit's value, or 0x10 and up for a byte that is not one: OR-ed into `bad`, one
    // test at the end instead of one per digit (20,000 digests per proof).
    let mut bad = 0u8;
    for (slot, pair) in out.iter_mut().zip(bytes.chunks_exact(2)) {
        let (hi, lo) = (HEX[pair[0] as usize], HEX[pair[1] as usize]);
        bad |= hi | lo;
        *slot = (hi << 4) | (lo & 0x0f);
    }
    (bad < 0x10).then_some(out)
}

/// The value of each byte as a hex digit (either case), or 0x10 when it is not one.
const HEX: [u8; 256] = {
    let mut table = [0x10u8; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
};

/// The manifest's records and the snapshot's entries, checked; paths borrow the inputs.
pub(crate) struct Parsed<'a> {
    /// The recorded paths' indices, built only when some record is not at its entry's index.
    by_path: std::sync::OnceLock<HashMap<&'a str, usize>>,
    records: &'a [u8],
    pub(crate) recorded: Vec<&'a str>,
    pub(crate) paths: Vec<&'a str>,
    kinds: Vec<u8>,
    digests: Vec<[u8; 32]>,
}

impl<'a> Parsed<'a> {
    fn new(
        records: &'a [u8],
        paths: &'a [u8],
        recorded_count: u32,
        joined: &'a str,
        count: u32,
    ) -> Result<Parsed<'a>> {
        let recorded_count = recorded_count as usize;
        if records.len() != recorded_count * RECORD {
            return Err(invalid("records", "expected recordedCount × 72 bytes"));
        }
        let recorded: Vec<&str> = if recorded_count == 0 {
            Vec::new()
        } else {
            std::str::from_utf8(paths)
                .map_err(|_| invalid("paths", "expected UTF-8"))?
                .split('\0')
                .collect()
        };
        if recorded.len() != recorded_count {
            return Err(invalid("paths", "expected recordedCount NUL-joined paths"));
        }
        let fields: Vec<&str> = if count == 0 {
            Vec::new()
        } else {
            joined.split('\0').collect()
        };
        if fields.len() != count as usize * 3 {
            return Err(invalid("entries", "expected count × 3 NUL-joined fields"));
        }
        let mut out = Parsed {
            by_path: std::sync::OnceLock::new(),
            records,
            recorded,
            paths: Vec::with_capacity(count as usize),
            kinds: Vec::with_capacity(count as usize),
            digests: Vec::with_capacity(count as usize),
        };
        for (index, triple) in fields.chunks(3).enumerate() {
            let (path, kind_text, digest_text) = (triple[0], triple[1], triple[2]);
            check_relative("entries", index, path)?;
            let kind = match kind_text {
                "file" => FILE,
                "symlink" => SYMLINK,
                _ => {
                    return Err(invalid(
                        &format!("entries[{index}]"),
                        "kind: expected file or symlink",
                    ))
                }
            };
            let digest = hex_digest(digest_text).ok_or_else(|| {
                invalid(&format!("entries[{index}]"), "expected a SHA-256 in hex")
            })?;
            out.paths.push(path);
            out.kinds.push(kind);
            out.digests.push(digest);
        }
        Ok(out)
    }

    /// The index of the record of entry `index`'s path, if any: usually `index` itself.
    pub(crate) fn recorded_at(&self, index: usize) -> Option<usize> {
        let path = self.paths[index];
        if self.recorded.get(index) == Some(&path) {
            return Some(index);
        }
        self.by_path
            .get_or_init(|| self.recorded_index())
            .get(path)
            .copied()
    }

    fn recorded_index(&self) -> HashMap<&'a str, usize> {
        self.recorded
            .iter()
            .enumerate()
            .map(|(i, p)| (*p, i))
            .collect()
    }
}

fn ns(sec: i64, nsec: i64) -> i64 {
    sec.saturating_mul(1_000_000_000).saturating_add(nsec)
}

/// A room entry's `lstat`, as the fields a record holds.
#[derive(Clone, Copy)]
pub(crate) struct RoomStat {
    pub is_file: bool,
    pub is_symlink: bool,
    pub is_dir: bool,
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub ino: u64,
    pub mode: u32,
}

impl RoomStat {
    pub(crate) fn of_meta(meta: &std::fs::Metadata) -> RoomStat {
        let ft = meta.file_type();
        RoomStat {
            is_file: ft.is_file(),
            is_symlink: ft.is_symlink(),
            is_dir: ft.is_dir(),
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
            mode: meta.mode(),
        }
    }

    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)] // field types differ by platform
    pub(crate) fn of_stat(st: &libc::stat) -> RoomStat {
        let format = st.st_mode & libc::S_IFMT;
        RoomStat {
            is_file: format == libc::S_IFREG,
            is_symlink: format == libc::S_IFLNK,
            is_dir: format == libc::S_IFDIR,
            size: st.st_size as u64,
            mtime_ns: ns(st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime_ns: ns(st.st_ctime as i64, st.st_ctime_nsec as i64),
            ino: st.st_ino as u64,
            mode: u32::from(st.st_mode),
        }
    }

    /// The record of a room copy: `digest` with this `lstat`.
    pub(crate) fn record(&self, kind: u8, digest: &[u8; 32]) -> [u8; RECORD] {
        let mut rec = [0u8; RECORD];
        rec[..32].copy_from_slice(digest);
        rec[32..40].copy_from_slice(&self.size.to_le_bytes());
        rec[40..48].copy_from_slice(&self.mtime_ns.to_le_bytes());
        rec[48..56].copy_from_slice(&self.ctime_ns.to_le_bytes());
        rec[56..64].copy_from_slice(&self.ino.to_le_bytes());
        rec[64..68].copy_from_slice(&self.mode.to_le_bytes());
        rec[KIND_AT] = kind;
        rec
    }
}

/// `lstat` of `room/path` for each path (None: absent or unreadable), per run of paths with
/// one parent on the rayon pool (`stat::stat_run_with`: the parent opened once, each name
/// `fstatat`ed without following it).
pub(crate) fn stat_all(room: &str, paths: &[&str]) -> Vec<Option<RoomStat>> {
    let parts: Vec<Vec<Option<RoomStat>>> = runs(paths)
        .par_iter()
        .map(|&(from, to)| {
            stat_run_with(
                room,
                &paths[from..to],
                |rel| {
                    std::fs::symlink_metadata(join(room, rel))
                        .ok()
                        .map(|m| RoomStat::of_meta(&m))
                },
                |outcome, _| outcome.ok().map(RoomStat::of_stat),
            )
        })
        .collect();
    parts.into_iter().flatten().collect()
}

/// The entries to copy while the others are `lstat`ed: recorded, of the same kind, with
/// other bytes (most turns' changes).
fn early_items<'a>(parsed: &Parsed<'a>, modes: &[u32]) -> Vec<Early<'a>> {
    let mut out = Vec::new();
    for (index, path) in parsed.paths.iter().enumerate() {
        let Some(at) = parsed.recorded_at(index) else {
            continue;
        };
        let record = &parsed.records[at * RECORD..(at + 1) * RECORD];
        if record[KIND_AT] == parsed.kinds[index] && record[..32] != parsed.digests[index][..] {
            out.push(Early {
                index,
                path,
                kind: parsed.kinds[index],
                digest: parsed.digests[index],
                mode: modes[index],
            });
        }
    }
    out
}

/// Write the index entries of the early copies that succeeded (`room_index::update`, which
/// reads them back from the room); false when there were none or the update failed (the
/// caller's index update then covers them, and reports what is wrong).
fn index_early(room: &str, items: &[Early], copied: &[Option<Result<[u8; RECORD]>>]) -> bool {
    let done: Vec<String> = items
        .iter()
        .zip(copied)
        .filter(|(_, outcome)| matches!(outcome, Some(Ok(_))))
        .map(|(item, _)| item.path.to_string())
        .collect();
    !done.is_empty() && crate::room_index::update(room, &done, &[]).is_ok()
}

/// Fold the early copies into the proof: each copied entry takes the copy's record and
/// leaves `copy` and `rehashed`, and its path leaves the extra lists (the walk may have
/// listed what was there before the copy). The first failure, in entry order, fails the call.
fn take_early(
    proven: &mut Proven,
    items: &[Early],
    copied: Vec<Option<Result<[u8; RECORD]>>>,
) -> Result<()> {
    let mut done: HashSet<u32> = HashSet::default();
    let mut paths: HashSet<&str> = HashSet::default();
    for (item, outcome) in items.iter().zip(copied) {
        match outcome {
            None => {}
            Some(Err(error)) => return Err(error),
            Some(Ok(record)) => {
                proven.records[item.index * RECORD..(item.index + 1) * RECORD]
                    .copy_from_slice(&record);
                done.insert(item.index as u32);
                paths.insert(item.path);
            }
        }
    }
    proven.copy.retain(|i| !done.contains(i));
    proven.rehashed.retain(|i| !done.contains(i));
    proven.extra_files.retain(|p| !paths.contains(p.as_str()));
    proven.extra_dirs.retain(|p| !paths.contains(p.as_str()));
    let mut copied: Vec<u32> = done.into_iter().collect();
    copied.sort_unstable();
    proven.copied = copied;
    Ok(())
}

/// The snapshot's executable bit: a room file kept (proven or re-hashed) or copied whose
/// owner-execute bit is not the one of its `st_mode` in `modes` is to be copied again (a
/// chmod in the room, or a mode-only change in the workspace).
fn check_modes(proven: &mut Proven, parsed: &Parsed, modes: &[u32]) {
    let mut added = false;
    for (index, kind) in parsed.kinds.iter().enumerate() {
        let record = &proven.records[index * RECORD..(index + 1) * RECORD];
        if *kind != FILE || record[KIND_AT] != FILE {
            continue;
        }
        let mode = u32::from_le_bytes([record[64], record[65], record[66], record[67]]);
        if (mode & 0o100) != (modes[index] & 0o100) {
            proven.copy.push(index as u32);
            added = true;
        }
    }
    if added {
        proven.copy.sort_unstable();
        proven.copy.dedup();
    }
    proven.modes_checked = true;
}

/// Whether the room entry `room/rel` hashes to `digest` (SHA-256 of a regular file's bytes,
/// or of a symlink's link text: `hash::hash_path`, the observer's hasher). False when it
/// cannot be read.
fn holds(room: &str, rel: &str, digest: &[u8; 32]) -> bool {
    match hash_path(room, rel, Algorithm::Sha256) {
        Hashed::Ok { digest: found, .. } => hex_digest(&found).as_ref() == Some(digest),
        Hashed::Err { .. } => false,
    }
}

pub struct RoomProveTask {
    room: String,
    records: Vec<u8>,
    paths: Vec<u8>,
    recorded_count: u32,
    joined: String,
    count: u32,
    stamp: i64,
    dir_records: Vec<u8>,
    dir_paths: Vec<String>,
    fresh: i64,
    early: Option<EarlyInput>,
    /// The recorded paths' `lstat`s, begun by `roomPrestat` before this call.
    prestat: Option<Ahead>,
}

/// What the proof needs to copy the changed entries while it `lstat`s the others.
struct EarlyInput {
    workspace: String,
    /// The entries' `st_mode`s, in their order.
    modes: Vec<u32>,
    /// The mtime (whole seconds) the sync gives its copies.
    mtime_s: i64,
    /// Whether the room's `.git` is proven and ready: the early copies' index entries are
    /// then written too (`room_index.rs`), still while the others are `lstat`ed.
    index: bool,
}

/// The proof's result before it crosses to JavaScript.
pub struct Proven {
    records: Vec<u8>,
    copy: Vec<u32>,
    rehashed: Vec<u32>,
    extra_files: Vec<String>,
    extra_dirs: Vec<String>,
    gone: Vec<String>,
    dir_records: Vec<u8>,
    dir_paths: Vec<String>,
    aligned: bool,
    copied: Vec<u32>,
    modes_checked: bool,
    indexed: bool,
}

impl Task for RoomProveTask {
    type Output = Proven;
    type JsValue = RoomProof;

    fn compute(&mut self) -> Result<Self::Output> {
        let parsed = Parsed::new(
            &self.records,
            &self.paths,
            self.recorded_count,
            &self.joined,
            self.count,
        )?;
        if self.dir_records.len() != self.dir_paths.len() * DIR_RECORD {
            return Err(invalid("dirRecords", "expected dirPaths.length × 32 bytes"));
        }
        let dirs = DirRecords::new(
            &self.dir_records,
            self.dir_paths.iter().map(String::as_str).collect(),
        );
        let room = self.room.as_str();
        let prestat = self.prestat.take();
        let pre = Pre {
            handle: prestat,
            block: &self.paths,
        };
        let Some(early) = &self.early else {
            return Ok(prove(room, &parsed, &dirs, self.stamp, self.fresh, pre));
        };
        // The changed entries are found and copied while the others are `lstat`ed.
        let (mut proven, early_done) = std::thread::scope(|scope| {
            let copier = scope.spawn(|| {
                let items = early_items(&parsed, &early.modes);
                let copied = copy_early(&early.workspace, room, &items, early.mtime_s);
                let indexed = early.index && index_early(room, &items, &copied);
                (items, copied, indexed)
            });
            let proven = prove(room, &parsed, &dirs, self.stamp, self.fresh, pre);
            (proven, copier.join())
        });
        let (items, copied, indexed) =
            early_done.map_err(|_| invalid("entries", "a copy thread failed"))?;
        take_early(&mut proven, &items, copied)?;
        proven.indexed = indexed && !proven.copied.is_empty();
        check_modes(&mut proven, &parsed, &early.modes);
        Ok(proven)
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(RoomProof {
            records: output.records.into(),
            copy: output.copy,
            rehashed: output.rehashed,
            extra_files: output.extra_files,
            extra_dirs: output.extra_dirs,
            gone: output.gone,
            dir_records: output.dir_records.into(),
            dir_paths: output.dir_paths,
            aligned: output.aligned,
            copied: output.copied,
            modes_checked: output.modes_checked,
            indexed: output.indexed,
        })
    }
}

/// `roomProveAsync(room, records, paths, recordedCount, joined, count, stampNs, dirRecords,
/// dirPaths, freshNs)`: prove the
/// room folder `room` (absolute) against the entries `joined` (`count` × `path`,
/// `file`|`symlink`, hex SHA-256, NUL-joined) with the manifest's `recordedCount` records
/// (`records`) and their NUL-joined `paths`; `stampNs` (decimal ns) is the ctime from which
/// a record proves nothing; `dirRecords` and `dirPaths` are the folder records of the last
/// proof (`room_walk.rs`; empty: every folder is read), `freshNs` the ctime of a stamp
/// written before this call (a folder is recorded clean only when older); `prestat`, a
/// `roomPrestat` handle for this room and `paths` block, lends its stats for the recorded
/// entries (one for another room or block is ignored). Off the JS thread (parallel inside). Rejects with
/// `ERR_TURNGATE_INVALID_ARG` naming `records`, `paths`, `entries[i]`; throws it for `room`,
/// `stampNs`. Reading errors in the room are outcomes (to copy), never errors.
#[allow(clippy::too_many_arguments)]
#[napi]
pub fn room_prove_async(
    room: String,
    records: Buffer,
    paths: Buffer,
    recorded_count: u32,
    joined: String,
    count: u32,
    stamp_ns: String,
    dir_records: Buffer,
    dir_paths: Vec<String>,
    fresh_ns: String,
    workspace: Option<String>,
    modes: Option<Buffer>,
    mtime_s: Option<i64>,
    index: Option<bool>,
    prestat: Option<&RoomPrestat>,
) -> Result<AsyncTask<RoomProveTask>> {
    check_root(&room)?;
    let stamp: i64 = stamp_ns
        .parse()
        .map_err(|_| invalid("stampNs", "expected a decimal integer of nanoseconds"))?;
    let fresh: i64 = fresh_ns
        .parse()
        .map_err(|_| invalid("freshNs", "expected a decimal integer of nanoseconds"))?;
    let early = match (workspace, modes, mtime_s) {
        (Some(workspace), Some(modes), Some(mtime_s)) => {
            check_root(&workspace)?;
            if modes.len() != count as usize * 4 {
                return Err(invalid(
                    "modes",
                    "expected count × 4 bytes (u32 st_mode each)",
                ));
            }
            if mtime_s < 0 {
                return Err(invalid("mtimeS", "expected whole seconds since the epoch"));
            }
            let modes = modes
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            Some(EarlyInput {
                workspace,
                modes,
                mtime_s,
                index: index.unwrap_or(false),
            })
        }
        (None, None, None) => None,
        _ => {
            return Err(invalid(
                "workspace",
                "workspace, modes and mtimeS are given together or not at all",
            ))
        }
    };
    Ok(AsyncTask::new(RoomProveTask {
        room,
        records: records.to_vec(),
        paths: paths.to_vec(),
        recorded_count,
        joined,
        count,
        stamp,
        dir_records: dir_records.to_vec(),
        dir_paths,
        fresh,
        early,
        prestat: prestat.and_then(RoomPrestat::take),
    }))
}

/// The snapshot's names, as the walk looks them up: each path's kind, the folders above the
/// paths (and by parent), and the recorded paths it no longer names.
struct Names<'a> {
    named: HashMap<&'a str, u8>,
    ancestors: HashSet<&'a str>,
    ancestors_in: HashMap<&'a str, Vec<&'a str>>,
    gone: Vec<&'a str>,
    /// Whether the snapshot names exactly the recorded paths, in their order.
    aligned: bool,
}

fn names<'a>(parsed: &Parsed<'a>) -> Names<'a> {
    let mut named: HashMap<&'a str, u8> =
        HashMap::with_capacity_and_hasher(parsed.paths.len(), Default::default());
    named.extend(
        parsed
            .paths
            .iter()
            .zip(&parsed.kinds)
            .map(|(p, k)| (*p, *k)),
    );
    let aligned = parsed.recorded == parsed.paths;
    // Each path's parent, then its parents until one is known (siblings share them).
    let mut ancestors: HashSet<&'a str> = HashSet::default();
    for path in &parsed.paths {
        let mut at = *path;
        while let Some((parent, _)) = at.rsplit_once('/') {
            if !ancestors.insert(parent) {
                break;
            }
            at = parent;
        }
    }
    let mut ancestors_in: HashMap<&'a str, Vec<&'a str>> = HashMap::default();
    for dir in &ancestors {
        ancestors_in
            .entry(dir.rsplit_once('/').map_or("", |(parent, _)| parent))
            .or_default()
            .push(dir);
    }
    let gone: Vec<&'a str> = if aligned {
        Vec::new()
    } else {
        parsed
            .recorded
            .iter()
            .filter(|p| !named.contains_key(*p))
            .copied()
            .collect()
    };
    Names {
        named,
        ancestors,
        ancestors_in,
        gone,
        aligned,
    }
}

/// A `roomPrestat` handle and the recorded block this proof was given.
struct Pre<'a> {
    handle: Option<Ahead>,
    block: &'a [u8],
}

fn prove(
    room: &str,
    parsed: &Parsed,
    dirs: &DirRecords,
    stamp: i64,
    fresh: i64,
    pre: Pre,
) -> Proven {
    // The walk's name tables are built while the entries are `lstat`ed (or while the
    // recorded paths' `lstat`s, begun before this call, finish).
    let (stats, names) = std::thread::scope(|scope| {
        // No thread to be had: the tables are built after the stats instead.
        let tables = std::thread::Builder::new()
            .spawn_scoped(scope, || names(parsed))
            .ok();
        let stats = pre
            .handle
            .and_then(Ahead::wait)
            .and_then(|prestat| stats_from(prestat, room, pre.block, parsed))
            .unwrap_or_else(|| stat_all(room, &parsed.paths));
        let built = tables.and_then(|handle| handle.join().ok());
        (stats, built.unwrap_or_else(|| names(parsed)))
    });
    let outcomes: Vec<Outcome> = (0..parsed.paths.len())
        .into_par_iter()
        .map(|index| {
            let (path, kind, digest) = (
                &parsed.paths[index],
                parsed.kinds[index],
                &parsed.digests[index],
            );
            let Some(stat) = stats[index] else {
                return Outcome::Copy;
            };
            let right = if kind == FILE {
                stat.is_file
            } else {
                stat.is_symlink
            };
            if !right {
                return Outcome::Copy;
            }
            let now = stat.record(kind, digest);
            if let Some(i) = parsed.recorded_at(index) {
                let before = &parsed.records[i * RECORD..(i + 1) * RECORD];
                if stat.ctime_ns < stamp {
                    if before == &now[..] {
                        return Outcome::Proven(i);
                    }
                    // The room's file is unchanged since turngate wrote other bytes there
                    // (the snapshot's digest is new): proven stale, copied without reading.
                    if before[..32] != digest[..] && before[32..] == now[32..] {
                        return Outcome::Copy;
                    }
                }
            }
            if holds(room, path, digest) {
                Outcome::Rehashed(now)
            } else {
                Outcome::Copy
            }
        })
        .collect();

    let mut records = vec![0u8; parsed.paths.len() * RECORD];
    let mut copy = Vec::new();
    let mut rehashed = Vec::new();
    for (index, outcome) in outcomes.iter().enumerate() {
        let slot = &mut records[index * RECORD..(index + 1) * RECORD];
        match outcome {
            Outcome::Proven(i) => {
                slot.copy_from_slice(&parsed.records[i * RECORD..(i + 1) * RECORD])
            }
            Outcome::Rehashed(rec) => {
                slot.copy_from_slice(rec);
                rehashed.push(index as u32);
            }
            Outcome::Copy => copy.push(index as u32),
        }
    }

    let Names {
        named,
        ancestors,
        ancestors_in,
        gone,
        aligned,
    } = names;
    let walked = walk(
        room,
        &WalkInput {
            named: &named,
            ancestors: &ancestors,
            ancestors_in: &ancestors_in,
            gone: &gone,
            paths: &parsed.paths,
            kinds: &parsed.kinds,
            stats: &stats,
            dirs,
            stamp,
            fresh,
        },
    );
    Proven {
        records,
        copy,
        rehashed,
        extra_files: walked.files,
        extra_dirs: walked.dirs,
        gone: gone.into_iter().map(str::to_string).collect(),
        dir_records: walked.dir_records,
        dir_paths: walked.dir_paths,
        aligned,
        copied: Vec::new(),
        modes_checked: false,
        indexed: false,
    }
}
