//! Parallel `lstat` (`statTree` with a path list).
//!
//! Each path gets one record of [`FIELDS`] float64 numbers, the layout of the TypeScript
//! observer's raw stat buffer (`workspace/stat/raw-stat.ts`): kind code, size (bytes), mtime
//! and ctime (ms since the epoch, computed as Node computes `mtimeMs`: `sec * 1e3 + nsec /
//! 1e6` in float64), inode, `st_mode`. Nanosecond times go to a separate `BigInt64Array`
//! (two per path), since float64 cannot hold them exactly.

use crate::errors::{errno_code, os_message, PathError};
use crate::paths::{check_relative, check_root, join, split_joined};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;
use std::os::unix::fs::MetadataExt;

/// Numbers per path in a stat record.
pub const FIELDS: usize = 6;

/// Kind codes of field 0 (the same numbers as `RawKind` in raw-stat.ts).
#[allow(dead_code)]
pub mod kind {
    pub const ABSENT: f64 = 0.0;
    pub const FILE: f64 = 1.0;
    pub const SYMLINK: f64 = 2.0;
    pub const DIRECTORY: f64 = 3.0;
    pub const SPECIAL: f64 = 4.0;
    pub const ERROR: f64 = 5.0;
}

/// One path's record and nanosecond times, or the error that made it `ERROR`.
pub struct Stat {
    pub record: [f64; FIELDS],
    pub nanos: [i64; 2],
    pub error: Option<(String, String)>,
}

/// Milliseconds since the epoch exactly as Node's `Stats` computes `mtimeMs`/`ctimeMs`.
pub fn ms(sec: i64, nsec: i64) -> f64 {
    (sec as f64) * 1e3 + (nsec as f64) / 1e6
}

/// The record and nanosecond times of one stat: `code` a [`kind`], the rest as `struct stat`
/// holds them (seconds and nanoseconds apart).
#[allow(clippy::too_many_arguments)]
fn record(
    code: f64,
    size: u64,
    mtime: i64,
    mtime_nsec: i64,
    ctime: i64,
    ctime_nsec: i64,
    ino: u64,
    mode: u32,
) -> ([f64; FIELDS], [i64; 2]) {
    let ns = |sec: i64, nsec: i64| sec.saturating_mul(1_000_000_000).saturating_add(nsec);
    (
        [
            code,
            size as f64,
            ms(mtime, mtime_nsec),
            ms(ctime, ctime_nsec),
            ino as f64,
            f64::from(mode),
        ],
        [ns(mtime, mtime_nsec), ns(ctime, ctime_nsec)],
    )
}

/// The record of `meta` (from `lstat` or `fstat`).
pub fn record_of(meta: &std::fs::Metadata) -> ([f64; FIELDS], [i64; 2]) {
    let ft = meta.file_type();
    let code = if ft.is_file() {
        kind::FILE
    } else if ft.is_symlink() {
        kind::SYMLINK
    } else if ft.is_dir() {
        kind::DIRECTORY
    } else {
        kind::SPECIAL // FIFO, socket, block or character device
    };
    record(
        code,
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        meta.ino(),
        meta.mode(),
    )
}

/// The [`Stat`] of a failed `lstat`: `ENOENT`/`ENOTDIR` give `ABSENT` (no error), any other
/// failure `ERROR` with its code and message; `rel` names the path in the message.
fn failed(error: &std::io::Error, rel: &str) -> Stat {
    let code = errno_code(error);
    let mut record = [0.0; FIELDS];
    if code == "ENOENT" || code == "ENOTDIR" {
        return Stat {
            record,
            nanos: [0, 0],
            error: None,
        };
    }
    record[0] = kind::ERROR;
    Stat {
        record,
        nanos: [0, 0],
        error: Some((code.to_string(), os_message(error, "lstat", rel))),
    }
}

/// `lstat` of one absolute path: `ENOENT`/`ENOTDIR` give `ABSENT` (no error), any other
/// failure `ERROR` with its code and message; `rel` names the path in messages.
pub fn lstat(abs: &str, rel: &str) -> Stat {
    match std::fs::symlink_metadata(abs) {
        Ok(meta) => {
            let (record, nanos) = record_of(&meta);
            Stat {
                record,
                nanos,
                error: None,
            }
        }
        Err(error) => failed(&error, rel),
    }
}

/// What `statTree` returns: one record per path, in input order.
#[napi(object)]
pub struct StatTreeResult {
    /// The paths the records belong to (relative to the root, as given or as walked).
    pub paths: Vec<String>,
    /// `paths.length * 6` numbers: kind, size, mtime_ms, ctime_ms, ino, mode per path.
    pub records: Float64Array,
    /// `paths.length * 2` numbers: mtime and ctime in ns since the epoch per path.
    pub nanos: BigInt64Array,
    /// Paths whose `lstat` failed with something other than `ENOENT`/`ENOTDIR` (kind 5).
    pub errors: Vec<PathError>,
    /// Walks only: directories that could not be read (relative; `.` for the start).
    pub unreadable: Vec<String>,
}

/// Packs per-path stats into a [`StatTreeResult`].
pub fn pack(paths: Vec<String>, stats: Vec<Stat>, unreadable: Vec<String>) -> StatTreeResult {
    let mut records = Vec::with_capacity(stats.len() * FIELDS);
    let mut nanos = Vec::with_capacity(stats.len() * 2);
    let mut errors = Vec::new();
    for (index, stat) in stats.into_iter().enumerate() {
        records.extend_from_slice(&stat.record);
        nanos.extend_from_slice(&stat.nanos);
        if let Some((code, message)) = stat.error {
            errors.push(PathError {
                index: index as u32,
                code,
                path: paths[index].clone(),
                message,
            });
        }
    }
    StatTreeResult {
        paths,
        records: Float64Array::new(records),
        nanos: BigInt64Array::new(nanos),
        errors,
        unreadable,
    }
}

/// `lstat`s `root/path` for every path on the rayon pool (order kept).
pub fn stat_paths(root: &str, paths: &[String]) -> Vec<Stat> {
    let parts: Vec<Vec<Stat>> = runs(paths)
        .par_iter()
        .map(|&(from, to)| stat_run(root, &paths[from..to]))
        .collect();
    parts.into_iter().flatten().collect()
}

/// True when `root/rel` (as [`join`] builds it) is too long for one path lookup
/// (`PATH_MAX` bytes with its NUL): a per-path `lstat`/`open` of it fails with
/// `ENAMETOOLONG`, so the runs hand such a path to it instead of looking up its last name
/// in the already open parent, which would succeed (Node's `lstat` and `open` get the
/// whole path).
pub fn too_long(root: &str, rel: &str) -> bool {
    let slash = usize::from(!rel.is_empty() && !root.ends_with('/'));
    root.len() + slash + rel.len() >= libc::PATH_MAX as usize
}

/// The last name of `rel` to look up in its run's open parent directory, or None when the
/// path must go to a per-path call instead: an empty name (a trailing `/`), `.` or `..`,
/// or a path too long for one lookup ([`too_long`]).
pub fn run_name(root: &str, rel: &str) -> Option<std::ffi::CString> {
    let name = rel.rsplit_once('/').map_or(rel, |(_, name)| name);
    if name.is_empty() || name == "." || name == ".." || too_long(root, rel) {
        return None;
    }
    std::ffi::CString::new(name).ok()
}

/// Runs of consecutive paths with the same parent directory (listings and the stat cache
/// keep a directory's files together), at most [`RUN_PATHS`] each so one big folder still
/// spreads over the pool, as `(start, end)` index ranges covering `paths` in order. Each run
/// opens its parent once and works on the names in it (`fstatat`, `openat`): the kernel
/// then walks one component per path instead of the whole path.
pub fn runs<S: AsRef<str>>(paths: &[S]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for i in 1..=paths.len() {
        if i == paths.len()
            || i - start >= RUN_PATHS
            || parent_of(paths[i].as_ref()) != parent_of(paths[start].as_ref())
        {
            if i > start {
                out.push((start, i));
            }
            start = i;
        }
    }
    out
}

/// `root/parent(rel)` opened as a directory handle ([`DIR_OPEN_FLAGS`]; symlinks in it
/// followed, as a path lookup follows a path's parents), or None when it cannot be.
pub fn open_parent(root: &str, rel: &str) -> Option<libc::c_int> {
    let parent = std::ffi::CString::new(join(root, parent_of(rel))).ok()?;
    // SAFETY: a NUL-terminated path we own; the flags only open a directory handle.
    let fd = unsafe {
        libc::open(
            parent.as_ptr(),
            DIR_OPEN_FLAGS | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    (fd >= 0).then_some(fd)
}

/// How a run's directory is opened: a path handle on Linux (no read permission needed); a
/// read-only descriptor elsewhere (a directory that cannot be read falls back to `lstat`).
#[cfg(target_os = "linux")]
const DIR_OPEN_FLAGS: libc::c_int = libc::O_PATH;
#[cfg(not(target_os = "linux"))]
const DIR_OPEN_FLAGS: libc::c_int = libc::O_RDONLY;

/// Paths per `fstatat` run (see `stat_paths`).
const RUN_PATHS: usize = 256;

/// The parent directory of a relative path (`""` for the root) and its last component.
fn parent_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(parent, _)| parent)
}

/// `lstat` of each of `paths` (all with one parent directory): that directory opened once
/// (`O_PATH`, following symlinks in it as `lstat` does for a path's parents) and each name
/// `fstatat`ed without following it — the same record `lstat(root/path)` gives. When the
/// directory cannot be opened, each path is `lstat`ed, so every error is the one `lstat`
/// reports for it.
fn stat_run(root: &str, paths: &[String]) -> Vec<Stat> {
    stat_run_with(
        root,
        paths,
        |rel| lstat(&join(root, rel), rel),
        |outcome, rel| match outcome {
            Ok(st) => {
                let (record, nanos) = record_of_stat(st);
                Stat {
                    record,
                    nanos,
                    error: None,
                }
            }
            Err(error) => failed(&error, rel),
        },
    )
}

/// The run walk of [`stat_run`] for any caller's result type: each name of `paths` (one
/// parent directory) is `fstatat`ed in the parent opened once and handed to `raw` (the
/// `struct stat`, or the error); a path that must be looked up whole (the parent cannot be
/// opened, or [`run_name`] refuses the name) goes to `whole`. Output: one `T` per path, in
/// order.
pub fn stat_run_with<S: AsRef<str>, T>(
    root: &str,
    paths: &[S],
    whole: impl Fn(&str) -> T,
    raw: impl Fn(std::io::Result<&libc::stat>, &str) -> T,
) -> Vec<T> {
    let Some(dir) = open_parent(root, paths[0].as_ref()) else {
        return paths.iter().map(|rel| whole(rel.as_ref())).collect();
    };
    let out = paths
        .iter()
        .map(|rel| {
            let rel = rel.as_ref();
            let Some(cname) = run_name(root, rel) else {
                return whole(rel);
            };
            // SAFETY: `st` is written by fstatat before it is read; `dir` is open.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            let rc =
                unsafe { libc::fstatat(dir, cname.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
            if rc != 0 {
                raw(Err(std::io::Error::last_os_error()), rel)
            } else {
                raw(Ok(&st), rel)
            }
        })
        .collect();
    // SAFETY: `dir` is a descriptor this function opened.
    unsafe { libc::close(dir) };
    out
}

/// [`record_of`] from a raw `struct stat` (the same numbers as from `Metadata`).
fn record_of_stat(st: &libc::stat) -> ([f64; FIELDS], [i64; 2]) {
    let code = match st.st_mode & libc::S_IFMT {
        libc::S_IFREG => kind::FILE,
        libc::S_IFLNK => kind::SYMLINK,
        libc::S_IFDIR => kind::DIRECTORY,
        _ => kind::SPECIAL,
    };
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)] // field types differ by platform
    record(
        code,
        st.st_size as u64,
        st.st_mtime as i64,
        st.st_mtime_nsec as i64,
        st.st_ctime as i64,
        st.st_ctime_nsec as i64,
        st.st_ino as u64,
        u32::from(st.st_mode),
    )
}

pub struct StatPathsTask {
    root: String,
    paths: Vec<String>,
}

impl Task for StatPathsTask {
    type Output = Vec<Stat>;
    type JsValue = StatTreeResult;

    fn compute(&mut self) -> Result<Self::Output> {
        Ok(stat_paths(&self.root, &self.paths))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        // The caller has the paths: only the failed ones cross back (in `errors`).
        let mut result = pack(std::mem::take(&mut self.paths), output, Vec::new());
        result.paths = Vec::new();
        Ok(result)
    }
}

/// `statTree(root, paths)`: parallel `lstat` of `root/path` for each relative path, off the
/// JS thread. Throws `ERR_TURNGATE_INVALID_ARG` (path `root` or `paths[i]`) for a relative
/// root, an absolute path, a `..` segment or a NUL byte.
#[napi]
pub fn stat_paths_async(
    root: String,
    joined: String,
    count: u32,
) -> Result<AsyncTask<StatPathsTask>> {
    check_root(&root)?;
    let paths = split_joined(&joined, count)?;
    for (index, path) in paths.iter().enumerate() {
        check_relative("paths", index, path)?;
    }
    Ok(AsyncTask::new(StatPathsTask { root, paths }))
}
