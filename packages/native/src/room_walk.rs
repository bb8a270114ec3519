//! The clean room's walk for what the snapshot does not name (`room.rs`'s proof; the
//! TypeScript path's `isolation/room-proof.ts` gives the same lists and folder records).
//!
//! The walk starts at the room's root and goes down through the folders that hold named
//! entries (the root's `.git` skipped), one level at a time, in parallel. Each folder is
//! `lstat`ed first. A folder whose record from the last proof says it held nothing but named
//! entries and their folders (*clean*), and whose `lstat` still has that record's inode,
//! mtime and ctime with the ctime before the stamp, has not had an entry added, removed or
//! renamed since: creating, removing or renaming a name in a folder moves its ctime, which no
//! process can set back. Its listing is then not read. What it holds is known: the entries
//! it held then, which are the snapshot's entries in it (their `lstat` from the proof says
//! which are of another kind now), the recorded entries the snapshot no longer names, and the
//! recorded folders. Every other folder is read (`readdir`), and its record is taken anew.
//!
//! A record is clean only when the folder held nothing but named entries and folders, every
//! such folder got a record of its own in the same walk (so a skipped folder's sub-folders
//! are all known), and its ctime is before `fresh` (a stamp written before the walk: a name
//! planted right after the folder was read, in the same clock tick, cannot hide behind the
//! record). A folder that cannot be listed is reported as an extra folder (the caller removes
//! it, and the named entries in it are copied anew): what it holds cannot be proven.
//!
//! Folder record (32 bytes, little-endian): inode (u64), mtime (i64, ns), ctime (i64, ns),
//! flags (u32, bit 0 = clean), 4 zero bytes. Paths are room-relative, the root `""`.

use crate::paths::join;
use crate::room::{RoomStat, FILE, SYMLINK};
use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Bytes per folder record.
pub const DIR_RECORD: usize = 32;
const CLEAN: u32 = 1;

/// The folder records of the last proof, by path.
pub struct DirRecords<'a> {
    records: &'a [u8],
    by_path: HashMap<&'a str, usize>,
    /// Recorded folders by their parent folder.
    children: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> DirRecords<'a> {
    /// The records `records` (`paths.len()` × [`DIR_RECORD`] bytes, checked by the caller)
    /// of the folders `paths`.
    pub fn new(records: &'a [u8], paths: Vec<&'a str>) -> DirRecords<'a> {
        let mut by_path = HashMap::with_capacity_and_hasher(paths.len(), Default::default());
        let mut children: HashMap<&str, Vec<&str>> = HashMap::default();
        for (i, path) in paths.into_iter().enumerate() {
            by_path.insert(path, i);
            if !path.is_empty() {
                children.entry(parent_of(path)).or_default().push(path);
            }
        }
        DirRecords {
            records,
            by_path,
            children,
        }
    }

    fn get(&self, path: &str) -> Option<&'a [u8]> {
        self.by_path
            .get(path)
            .map(|&i| &self.records[i * DIR_RECORD..(i + 1) * DIR_RECORD])
    }
}

/// What the walk needs of the snapshot and of the proof's `lstat`s.
pub struct WalkInput<'a, 'b> {
    pub named: &'b HashMap<&'a str, u8>,
    pub ancestors: &'b HashSet<&'a str>,
    /// The snapshot's folders by their parent.
    pub ancestors_in: &'b HashMap<&'a str, Vec<&'a str>>,
    /// The recorded paths the snapshot no longer names.
    pub gone: &'b [&'a str],
    /// The snapshot's entries: paths, kinds and their `lstat` in the room (None: absent).
    pub paths: &'b [&'a str],
    pub kinds: &'b [u8],
    pub stats: &'b [Option<RoomStat>],
    pub dirs: &'b DirRecords<'a>,
    /// ctime (ns) from which a folder record proves nothing.
    pub stamp: i64,
    /// ctime (ns) of a stamp written before this walk: a folder is recorded clean only when
    /// its ctime is before it.
    pub fresh: i64,
}

/// The walk's lists and the folder records to keep.
pub struct Walked {
    pub files: Vec<String>,
    pub dirs: Vec<String>,
    /// One record per folder reached, in `dir_paths` order.
    pub dir_records: Vec<u8>,
    pub dir_paths: Vec<String>,
}

/// One folder's part of the walk.
#[derive(Default)]
struct Visit {
    files: Vec<String>,
    dirs: Vec<String>,
    next: Vec<String>,
    record: Option<[u8; DIR_RECORD]>,
}

/// Walk `room` (see the module comment).
pub fn walk(room: &str, input: &WalkInput) -> Walked {
    // The named entries the proof found as another kind (not a folder), by parent: what a
    // skipped folder holds that is not named as that kind.
    let mut odd_in: HashMap<&str, Vec<usize>> = HashMap::default();
    for (i, stat) in input.stats.iter().enumerate() {
        if let Some(stat) = stat {
            if !stat.is_dir && kind_of(stat) != input.kinds[i] {
                odd_in.entry(parent_of(input.paths[i])).or_default().push(i);
            }
        }
    }
    let mut gone_in: HashMap<&str, Vec<&str>> = HashMap::default();
    for path in input.gone {
        gone_in.entry(parent_of(path)).or_default().push(path);
    }
    let mut out = Walked {
        files: Vec::new(),
        dirs: Vec::new(),
        dir_records: Vec::new(),
        dir_paths: Vec::new(),
    };
    // Per folder recorded: its index in the output and the sub-folders it went on to.
    let mut recorded: Vec<(usize, Vec<String>)> = Vec::new();
    let mut level = vec![String::new()];
    while !level.is_empty() {
        let visits: Vec<Visit> = level
            .par_iter()
            .map(|dir| visit(room, dir, input, &odd_in, &gone_in))
            .collect();
        let mut next = Vec::new();
        for (dir, visit) in level.into_iter().zip(visits) {
            out.files.extend(visit.files);
            out.dirs.extend(visit.dirs);
            if let Some(record) = visit.record {
                recorded.push((out.dir_paths.len(), visit.next.clone()));
                out.dir_records.extend_from_slice(&record);
                out.dir_paths.push(dir);
            }
            next.extend(visit.next);
        }
        level = next;
    }
    // A folder is clean only if every sub-folder it went on to got a record too.
    let known: HashSet<&str> = out.dir_paths.iter().map(String::as_str).collect();
    let unclean: Vec<usize> = recorded
        .iter()
        .filter(|(_, children)| children.iter().any(|c| !known.contains(c.as_str())))
        .map(|(at, _)| *at)
        .collect();
    for at in unclean {
        let flags = at * DIR_RECORD + 24;
        out.dir_records[flags..flags + 4].copy_from_slice(&0u32.to_le_bytes());
    }
    out
}

fn visit(
    room: &str,
    dir: &str,
    input: &WalkInput,
    odd_in: &HashMap<&str, Vec<usize>>,
    gone_in: &HashMap<&str, Vec<&str>>,
) -> Visit {
    let mut out = Visit::default();
    let Ok(meta) = std::fs::symlink_metadata(join(room, dir)) else {
        return out;
    };
    if !meta.file_type().is_dir() {
        return out;
    }
    let now = RoomStat::of_meta(&meta);
    if let Some(record) = input.dirs.get(dir) {
        if unchanged(record, &now, input.stamp) {
            known(dir, input, odd_in, gone_in, &mut out);
            // As a read would: a folder holding what is not named is not clean.
            let clean = out.files.is_empty() && out.dirs.is_empty() && now.ctime_ns < input.fresh;
            out.record = Some(record_of(&now, clean));
            return out;
        }
    }
    let Ok(read) = std::fs::read_dir(join(room, dir)) else {
        // Its names cannot be proven: the folder goes (not the root: the caller opens it).
        if !dir.is_empty() {
            out.dirs.push(dir.to_string());
        }
        return out;
    };
    let mut clean = true;
    for entry in read.filter_map(|entry| entry.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = if dir.is_empty() {
            name
        } else {
            format!("{dir}/{name}")
        };
        if path == ".git" {
            continue;
        }
        let ft = entry.file_type().ok();
        if ft.map(|t| t.is_dir()).unwrap_or(false) {
            if input.ancestors.contains(path.as_str()) {
                out.next.push(path);
            } else {
                clean = false;
                out.dirs.push(path);
            }
            continue;
        }
        let kind = match ft {
            Some(t) if t.is_file() => FILE,
            Some(t) if t.is_symlink() => SYMLINK,
            _ => 0,
        };
        if input.named.get(path.as_str()) != Some(&kind) {
            clean = false;
            out.files.push(path);
        }
    }
    out.record = Some(record_of(&now, clean && now.ctime_ns < input.fresh));
    out
}

/// The listing of an unchanged clean folder, from the records and the proof's `lstat`s.
fn known(
    dir: &str,
    input: &WalkInput,
    odd_in: &HashMap<&str, Vec<usize>>,
    gone_in: &HashMap<&str, Vec<&str>>,
    out: &mut Visit,
) {
    // Named entries of another kind (a folder under a named entry's name is a recorded
    // folder: the folder was clean).
    for &i in odd_in.get(dir).map(Vec::as_slice).unwrap_or(&[]) {
        out.files.push(input.paths[i].to_string());
    }
    for path in gone_in.get(dir).map(Vec::as_slice).unwrap_or(&[]) {
        if input.dirs.by_path.contains_key(path) {
            continue; // a recorded folder: handled below
        }
        out.files.push(path.to_string());
    }
    for path in input
        .dirs
        .children
        .get(dir)
        .map(Vec::as_slice)
        .unwrap_or(&[])
    {
        if input.ancestors.contains(path) {
            out.next.push(path.to_string());
        } else {
            out.dirs.push(path.to_string());
        }
    }
    // The snapshot's folders in it that have no record: absent (the folder is unchanged and
    // every sub-folder it held was recorded), visited anyway, never assumed.
    for path in input
        .ancestors_in
        .get(dir)
        .map(Vec::as_slice)
        .unwrap_or(&[])
    {
        if !input.dirs.by_path.contains_key(path) {
            out.next.push(path.to_string());
        }
    }
}

/// An entry's kind code from its `lstat` (0: neither a file nor a symlink).
fn kind_of(stat: &RoomStat) -> u8 {
    if stat.is_file {
        FILE
    } else if stat.is_symlink {
        SYMLINK
    } else {
        0
    }
}

fn unchanged(record: &[u8], now: &RoomStat, stamp: i64) -> bool {
    let field = |at: usize| i64::from_le_bytes(record[at..at + 8].try_into().expect("8 bytes"));
    let flags = u32::from_le_bytes(record[24..28].try_into().expect("4 bytes"));
    flags & CLEAN != 0
        && field(0) as u64 == now.ino
        && field(8) == now.mtime_ns
        && field(16) == now.ctime_ns
        && now.ctime_ns < stamp
}

fn record_of(stat: &RoomStat, clean: bool) -> [u8; DIR_RECORD] {
    let mut rec = [0u8; DIR_RECORD];
    rec[..8].copy_from_slice(&stat.ino.to_le_bytes());
    rec[8..16].copy_from_slice(&stat.mtime_ns.to_le_bytes());
    rec[16..24].copy_from_slice(&stat.ctime_ns.to_le_bytes());
    rec[24..28].copy_from_slice(&(if clean { CLEAN } else { 0 }).to_le_bytes());
    rec
}

fn parent_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}
