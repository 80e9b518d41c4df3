//! The CLI's limits and its one JSON error shape: every `--json` command
//! prints `{"error": {"kind", "code", "message", "data", "stderrTail"}}` on
//! stdout when it fails; `--timeout` ends a command against a server that
//! never answers; `call` takes its arguments from stdin (`-`) or a file
//! (`--args-file`) past the command line's 128 KiB; `tool TARGET NAME` and
//! `tools --full` show what the list cuts, and the list marks its cuts.
//!
//! Servers: the built-in demo server (`demo-server --fail-start`),
//! server-everything, and tests/servers/limits.cjs (hangs, a JSON-RPC
//! error, a 54-line description).

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::Value;

fn limits_js() -> PathBuf {
    common::server_script("limits.cjs")
}

fn bin() -> String {
    common::mcpdeck_bin().display().to_string()
}

fn everything() -> String {
    common::everything_js().display().to_string()
}

/// `mcpdeck ARGS -- node limits.cjs MODE`.
fn against_limits(args: &[&str], mode: &str) -> common::Run {
    let js = limits_js().display().to_string();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--", "node", &js, mode]);
    common::mcpdeck(&all, common::limit(60))
}

/// `mcpdeck ARGS -- node server-everything`.
fn against_everything(args: &[&str]) -> common::Run {
    let ev = everything();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--", "node", &ev]);
    common::mcpdeck(&all, common::limit(60))
}

/// stdout as the error envelope: its `error` object, with nothing but the
/// documented fields.
fn envelope(run: &common::Run) -> serde_json::Map<String, Value> {
    let v: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}); exit {}\nstdout:\n{}\nstderr:\n{}",
            run.code, run.stdout, run.stderr
        )
    });
    let obj = v.as_object().expect("an object");
    assert_eq!(obj.len(), 1, "only `error`: {v:#}");
    let e = v["error"].as_object().expect("error is an object").clone();
    for k in e.keys() {
        assert!(
            ["kind", "code", "message", "data", "stderrTail"].contains(&k.as_str()),
            "unexpected field {k}: {v:#}"
        );
    }
    assert!(e["kind"].is_string(), "{v:#}");
    assert!(
        !e["message"].as_str().unwrap_or_default().is_empty(),
        "{v:#}"
    );
    // The person still reads it on stderr.
    assert!(run.stderr.contains("mcpdeck: "), "{}", run.stderr);
    e
}

#[test]
fn every_json_command_prints_the_envelope_when_the_server_fails_to_start() {
    let b = bin();
    let commands: [&[&str]; 8] = [
        &["tools", "--json"],
        &["info", "--json"],
        &["resources", "--json"],
        &["prompts", "--json"],
        &["lint", "--json"],
        &["read", "--json", "demo://resource/1"],
        &["call", "--json", "echo"],
        &["prompt", "--json", "simple"],
    ];
    for args in commands {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["--", &b, "demo-server", "--fail-start"]);
        let run = common::mcpdeck(&all, common::limit(60));
        assert_eq!(run.code, 3, "{args:?}: {}", run.stderr);
        let e = envelope(&run);
        assert_eq!(e["kind"], "server_exited", "{args:?}: {e:?}");
        assert!(e.get("code").is_none(), "{e:?}");
        let tail = e["stderrTail"].as_array().expect("stderrTail");
        assert!(
            tail.iter().any(|l| l
                .as_str()
                .is_some_and(|l| l.contains("failed to open database"))),
            "{args:?}: {e:?}"
        );
        // The message is the message; the tail is in its own field.
        assert!(
            !e["message"]
                .as_str()
                .unwrap()
                .contains("failed to open database"),
            "{e:?}"
        );
    }
}

#[test]
fn a_missing_command_is_a_connect_envelope() {
    for cmd in ["tools", "info", "resources"] {
        let run = common::mcpdeck(
            &[cmd, "--json", "--", "/nonexistent/mcpdeck-no-such-server"],
            common::limit(30),
        );
        assert_eq!(run.code, 3, "{}", run.stderr);
        let e = envelope(&run);
        assert_eq!(e["kind"], "connect", "{e:?}");
        assert!(
            e["message"].as_str().unwrap().contains("nonexistent"),
            "{e:?}"
        );
    }
}

#[test]
fn json_rpc_errors_carry_code_and_data() {
    // server-everything: an unknown resource.
    let run = against_everything(&["read", "--json", "nosuch://x"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let e = envelope(&run);
    assert_eq!(e["kind"], "jsonrpc", "{e:?}");
    assert!(e["code"].is_i64(), "{e:?}");
    assert!(
        e["message"].as_str().unwrap().contains("nosuch://x"),
        "{e:?}"
    );

    // A tool answered with a JSON-RPC error that has data.
    let run = against_limits(&["call", "--json", "fail"], "tools");
    assert_eq!(run.code, 1, "{}", run.stderr);
    let e = envelope(&run);
    assert_eq!(e["kind"], "jsonrpc");
    assert_eq!(e["code"], -32042);
    assert_eq!(e["message"], "fail always fails");
    assert_eq!(e["data"]["why"], "on purpose");
    assert!(e.get("stderrTail").is_none(), "{e:?}");
    // stderr names the request.
    assert!(run.stderr.contains("tools/call"), "{}", run.stderr);
}

#[test]
fn usage_config_and_validation_failures_are_envelopes_too() {
    // An unknown tool: usage, exit 2.
    let run = against_limits(&["call", "--json", "nosuch"], "tools");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(envelope(&run)["kind"], "usage");
    // Arguments that break the inputSchema.
    let run = against_limits(&["call", "--json", "echo", "{}"], "tools");
    assert_eq!(run.code, 2, "{}", run.stderr);
    let e = envelope(&run);
    assert_eq!(e["kind"], "invalid_arguments", "{e:?}");
    assert!(e["message"].as_str().unwrap().contains("message"), "{e:?}");
    // An unknown server name.
    let run = common::mcpdeck(&["info", "--json", "nosuch"], common::limit(30));
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(envelope(&run)["kind"], "usage");
    // A broken config file.
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = common::write_file(dir.path(), "bad.toml", "[servers.x\ncommand = 1\n");
    let bad = bad.display().to_string();
    for args in [
        &["--config", &bad, "tools", "--json", "x"][..],
        &["--config", &bad, "servers", "--json"][..],
    ] {
        let run = common::mcpdeck(args, common::limit(30));
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert_eq!(envelope(&run)["kind"], "config", "{args:?}");
    }
    // Without --json, stdout stays empty.
    let run = common::mcpdeck(&["--config", &bad, "tools", "x"], common::limit(30));
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
}

#[test]
fn timeout_ends_a_command_against_a_server_that_never_answers() {
    for args in [
        &["tools", "--timeout", "1"][..],
        &["info", "--timeout", "1"][..],
        &["prompts", "--timeout", "1"][..],
        &["read", "--timeout", "1", "demo://x"][..],
    ] {
        let run = against_limits(args, "hang");
        assert_eq!(run.code, 3, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("--timeout 1"), "{}", run.stderr);
        assert!(run.stderr.contains("larger --timeout"), "{}", run.stderr);
    }
    // A server that connects, then never answers the call.
    let run = against_limits(&["call", "--json", "--timeout", "1", "wait"], "tools");
    assert_eq!(run.code, 3, "{}", run.stderr);
    let e = envelope(&run);
    assert_eq!(e["kind"], "timeout", "{e:?}");
    assert!(
        e["message"].as_str().unwrap().contains("--timeout 1"),
        "{e:?}"
    );
    // Slow to connect, then no answer: the whole command's limit ends it,
    // and the server is not left behind.
    let m = common::marker("limits-slow");
    let js = limits_js().display().to_string();
    let run = common::mcpdeck(
        &[
            "call",
            "--json",
            "--timeout",
            "1",
            "wait",
            "--",
            "node",
            &js,
            "slow",
            &m,
        ],
        common::limit(60),
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_eq!(envelope(&run)["kind"], "timeout");
    assert!(run.stderr.contains("--timeout 1"), "{}", run.stderr);
    common::assert_no_leak(&m);
    // A bad value is a usage error.
    let run = against_limits(&["tools", "--json", "--timeout", "0"], "tools");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(envelope(&run)["kind"], "usage");
    // Within the limit, nothing changes.
    against_limits(&["tools", "--timeout", "30"], "tools").ok();
}

/// `mcpdeck ARGS` with `input` on stdin.
fn with_stdin(args: &[&str], input: Vec<u8>) -> common::Run {
    let mut cmd = Command::new(common::mcpdeck_bin());
    cmd.args(args)
        .env(
            "MCPDECK_CONFIG",
            common::repo().join("tests/fixtures/empty.toml"),
        )
        .env("MCPDECK_ERA_MEMORY", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = std::time::Instant::now();
    let mut child = cmd.spawn().expect("spawn mcpdeck");
    let mut stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait");
    let _ = writer.join();
    common::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: started.elapsed(),
    }
}

#[test]
fn call_reads_large_arguments_from_stdin_and_from_a_file() {
    let ev = everything();
    // 250 KiB: more than one command-line word can hold on Linux.
    let big = "x".repeat(250 * 1024);
    let args = serde_json::json!({ "message": big }).to_string();
    let run = with_stdin(
        &["call", "--json", "echo", "-", "--", "node", &ev],
        args.clone().into_bytes(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).expect("the result");
    let text = v["content"][0]["text"].as_str().expect("text");
    assert!(text.contains(&big), "echoed {} bytes", text.len());

    let dir = tempfile::tempdir().expect("tempdir");
    let file = common::write_file(dir.path(), "args.json", r#"{"message": "from the file"}"#);
    let file = file.display().to_string();
    let run = against_everything(&["call", "echo", "--args-file", &file]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains("from the file"), "{}", run.stdout);

    // Bad JSON: the source and the position are named; nothing is called.
    let bad = common::write_file(dir.path(), "bad.json", "{\"message\": \n  oops}");
    let bad = bad.display().to_string();
    let run = against_everything(&["call", "--json", "echo", "--args-file", &bad]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains(&bad), "{}", run.stderr);
    assert!(run.stderr.contains("line 2 column"), "{}", run.stderr);
    assert_eq!(envelope(&run)["kind"], "usage");
    let run = with_stdin(
        &["call", "echo", "-", "--", "node", &ev],
        b"[1, 2]".to_vec(),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("stdin"), "{}", run.stderr);
    assert!(run.stderr.contains("JSON object"), "{}", run.stderr);
    // A missing file, and both ways at once.
    let run = against_everything(&["call", "echo", "--args-file", "/nonexistent/args.json"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("/nonexistent/args.json"),
        "{}",
        run.stderr
    );
    let run = against_everything(&["call", "echo", "{}", "--args-file", &file]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("not both"), "{}", run.stderr);
}

#[test]
fn a_repeated_arg_is_a_usage_error() {
    let run = against_everything(&["call", "echo", "--arg", "message=a", "--arg", "message=b"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("\"message\" is given more than once"),
        "{}",
        run.stderr
    );
}

#[test]
fn tools_marks_its_cuts_and_tool_shows_one_whole() {
    let run = against_limits(&["tools"], "tools");
    run.ok();
    assert!(run.stdout.contains("Line 6 of the long"), "{}", run.stdout);
    assert!(!run.stdout.contains("Line 7 of the long"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("    … (48 more lines: mcpdeck tool long -- …, or tools --full)"),
        "{}",
        run.stdout
    );
    let run = against_limits(&["tools", "--full"], "tools");
    run.ok();
    assert!(run.stdout.contains("Line 54 of the long"), "{}", run.stdout);
    assert!(!run.stdout.contains('…'), "{}", run.stdout);

    let run = against_limits(&["tool", "long"], "tools");
    run.ok();
    let s = &run.stdout;
    for want in [
        "long  \"Long one\"  [read-only]",
        "annotations: readOnlyHint: true, idempotentHint: true",
        "    Line 54 of the long description.",
        "parameters:\n    city: string, required\n        The city to look up.",
        "    units: enum\n        one of: \"metric\" | \"imperial\"\n        default: \"metric\"",
        "        depth: integer, required\n            minimum: 1\n            How deep.",
        "output (outputSchema):\n    temperature: number, required",
    ] {
        assert!(s.contains(want), "{want:?} in\n{s}");
    }
    let run = against_limits(&["tool", "--json", "long"], "tools");
    run.ok();
    let v: Value = serde_json::from_str(&run.stdout).expect("the tool");
    assert_eq!(v["name"], "long");
    assert_eq!(v["description"].as_str().unwrap().lines().count(), 54);
    assert_eq!(v["outputSchema"]["required"][0], "temperature");

    let run = against_limits(&["tool", "--json", "lon"], "tools");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("did you mean \"long\""),
        "{}",
        run.stderr
    );
    assert_eq!(envelope(&run)["kind"], "usage");
}

#[test]
fn tools_json_names_the_denied_tools_beside_the_servers_objects() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = common::write_file(
        dir.path(),
        "config.toml",
        &format!(
            "[servers.lim]\ncommand = \"node\"\nargs = [{:?}, \"tools\"]\ndeny_tools = [\"wait\"]\n",
            limits_js().display().to_string()
        ),
    );
    let config = config.display().to_string();
    let run = common::mcpdeck(
        &["--config", &config, "tools", "--json", "lim"],
        common::limit(60),
    );
    run.ok();
    let v: Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(v["denied"], serde_json::json!(["wait"]), "{v:#}");
    let wait = v["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "wait"))
        .expect("wait is still listed");
    assert_eq!(
        wait,
        &serde_json::json!({"name": "wait", "description": "Never answers.", "inputSchema": {"type": "object", "properties": {}}})
    );
    let text = common::mcpdeck(&["--config", &config, "tools", "lim"], common::limit(60));
    assert!(text.stdout.contains("wait()  [DENIED]"), "{}", text.stdout);
}

#[test]
fn complete_checks_the_prompt_and_its_arguments_as_prompt_does() {
    let base = ["complete", "--json", "--prompt"];
    for (args, want) in [
        (
            &["completable-promt", "--arg", "department=E"][..],
            "did you mean \"completable-prompt\"",
        ),
        (
            &["completable-prompt", "--arg", "departmnt=E"][..],
            "did you mean \"department\"",
        ),
        (
            &[
                "completable-prompt",
                "--arg",
                "department=E",
                "--context",
                "bogus=1",
            ][..],
            "--context \"bogus\"",
        ),
    ] {
        let mut all = base.to_vec();
        all.extend_from_slice(args);
        let run = against_everything(&all);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(want), "{want:?} in {}", run.stderr);
        assert_eq!(envelope(&run)["kind"], "usage");
    }
    let run = against_everything(&[
        "complete",
        "--prompt",
        "completable-prompt",
        "--arg",
        "department=E",
    ]);
    run.ok();
    assert!(run.stdout.contains("Engineering"), "{}", run.stdout);
}

#[test]
fn timeout_bounds_servers_and_lint_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let js = limits_js().display().to_string();
    let config = common::write_file(
        dir.path(),
        "config.toml",
        &format!(
            "[servers.hang]\ncommand = \"node\"\nargs = [{js:?}, \"hang\"]\n[servers.ok]\ncommand = \"node\"\nargs = [{js:?}, \"tools\"]\n"
        ),
    );
    let config = config.display().to_string();
    let run = common::mcpdeck(
        &["--config", &config, "servers", "--json", "--timeout", "1"],
        common::limit(60),
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).expect("the list");
    let by = |n: &str| {
        v["servers"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["name"] == n))
            .cloned()
            .unwrap_or_else(|| panic!("{n} in {v:#}"))
    };
    assert_eq!(by("hang")["status"], "failed", "{v:#}");
    assert!(
        by("hang")["error"].as_str().unwrap().contains("within 1 s"),
        "{v:#}"
    );
    assert_eq!(by("ok")["status"], "connected", "{v:#}");

    let run = common::mcpdeck(
        &[
            "--config",
            &config,
            "lint",
            "--json",
            "--timeout",
            "1",
            "hang",
        ],
        common::limit(60),
    );
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert_eq!(envelope(&run)["kind"], "timeout");
}

#[test]
fn servers_marks_the_stderr_lines_it_leaves_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = common::write_file(
        dir.path(),
        "config.toml",
        "[servers.noisy]\ncommand = \"node\"\nargs = [\"-e\", \"for (let i = 1; i <= 6; i++) console.error('noise ' + i); process.exit(1)\"]\n",
    );
    let config = config.display().to_string();
    let run = common::mcpdeck(&["--config", &config, "servers"], common::limit(60));
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stdout
            .contains("stderr: … (3 earlier lines: `mcpdeck info noisy` shows them)"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("stderr: noise 6"), "{}", run.stdout);
    assert!(!run.stdout.contains("noise 3"), "{}", run.stdout);
    // info shows them all.
    let run = common::mcpdeck(&["--config", &config, "info", "noisy"], common::limit(60));
    assert_eq!(run.code, 3, "{}", run.stderr);
    assert!(
        run.stderr.contains("noise 1") && run.stderr.contains("noise 6"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_json_answer_that_reports_the_failure_is_not_followed_by_an_envelope() {
    // import --json reports a file it cannot parse in its own answer.
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = common::write_file(dir.path(), "bad.json", "{\"mcpServers\": {\n");
    let config = dir.path().join("config.toml").display().to_string();
    let bad = bad.display().to_string();
    let run = common::mcpdeck(
        &["--config", &config, "import", "--json", &bad],
        common::limit(30),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("one JSON document ({e}): {}", run.stdout));
    assert!(v.get("error").is_none(), "{v:#}");
    assert!(
        v["errors"][0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("bad.json")),
        "{v:#}"
    );
}
