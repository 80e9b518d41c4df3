//! One-shot commands answer at once: stdout reaches its end of file as soon
//! as the answer is written, while mcpdeck is still stopping the server
//! (tests/fixtures/slow_exit_server.py, slow to leave on stdin EOF), and
//! the server is reaped before mcpdeck exits.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use serde_json::Value;

/// One mcpdeck run against the fixture, with stdout a pipe.
struct Run {
    child: Child,
    pid_file: PathBuf,
    marker: String,
    _dir: tempfile::TempDir,
}

/// What a run ended with.
struct Ended {
    stdout: String,
    /// Whether mcpdeck, and the server it stops, were both still running
    /// when stdout reached its end. (mcpdeck reaps the server before it
    /// exits, so a stdout that ends only with mcpdeck finds the server gone;
    /// mcpdeck alone is no proof: an exiting process closes its files before
    /// `try_wait` can see it gone.)
    alive_at_eof: bool,
    code: i32,
    stderr: String,
}

/// `mcpdeck --config (oneshot_grace = GRACE) ARGS -- python slow_exit_server.py MODE PID_FILE`.
fn start(args: &[&str], mode: &str, grace: &str) -> Run {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = common::write_file(
        dir.path(),
        "config.toml",
        &format!("[settings]\noneshot_grace = {grace}\n"),
    );
    let pid_file = dir.path().join("server.pid");
    let marker = common::marker(&format!("oneshot-{mode}"));
    let script = common::repo().join("tests/fixtures/slow_exit_server.py");
    let mut cmd = Command::new(common::mcpdeck_bin());
    cmd.arg("--config")
        .arg(&config)
        .args(args)
        .arg("--")
        .arg(common::py_v1())
        .args(["-X", &marker])
        .arg(&script)
        .arg(mode)
        .arg(&pid_file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().expect("spawn mcpdeck");
    Run {
        child,
        pid_file,
        marker,
        _dir: dir,
    }
}

impl Run {
    /// Read stdout to its end, see whether mcpdeck is still running, then
    /// wait for it. Fails (after stopping mcpdeck) past the time limit.
    fn finish(mut self) -> Ended {
        let limit = common::limit(60);
        let mut stdout = self.child.stdout.take().expect("stdout");
        let mut stderr = self.child.stderr.take().expect("stderr");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stdout.read_to_string(&mut s);
            let _ = tx.send(s);
        });
        let (etx, erx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            let _ = etx.send(s);
        });
        let Ok(out) = rx.recv_timeout(limit) else {
            self.stop();
            panic!("mcpdeck's stdout did not end within {limit:?}");
        };
        let server_alive = common::processes_with(&self.marker)
            .iter()
            .any(|(_, line)| !line.ends_with("[Z]"));
        let alive_at_eof = self.child.try_wait().expect("try_wait").is_none() && server_alive;
        let (tx, rx) = mpsc::channel();
        let mut child = self.child;
        let pid = child.id();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait());
        });
        let Ok(status) = rx.recv_timeout(limit) else {
            let _ = Command::new("kill")
                .args(["-INT", &pid.to_string()])
                .status();
            panic!("mcpdeck did not exit within {limit:?} after its stdout ended");
        };
        let status = status.expect("wait");
        // mcpdeck reaps its server before it exits: nothing is left, not
        // even a zombie, the moment it is gone.
        let left = common::processes_with(&self.marker);
        assert!(left.is_empty(), "the server outlived mcpdeck: {left:?}");
        let pid = server_pid(&self.pid_file);
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "the server (pid {pid}) outlived mcpdeck"
        );
        Ended {
            stdout: out,
            alive_at_eof,
            code: status.code().unwrap_or(-1),
            stderr: erx.recv_timeout(limit).unwrap_or_default(),
        }
    }

    fn stop(&mut self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }
}

fn server_pid(pid_file: &Path) -> u32 {
    let text = std::fs::read_to_string(pid_file)
        .unwrap_or_else(|e| panic!("the server wrote no pid to {}: {e}", pid_file.display()));
    text.trim()
        .parse()
        .unwrap_or_else(|e| panic!("bad pid {text:?}: {e}"))
}

fn json(e: &Ended) -> Value {
    serde_json::from_str(&e.stdout).unwrap_or_else(|err| {
        panic!(
            "stdout is not complete JSON ({err}):\n{}\nstderr:\n{}",
            e.stdout, e.stderr
        )
    })
}

// The slow server sleeps 3 s on stdin EOF; a 2 s grace keeps mcpdeck
// stopping it (then SIGTERM ends it) well after the answer is out.

#[test]
fn tools_closes_stdout_before_the_slow_server_has_left() {
    let e = start(&["tools", "--json"], "slow", "2").finish();
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert!(
        e.alive_at_eof,
        "stdout ended only when mcpdeck exited\n{}",
        e.stderr
    );
    let v = json(&e);
    let names: Vec<&str> = v["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["echo", "fail"], "{v:#}");
}

#[test]
fn call_closes_stdout_before_the_slow_server_has_left() {
    let e = start(
        &["call", "echo", r#"{"text":"hi there"}"#, "--json"],
        "slow",
        "2",
    )
    .finish();
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert!(e.alive_at_eof, "stdout ended only when mcpdeck exited");
    let v = json(&e);
    assert_eq!(v["content"][0]["text"], "hi there", "{v:#}");
}

#[test]
fn prompts_and_info_close_stdout_before_the_slow_server_has_left() {
    let e = start(&["prompts", "--json"], "slow", "2").finish();
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert!(
        e.alive_at_eof,
        "prompts: stdout ended only when mcpdeck exited"
    );
    assert_eq!(json(&e)["prompts"][0]["name"], "hello");

    let e = start(&["info", "--json"], "slow", "2").finish();
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert!(
        e.alive_at_eof,
        "info: stdout ended only when mcpdeck exited"
    );
    assert_eq!(json(&e)["serverInfo"]["name"], "slow-exit");
}

#[test]
fn the_exit_code_is_the_answers_after_the_server_is_stopped() {
    // The tool's isError: exit 1, printed before the server was stopped.
    let e = start(&["call", "fail", "{}", "--json"], "slow", "2").finish();
    assert_eq!(e.code, 1, "{}", e.stderr);
    assert!(e.alive_at_eof);
    assert_eq!(json(&e)["isError"], true);
    assert!(e.stderr.contains("isError"), "{}", e.stderr);

    // A usage error found after connecting: exit 2, its message on stderr.
    let e = start(&["call", "nope", "{}"], "slow", "2").finish();
    assert_eq!(e.code, 2, "{}", e.stderr);
    assert!(e.stdout.is_empty(), "{}", e.stdout);
    assert!(e.stderr.contains("no tool named \"nope\""), "{}", e.stderr);
}

#[test]
fn a_server_that_ignores_eof_and_sigterm_is_killed_after_the_grace() {
    // Without SIGKILL this server would live 600 s: the run's time limit
    // (and the reaping checks in `finish`) catch a mcpdeck that waits.
    let e = start(&["tools", "--json"], "stubborn", "0.1").finish();
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert_eq!(json(&e)["tools"][0]["name"], "echo");

    let e = start(&["call", "echo", r#"{"text":"x"}"#], "stubborn", "0.1").finish();
    assert_eq!(e.code, 0, "{}", e.stderr);
    assert_eq!(e.stdout, "x\n");
}

/// The methods mcpdeck sent, from its `--trace` on stderr.
fn sent_methods(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter(|l| l.contains(" C->S "))
        .filter_map(|l| {
            let at = l.find("\"method\":\"")? + 10;
            let rest = &l[at..];
            Some(rest[..rest.find('"')?].to_string())
        })
        .collect()
}

#[test]
fn a_command_asks_only_for_the_lists_it_prints() {
    // `tools` and `call` list the tools alone; `info` lists everything (it
    // prints each list's caching hints), and calls nothing.
    for (args, wanted, unwanted) in [
        (
            &["--trace", "tools", "--json"][..],
            "tools/list",
            "prompts/list",
        ),
        (
            &["--trace", "call", "echo", r#"{"text":"x"}"#][..],
            "tools/call",
            "prompts/list",
        ),
        (
            &["--trace", "info", "--json"][..],
            "prompts/list",
            "tools/call",
        ),
    ] {
        let e = start(args, "slow", "0.1").finish();
        assert_eq!(e.code, 0, "{args:?}: {}", e.stderr);
        let sent = sent_methods(&e.stderr);
        assert!(
            sent.iter().any(|m| m == wanted),
            "{args:?}: {wanted} not sent: {sent:?}\n{}",
            e.stderr
        );
        assert!(
            !sent.iter().any(|m| m == unwanted),
            "{args:?}: {unwanted} was asked for: {sent:?}"
        );
    }
    // `prompts` still gets its list (and the others, as before).
    let e = start(&["--trace", "prompts", "--json"], "slow", "0.1").finish();
    assert!(
        sent_methods(&e.stderr).iter().any(|m| m == "prompts/list"),
        "{}",
        e.stderr
    );
}
