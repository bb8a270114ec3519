//! Hashing: files (`hashFiles`) and in-memory inputs (`sha256Batch`, `fnv1a64Batch`,
//! `sha256Concat`).
//!
//! SHA-256 comes from the `sha2` crate, which picks the CPU's SHA extensions at run time
//! (SHA-NI on x86-64, ARMv8 SHA2 on aarch64) and portable code elsewhere. FNV-1a 64 is
//! Harn's content hash (harn-verification.md §3.1): offset basis 14695981039346656037,
//! prime 1099511628211, rendered as an unsigned decimal string.
//!
//! Files are read in 256 KiB chunks (never whole), opened with `O_NOFOLLOW | O_NONBLOCK`:
//! a symlink is hashed by its link text (`readlink` bytes, the target is never opened), a
//! FIFO/socket/device is refused with `ENOTREGULAR` without blocking, and the record
//! returned is the `fstat` of the opened file (the `lstat` for a symlink), which is what the
//! TypeScript path records.

use crate::errors::{errno_code, os_message, thrown, PathError, INVALID_ARG, NOT_REGULAR};
use crate::paths::{check_relative, check_root, join, split_joined};
use crate::stat::{kind, record_of, FIELDS};
use napi::bindgen_prelude::*;
use napi_derive::napi;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use std::cell::RefCell;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;

const CHUNK: usize = 256 * 1024;
const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// The two content hashes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    Sha256,
    Fnv1a64,
}

impl Algorithm {
    /// Parses the `algorithm` option (`"sha256"` default, `"fnv1a64"`).
    pub fn parse(value: Option<&str>) -> Result<Algorithm> {
        match value {
            None | Some("sha256") => Ok(Algorithm::Sha256),
            Some("fnv1a64") => Ok(Algorithm::Fnv1a64),
            Some(other) => Err(thrown(
                INVALID_ARG,
                "algorithm",
                &format!("algorithm: expected \"sha256\" or \"fnv1a64\", got {other:?}"),
            )),
        }
    }
}

/// An incremental hasher of either algorithm.
pub enum Hasher {
    Sha256(Sha256),
    Fnv1a64(u64),
}

impl Hasher {
    pub fn new(algorithm: Algorithm) -> Hasher {
        match algorithm {
            Algorithm::Sha256 => Hasher::Sha256(Sha256::new()),
            Algorithm::Fnv1a64 => Hasher::Fnv1a64(FNV_OFFSET),
        }
    }

    pub fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Sha256(h) => h.update(bytes),
            Hasher::Fnv1a64(state) => {
                let mut s = *state;
                for &b in bytes {
                    s ^= u64::from(b);
                    s = s.wrapping_mul(FNV_PRIME);
                }
                *state = s;
            }
        }
    }

    /// Lowercase 64-hex for SHA-256; unsigned decimal for FNV-1a 64.
    pub fn finish(self) -> String {
        match self {
            Hasher::Sha256(h) => hex(&h.finalize()),
            Hasher::Fnv1a64(state) => state.to_string(),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}

/// The hash of `bytes` in one go.
pub fn digest(algorithm: Algorithm, bytes: &[u8]) -> String {
    let mut h = Hasher::new(algorithm);
    h.update(bytes);
    h.finish()
}

thread_local! {
    static BUFFER: RefCell<Vec<u8>> = RefCell::new(vec![0u8; CHUNK]);
}

/// One file's outcome: digest plus the record it belongs to, or a code and message.
pub enum Hashed {
    Ok {
        digest: String,
        record: [f64; FIELDS],
    },
    Err {
        code: String,
        message: String,
    },
}

fn failure(error: &std::io::Error, syscall: &str, rel: &str) -> Hashed {
    Hashed::Err {
        code: errno_code(error).to_string(),
        message: os_message(error, syscall, rel),
    }
}

/// The flags every hashed file is opened with: never through a final symlink, never
/// blocking on a FIFO.
const OPEN_FLAGS: libc::c_int = libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;

/// Hashes `root/rel`: a regular file by its bytes, a symlink by its link text.
pub fn hash_path(root: &str, rel: &str, algorithm: Algorithm) -> Hashed {
    let abs = join(root, rel);
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(OPEN_FLAGS)
        .open(&abs);
    hash_opened(opened, &abs, rel, algorithm)
}

/// Hashes each of `paths` (all with one parent directory, see `stat::runs`): the directory
/// opened once as a path handle and each name opened in it (`openat`, same flags), so the
/// kernel walks one component per file; the same outcome as [`hash_path`] per path, which
/// is used when the directory cannot be opened or a name is odd.
pub fn hash_run(root: &str, paths: &[String], algorithm: Algorithm) -> Vec<Hashed> {
    use std::os::unix::io::FromRawFd;
    let Some(dir) = crate::stat::open_parent(root, &paths[0]) else {
        return paths
            .iter()
            .map(|rel| hash_path(root, rel, algorithm))
            .collect();
    };
    let out = paths
        .iter()
        .map(|rel| {
            let Some(cname) = crate::stat::run_name(root, rel) else {
                return hash_path(root, rel, algorithm);
            };
            // SAFETY: `dir` is open; `cname` is NUL-terminated; the flags are plain open flags.
            let fd = unsafe { libc::openat(dir, cname.as_ptr(), libc::O_RDONLY | OPEN_FLAGS) };
            let opened = if fd < 0 {
                Err(std::io::Error::last_os_error())
            } else {
                // SAFETY: `fd` was just opened here and is owned by the File from now on.
                Ok(unsafe { std::fs::File::from_raw_fd(fd) })
            };
            hash_opened(opened, &join(root, rel), rel, algorithm)
        })
        .collect();
    // SAFETY: `dir` is a descriptor open_parent opened for this call.
    unsafe { libc::close(dir) };
    out
}

/// The rest of [`hash_path`] once the open has been tried.
fn hash_opened(
    opened: std::io::Result<std::fs::File>,
    abs: &str,
    rel: &str,
    algorithm: Algorithm,
) -> Hashed {
    let mut file = match opened {
        Ok(file) => file,
        Err(error) if error.raw_os_error() == Some(libc::ELOOP) => {
            return hash_link(abs, rel, algorithm)
        }
        Err(error) => return failure(&error, "open", rel),
    };
    let meta = match file.metadata() {
        Ok(meta) => meta,
        Err(error) => return failure(&error, "fstat", rel),
    };
    let (record, _) = record_of(&meta);
    if record[0] != kind::FILE {
        return Hashed::Err {
            code: NOT_REGULAR.to_string(),
            message: format!("{NOT_REGULAR}: not a regular file, open '{rel}'"),
        };
    }
    let mut hasher = Hasher::new(algorithm);
    let size = record[1];
    let read = BUFFER.with(|cell| -> std::io::Result<()> {
        let mut buffer = cell.borrow_mut();
        let mut total = 0f64;
        loop {
            let n = match file.read(&mut buffer[..]) {
                Ok(n) => n,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if n == 0 {
                return Ok(());
            }
            hasher.update(&buffer[..n]);
            total += n as f64;
            // A short read that reaches the fstat size is the end of the file: no read(2)
            // just to meet EOF (the TypeScript path's hashRegularFileSync has the same rule).
            if n < buffer.len() && total == size {
                return Ok(());
            }
        }
    });
    match read {
        Ok(()) => Hashed::Ok {
            digest: hasher.finish(),
            record,
        },
        Err(error) => failure(&error, "read", rel),
    }
}

/// A symlink by its link text (raw bytes); the record is its `lstat`.
fn hash_link(abs: &str, rel: &str, algorithm: Algorithm) -> Hashed {
    let meta = match std::fs::symlink_metadata(abs) {
        Ok(meta) => meta,
        Err(error) => return failure(&error, "lstat", rel),
    };
    if !meta.file_type().is_symlink() {
        // ELOOP from a path that is not a link now: a loop in a parent, or a swap.
        return Hashed::Err {
            code: "ELOOP".to_string(),
            message: format!("ELOOP: too many symbolic links encountered, open '{rel}'"),
        };
    }
    match std::fs::read_link(abs) {
        Ok(target) => {
            let (record, _) = record_of(&meta);
            Hashed::Ok {
                digest: digest(algorithm, target.as_os_str().as_bytes()),
                record,
            }
        }
        Err(error) => failure(&error, "readlink", rel),
    }
}

/// What `hashFiles` returns, one slot per input path.
#[napi(object)]
pub struct HashFilesResult {
    /// The digest per path (`null` where it failed: see `errors`).
    pub digests: Vec<Option<String>>,
    /// `paths.length * 6` numbers (kind, size, mtime_ms, ctime_ms, ino, mode): the `fstat`
    /// of the opened file, or the `lstat` of a symlink; zeros where it failed.
    pub records: Float64Array,
    /// The paths that could not be hashed, with a code (`ENOENT`, `EACCES`, `ENOTREGULAR`, …).
    pub errors: Vec<PathError>,
}

pub struct HashFilesTask {
    root: String,
    paths: Vec<String>,
    algorithm: Algorithm,
}

impl Task for HashFilesTask {
    type Output = Vec<Hashed>;
    type JsValue = HashFilesResult;

    fn compute(&mut self) -> Result<Self::Output> {
        let (root, algorithm) = (&self.root, self.algorithm);
        let parts: Vec<Vec<Hashed>> = crate::stat::runs(&self.paths)
            .par_iter()
            .map(|&(from, to)| hash_run(root, &self.paths[from..to], algorithm))
            .collect();
        Ok(parts.into_iter().flatten().collect())
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        let mut digests = Vec::with_capacity(output.len());
        let mut records = Vec::with_capacity(output.len() * FIELDS);
        let mut errors = Vec::new();
        for (index, hashed) in output.into_iter().enumerate() {
            match hashed {
                Hashed::Ok { digest, record } => {
                    digests.push(Some(digest));
                    records.extend_from_slice(&record);
                }
                Hashed::Err { code, message } => {
                    digests.push(None);
                    records.extend_from_slice(&[0.0; FIELDS]);
                    let path = self.paths[index].clone();
                    errors.push(PathError {
                        index: index as u32,
                        code,
                        path,
                        message,
                    });
                }
            }
        }
        Ok(HashFilesResult {
            digests,
            records: Float64Array::new(records),
            errors,
        })
    }
}

/// `hashFiles(root, paths, algorithm)`: parallel streaming hash of `root/path` per path, off
/// the JS thread. Throws `ERR_TURNGATE_INVALID_ARG` (path `root`, `paths[i]`, `algorithm`).
#[napi]
pub fn hash_files_async(
    root: String,
    joined: String,
    count: u32,
    algorithm: Option<String>,
) -> Result<AsyncTask<HashFilesTask>> {
    check_root(&root)?;
    let paths = split_joined(&joined, count)?;
    for (index, path) in paths.iter().enumerate() {
        check_relative("paths", index, path)?;
    }
    let algorithm = Algorithm::parse(algorithm.as_deref())?;
    Ok(AsyncTask::new(HashFilesTask {
        root,
        paths,
        algorithm,
    }))
}

/// Bytes above which a batch is hashed on the rayon pool rather than the calling thread.
const PARALLEL_BATCH_BYTES: usize = 1 << 20;

fn batch(inputs: &[Either<String, Buffer>], algorithm: Algorithm) -> Vec<String> {
    let bytes = |input: &Either<String, Buffer>| -> usize {
        match input {
            Either::A(text) => text.len(),
            Either::B(buffer) => buffer.len(),
        }
    };
    let one = |input: &Either<String, Buffer>| -> String {
        match input {
            Either::A(text) => digest(algorithm, text.as_bytes()),
            Either::B(buffer) => digest(algorithm, buffer),
        }
    };
    let total: usize = inputs.iter().map(bytes).sum();
    if total >= PARALLEL_BATCH_BYTES && inputs.len() > 1 {
        // Buffers are shared read-only here; the JS thread waits for the result.
        let views: Vec<&[u8]> = inputs
            .iter()
            .map(|input| match input {
                Either::A(text) => text.as_bytes(),
                Either::B(buffer) => &buffer[..],
            })
            .collect();
        return views
            .par_iter()
            .map(|bytes| digest(algorithm, bytes))
            .collect();
    }
    inputs.iter().map(one).collect()
}

/// `sha256Batch(inputs)`: lowercase 64-hex SHA-256 of each input (a string as its UTF-8
/// bytes, a lone surrogate as U+FFFD; a Buffer/Uint8Array as raw bytes), in order.
#[napi]
pub fn sha256_batch(inputs: Vec<Either<String, Buffer>>) -> Vec<String> {
    batch(&inputs, Algorithm::Sha256)
}

/// `fnv1a64Batch(inputs)`: FNV-1a 64 of each input as an unsigned decimal string.
#[napi(js_name = "fnv1a64Batch")]
pub fn fnv1a64_batch(inputs: Vec<Either<String, Buffer>>) -> Vec<String> {
    batch(&inputs, Algorithm::Fnv1a64)
}

/// `sha256(text)`: lowercase 64-hex SHA-256 of one string's UTF-8 bytes (one call per
/// content digest: cheaper than a batch of one).
#[napi]
pub fn sha256(text: String) -> String {
    digest(Algorithm::Sha256, text.as_bytes())
}

/// `sha256Concat(parts)`: the SHA-256 of the parts' UTF-8 bytes one after another, as if
/// joined into one string (the effect digest of a long ledger in one call).
#[napi]
pub fn sha256_concat(parts: Vec<String>) -> String {
    let mut h = Hasher::new(Algorithm::Sha256);
    for part in &parts {
        h.update(part.as_bytes());
    }
    h.finish()
}
