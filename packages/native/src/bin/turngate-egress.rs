//! `turngate-egress CHANNEL_FD PORT`: the confined agent's egress bootstrap (docs/design.md
//! §3b "Confined agents"; `packages/node/src/isolation/egress-proxy.ts`). Run by the
//! sandbox's launcher before the agent starts, inside the agent's network namespace: it
//! listens on `127.0.0.1:PORT` there and sends that listening socket to turngate over the
//! unix socket it inherited as `CHANNEL_FD` (`SCM_RIGHTS`), then exits 0. turngate serves the
//! socket from outside; once sent, the socket lives on in turngate's process.
//!
//! It replaces the Node bootstrap (a Node start, about 80 ms) where the addon is built: this
//! starts in about a millisecond. It creates no unix socket (the agent's seccomp filter
//! refuses them; the channel is inherited) and uses nothing but libc.
//!
//! Exit codes: 0 sent; 2 bad arguments; 1 with a line on stderr when it cannot listen or send.
use std::net::TcpListener;
use std::os::fd::AsRawFd;

fn fail(why: &str) -> ! {
    eprintln!("turngate: the confined agent's network proxy could not start in the sandbox: {why}");
    std::process::exit(1);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(channel), Some(port)) = (
        args.get(1).and_then(|a| a.parse::<i32>().ok()),
        args.get(2).and_then(|a| a.parse::<u16>().ok()),
    ) else {
        eprintln!("usage: turngate-egress CHANNEL_FD PORT");
        std::process::exit(2);
    };
    let listener = match TcpListener::bind(("127.0.0.1", port)) {
        Ok(listener) => listener,
        Err(error) => fail(&format!("listen on 127.0.0.1:{port}: {error}")),
    };
    if let Err(error) = send_fd(channel, listener.as_raw_fd()) {
        fail(&format!("send the socket to turngate: {error}"));
    }
}

/// Sends `fd` over the unix socket `channel` with one byte of data (`SCM_RIGHTS`).
fn send_fd(channel: i32, fd: i32) -> std::io::Result<()> {
    let mut byte = [b'L'];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // SAFETY: CMSG_SPACE of one int; the buffer is aligned for cmsghdr by u64 storage.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<i32>() as u32) } as usize;
    let mut control = vec![0u64; space.div_ceil(8)];
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: msg_control points at `space` bytes; CMSG_FIRSTHDR is non-null for them.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<i32>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<i32>(), fd);
    }
    loop {
        // SAFETY: `msg` is fully initialized above.
        let sent = unsafe { libc::sendmsg(channel, &msg, libc::MSG_NOSIGNAL) };
        if sent >= 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}
