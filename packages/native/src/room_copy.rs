//! The clean room's copies (`roomCopyAsync`; `@turngate/node`'s `isolation/room-files.ts`
//! has the same rules on the TypeScript path, and `isolation/room-manifest.ts` the record
//! layout).
//!
//! Each entry the proof could not keep is copied from the workspace into the room:
//! - the folders above it are made real folders first, one entry at a time, walking from the
//!   room's root one name at a time with `openat(O_NOFOLLOW)` (a file or link in the way
//!   goes: the link itself, never what it points to);
//! - the copy then works through its folder's descriptor, opened again the same way (a
//!   folder swapped for a link meanwhile fails the copy, `ELOOP`, instead of being written
//!   through); whatever is at its name goes (a file, a link, or a whole folder, emptied
//!   without following a link);
//! - a regular file is read through one descriptor opened without following a link, and a
//!   symlink by its link text; bytes whose SHA-256 is not the snapshot's digest (the
//!   workspace changed after the snapshot) fail the call with
//!   `ERR_TURNGATE_ROOM_SOURCE_CHANGED`, naming the entry;
//! - the copy is created with `O_EXCL|O_NOFOLLOW` (nothing is written through a name someone
//!   put back meanwhile) with the snapshot's owner bits, written whole, given the sync's
//!   mtime, and its record taken from `fstat` on the same descriptor (a link's from `lstat`).
//!
//! The copies run on up to [`COPY_THREADS`] threads of their own, not the rayon pool: each
//! copy changes two folders of the room (an unlink and a create), and on a machine whose
//! cache no longer holds those folders' blocks each change waits on the disk, so the waits
//! overlap rather than queue.

use crate::errors::{errno_code, os_message, thrown, INVALID_ARG};
use crate::paths::{check_relative, check_root, join};
use crate::room::{RoomStat, FILE, RECORD, SYMLINK};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use sha2::{Digest, Sha256};
use std::ffi::CString;
use std::io::{Read as _, Write as _};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Code of a copy whose workspace bytes are not the snapshot's (changed after it was taken).
pub const ROOM_SOURCE_CHANGED: &str = "ERR_TURNGATE_ROOM_SOURCE_CHANGED";

/// Threads copying at once (at most one per entry).
const COPY_THREADS: usize = 8;

/// What `roomCopyAsync` did.
#[napi(object)]
pub struct RoomCopy {
    /// One 72-byte record per entry, in input order (`room-manifest.ts`'s layout).
    pub records: Buffer,
    /// The folders this call made, room-relative, in the order made.
    pub created: Vec<String>,
}

/// One entry to copy, checked.
struct Item {
    path: String,
    kind: u8,
    digest: [u8; 32],
    mode: u32,
}

pub struct RoomCopyTask {
    workspace: String,
    room: String,
    items: Vec<Item>,
    mtime_s: i64,
}

impl Task for RoomCopyTask {
    type Output = (Vec<u8>, Vec<String>);
    type JsValue = RoomCopy;

    fn compute(&mut self) -> Result<Self::Output> {
        copy_all(&self.workspace, &self.room, &self.items, self.mtime_s)
    }

    fn resolve(&mut self, _env: Env, (records, created): Self::Output) -> Result<RoomCopy> {
        Ok(RoomCopy {
            records: records.into(),
            created,
        })
    }
}

/// `roomCopyAsync(workspace, room, joined, count, mtimeS)`: copy `count` entries, given as
/// NUL-joined `path, kind ("file" | "symlink"), sha256 hex, mode (decimal)` quadruples, from
/// the workspace into the room (both absolute), as the module comment says; every copy gets
/// the mtime `mtimeS` (whole seconds). Off the JS thread. Throws `ERR_TURNGATE_INVALID_ARG`
/// naming `workspace`, `room`, `entries`, `entries[i]` or `mtimeS`; rejects with
/// `ERR_TURNGATE_ROOM_SOURCE_CHANGED` (path = the entry) or an errno code (`ENOSPC`,
/// `EACCES`, …; path = the entry) for a room that cannot be written.
#[napi]
pub fn room_copy_async(
    workspace: String,
    room: String,
    joined: String,
    count: u32,
    mtime_s: i64,
) -> Result<AsyncTask<RoomCopyTask>> {
    check_root(&workspace)?;
    check_root(&room)?;
    if mtime_s < 0 {
        return Err(invalid("mtimeS", "expected whole seconds since the epoch"));
    }
    let fields: Vec<&str> = if count == 0 {
        Vec::new()
    } else {
        joined.split('\0').collect()
    };
    if fields.len() != count as usize * 4 {
        return Err(invalid("entries", "expected count × 4 NUL-joined fields"));
    }
    let mut items = Vec::with_capacity(count as usize);
    for (index, quad) in fields.chunks(4).enumerate() {
        check_relative("entries", index, quad[0])?;
        let name = format!("entries[{index}]");
        let kind = match quad[1] {
            "file" => FILE,
            "symlink" => SYMLINK,
            _ => return Err(invalid(&name, "kind: expected file or symlink")),
        };
        let digest = crate::room::hex_digest(quad[2])
            .ok_or_else(|| invalid(&name, "expected a SHA-256 in hex"))?;
        let mode: u32 = quad[3]
            .parse()
            .map_err(|_| invalid(&name, "mode: expected a decimal integer"))?;
        items.push(Item {
            path: quad[0].to_string(),
            kind,
            digest,
            mode,
        });
    }
    Ok(AsyncTask::new(RoomCopyTask {
        workspace,
        room,
        items,
        mtime_s,
    }))
}

fn invalid(field: &str, message: &str) -> Error {
    thrown(INVALID_ARG, field, &format!("{field}: {message}"))
}

fn os_error(error: &std::io::Error, syscall: &str, path: &str) -> Error {
    thrown(errno_code(error), path, &os_message(error, syscall, path))
}

fn changed(path: &str) -> Error {
    thrown(
        ROOM_SOURCE_CHANGED,
        path,
        &format!(
            "clean room: {path} changed in the workspace after it was observed; the checks did not run on it"
        ),
    )
}

fn copy_all(
    workspace: &str,
    room: &str,
    items: &[Item],
    mtime_s: i64,
) -> Result<(Vec<u8>, Vec<String>)> {
    // Folders first, in path order, one at a time: entries that share a new folder never
    // race to make it.
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|a, b| items[*a].path.cmp(&items[*b].path));
    let mut made: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut created = Vec::new();
    for &index in &order {
        ensure_parent(room, &items[index].path, &mut made, &mut created)?;
    }
    let mut records = vec![0u8; items.len() * RECORD];
    let mut outcomes = parallel(items.len(), |index| {
        copy_one(workspace, room, &items[index], mtime_s)
    });
    // The first failure in path order, as the TypeScript path (sequential, sorted) reports.
    for &index in &order {
        let record = std::mem::replace(&mut outcomes[index], Ok([0; RECORD]))?;
        records[index * RECORD..(index + 1) * RECORD].copy_from_slice(&record);
    }
    Ok((records, created))
}

/// Make every folder above `path` in the room a real folder, walking from the room's root
/// one name at a time without following a link (`openat` with `O_NOFOLLOW`): a file or
/// link in the way is removed (the link itself, never what it points to) and a folder made
/// in its place. `made` remembers the folders already made or seen, `created` gets those
/// made.
fn ensure_parent(
    room: &str,
    path: &str,
    made: &mut std::collections::HashSet<String>,
    created: &mut Vec<String>,
) -> Result<()> {
    let Some((parent, _)) = path.rsplit_once('/') else {
        return Ok(());
    };
    if made.contains(parent) {
        return Ok(());
    }
    let mut folder = open_root(room).map_err(|e| os_error(&e, "open", "."))?;
    let mut end = 0;
    for part in parent.split('/') {
        end += part.len();
        let rel = &parent[..end];
        end += 1;
        let name = c_name(part).ok_or_else(|| invalid("entries", "a path holds a NUL byte"))?;
        let open = |folder: &Fd| {
            // SAFETY: `folder.0` is open; `name` is NUL-terminated.
            unsafe {
                libc::openat(
                    folder.0,
                    name.as_ptr(),
                    libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                )
            }
        };
        let mut next = open(&folder);
        if next < 0 {
            let error = std::io::Error::last_os_error();
            match error.raw_os_error() {
                Some(libc::ENOENT) => {}
                // A file or a link in the way: the name goes, not what a link points to.
                Some(libc::ENOTDIR) | Some(libc::ELOOP) => {
                    // SAFETY: as above.
                    if unsafe { libc::unlinkat(folder.0, name.as_ptr(), 0) } != 0 {
                        return Err(os_error(&std::io::Error::last_os_error(), "unlink", rel));
                    }
                }
                _ => return Err(os_error(&error, "open", rel)),
            }
            // SAFETY: as above.
            if unsafe { libc::mkdirat(folder.0, name.as_ptr(), 0o755) } != 0 {
                return Err(os_error(&std::io::Error::last_os_error(), "mkdir", rel));
            }
            if !made.contains(rel) {
                created.push(rel.to_string());
            }
            next = open(&folder);
            if next < 0 {
                return Err(os_error(&std::io::Error::last_os_error(), "open", rel));
            }
        }
        made.insert(rel.to_string());
        folder = Fd(next);
    }
    Ok(())
}

/// Copy one entry (see the module comment); its record. The entry's folder is opened from
/// the room's root one name at a time without following a link (the sync made them real
/// folders just before); one that is no longer a real folder fails the copy (`ELOOP`) rather
/// than being written through. Whatever is at the name goes through that folder's
/// descriptor (a folder there is removed without following a link inside it).
fn copy_one(workspace: &str, room: &str, item: &Item, mtime_s: i64) -> Result<[u8; RECORD]> {
    let path = item.path.as_str();
    let (folder, name) = open_folder(room, path).ok_or_else(|| {
        thrown(
            "ELOOP",
            path,
            &format!("ELOOP: a folder above '{path}' in the clean room is no longer a real folder (changed while it was written); nothing was written through it"),
        )
    })?;
    let entry = (path, item.kind, &item.digest, item.mode);
    write_entry(workspace, &folder, &name, entry, mtime_s)
}

/// Write one entry `(path, kind, digest, mode)` at `name` in the room folder `folder` from
/// the workspace: the source read without following a link (a symlink by its text) and its
/// SHA-256 checked (`ERR_TURNGATE_ROOM_SOURCE_CHANGED` otherwise), whatever is at the name
/// removed ([`remove_name`]), the copy created `O_EXCL|O_NOFOLLOW` through the descriptor
/// with the mode's owner bits and the sync's mtime. Output: the copy's record; errno-coded
/// errors of the room.
fn write_entry(
    workspace: &str,
    folder: &Fd,
    name: &CString,
    (path, kind, digest, mode): (&str, u8, &[u8; 32], u32),
    mtime_s: i64,
) -> Result<[u8; RECORD]> {
    let source = join(workspace, path);
    let fail = |e: std::io::Error, syscall: &str| os_error(&e, syscall, path);
    if kind == SYMLINK {
        let text = std::fs::read_link(&source).map_err(|_| changed(path))?;
        let bytes = text.as_os_str().as_bytes();
        if <[u8; 32]>::from(Sha256::digest(bytes)) != *digest {
            return Err(changed(path));
        }
        let target = CString::new(bytes).map_err(|_| changed(path))?;
        remove_name(folder, name).map_err(|e| fail(e, "unlink"))?;
        // SAFETY: `folder.0` is open; both names are NUL-terminated.
        if unsafe { libc::symlinkat(target.as_ptr(), folder.0, name.as_ptr()) } != 0 {
            return Err(fail(std::io::Error::last_os_error(), "symlink"));
        }
        let st = stat_at(folder, name).map_err(|e| fail(e, "lstat"))?;
        return Ok(RoomStat::of_stat(&st).record(SYMLINK, digest));
    }
    let bytes = read_regular(&source).ok_or_else(|| changed(path))?;
    if <[u8; 32]>::from(Sha256::digest(&bytes)) != *digest {
        return Err(changed(path));
    }
    remove_name(folder, name).map_err(|e| fail(e, "unlink"))?;
    // SAFETY: `folder.0` is open; `name` is NUL-terminated; the mode is the snapshot's owner
    // bits (less the umask).
    let fd = unsafe {
        libc::openat(
            folder.0,
            name.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            (mode & 0o755) as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(fail(std::io::Error::last_os_error(), "open"));
    }
    // SAFETY: `fd` was just opened and is owned by `file` from here on.
    let mut file = unsafe { <std::fs::File as std::os::fd::FromRawFd>::from_raw_fd(fd) };
    file.write_all(&bytes).map_err(|e| fail(e, "write"))?;
    finish(&file, mtime_s, path, digest)
}

/// Remove whatever is at `name` in `folder` (a file, a link, or a whole folder, whose
/// contents are removed without following a link); nothing there is fine.
fn remove_name(folder: &Fd, name: &CString) -> std::io::Result<()> {
    // SAFETY: `folder.0` is open; `name` is NUL-terminated.
    if unsafe { libc::unlinkat(folder.0, name.as_ptr(), 0) } == 0 {
        return Ok(());
    }
    let error = std::io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::ENOENT) => Ok(()),
        Some(libc::EISDIR) | Some(libc::EPERM) => {
            // The folder's descriptor as a path: std's remove_dir_all opens its parent and
            // goes down with O_NOFOLLOW, so nothing outside it is touched.
            let at = std::path::PathBuf::from(format!("/proc/self/fd/{}", folder.0))
                .join(std::ffi::OsStr::from_bytes(name.as_bytes()));
            match std::fs::remove_dir_all(&at) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            }
        }
        _ => Err(error),
    }
}

/// The bytes of the regular file `abs`, read through one descriptor opened without following
/// a link (and without blocking on a FIFO); None when it is absent, unreadable or not a
/// regular file.
fn read_regular(abs: &str) -> Option<Vec<u8>> {
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(abs)
        .ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// One entry the proof copies while it `lstat`s the others (`room.rs`): index, kind, digest
/// and mode of a snapshot entry the room recorded at the same path, of the same kind, with
/// other bytes.
pub(crate) struct Early<'a> {
    pub index: usize,
    pub path: &'a str,
    pub kind: u8,
    pub digest: [u8; 32],
    pub mode: u32,
}

/// Copy each of `items` from the workspace into the room on up to [`COPY_THREADS`]
/// threads, more strictly than [`copy_all`]: the folders above the entry are opened one by
/// one from the room's root without following a link (`openat` with `O_NOFOLLOW`), and
/// nothing is made or replaced on the way. An entry whose folders are not all real folders,
/// or whose room path holds something other than its kind, is not copied here (`None`: the
/// sync copies it after pruning). Output: per item, `None`, the new record, or the error
/// ([`ROOM_SOURCE_CHANGED`], or an errno of the room).
pub(crate) fn copy_early(
    workspace: &str,
    room: &str,
    items: &[Early],
    mtime_s: i64,
) -> Vec<Option<Result<[u8; RECORD]>>> {
    parallel(items.len(), |index| {
        copy_strict(workspace, room, &items[index], mtime_s)
    })
}

/// `f` of every index below `count`, on up to [`COPY_THREADS`] threads of their own (each
/// copy mostly waits on the disk), in index order.
fn parallel<T: Send>(count: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let slots: Vec<Mutex<Option<T>>> = (0..count).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || loop {
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= count {
            break;
        }
        let outcome = f(index);
        *slots[index].lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
    };
    if count <= 1 {
        work();
    } else {
        std::thread::scope(|scope| {
            for _ in 0..COPY_THREADS.min(count) {
                scope.spawn(work);
            }
        });
    }
    slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every index is run once")
        })
        .collect()
}

/// A descriptor this module opened, closed when dropped.
struct Fd(libc::c_int);

impl Drop for Fd {
    fn drop(&mut self) {
        // SAFETY: the descriptor was opened by this module and is closed once.
        unsafe { libc::close(self.0) };
    }
}

fn c_name(text: &str) -> Option<CString> {
    CString::new(text).ok()
}

/// A path handle to the room's root folder (turngate made it a real folder before the sync).
fn open_root(room: &str) -> std::io::Result<Fd> {
    let root = CString::new(room).map_err(|_| std::io::Error::from_raw_os_error(libc::EINVAL))?;
    // SAFETY: a NUL-terminated path; a path handle to a folder.
    let fd = unsafe {
        libc::open(
            root.as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(Fd(fd))
}

/// The entry's folder, opened from `room` one name at a time without following a link; None
/// when a folder on the way is missing, a link or not a folder.
fn open_folder(room: &str, path: &str) -> Option<(Fd, CString)> {
    let mut folder = open_root(room).ok()?;
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = c_name(parts.pop()?)?;
    for part in parts {
        let part = c_name(part)?;
        // SAFETY: `folder.0` is open; `part` is NUL-terminated.
        let fd = unsafe {
            libc::openat(
                folder.0,
                part.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return None;
        }
        folder = Fd(fd);
    }
    Some((folder, name))
}

fn stat_at(folder: &Fd, name: &CString) -> std::io::Result<libc::stat> {
    // SAFETY: an all-zero `stat` is valid to be overwritten; `folder.0` is open.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::fstatat(folder.0, name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
    if rc == 0 {
        Ok(st)
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// [`copy_early`] of one entry: None unless its folders are all real folders and its path
/// holds its kind or nothing.
fn copy_strict(
    workspace: &str,
    room: &str,
    item: &Early,
    mtime_s: i64,
) -> Option<Result<[u8; RECORD]>> {
    let (folder, name) = open_folder(room, item.path)?;
    match stat_at(&folder, &name) {
        Ok(st) => {
            let format = st.st_mode & libc::S_IFMT;
            let right = if item.kind == FILE {
                format == libc::S_IFREG
            } else {
                format == libc::S_IFLNK
            };
            if !right {
                return None; // a folder, a FIFO, another kind: pruned first, then copied
            }
        }
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {}
        Err(_) => return None,
    }
    let entry = (item.path, item.kind, &item.digest, item.mode);
    Some(write_entry(workspace, &folder, &name, entry, mtime_s))
}

/// Give the open copy the sync's mtime and take its record from `fstat`.
fn finish(
    file: &std::fs::File,
    mtime_s: i64,
    path: &str,
    digest: &[u8; 32],
) -> Result<[u8; RECORD]> {
    let fd = file.as_raw_fd();
    let time = libc::timespec {
        tv_sec: mtime_s as libc::time_t,
        tv_nsec: 0,
    };
    // SAFETY: `fd` is open; `times` points at two initialised timespecs.
    if unsafe { libc::futimens(fd, [time, time].as_ptr()) } != 0 {
        return Err(os_error(&std::io::Error::last_os_error(), "futime", path));
    }
    // SAFETY: an all-zero `stat` is valid to be overwritten; `fd` is open.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(os_error(&std::io::Error::last_os_error(), "fstat", path));
    }
    Ok(RoomStat::of_stat(&st).record(FILE, digest))
}
