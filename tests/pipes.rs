//! A closed stdout (`mcpdeck … | head -1`) ends every command quietly: no
//! panic, nothing on stderr about it, exit 141 (128 + SIGPIPE, what the
//! shell shows for a program that SIGPIPE ended), and the servers it
//! started are stopped as usual.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Run mcpdeck with `args` and its stdout a pipe whose read end is already
/// closed: its first write finds no reader. Exit code and stderr.
fn run_into_a_closed_pipe(args: &[&str]) -> (i32, String) {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let mut cmd = Command::new(common::mcpdeck_bin());
    cmd.args(args)
        .env(
            "MCPDECK_CONFIG",
            common::repo().join("tests/fixtures/empty.toml"),
        )
        .env("MCPDECK_ERA_MEMORY", "off")
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped());
    let run = common::run_limited(cmd, common::limit(60));
    (run.code, run.stderr)
}

fn assert_quiet(what: &str, code: i32, stderr: &str) {
    assert_eq!(code, 141, "{what}: exit {code}\n{stderr}");
    for bad in ["panicked", "Broken pipe", "broken pipe", "os error 32"] {
        assert!(
            !stderr.contains(bad),
            "{what}: {bad:?} on stderr:\n{stderr}"
        );
    }
}

#[test]
fn completions_into_a_closed_pipe_end_quietly() {
    let (code, stderr) = run_into_a_closed_pipe(&["completions", "bash"]);
    assert_quiet("completions bash", code, &stderr);
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn the_demo_tour_into_a_closed_pipe_ends_quietly() {
    // Without a terminal, bare --demo runs the tour.
    let (code, stderr) = run_into_a_closed_pipe(&["--demo"]);
    assert_quiet("--demo", code, &stderr);
    assert!(stderr.is_empty(), "{stderr}");
}

#[test]
fn tools_json_with_many_tools_into_a_closed_pipe_ends_quietly_and_stops_the_server() {
    let exe = common::mcpdeck_bin();
    let exe = exe.to_str().expect("utf-8 path");
    let marker = common::marker("pipes-tools");
    let (code, stderr) = run_into_a_closed_pipe(&[
        "tools",
        "--json",
        "--",
        exe,
        "demo-server",
        "--name",
        &marker,
        "--tools",
        "5000",
    ]);
    assert_quiet("tools --json", code, &stderr);
    common::assert_no_leak(&marker);
}

#[test]
fn a_reader_that_takes_one_line_then_leaves_ends_a_long_output_quietly() {
    // `| head -1`: the reader goes after the first line, mid-output.
    let exe = common::mcpdeck_bin();
    let marker = common::marker("pipes-head");
    let mut child = Command::new(&exe)
        .args(["tools", "--"])
        .arg(&exe)
        .args(["demo-server", "--name", &marker, "--tools", "5000"])
        .env(
            "MCPDECK_CONFIG",
            common::repo().join("tests/fixtures/empty.toml"),
        )
        .env("MCPDECK_ERA_MEMORY", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn mcpdeck");
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    out.read_line(&mut first).expect("a line");
    assert!(!first.is_empty());
    drop(out);
    let deadline = Instant::now() + common::limit(60);
    let status = loop {
        if let Some(s) = child.try_wait().expect("try_wait") {
            break s;
        }
        if Instant::now() > deadline {
            common::reap(&mut child, false);
            panic!("mcpdeck did not end after its reader left");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_quiet("tools | head -1", status.code().unwrap_or(-1), &stderr);
    common::assert_no_leak(&marker);
}
