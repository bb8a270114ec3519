//! Typed errors crossing the boundary.
//!
//! Per-path failures (a file that cannot be read) are returned as data ([`PathError`]: index,
//! code, path, message) so one bad path never fails a batch. Errors about the call itself (a
//! bad argument) are thrown as a napi error whose reason is a small JSON object
//! `{"code": …, "path": …, "message": …}`; `index.js` turns it into an `Error` with `code`
//! and `path` properties.

use napi::{Error, Status};
use napi_derive::napi;

/// Code of a refused argument (wrong shape, absolute or escaping relative path, NUL byte).
pub const INVALID_ARG: &str = "ERR_TURNGATE_INVALID_ARG";
/// Code of a path that is neither a regular file nor a symlink (FIFO, socket, device,
/// directory): its bytes are not hashed. The same code as the TypeScript path's.
pub const NOT_REGULAR: &str = "ENOTREGULAR";

/// One path the call could not handle.
#[napi(object)]
#[derive(Clone, Debug)]
pub struct PathError {
    /// Index of the path in the input list (or in the walk's `paths`).
    pub index: u32,
    /// Node-style error code: `ENOENT`, `EACCES`, `ELOOP`, `ENOTREGULAR`, … (`EUNKNOWN` for
    /// an errno this table does not name).
    pub code: String,
    /// The path as given (relative to the root).
    pub path: String,
    /// A readable message, e.g. `EACCES: permission denied, open 'src/a.txt'`.
    pub message: String,
}

/// A thrown error with a code and the offending path or field (see the module comment).
pub fn thrown(code: &str, path: &str, message: &str) -> Error {
    let json = format!(
        "{{\"code\":{},\"path\":{},\"message\":{}}}",
        json_string(code),
        json_string(path),
        json_string(message)
    );
    Error::new(Status::InvalidArg, json)
}

fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Node's name for an OS error (`uv_err_name`'s names for the errors file calls return).
pub fn errno_code(error: &std::io::Error) -> &'static str {
    match error.raw_os_error() {
        Some(libc::ENOENT) => "ENOENT",
        Some(libc::ENOTDIR) => "ENOTDIR",
        Some(libc::EACCES) => "EACCES",
        Some(libc::EPERM) => "EPERM",
        Some(libc::ELOOP) => "ELOOP",
        Some(libc::ENAMETOOLONG) => "ENAMETOOLONG",
        Some(libc::EISDIR) => "EISDIR",
        Some(libc::EINVAL) => "EINVAL",
        Some(libc::EIO) => "EIO",
        Some(libc::EMFILE) => "EMFILE",
        Some(libc::ENFILE) => "ENFILE",
        Some(libc::ENXIO) => "ENXIO",
        Some(libc::EAGAIN) => "EAGAIN",
        Some(libc::EBUSY) => "EBUSY",
        Some(libc::ENOMEM) => "ENOMEM",
        Some(libc::EOVERFLOW) => "EOVERFLOW",
        Some(libc::ESTALE) => "ESTALE",
        Some(libc::EBADF) => "EBADF",
        Some(libc::EFBIG) => "EFBIG",
        _ => "EUNKNOWN",
    }
}

/// `CODE: description, syscall 'path'` (the shape of Node's fs error messages).
pub fn os_message(error: &std::io::Error, syscall: &str, path: &str) -> String {
    let text = error.to_string();
    // std renders "Permission denied (os error 13)"; Node prints "permission denied".
    let plain = text
        .split(" (os error")
        .next()
        .unwrap_or(&text)
        .to_lowercase();
    format!("{}: {plain}, {syscall} '{path}'", errno_code(error))
}
