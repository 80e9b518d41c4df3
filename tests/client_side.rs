//! The client side of the protocol through the CLI: progress on stderr,
//! the server's log level in both eras, log messages.

mod common;

fn everything() -> Vec<String> {
    vec![
        "node".into(),
        common::everything_js().to_string_lossy().into_owned(),
        "stdio".into(),
    ]
}

fn py_v2(extra: &[&str]) -> Vec<String> {
    let mut v = vec![
        common::py_v2().to_string_lossy().into_owned(),
        common::server_script("py_v2_server.py")
            .to_string_lossy()
            .into_owned(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn call(args: &[&str], server: &[String]) -> common::Run {
    let mut all: Vec<&str> = vec!["call"];
    all.extend_from_slice(args);
    all.push("--");
    all.extend(server.iter().map(String::as_str));
    common::mcpdeck(&all, common::limit(60))
}

#[test]
fn progress_goes_to_stderr_never_to_json_output() {
    let run = call(
        &[
            "--json",
            "trigger-long-running-operation",
            r#"{"duration":1,"steps":4}"#,
        ],
        &everything(),
    );
    run.ok();
    // stdout is exactly the result object.
    let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("stdout is JSON");
    assert!(
        v["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Steps: 4")
    );
    let progress: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("] progress "))
        .collect();
    assert_eq!(progress.len(), 4, "{}", run.stderr);
    assert!(progress[0].contains("1/4 (25%)"), "{}", run.stderr);
    assert!(progress[3].contains("4/4 (100%)"), "{}", run.stderr);
}

#[test]
fn log_level_in_the_stateless_era_is_per_request() {
    // py_v2's echo logs at info: shown at info, filtered at warning.
    let run = call(
        &["--log-level", "info", "echo", r#"{"text":"x"}"#],
        &py_v2(&[]),
    );
    run.ok();
    assert!(
        run.stderr.contains("[info] echo called with 'x'"),
        "{}",
        run.stderr
    );
    let run = call(
        &["--log-level", "warning", "echo", r#"{"text":"x"}"#],
        &py_v2(&[]),
    );
    run.ok();
    assert!(!run.stderr.contains("echo called"), "{}", run.stderr);
    let run = call(
        &["--log-level", "loud", "echo", r#"{"text":"x"}"#],
        &py_v2(&[]),
    );
    assert!(
        run.stderr.contains("unknown log level \"loud\""),
        "{}",
        run.stderr
    );
}

#[test]
fn log_level_in_the_initialize_era_uses_logging_set_level() {
    // server-everything declares logging; its setLevel answer is checked by
    // the call going on, and the frame is in the trace.
    let mut args = vec![
        "--trace",
        "call",
        "--log-level",
        "error",
        "echo",
        r#"{"message":"hi"}"#,
        "--",
    ];
    let server = everything();
    args.extend(server.iter().map(String::as_str));
    let run = common::mcpdeck(&args, common::limit(60));
    run.ok();
    assert!(
        run.stderr
            .contains(r#""method":"logging/setLevel","params":{"level":"error"}"#),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("log level not set"), "{}", run.stderr);
    // A server without the capability: a clear warning, and the call goes on.
    let run = call(
        &["--log-level", "info", "echo", r#"{"text":"x"}"#],
        &py_v2(&["--legacy-only"]),
    );
    run.ok();
    assert!(
        run.stderr
            .contains("does not declare the logging capability"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_tool_that_requires_a_task_runs_as_one() {
    let run = call(
        &["simulate-research-query", r#"{"topic":"rust"}"#],
        &everything(),
    );
    run.ok();
    assert!(
        run.stdout.contains("# Research Report: rust"),
        "{}",
        run.stdout
    );
    let statuses: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("] task "))
        .collect();
    assert!(
        statuses.iter().any(|l| l.contains(" working")),
        "{}",
        run.stderr
    );
    assert!(
        statuses.last().is_some_and(|l| l.contains(" completed")),
        "{}",
        run.stderr
    );
    // The trace shows the task protocol: created, polled, fetched.
    let mut args = vec![
        "--trace",
        "call",
        "simulate-research-query",
        r#"{"topic":"x"}"#,
        "--",
    ];
    let server = everything();
    args.extend(server.iter().map(String::as_str));
    let run = common::mcpdeck(&args, common::limit(60));
    run.ok();
    assert!(
        run.stderr.contains(r#""task":{"ttl":300000}"#),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(r#""method":"tasks/get""#),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(r#""method":"tasks/result""#),
        "{}",
        run.stderr
    );
}
