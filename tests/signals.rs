//! Ctrl-C, SIGTERM and SIGHUP stop every stdio server the polite way: its
//! stdin closed, the grace, SIGTERM to its process group, the grace again,
//! SIGKILL. A server that leaves on stdin EOF ends mcpdeck at once; a
//! second Ctrl-C kills at once. Exit 130, 143, 129.
//!
//! The fake server (written by each test into its temp dir) logs to a file
//! what it saw: `EOF seen`, `SIGTERM`. It never answers `tools/call`, so
//! `mcpdeck call` is busy with it when the signal comes.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SERVER: &str = r#"
import json, os, signal, sys, time
LOG, MODE = sys.argv[1], sys.argv[2]

def log(line):
    with open(LOG, "a") as f:
        f.write(line + "\n")

def on_term(*_):
    log("SIGTERM")
    if MODE == "term":
        os._exit(0)

# eof: leaves on stdin EOF; term: stays after EOF, leaves on SIGTERM;
# stubborn: stays after both (only SIGKILL ends it).
if MODE in ("term", "stubborn"):
    signal.signal(signal.SIGTERM, on_term)
log("pid %d" % os.getpid())
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method = m.get("method")
    if method == "initialize":
        r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
             "serverInfo": {"name": "sig", "version": "1"}}
    elif method == "tools/list":
        r = {"tools": [{"name": "hang", "inputSchema": {"type": "object"}}]}
    elif method == "tools/call":
        log("call")
        continue
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"],
                                     "error": {"code": -32601, "message": "no"}}) + "\n")
        sys.stdout.flush()
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
    sys.stdout.flush()
log("EOF seen")
if MODE != "eof":
    while True:
        time.sleep(1)
"#;

/// A `mcpdeck call hang` busy with the fake server in `mode`, its grace
/// 2 s (so that "at once" and "after the grace" are far apart).
struct Busy {
    child: Child,
    log: PathBuf,
    _dir: tempfile::TempDir,
}

fn start(mode: &str) -> Busy {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = common::write_file(
        dir.path(),
        "config.toml",
        "[settings]\noneshot_grace = 2\nshutdown_grace = 2\n",
    );
    let script = common::write_file(dir.path(), "server.py", SERVER);
    let log = dir.path().join("server.log");
    let child = Command::new(common::mcpdeck_bin())
        .arg("--config")
        .arg(&config)
        .args(["call", "hang", "{}", "--"])
        .arg(common::py_v1())
        .arg(&script)
        .arg(&log)
        .arg(mode)
        .env("MCPDECK_ERA_MEMORY", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpdeck");
    let mut busy = Busy {
        child,
        log,
        _dir: dir,
    };
    // Wait until the call is with the server.
    let deadline = Instant::now() + common::limit(30);
    while !busy.log_text().contains("call") {
        if Instant::now() > deadline {
            common::reap(&mut busy.child, false);
            panic!("the call never reached the server: {:?}", busy.log_text());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    busy
}

impl Busy {
    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn server_pid(&self) -> i32 {
        let text = self.log_text();
        text.lines()
            .find_map(|l| l.strip_prefix("pid "))
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("no pid in the server's log: {text:?}"))
    }

    fn signal(&self, sig: i32) {
        let pid = i32::try_from(self.child.id()).expect("pid");
        assert!(pid > 0);
        // SAFETY: kill(2) on the single positive pid of our own child.
        unsafe {
            libc::kill(pid, sig);
        }
    }

    /// Wait for mcpdeck to exit: its exit code and its stderr.
    fn wait(&mut self) -> (i32, String) {
        let deadline = Instant::now() + common::limit(30);
        loop {
            match self.child.try_wait().expect("try_wait") {
                Some(_) => break,
                None if Instant::now() > deadline => {
                    common::reap(&mut self.child, false);
                    panic!("mcpdeck did not exit after the signal");
                }
                None => std::thread::sleep(Duration::from_millis(10)),
            }
        }
        let out = std::mem::replace(&mut self.child, dummy())
            .wait_with_output()
            .expect("wait");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// A child already reaped, to take the place of the one waited for.
fn dummy() -> Child {
    let mut c = Command::new("true").spawn().expect("spawn true");
    let _ = c.wait();
    c
}

impl Drop for Busy {
    fn drop(&mut self) {
        common::reap(&mut self.child, false);
    }
}

/// The server process is gone (or a zombie about to be reaped by init)
/// within a moment.
fn assert_gone(pid: i32) {
    let deadline = Instant::now() + Duration::from_secs(3);
    let stat = PathBuf::from(format!("/proc/{pid}/stat"));
    while Instant::now() < deadline {
        match std::fs::read_to_string(&stat) {
            Err(_) => return,
            Ok(s) if s.split(' ').nth(2) == Some("Z") => return,
            Ok(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    panic!("the server (pid {pid}) outlived mcpdeck");
}

fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn ctrl_c_closes_stdin_and_a_server_that_leaves_on_eof_ends_mcpdeck_at_once() {
    let mut busy = start("eof");
    let pid = busy.server_pid();
    let at = Instant::now();
    busy.signal(libc::SIGINT);
    let (code, stderr) = busy.wait();
    let took = at.elapsed();
    assert_eq!(code, 130, "{stderr}");
    // The grace is 2 s: no fixed wait, no SIGTERM.
    assert!(
        took < Duration::from_millis(1500),
        "took {took:?}\n{stderr}"
    );
    let lines = log_lines(&busy.log);
    assert!(lines.contains(&"EOF seen".to_string()), "{lines:?}");
    assert_gone(pid);
}

#[test]
fn sighup_sends_sigterm_after_the_grace_to_a_server_that_stays_after_eof() {
    let mut busy = start("term");
    let pid = busy.server_pid();
    let at = Instant::now();
    busy.signal(libc::SIGHUP);
    let (code, stderr) = busy.wait();
    let took = at.elapsed();
    assert_eq!(code, 129, "{stderr}");
    let lines = log_lines(&busy.log);
    // stdin closed first, SIGTERM only after the grace.
    let eof = lines.iter().position(|l| l == "EOF seen");
    let term = lines.iter().position(|l| l == "SIGTERM");
    assert!(eof.is_some() && term > eof, "{lines:?}");
    assert!(took >= Duration::from_millis(1900), "took {took:?}");
    assert_gone(pid);
}

#[test]
fn sigterm_ends_with_sigkill_for_a_server_that_ignores_eof_and_sigterm() {
    let mut busy = start("stubborn");
    let pid = busy.server_pid();
    busy.signal(libc::SIGTERM);
    let (code, stderr) = busy.wait();
    assert_eq!(code, 143, "{stderr}");
    let lines = log_lines(&busy.log);
    assert!(lines.contains(&"EOF seen".to_string()), "{lines:?}");
    assert!(lines.contains(&"SIGTERM".to_string()), "{lines:?}");
    // It ignored both: only SIGKILL ended it.
    assert_gone(pid);
}

#[test]
fn a_second_ctrl_c_kills_at_once() {
    let mut busy = start("stubborn");
    let pid = busy.server_pid();
    busy.signal(libc::SIGINT);
    // stdin is closed at once: wait for the server to see it, then again.
    let deadline = Instant::now() + common::limit(10);
    while !log_lines(&busy.log).contains(&"EOF seen".to_string()) {
        assert!(Instant::now() < deadline, "stdin was never closed");
        std::thread::sleep(Duration::from_millis(10));
    }
    let at = Instant::now();
    busy.signal(libc::SIGINT);
    let (code, stderr) = busy.wait();
    let took = at.elapsed();
    assert_eq!(code, 130, "{stderr}");
    assert!(
        took < Duration::from_millis(1500),
        "took {took:?}\n{stderr}"
    );
    // Killed before the grace was over: it never got SIGTERM.
    let lines = log_lines(&busy.log);
    assert!(!lines.contains(&"SIGTERM".to_string()), "{lines:?}");
    assert_gone(pid);
}
