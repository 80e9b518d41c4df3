//! `mcpdeck bench`: the counts against the demo server (ad hoc and by
//! name), the concurrency bound against a fixture that counts its calls in
//! flight (tests/fixtures/load_server.py), destructive tools refused, a
//! server that dies mid-run, `--duration` and a per-call timeout, and
//! Ctrl-C (SIGINT) still printing the report.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn json_of(run: &common::Run) -> Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "bench --json printed no JSON ({e}); exit {}\nstdout:\n{}\nstderr:\n{}",
            run.code, run.stdout, run.stderr
        )
    })
}

fn demo_server() -> String {
    common::mcpdeck_bin().display().to_string()
}

/// The fixture's command line (after `--`): the state file lives in a
/// directory named after `marker`, so its processes can be found.
struct Fixture {
    dir: tempfile::TempDir,
    marker: String,
}

impl Fixture {
    fn new(name: &str) -> Fixture {
        let marker = common::marker(&format!("load-{name}"));
        let dir = tempfile::Builder::new()
            .prefix(&marker)
            .tempdir()
            .expect("tempdir");
        Fixture { dir, marker }
    }

    fn state_file(&self) -> PathBuf {
        self.dir.path().join("state.json")
    }

    /// `python load_server.py STATE [DIE_AFTER]`
    fn command(&self, die_after: Option<u32>) -> Vec<String> {
        let mut cmd = vec![
            common::py_v1().display().to_string(),
            common::repo()
                .join("tests/fixtures/load_server.py")
                .display()
                .to_string(),
            self.state_file().display().to_string(),
        ];
        if let Some(n) = die_after {
            cmd.push(n.to_string());
        }
        cmd
    }

    /// `{"max_inflight", "calls"}` as the server counted them.
    fn state(&self) -> Option<Value> {
        read_state(&self.state_file())
    }
}

fn read_state(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

fn bench(args: &[&str], command: &[String]) -> common::Run {
    let mut all: Vec<&str> = vec!["bench"];
    all.extend_from_slice(args);
    all.push("--");
    all.extend(command.iter().map(String::as_str));
    common::mcpdeck(&all, common::limit(60))
}

#[test]
fn demo_server_counts() {
    let server = demo_server();
    let run = bench(
        &[
            "add",
            r#"{"a":1,"b":2}"#,
            "--calls",
            "50",
            "--concurrency",
            "4",
            "--json",
        ],
        &[server, "demo-server".into()],
    );
    run.ok();
    let v = json_of(&run);
    assert_eq!(v["calls"], 50, "{v}");
    assert_eq!(v["errors"], 0, "{v}");
    for k in ["transport", "jsonrpc", "is_error", "timeout"] {
        assert_eq!(v["errors_by_kind"][k], 0, "{k}: {v}");
    }
    for k in ["p50", "p95", "p99", "max"] {
        assert!(v["latency_ms"][k].is_number(), "{k}: {v}");
    }
    let (p50, max) = (
        v["latency_ms"]["p50"].as_f64().unwrap_or(-1.0),
        v["latency_ms"]["max"].as_f64().unwrap_or(-1.0),
    );
    assert!(p50 >= 0.0 && p50 <= max, "{v}");
    assert!(v["duration_s"].as_f64().is_some_and(|d| d > 0.0), "{v}");
    assert!(v["calls_per_s"].as_f64().is_some_and(|r| r > 0.0), "{v}");
    // A stdio server: its CPU time and peak RSS from /proc.
    assert!(
        v["server"]["cpu_s"].as_f64().is_some_and(|c| c >= 0.0),
        "{v}"
    );
    assert!(
        v["server"]["peak_rss_kb"].as_u64().is_some_and(|k| k > 0),
        "{v}"
    );
}

#[test]
fn demo_by_name_in_text_and_is_error_counted() {
    // TARGET by name (the built-in demo config), the stateless era.
    let run = common::mcpdeck(
        &[
            "--demo",
            "bench",
            "demo-stateless",
            "add",
            "--arg",
            "a=2",
            "--arg",
            "b=3",
            "--calls",
            "20",
            "-c",
            "2",
        ],
        common::limit(60),
    );
    run.ok();
    assert!(
        run.stdout
            .starts_with("bench add on demo-stateless: 20 calls in "),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("latency  p50 "), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("errors   0 (transport 0 · jsonrpc 0 · is_error 0 · timeout 0)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("peak RSS "), "{}", run.stdout);

    // A tool that returns isError: every call counted as such, exit 1.
    let run = bench(
        &["fail", "--calls", "5", "--json"],
        &[demo_server(), "demo-server".into()],
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let v = json_of(&run);
    assert_eq!(v["calls"], 5, "{v}");
    assert_eq!(v["errors"], 5, "{v}");
    assert_eq!(v["errors_by_kind"]["is_error"], 5, "{v}");
}

#[test]
fn concurrency_is_bounded_and_reached() {
    let f = Fixture::new("conc");
    let run = bench(
        &[
            "sleep",
            r#"{"ms":100}"#,
            "--calls",
            "24",
            "--concurrency",
            "4",
            "--json",
        ],
        &f.command(None),
    );
    run.ok();
    let v = json_of(&run);
    assert_eq!(v["calls"], 24, "{v}");
    let state = f.state().expect("the fixture's state file");
    assert_eq!(state["calls"], 24, "{state}");
    // Never more than 4 in flight, and 4 reached (each call sleeps 100 ms:
    // the next calls go out while the first are still sleeping).
    assert_eq!(state["max_inflight"], 4, "{state}");

    // A JSON-RPC error response is its own kind.
    let run = bench(&["rpc_error", "--calls", "3", "--json"], &f.command(None));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let v = json_of(&run);
    assert_eq!(v["errors_by_kind"]["jsonrpc"], 3, "{v}");
    common::assert_no_leak(&f.marker);
}

#[test]
fn destructive_tools_are_refused_without_the_flag() {
    let f = Fixture::new("destructive");
    for tool in ["delete_all", "no_hints"] {
        let run = bench(&[tool, "--calls", "3"], &f.command(None));
        assert_eq!(run.code, 2, "{tool}: {}\n{}", run.stdout, run.stderr);
        assert!(run.stderr.contains("--destructive"), "{}", run.stderr);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        // Not one call was made.
        assert!(f.state().is_none(), "{:?}", f.state());
    }
    let run = bench(
        &["delete_all", "--calls", "3", "--destructive", "--json"],
        &f.command(None),
    );
    run.ok();
    assert_eq!(json_of(&run)["calls"], 3);
    assert_eq!(f.state().expect("state")["calls"], 3);
    common::assert_no_leak(&f.marker);
}

#[test]
fn a_server_that_dies_mid_run_is_reported() {
    let f = Fixture::new("dies");
    let run = bench(
        &["sleep", r#"{"ms":5}"#, "--calls", "50", "-c", "2", "--json"],
        &f.command(Some(10)),
    );
    assert_eq!(run.code, 3, "{}\n{}", run.stdout, run.stderr);
    // The report is still printed: the calls answered before it died, the
    // rest as transport errors; none of the 40 after it were counted as made.
    let v = json_of(&run);
    let calls = v["calls"].as_u64().unwrap_or(0);
    assert!((9..50).contains(&calls), "{v}");
    assert!(
        v["errors_by_kind"]["transport"]
            .as_u64()
            .is_some_and(|n| n >= 1),
        "{v}"
    );
    assert!(run.stderr.contains("went away"), "{}", run.stderr);
    assert!(run.stderr.contains("status 7"), "{}", run.stderr);
    // Its stderr tail.
    assert!(
        run.stderr.contains("load-fixture: giving up at call 10"),
        "{}",
        run.stderr
    );
    common::assert_no_leak(&f.marker);
}

#[test]
fn duration_bounds_the_run() {
    let f = Fixture::new("duration");
    // No --calls: only the time bounds it.
    let run = bench(
        &[
            "sleep",
            r#"{"ms":20}"#,
            "--duration",
            "0.5",
            "-c",
            "2",
            "--json",
        ],
        &f.command(None),
    );
    run.ok();
    let v = json_of(&run);
    let calls = v["calls"].as_u64().unwrap_or(0);
    assert!(calls >= 2, "{v}");
    assert_eq!(v["errors"], 0, "{v}");
    assert_eq!(f.state().expect("state")["calls"], calls, "{v}");

    // Calls that never end: the two in flight when the time is up are
    // timeouts, and the run ends.
    let run = bench(
        &[
            "sleep",
            r#"{"ms":600000}"#,
            "--duration",
            "0.3",
            "--timeout",
            "1",
            "-c",
            "2",
            "--json",
        ],
        &f.command(None),
    );
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    let v = json_of(&run);
    assert_eq!(v["calls"], 2, "{v}");
    assert_eq!(v["errors_by_kind"]["timeout"], 2, "{v}");
    assert!(v["latency_ms"]["p50"].is_null(), "{v}");
    common::assert_no_leak(&f.marker);
}

#[test]
fn sigint_prints_what_was_measured() {
    let f = Fixture::new("sigint");
    let mut cmd = Command::new(common::mcpdeck_bin());
    cmd.env(
        "MCPDECK_CONFIG",
        common::repo().join("tests/fixtures/empty.toml"),
    )
    .args([
        "bench",
        "sleep",
        r#"{"ms":100}"#,
        "--calls",
        "100000",
        "-c",
        "2",
    ])
    .arg("--")
    .args(f.command(None))
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let child = cmd.spawn().expect("spawn mcpdeck");
    let pid = child.id();
    // Wait until some calls were made.
    let deadline = Instant::now() + common::limit(30);
    while f
        .state()
        .and_then(|s| s["calls"].as_u64())
        .is_none_or(|n| n < 6)
    {
        assert!(Instant::now() < deadline, "no calls reached the server");
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .expect("kill -INT");
    assert!(status.success());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(common::limit(30)) {
        Ok(r) => r.expect("wait"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("mcpdeck did not stop after SIGINT");
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("bench sleep on adhoc: "), "{stdout}");
    assert!(stdout.contains("latency  p50 "), "{stdout}");
    assert!(stdout.contains("interrupted: "), "{stdout}");
    let calls: u64 = stdout
        .split(": ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!((4..100_000).contains(&calls), "{stdout}");
    common::assert_no_leak(&f.marker);
}

#[test]
fn an_http_server_has_no_server_numbers() {
    let server = common::everything_http("streamableHttp");
    let run = common::mcpdeck(
        &[
            "bench",
            &server.url,
            "echo",
            "--arg",
            "message=hi",
            "--calls",
            "20",
            "-c",
            "4",
            "--json",
        ],
        common::limit(60),
    );
    run.ok();
    let v = json_of(&run);
    assert_eq!(v["calls"], 20, "{v}");
    assert_eq!(v["errors"], 0, "{v}");
    assert!(v["latency_ms"]["p95"].is_number(), "{v}");
    // Nothing to read in /proc for a server mcpdeck did not start.
    assert!(v["server"].is_null(), "{v}");
}
