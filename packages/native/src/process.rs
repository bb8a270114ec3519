//! Process control that Node cannot do itself (issue 10, "Child subreaper").
//!
//! - `set_child_subreaper(on)`: `prctl(PR_SET_CHILD_SUBREAPER, on)`, Linux only. While on,
//!   orphaned descendants (a double-forked daemon) are reparented to this process instead
//!   of init, so turngate can find and kill them.
//! - `reap_child(pid)`: `waitpid(pid, WNOHANG)` for one specific pid, so the zombie of a
//!   killed orphan is reaped without touching libuv's own children.

use napi::bindgen_prelude::*;
use napi_derive::napi;

/// Error code of the typed error thrown on a platform without the call.
#[cfg_attr(target_os = "linux", allow(dead_code))]
const UNSUPPORTED: &str = "ERR_TURNGATE_UNSUPPORTED";

/// Turn this process's child-subreaper attribute on or off (`prctl(PR_SET_CHILD_SUBREAPER)`).
/// Returns the previous state. Errors: `ERR_TURNGATE_UNSUPPORTED` off Linux; the OS error
/// (`errno`) when prctl fails.
#[napi]
pub fn set_child_subreaper(on: bool) -> Result<bool> {
    subreaper::set(on)
}

/// Whether this process is a child subreaper now (`PR_GET_CHILD_SUBREAPER`).
/// Errors: `ERR_TURNGATE_UNSUPPORTED` off Linux; the OS error when prctl fails.
#[napi]
pub fn is_child_subreaper() -> Result<bool> {
    subreaper::get()
}

/// What `reap_child` found.
#[napi(object)]
pub struct ReapResult {
    /// `"reaped"`: the child had ended and its zombie is gone; `"running"`: it has not
    /// ended; `"not_child"`: `pid` is not a child of this process (ECHILD).
    pub state: String,
    /// Exit code when the child exited normally.
    pub exit_code: Option<i32>,
    /// Number of the signal that ended it, when one did.
    pub signal: Option<i32>,
}

/// `waitpid(pid, WNOHANG)` for exactly this pid (never -1: libuv's children are left to
/// libuv). Errors: a pid ≤ 0 (`InvalidArg`, field `pid`); `ERR_TURNGATE_UNSUPPORTED` off
/// Unix; other OS errors than ECHILD.
#[napi]
pub fn reap_child(pid: i32) -> Result<ReapResult> {
    if pid <= 0 {
        return Err(Error::new(
            Status::InvalidArg,
            "pid: must be a positive integer".to_string(),
        ));
    }
    reap::reap(pid)
}

#[cfg(target_os = "linux")]
mod subreaper {
    use napi::{Error, Result};

    pub fn get() -> Result<bool> {
        let mut value: libc::c_int = 0;
        // SAFETY: PR_GET_CHILD_SUBREAPER writes one int through the pointer we own.
        let rc =
            unsafe { libc::prctl(libc::PR_GET_CHILD_SUBREAPER, &mut value as *mut libc::c_int) };
        if rc != 0 {
            return Err(Error::from_reason(format!(
                "prctl(PR_GET_CHILD_SUBREAPER): {}",
                std::io::Error::last_os_error()
            )));
        }
        Ok(value != 0)
    }

    pub fn set(on: bool) -> Result<bool> {
        let previous = get()?;
        // SAFETY: plain prctl with integer arguments.
        let rc = unsafe {
            libc::prctl(
                libc::PR_SET_CHILD_SUBREAPER,
                libc::c_ulong::from(on),
                0,
                0,
                0,
            )
        };
        if rc != 0 {
            return Err(Error::from_reason(format!(
                "prctl(PR_SET_CHILD_SUBREAPER): {}",
                std::io::Error::last_os_error()
            )));
        }
        Ok(previous)
    }
}

#[cfg(not(target_os = "linux"))]
mod subreaper {
    use napi::{Error, Result, Status};

    fn unsupported() -> Error {
        Error::new(
            Status::GenericFailure,
            format!(
                "{}: child subreaper needs Linux (prctl)",
                super::UNSUPPORTED
            ),
        )
    }

    pub fn get() -> Result<bool> {
        Err(unsupported())
    }

    pub fn set(_on: bool) -> Result<bool> {
        Err(unsupported())
    }
}

#[cfg(unix)]
mod reap {
    use super::ReapResult;
    use napi::{Error, Result};

    pub fn reap(pid: i32) -> Result<ReapResult> {
        let mut status: libc::c_int = 0;
        loop {
            // SAFETY: waitpid writes the status through the pointer we own.
            let rc = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
            if rc == 0 {
                return Ok(ReapResult {
                    state: "running".into(),
                    exit_code: None,
                    signal: None,
                });
            }
            if rc == pid {
                let exited = libc::WIFEXITED(status);
                let signaled = libc::WIFSIGNALED(status);
                return Ok(ReapResult {
                    state: "reaped".into(),
                    exit_code: if exited {
                        Some(libc::WEXITSTATUS(status))
                    } else {
                        None
                    },
                    signal: if signaled {
                        Some(libc::WTERMSIG(status))
                    } else {
                        None
                    },
                });
            }
            let error = std::io::Error::last_os_error();
            match error.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(libc::ECHILD) => {
                    return Ok(ReapResult {
                        state: "not_child".into(),
                        exit_code: None,
                        signal: None,
                    })
                }
                _ => return Err(Error::from_reason(format!("waitpid({pid}): {error}"))),
            }
        }
    }
}

#[cfg(not(unix))]
mod reap {
    use super::ReapResult;
    use napi::{Error, Result, Status};

    pub fn reap(_pid: i32) -> Result<ReapResult> {
        Err(Error::new(
            Status::GenericFailure,
            format!("{}: waitpid needs a Unix system", super::UNSUPPORTED),
        ))
    }
}
