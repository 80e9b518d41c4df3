//! Servers that misbehave on purpose (tests/servers/hostile.py), driven
//! through the real `mcpdeck` binary. Each ends with a clear result in
//! bounded time, no panic, and no process left behind.

mod common;

use common::{assert_no_leak, limit, marker, mcpdeck, py_v1, server_script, write_file};
use serde_json::Value;

struct Hostile {
    _dir: tempfile::TempDir,
    config: String,
    marker: String,
}

/// A config with one server `h` running hostile.py in `mode`.
fn hostile(mode: &str, settings: &str) -> Hostile {
    let dir = tempfile::tempdir().unwrap();
    let marker = marker(mode);
    let text = format!(
        "[settings]\n{settings}\n\n[servers.h]\ncommand = {:?}\nargs = [\"-X\", {:?}, {:?}, \"--mode\", {:?}]\n",
        py_v1().display().to_string(),
        marker,
        server_script("hostile.py").display().to_string(),
        mode
    );
    let path = write_file(dir.path(), "config.toml", &text);
    Hostile {
        config: path.display().to_string(),
        marker,
        _dir: dir,
    }
}

impl Hostile {
    fn run(&self, args: &[&str], secs: u64) -> common::Run {
        let mut all = vec!["--config", self.config.as_str()];
        all.extend_from_slice(args);
        let run = mcpdeck(&all, limit(secs));
        assert!(
            !run.stderr.contains("panicked"),
            "mcpdeck panicked:\n{}",
            run.stderr
        );
        assert_no_leak(&self.marker);
        run
    }
}

#[test]
fn garbage_frames_become_findings_and_the_call_still_completes() {
    let h = hostile("garbage", "");
    let r = h.run(&["call", "h", "echo", r#"{"text":"hi"}"#], 60);
    r.ok();
    assert!(r.stdout.contains("echo: hi"), "{}", r.stdout);
    assert!(
        r.stdout.contains("[unknown content type \"hologram\"]"),
        "{}",
        r.stdout
    );
    for needle in [
        "not JSON",
        "`jsonrpc` is \"1.0\"",
        "`jsonrpc` is missing",
        "id 99999 matches no request",
        "both `result` and `error`",
        "no `inputSchema`",
        "unknown content type `hologram`",
    ] {
        assert!(
            r.stderr.contains(needle),
            "finding {needle:?} missing from:\n{}",
            r.stderr
        );
    }
    // The raw frame is shown with the finding.
    assert!(
        r.stderr.contains("frame: this line is not JSON {{{"),
        "{}",
        r.stderr
    );
    // One bad tool never hides the others.
    let t = h.run(&["tools", "h", "--json"], 60);
    t.ok();
    let v: Value = serde_json::from_str(&t.stdout).unwrap();
    let names: Vec<&str> = v["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "no_schema", "noop"]);
}

#[test]
fn string_ids_are_matched_and_a_wrong_id_times_out_cleanly() {
    let h = hostile("wrong-ids", "request_timeout = 1\nprobe_timeout = 0.5");
    let t = h.run(&["tools", "h"], 60);
    t.ok();
    assert!(t.stdout.starts_with("echo(text: string)"), "{}", t.stdout);
    assert!(
        t.stderr.contains("came back with the id as a string"),
        "{}",
        t.stderr
    );
    let r = h.run(&["call", "h", "echo", r#"{"text":"x"}"#], 60);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(
        r.stderr.contains("no answer to tools/call within 1 s"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("\"not-"),
        "the stray response is reported: {}",
        r.stderr
    );
}

#[test]
fn a_20_mb_line_arrives_whole() {
    let h = hostile("big-line", "");
    let r = h.run(&["call", "h", "big", "--json"], 120);
    r.ok();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let text = v["content"][0]["text"].as_str().unwrap();
    assert_eq!(text.len(), 20 * 1024 * 1024);
    assert!(text.bytes().all(|b| b == b'x'));
}

#[test]
fn a_crash_mid_call_reports_the_exit_status_and_stderr() {
    let h = hostile("crash-mid-call", "request_timeout = 30");
    let r = h.run(&["call", "h", "echo", r#"{"text":"x"}"#], 60);
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("exited with status 3"), "{}", r.stderr);
    assert!(r.stderr.contains("about to crash"), "{}", r.stderr);
    assert!(
        r.elapsed < limit(20),
        "the call waited for its timeout: {:?}",
        r.elapsed
    );
}

#[test]
fn a_server_that_never_answers_initialize_fails_in_bounded_time() {
    let h = hostile(
        "silent-init",
        "connect_timeout = 2\nprobe_timeout = 0.5\nshutdown_grace = 0.5",
    );
    let r = h.run(&["servers"], 60);
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("failed"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("did not complete the handshake within 2 s"),
        "{}",
        r.stdout
    );
    let j = h.run(&["servers", "--json"], 60);
    let v: Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(v["servers"][0]["status"], "failed");
}

#[test]
fn a_server_that_exits_on_the_probe_is_restarted_into_initialize() {
    let h = hostile("exit-on-unknown", "");
    let r = h.run(&["info", "h", "--json"], 60);
    r.ok();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["era"], "initialize");
    assert_eq!(v["version"], "2025-11-25");
    let how = v["detection"].as_str().unwrap();
    assert!(
        how.contains("exited on the server/discover probe") && how.contains("restarted"),
        "{how}"
    );
    let c = h.run(&["call", "h", "echo", r#"{"text":"after restart"}"#], 60);
    c.ok();
    assert!(c.stdout.contains("echo: after restart"));
}

#[test]
fn a_stderr_flood_neither_blocks_nor_reaches_the_terminal() {
    let h = hostile("stderr-flood", "stderr_lines = 100");
    let r = h.run(&["call", "h", "echo", r#"{"text":"still here"}"#], 90);
    r.ok();
    assert!(r.stdout.contains("echo: still here"));
    assert!(
        !r.stderr.contains("flood flood"),
        "server stderr leaked into ours"
    );
    assert!(
        r.stderr.len() < 10_000,
        "{} bytes on stderr",
        r.stderr.len()
    );
}

#[test]
fn pagination_follows_cursors_and_stops_on_a_repeated_one() {
    let h = hostile("paginate", "");
    let r = h.run(&["tools", "h", "--json"], 60);
    r.ok();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["tools"].as_array().unwrap().len(), 10);

    let h = hostile("paginate-loop", "");
    let r = h.run(&["tools", "h", "--json"], 60);
    r.ok();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        v["tools"].as_array().unwrap().len(),
        2,
        "two pages before the cursor repeated"
    );
    assert!(
        r.stderr.contains("repeated the cursor \"same\""),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("listed more than once"), "{}", r.stderr);
}

#[test]
fn server_requests_are_answered_ping_with_a_result_and_roots_with_none() {
    let h = hostile("server-request", "");
    let r = h.run(&["call", "h", "answers", "--json"], 60);
    r.ok();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let answers: Value = serde_json::from_str(v["content"][0]["text"].as_str().unwrap()).unwrap();
    let by_id = |id: Value| {
        answers
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(by_id(serde_json::json!(0))["result"], serde_json::json!({}));
    // Roots are declared by every command; none configured is an empty
    // list (never the current directory).
    assert_eq!(
        by_id(serde_json::json!("abc"))["result"],
        serde_json::json!({"roots": []})
    );
}

#[test]
fn a_silent_probe_costs_only_the_probe_timeout() {
    let h = hostile("silent-probe", "probe_timeout = 0.5");
    let r = h.run(&["info", "h", "--json"], 60);
    r.ok();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["era"], "initialize");
    let how = v["detection"].as_str().unwrap();
    assert!(
        how.contains("no answer to server/discover within 500 ms"),
        "{how}"
    );
    // The handshake took about the probe timeout, not a request timeout.
    assert!(v["connectMs"].as_u64().unwrap() < 10_000, "{v}");
}

#[test]
fn counter_offers_are_accepted_when_supported_and_refused_clearly_when_not() {
    let h = hostile("old-version", "");
    let r = h.run(&["info", "h", "--json"], 60);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["version"], "2024-11-05");
    assert!(
        v["detection"]
            .as_str()
            .unwrap()
            .contains("counter-offered 2024-11-05"),
        "{v}"
    );

    let h = hostile("bad-version", "");
    let r = h.run(&["info", "h"], 60);
    assert_eq!(r.code, 3);
    assert!(
        r.stderr
            .contains("chose protocol version 1999-01-01, which mcpdeck does not speak"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_ping_during_a_blocked_write_does_not_deadlock() {
    // The server stops reading while mcpdeck writes a large request, then
    // sends a ping and a flood: the ping's answer must not wait on the write.
    let h = hostile("ping-flood", "request_timeout = 20");
    let big = "y".repeat(120_000);
    let args = format!(r#"{{"text":"{big}"}}"#);
    let r = h.run(&["call", "h", "echo", &args], 60);
    r.ok();
    assert!(
        r.stdout.starts_with("echo: yyyy"),
        "{}",
        &r.stdout[..r.stdout.len().min(100)]
    );
    assert_eq!(r.stdout.trim().len(), "echo: ".len() + big.len());
}

#[test]
fn progress_for_a_request_that_did_not_ask_never_extends_it() {
    let h = hostile("progress-abuse", "request_timeout = 1\nconnect_timeout = 5");
    let r = h.run(&["tools", "h"], 30);
    // The list that never came is a finding; the server is still usable.
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("no answer to tools/list within 1 s"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("asked for no progress"), "{}", r.stderr);
    assert!(r.elapsed < limit(15), "{:?}", r.elapsed);
}

#[test]
fn a_crash_is_reported_even_when_a_child_keeps_stdout_open() {
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("orphan");
    let py = py_v1().display().to_string();
    let script = format!(
        "{py} -X {mark} -c 'import time; time.sleep(300)' & exec {py} -X {mark} {} --mode crash-mid-call",
        server_script("hostile.py").display()
    );
    let cfg = format!(
        "[settings]\nrequest_timeout = 30\n\n[servers.h]\ncommand = \"sh\"\nargs = [\"-c\", {script:?}]\n"
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let r = mcpdeck(
        &["--config", &path, "call", "h", "echo", r#"{"text":"x"}"#],
        limit(60),
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("exited with status 3"), "{}", r.stderr);
    assert!(r.stderr.contains("about to crash"), "{}", r.stderr);
    assert!(
        r.elapsed < limit(20),
        "waited for the timeout: {:?}",
        r.elapsed
    );
    assert_no_leak(&mark);
}

#[test]
fn an_interrupt_stops_and_reaps_every_server() {
    let h = hostile("silent-init", "connect_timeout = 60\nprobe_timeout = 0.5");
    let mut cmd = std::process::Command::new(common::mcpdeck_bin());
    cmd.args(["--config", &h.config, "info", "h"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    // Wait until the server runs, then interrupt mcpdeck as Ctrl-C would.
    let deadline = std::time::Instant::now() + limit(20);
    while common::processes_with(&h.marker).is_empty() {
        assert!(
            std::time::Instant::now() < deadline,
            "the server never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = std::process::Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
    assert_no_leak(&h.marker);
}

/// A server that asks for roots although none were declared
/// (`--capabilities none`): smoke's report says the request was refused,
/// not what it would have answered.
#[test]
fn smoke_reports_an_undeclared_request_as_refused() {
    let h = hostile("server-request", "");
    let r = h.run(&["--capabilities", "none", "smoke", "h", "--json"], 60);
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", r.stdout, r.stderr));
    let roots = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "roots/list")
        .unwrap_or_else(|| panic!("no roots/list check: {v:#}"))
        .clone();
    assert_eq!(
        roots["message"], "refused: not declared (--capabilities none)",
        "{roots}"
    );
}
