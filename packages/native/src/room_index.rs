//! The clean room's index update, in-process with gitoxide (`roomIndexUpdateAsync`; issue 33
//! "git subprocesses remain only where an operation has no gitoxide equivalent").
//! `@turngate/node`'s `isolation/room-git.ts` does the same with `git fast-import` and
//! `git update-index --add --remove --replace` on the TypeScript path; both leave the same
//! index entries (path, mode, object id, stat) and the same objects.
//!
//! One call, on the room's own repository (opened isolated: no global or system
//! configuration, no environment):
//! 1. the index entries of `gone` (paths no longer in the room) are removed;
//! 2. each `written` path is read from the room (a regular file opened without following a
//!    link, its `fstat` taken on the same descriptor; a symlink's link text) and its blob
//!    written to the object database unless it is there already: the new blobs as one pack
//!    (`pack_write.rs`), or as loose objects above 64 MiB;
//!    a path the room no longer holds, or that is neither a file nor a symlink, loses its
//!    entry as `--remove` does;
//! 3. as `--replace` does, a written path replaces the entries below it (a file where a
//!    folder was) and the entry of any folder above it (a folder where a file was); when
//!    nothing is gone and every written path already has its one entry (most turns), those
//!    entries are updated where they are, without a pass over the others;
//! 4. the index is sorted and written whole under git's lock file (`index.lock`), its cache
//!    extensions (tree, untracked) invalidated so git recomputes them.
//!
//! Where git would convert the bytes it stores (an attributes file: `text`, `eol`, `ident`,
//! `working-tree-encoding`), the call refuses with `ERR_TURNGATE_ROOM_GIT` before writing
//! anything, and the caller has git do it.

use crate::errors::{thrown, INVALID_ARG};
use crate::pack_write::write_pack;
use crate::paths::{check_relative, check_root, join};
use gix::bstr::{BStr, ByteSlice};
use gix::index::entry::{Flags, Mode, Stat};
use gix::objs::Write;
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;
use sha2::Digest as _;
use std::collections::HashSet;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};

/// Above this many bytes of new blobs, they are written as loose objects (no pack in memory).
const PACK_MAX_BYTES: usize = 64 << 20;

/// Code of a failure of the room's repository (open, read, object or index write).
pub const ROOM_GIT: &str = "ERR_TURNGATE_ROOM_GIT";

/// What `roomIndexUpdateAsync` did.
#[napi(object)]
pub struct RoomIndexUpdate {
    /// Blobs written (the object database did not hold them).
    pub objects: u32,
    /// Entries in the index written.
    pub entries: u32,
}

pub struct RoomIndexTask {
    room: String,
    written: Vec<String>,
    gone: Vec<String>,
}

impl Task for RoomIndexTask {
    type Output = RoomIndexUpdate;
    type JsValue = RoomIndexUpdate;

    fn compute(&mut self) -> Result<Self::Output> {
        update(&self.room, &self.written, &self.gone)
            .map_err(|message| thrown(ROOM_GIT, &self.room, &message))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output)
    }
}

/// `roomIndexUpdateAsync(room, written, gone)`: update the index of the repository whose
/// work tree is `room` (absolute; `room/.git` a folder) for the room-relative `/` paths
/// `written` (added or changed files and symlinks) and `gone` (paths no longer in the room),
/// as the module comment says. Off the JS thread. Throws `ERR_TURNGATE_INVALID_ARG` naming
/// `room`, `written[i]` or `gone[i]`; rejects with `ERR_TURNGATE_ROOM_GIT` (path = `room`)
/// when the repository cannot be opened, an object or the index cannot be written.
#[napi]
pub fn room_index_update_async(
    room: String,
    written: Vec<String>,
    gone: Vec<String>,
) -> Result<AsyncTask<RoomIndexTask>> {
    check_root(&room)?;
    for (index, path) in written.iter().enumerate() {
        check_relative("written", index, path)?;
    }
    for (index, path) in gone.iter().enumerate() {
        check_relative("gone", index, path)?;
    }
    if !real_git_folder(&room) {
        return Err(thrown(
            INVALID_ARG,
            "room",
            "room: expected a work tree with a .git folder",
        ));
    }
    Ok(AsyncTask::new(RoomIndexTask {
        room,
        written,
        gone,
    }))
}

/// A written path read from the room: its bytes, index stat, mode and blob id.
type Read = (Vec<u8>, Stat, Mode, gix::ObjectId);

/// A written path as the index will hold it.
struct Added<'a> {
    path: &'a str,
    stat: Stat,
    id: gix::ObjectId,
    mode: Mode,
}

pub(crate) fn update(
    room: &str,
    written: &[String],
    gone: &[String],
) -> std::result::Result<RoomIndexUpdate, String> {
    // A link where the room's .git folder should be is never followed (the index and the
    // objects would be written wherever it points).
    if !real_git_folder(room) {
        return Err(
            "the room's .git is not a folder (a link or a file is never written through)".into(),
        );
    }
    let repo = gix::open_opts(join(room, ".git"), gix::open::Options::isolated())
        .map_err(|e| format!("cannot open the room's repository: {e}"))?;
    // The room's `.git` was proven to be what turngate left before this call (else it was
    // cloned again and git builds the index), so its checksum is not verified on read.
    let mut index = gix::index::File::at(
        repo.index_path(),
        repo.object_hash(),
        true,
        gix::index::decode::Options::default(),
    )
    .map_err(|e| format!("cannot read the room's index: {e}"))?;

    if let Some(why) = attributes(room, &index, written) {
        return Err(why);
    }
    let mut drop: HashSet<&[u8]> = gone.iter().map(|p| p.as_bytes()).collect();
    let mut todo: Vec<&str> = Vec::with_capacity(written.len());
    for path in written {
        if drop.insert(path.as_bytes()) {
            todo.push(path);
        }
    }
    // Read and hash in parallel; the blobs the object database lacks are written in
    // parallel too, each as a loose object (the store is a plain folder writer).
    let kind = repo.object_hash();
    let read: Vec<std::result::Result<Option<Read>, String>> = todo
        .par_iter()
        .map(|path| {
            let Some((bytes, stat, mode)) = read_entry(&join(room, path))? else {
                return Ok(None); // not in the room (or not a file or link): only its entry goes
            };
            let id = gix::objs::compute_hash(kind, gix::objs::Kind::Blob, &bytes)
                .map_err(|e| format!("{path}: {e}"))?;
            Ok(Some((bytes, stat, mode, id)))
        })
        .collect();
    let mut added: Vec<Added> = Vec::with_capacity(todo.len());
    let mut missing: Vec<(&[u8], gix::ObjectId)> = Vec::new();
    for (path, outcome) in todo.iter().zip(&read) {
        let Some((bytes, stat, mode, id)) = outcome.as_ref().map_err(Clone::clone)? else {
            continue;
        };
        if !repo.objects.exists_without_refresh(id) {
            missing.push((bytes, *id));
        }
        added.push(Added {
            path,
            stat: *stat,
            id: *id,
            mode: *mode,
        });
    }
    missing.sort_by_key(|a| a.1);
    missing.dedup_by(|a, b| a.1 == b.1);
    let bytes: usize = missing.iter().map(|(b, _)| b.len()).sum();
    if bytes <= PACK_MAX_BYTES {
        if !missing.is_empty() {
            write_pack(&repo.common_dir().join("objects"), kind, &missing)?;
        }
    } else {
        let loose = gix::odb::loose::Store::at(repo.common_dir().join("objects"), kind);
        missing
            .par_iter()
            .map(|(bytes, id)| {
                loose
                    .write_buf_with_known_id(gix::objs::Kind::Blob, bytes, *id)
                    .map(|_| ())
                    .map_err(|e| format!("cannot write the blob {id}: {e}"))
            })
            .collect::<std::result::Result<Vec<()>, String>>()?;
    }
    let objects = missing.len() as u32;

    // Most turns change files the index already holds: their entries are updated where
    // they are (no scan of every entry, no sort). Anything else takes the general path.
    let in_place =
        gone.is_empty() && added.len() == todo.len() && update_in_place(&mut index, &added);
    if !in_place {
        replace(&mut index, &added, &drop);
    }
    let entries = index.entries().len() as u32;
    write_index(&index, &repo.index_path())?;
    Ok(RoomIndexUpdate { objects, entries })
}

/// Whether `room/.git` is a folder itself, not a link to one.
fn real_git_folder(room: &str) -> bool {
    std::fs::symlink_metadata(join(room, ".git")).is_ok_and(|meta| meta.is_dir())
}

/// Give each of `added` its new stat, id and mode where the index holds that path once, at
/// stage 0; false (nothing changed) when some path is not held so.
fn update_in_place(index: &mut gix::index::File, added: &[Added]) -> bool {
    let mut at = Vec::with_capacity(added.len());
    for add in added {
        match index.entry_range(add.path.into()) {
            Some(range) if range.len() == 1 && index.entries()[range.start].stage_raw() == 0 => {
                at.push(range.start)
            }
            _ => return false,
        }
    }
    let entries = index.entries_mut();
    for (add, i) in added.iter().zip(at) {
        let entry = &mut entries[i];
        entry.stat = add.stat;
        entry.id = add.id;
        entry.mode = add.mode;
        entry.flags = Flags::empty();
    }
    true
}

/// As `git update-index --add --remove --replace`: the entries of `drop` (gone and written
/// paths), of the folders above a written path and of the paths below one go, then `added`
/// is pushed and the entries sorted.
fn replace(index: &mut gix::index::File, added: &[Added], drop: &HashSet<&[u8]>) {
    let mut above: HashSet<&[u8]> = HashSet::new();
    let mut written_set: HashSet<&[u8]> = HashSet::new();
    for add in added {
        let bytes = add.path.as_bytes();
        written_set.insert(bytes);
        for (i, b) in bytes.iter().enumerate() {
            if *b == b'/' {
                above.insert(&bytes[..i]);
            }
        }
    }
    index.remove_entries(|_, path: &BStr, _| {
        let bytes: &[u8] = path.as_bytes();
        if drop.contains(bytes) || above.contains(bytes) {
            return true;
        }
        bytes
            .iter()
            .enumerate()
            .any(|(i, b)| *b == b'/' && written_set.contains(&bytes[..i]))
    });
    for add in added {
        index.dangerously_push_entry(add.stat, add.id, Flags::empty(), add.mode, add.path.into());
    }
    index.sort_entries();
}

/// Write `index` whole to `path` as git does: into `<path>.lock` (created exclusively: a
/// lock someone holds fails the call), then renamed over `path`. Its cache extensions (tree,
/// untracked) are invalidated so git recomputes them. The trailing checksum is SHA-1 or
/// SHA-256 of the bytes before it, computed here with the CPU's SHA instructions where it
/// has them (gitoxide's own writer uses the collision-detecting SHA-1, which object ids need
/// but the index's checksum does not: with it, reading and writing the room's 20,000-entry
/// index took about twice as long).
fn write_index(
    index: &gix::index::File,
    path: &std::path::Path,
) -> std::result::Result<(), String> {
    let mut bytes = Vec::with_capacity(index.entries().len() * 96 + 4096);
    index
        .write_to(
            &mut bytes,
            gix::index::write::Options {
                skip_hash: true,
                ..Default::default()
            },
        )
        .map_err(|e| format!("cannot write the room's index: {e}"))?;
    let size = index.object_hash().len_in_bytes();
    let body = bytes.len() - size;
    let sum: Vec<u8> = match index.object_hash() {
        gix::hash::Kind::Sha1 => sha1::Sha1::digest(&bytes[..body]).to_vec(),
        _ => sha2::Sha256::digest(&bytes[..body]).to_vec(),
    };
    bytes[body..].copy_from_slice(&sum);
    let mut lock_name = path.as_os_str().to_owned();
    lock_name.push(".lock");
    let lock = std::path::PathBuf::from(lock_name);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .open(&lock)
        .map_err(|e| format!("cannot create {}: {e}", lock.display()))?;
    let written =
        std::io::Write::write_all(&mut file, &bytes).and_then(|()| std::fs::rename(&lock, path));
    drop(file);
    written.map_err(|e| {
        let _ = std::fs::remove_file(&lock);
        format!("cannot write the room's index: {e}")
    })
}

/// Why git must write this index instead (None: nothing converts the bytes it stores): git
/// applies `text`, `eol`, `ident` and `working-tree-encoding` attributes when it hashes a
/// file, which this writer does not, so any attributes file the git path would read sends
/// the update to git (a `.gitattributes` in the index or written, `.git/info/attributes`,
/// the user's `$XDG_CONFIG_HOME/git/attributes` or `~/.config/git/attributes`).
fn attributes(room: &str, index: &gix::index::File, written: &[String]) -> Option<String> {
    let named = |path: &[u8]| path == b".gitattributes" || path.ends_with(b"/.gitattributes");
    if index
        .entries()
        .iter()
        .any(|e| named(e.path(index).as_bytes()))
        || written.iter().any(|p| named(p.as_bytes()))
    {
        return Some("the room has a .gitattributes: git writes its index".into());
    }
    let mut files = vec![std::path::PathBuf::from(join(room, ".git/info/attributes"))];
    match std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()) {
        Some(xdg) => files.push(std::path::Path::new(&xdg).join("git/attributes")),
        None => {
            if let Some(home) = std::env::var_os("HOME") {
                files.push(std::path::Path::new(&home).join(".config/git/attributes"));
            }
        }
    }
    files
        .iter()
        .find(|f| f.exists())
        .map(|f| format!("{} exists: git writes the room's index", f.display()))
}

/// The bytes, index stat and mode of the room entry `abs`: a regular file read through one
/// descriptor (opened without following a link), or a symlink's link text. None when it is
/// absent or another kind.
fn read_entry(abs: &str) -> std::result::Result<Option<(Vec<u8>, Stat, Mode)>, String> {
    let Ok(meta) = std::fs::symlink_metadata(abs) else {
        return Ok(None);
    };
    let ft = meta.file_type();
    if ft.is_symlink() {
        let Ok(target) = std::fs::read_link(abs) else {
            return Ok(None);
        };
        let fs_meta = gix::index::fs::Metadata::from_path_no_follow(std::path::Path::new(abs))
            .map_err(|e| format!("{abs}: {e}"))?;
        let stat = Stat::from_fs(&fs_meta).map_err(|e| format!("{abs}: {e}"))?;
        return Ok(Some((
            target.as_os_str().as_bytes().to_vec(),
            stat,
            Mode::SYMLINK,
        )));
    }
    if !ft.is_file() {
        return Ok(None);
    }
    let Ok(mut file) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(abs)
    else {
        return Ok(None);
    };
    let fs_meta = gix::index::fs::Metadata::from_file(&file).map_err(|e| format!("{abs}: {e}"))?;
    let own = file.metadata().map_err(|e| format!("{abs}: {e}"))?;
    if !own.file_type().is_file() {
        return Ok(None);
    }
    let mut bytes = Vec::with_capacity(own.size() as usize);
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {abs}: {e}"))?;
    let stat = Stat::from_fs(&fs_meta).map_err(|e| format!("{abs}: {e}"))?;
    let mode = if own.mode() & 0o100 != 0 {
        Mode::FILE_EXECUTABLE
    } else {
        Mode::FILE
    };
    Ok(Some((bytes, stat, mode)))
}
