//! One file descriptor passed over a unix stream socket (`SCM_RIGHTS`), both ways: the
//! confined agent's egress bootstrap sends its listening socket (`src/bin/turngate-egress.rs`,
//! which includes this file as a module) and the addon receives it (`egress_channel.rs`).
//! Each side uses one of the two functions.
#![allow(dead_code)]

/// A control buffer for one descriptor (`CMSG_SPACE` of an int, aligned for `cmsghdr`) and
/// a `msghdr` over it and the one-byte `data`; the caller keeps both alive while it uses
/// the header.
fn message(data: &mut [u8; 1], iov: &mut libc::iovec, control: &mut Vec<u64>) -> libc::msghdr {
    // SAFETY: CMSG_SPACE only computes a size.
    let space = unsafe { libc::CMSG_SPACE(std::mem::size_of::<i32>() as u32) } as usize;
    *control = vec![0u64; space.div_ceil(8)];
    iov.iov_base = data.as_mut_ptr().cast();
    iov.iov_len = 1;
    // SAFETY: an all-zero msghdr is valid; its buffers are set next.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    msg
}

/// Sends `fd` over the unix socket `channel` with one byte of data, retrying on `EINTR`.
pub fn send_fd(channel: i32, fd: i32) -> std::io::Result<()> {
    let mut data = [b'L'];
    let mut iov = libc::iovec {
        iov_base: std::ptr::null_mut(),
        iov_len: 0,
    };
    let mut control = Vec::new();
    let msg = message(&mut data, &mut iov, &mut control);
    // SAFETY: `msg_control` holds room for one descriptor's header; CMSG_FIRSTHDR is non-null.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<i32>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<i32>(), fd);
    }
    loop {
        // SAFETY: `msg` points at live buffers of the sizes given.
        if unsafe { libc::sendmsg(channel, &msg, libc::MSG_NOSIGNAL) } >= 0 {
            return Ok(());
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Receives one descriptor from the unix socket `channel` (close-on-exec), retrying on
/// `EINTR`. Errors: the `recvmsg` error, the other end closed without sending one, or a
/// message without a descriptor, as a sentence.
pub fn recv_fd(channel: i32) -> Result<i32, String> {
    let mut data = [0u8];
    let mut iov = libc::iovec {
        iov_base: std::ptr::null_mut(),
        iov_len: 0,
    };
    let mut control = Vec::new();
    let mut msg = message(&mut data, &mut iov, &mut control);
    #[cfg(target_os = "linux")]
    let flags = libc::MSG_CMSG_CLOEXEC;
    #[cfg(not(target_os = "linux"))]
    let flags = 0;
    let got = loop {
        // SAFETY: `msg` points at live buffers of the sizes given.
        let got = unsafe { libc::recvmsg(channel, &mut msg, flags) };
        if got >= 0 {
            break got;
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("recvmsg: {error}"));
        }
    };
    if got == 0 {
        return Err("the sandbox closed the channel without sending a socket".to_string());
    }
    // SAFETY: the kernel filled `msg_control` with `msg_controllen` bytes.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        if cmsg.is_null()
            || (*cmsg).cmsg_level != libc::SOL_SOCKET
            || (*cmsg).cmsg_type != libc::SCM_RIGHTS
        {
            return Err("the sandbox's message held no socket".to_string());
        }
        let received = std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<i32>());
        #[cfg(not(target_os = "linux"))]
        libc::fcntl(received, libc::F_SETFD, libc::FD_CLOEXEC);
        Ok(received)
    }
}
