//! What the process benches share: a free loopback port, and running a
//! command to its end under a time limit.

use std::net::TcpListener;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

pub fn free_port() -> u16 {
    TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port()
}

/// Run `cmd` to its end, killing it (and failing) past `max`.
pub fn run_limited(mut cmd: Command, what: &str, max: Duration) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(max) {
        Ok(out) => out.expect("wait"),
        Err(_) => {
            // SAFETY: kill only signals our own child (a positive pid), still
            // unreaped (the thread waiting for it has not returned).
            unsafe {
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
            }
            let _ = rx.recv_timeout(Duration::from_secs(5));
            panic!("{what} did not finish within {max:?}");
        }
    }
}

pub fn check(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({})\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
