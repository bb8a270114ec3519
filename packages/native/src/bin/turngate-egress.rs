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
#[path = "../fd_passing.rs"]
mod fd_passing;

use fd_passing::send_fd;
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
