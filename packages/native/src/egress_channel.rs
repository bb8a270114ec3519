//! The host's end of the confined agent's egress bootstrap (docs/design.md §3b "Confined
//! agents"; `src/bin/turngate-egress.rs` is the sandbox's end): a unix socket pair whose
//! sandbox end the launcher inherits, and the receipt of the listening socket the bootstrap
//! sends over it (`SCM_RIGHTS`), off the JavaScript thread.
use crate::errors::{errno_code, thrown, INVALID_ARG};
use napi::bindgen_prelude::*;
use napi_derive::napi;

/// `egressChannel()`: a connected unix stream socket pair, both ends close-on-exec (a child
/// gets the sandbox end by being given it as a file descriptor). Output: `[host, sandbox]`.
/// Throws with the errno's code when the pair cannot be made.
#[napi]
pub fn egress_channel() -> Result<Vec<i32>> {
    let mut fds = [0i32; 2];
    // SAFETY: `fds` has room for the two descriptors socketpair writes.
    let made = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if made != 0 {
        let error = std::io::Error::last_os_error();
        return Err(thrown(errno_code(&error), "socketpair", &error.to_string()));
    }
    Ok(fds.to_vec())
}

/// `egressReceive(fd, timeoutMs)`'s work: wait for the bootstrap's message on `fd`.
pub struct EgressReceiveTask {
    fd: i32,
    timeout_ms: i32,
}

impl Task for EgressReceiveTask {
    type Output = i32;
    type JsValue = i32;

    fn compute(&mut self) -> Result<Self::Output> {
        receive_fd(self.fd, self.timeout_ms)
            .map_err(|why| thrown("ERR_TURNGATE_EGRESS", "fd", &why))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(output)
    }
}

/// `egressReceive(fd, timeoutMs)`: the file descriptor the sandbox's bootstrap sends over the
/// host end `fd` of {@link egress_channel} (close-on-exec here), waited for at most
/// `timeoutMs` ms on a worker thread. Rejects with code `ERR_TURNGATE_EGRESS` when nothing
/// came in time, the other end closed without sending one, or the message held no
/// descriptor; throws `ERR_TURNGATE_INVALID_ARG` for a negative `fd`.
#[napi]
pub fn egress_receive(fd: i32, timeout_ms: u32) -> Result<AsyncTask<EgressReceiveTask>> {
    if fd < 0 {
        return Err(thrown(
            INVALID_ARG,
            "fd",
            "must be a file descriptor (>= 0)",
        ));
    }
    Ok(AsyncTask::new(EgressReceiveTask {
        fd,
        timeout_ms: timeout_ms.min(i32::MAX as u32) as i32,
    }))
}

fn receive_fd(fd: i32, timeout_ms: i32) -> std::result::Result<i32, String> {
    let mut poll = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut poll, 1, timeout_ms) };
        if ready > 0 {
            break;
        }
        if ready == 0 {
            return Err(format!("no socket from the sandbox within {timeout_ms} ms"));
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("poll: {error}"));
        }
    }
    crate::fd_passing::recv_fd(fd)
}
