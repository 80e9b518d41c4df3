//! `--trace` and the log file never hold up mcpdeck when nobody reads them:
//! stderr is a pipe the test never reads (and the trace is far more than a
//! pipe holds), and `--log-file` is a FIFO already full. mcpdeck still
//! answers completely on stdout and exits 0; a hang is killed by a watchdog
//! and fails.

mod common;

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Make a FIFO at `path`.
fn mkfifo(path: &std::path::Path) {
    let c =
        std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("a path without NUL");
    // SAFETY: a valid NUL-terminated path.
    let rc = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(
        rc,
        0,
        "mkfifo {}: {}",
        path.display(),
        std::io::Error::last_os_error()
    );
}

/// Write into a non-blocking pipe end until it is full.
fn fill(f: &mut File) -> usize {
    let chunk = [b'x'; 4096];
    let mut n = 0;
    loop {
        match f.write(&chunk) {
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return n,
            Err(e) => panic!("filling the pipe: {e}"),
        }
    }
}

#[test]
fn a_paused_stderr_and_a_full_log_fifo_do_not_hold_up_the_trace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("log.fifo");
    mkfifo(&fifo);
    // Opened for reading and writing (so mcpdeck's open finds a reader and
    // never blocks), never read, and full before mcpdeck starts.
    let mut held = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .expect("open the FIFO");
    assert!(fill(&mut held) > 0);

    // stderr: a pipe whose reading end is held and never read.
    let (err_reader, err_writer) = std::io::pipe().expect("a pipe");

    let mark = common::marker("trace-block");
    let script = common::repo().join("tests/fixtures/storm_server.py");
    let py = common::py_v1().display().to_string();
    let mut cmd = Command::new(common::mcpdeck_bin());
    cmd.args(["--log-file"])
        .arg(&fifo)
        .args(["--trace", "tools", "--json", "--", &py, "-X", &mark])
        .arg(&script)
        .arg("many")
        .env(
            "MCPDECK_CONFIG",
            common::repo().join("tests/fixtures/empty.toml"),
        )
        .env("RUST_LOG", "debug")
        .env("MANY_TOOLS", "400")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(err_writer);
    let mut child = cmd.spawn().expect("spawn mcpdeck");
    // Only the child holds the writing end now.
    drop(cmd);
    let mut stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        out
    });
    // The watchdog: a hang is a failure, not a stuck test.
    let limit = common::limit(30);
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "mcpdeck hung with a paused stderr and a full log FIFO (killed after {limit:?})"
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = reader.join().expect("stdout reader");
    assert_eq!(status.code(), Some(0), "stdout:\n{out}");
    // The answer is complete: every tool, in JSON.
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}); its end: {}",
            &out[out.len().saturating_sub(300)..]
        )
    });
    let tools = v
        .as_array()
        .or_else(|| v.get("tools").and_then(|t| t.as_array()))
        .unwrap_or_else(|| panic!("no tool list in {}", &out[..out.len().min(300)]));
    assert_eq!(tools.len(), 400);
    // The trace did fill the pipe (a blocking write would have hung): it
    // holds about its capacity, the beginning of the trace only.
    use std::os::fd::AsRawFd;
    // SAFETY: fcntl on a pipe descriptor we own.
    let capacity = unsafe { libc::fcntl(err_reader.as_raw_fd(), libc::F_GETPIPE_SZ) };
    let mut err = Vec::new();
    let mut err_reader = err_reader;
    err_reader.read_to_end(&mut err).expect("read stderr");
    let err = String::from_utf8_lossy(&err);
    let tail = &err[err.floor_char_boundary(err.len().saturating_sub(200))..];
    assert!(
        err.len() >= capacity as usize / 2,
        "{} bytes in a pipe of {capacity}: {tail}",
        err.len()
    );
    assert!(err.contains("tools/list"), "{tail}");
    // The trace was cut short there: the last tool never reached it.
    assert!(!err.contains("tool_399"), "{tail}");
    drop(held);
    common::assert_no_leak(&mark);
}
