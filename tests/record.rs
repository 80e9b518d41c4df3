//! Recording, replay and stats through the `mcpdeck` binary: record
//! `tools`, `call` and `read` against real servers (server-everything,
//! the Python SDK in both eras), run the same commands against `mcpdeck
//! replay` and compare; secrets kept out of the file; bad files.

mod common;

use std::path::Path;

use common::{
    everything_http, everything_js, limit, mcpdeck, mcpdeck_bin, py_v1, py_v2, server_script,
    write_file,
};
use serde_json::Value;

fn with_cmd(args: &[&str], cmd: &[String]) -> common::Run {
    let mut all: Vec<&str> = args.to_vec();
    all.push("--");
    all.extend(cmd.iter().map(String::as_str));
    mcpdeck(&all, limit(90))
}

fn replay_cmd(file: &Path, server: Option<&str>) -> Vec<String> {
    let mut v = vec![
        mcpdeck_bin().display().to_string(),
        "replay".into(),
        file.display().to_string(),
    ];
    if let Some(s) = server {
        v.push("--server".into());
        v.push(s.into());
    }
    v
}

fn lines(file: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The output, less what depends on time: `info --json`'s `connectMs`, and
/// its `detection` when `slow` (the live server was slow to refuse
/// `server/discover`: "no answer … within 1 s", on a loaded machine, while
/// the replay answers at once). Otherwise the detection text must match.
fn without_timing(out: &str, slow: bool) -> String {
    match serde_json::from_str::<Value>(out) {
        Ok(Value::Object(mut m)) => {
            m.remove("connectMs");
            if slow {
                m.remove("detection");
            }
            Value::Object(m).to_string()
        }
        _ => out.to_string(),
    }
}

/// Record each command against `server`, then run it against the replay
/// of its recording: the same output.
fn round_trip(dir: &Path, server: &[String], commands: &[&[&str]]) {
    mkdir(dir);
    for (i, args) in commands.iter().enumerate() {
        let file = dir.join(format!("rec{i}.jsonl"));
        let file_s = file.display().to_string();
        let mut rec_args = vec!["--record", file_s.as_str()];
        rec_args.extend_from_slice(args);
        let live = with_cmd(&rec_args, server);
        live.ok();
        let recorded = lines(&file);
        assert_eq!(recorded[0]["mcpdeck_recording"], 1, "{:?}", recorded[0]);
        assert!(recorded.len() > 3, "{args:?}: {recorded:?}");
        let replayed = with_cmd(args, &replay_cmd(&file, None));
        replayed.ok();
        let slow = live.stdout.contains("no answer to server/discover within");
        assert_eq!(
            without_timing(&replayed.stdout, slow),
            without_timing(&live.stdout, slow),
            "{args:?} differs on replay; stderr:\n{}",
            replayed.stderr
        );
    }
}

#[test]
fn server_everything_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let server = vec![
        "node".into(),
        everything_js().display().to_string(),
        "stdio".into(),
    ];
    round_trip(
        dir.path(),
        &server,
        &[
            &["tools", "--json"],
            &["call", "echo", r#"{"message":"hi"}"#],
            &["call", "get-sum", "--arg", "a=2", "--arg", "b=40", "--json"],
            &["read", "demo://resource/static/document/architecture.md"],
            &["info", "--json"],
            // Progress notifications are replayed before the answer.
            &[
                "call",
                "trigger-long-running-operation",
                r#"{"duration":1,"steps":2}"#,
            ],
        ],
    );
    let progress = lines(&dir.path().join("rec5.jsonl"));
    assert!(
        progress
            .iter()
            .any(|l| l["frame"]["method"] == "notifications/progress"),
        "{progress:?}"
    );
    // The recorded server is in the header.
    let rec = lines(&dir.path().join("rec1.jsonl"));
    assert_eq!(rec[0]["servers"][0]["transport"], "stdio");
    assert_eq!(rec[0]["servers"][0]["command"], "node");
    assert!(
        rec.iter()
            .any(|l| l["dir"] == "send" && l["frame"]["method"] == "initialize"),
        "initialize era: {rec:?}"
    );
}

#[test]
fn python_sdk_round_trips_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let v1 = vec![
        py_v1().display().to_string(),
        server_script("py_v1_server.py").display().to_string(),
    ];
    let cmds: &[&[&str]] = &[
        &["tools", "--json"],
        &["call", "echo", r#"{"text":"hello"}"#],
        &["call", "add", r#"{"a":1,"b":2}"#, "--json"],
        &["read", "config://app"],
    ];
    round_trip(&dir.path().join("v1"), &v1, cmds);
    let v2 = vec![
        py_v2().display().to_string(),
        server_script("py_v2_server.py").display().to_string(),
    ];
    let d2 = dir.path().join("v2");
    round_trip(&d2, &v2, cmds);
    // The v2 server speaks the stateless era: its requests carry the
    // 2026-07-28 `_meta` (an `initialize` may still have been sent, when
    // the probe's answer came after probe_timeout on a busy machine, and
    // was refused), and the replay is stateless too.
    let rec = lines(&d2.join("rec0.jsonl"));
    assert!(
        rec.iter().any(|l| l["dir"] == "send"
            && l["frame"]["method"] == "tools/list"
            && l["frame"]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"]
                == "2026-07-28"),
        "stateless era expected: {rec:?}"
    );
    let info = with_cmd(
        &["info", "--json"],
        &replay_cmd(&d2.join("rec0.jsonl"), None),
    );
    info.ok();
    let info: Value = serde_json::from_str(&info.stdout).unwrap();
    assert_eq!(info["era"], "stateless", "{info}");
}

fn mkdir(p: &Path) {
    std::fs::create_dir_all(p).unwrap();
}

#[test]
fn an_unmatched_request_gets_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rec.jsonl");
    let f = file.display().to_string();
    let demo = vec![mcpdeck_bin().display().to_string(), "demo-server".into()];
    with_cmd(
        &["--record", &f, "call", "echo", r#"{"message":"hi"}"#],
        &demo,
    )
    .ok();
    let r = with_cmd(
        &["call", "echo", r#"{"message":"hi"}"#],
        &replay_cmd(&file, None),
    );
    r.ok();
    assert_eq!(r.stdout.trim(), "echo: hi");
    let r = with_cmd(
        &["call", "echo", r#"{"message":"bye"}"#],
        &replay_cmd(&file, None),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("recorded no \"tools/call\" with params")
            && r.stderr.contains("bye")
            && r.stderr.contains("\"hi\""),
        "{}",
        r.stderr
    );
    let r = with_cmd(&["prompts"], &replay_cmd(&file, None));
    assert_ne!(r.code, 0);
    assert!(
        r.stderr.contains("recorded no \"prompts/list\""),
        "{}",
        r.stderr
    );
}

#[test]
fn truncated_and_wrong_files() {
    let dir = tempfile::tempdir().unwrap();
    mkdir(dir.path());
    let file = dir.path().join("rec.jsonl");
    let f = file.display().to_string();
    let demo = vec![mcpdeck_bin().display().to_string(), "demo-server".into()];
    with_cmd(
        &["--record", &f, "call", "echo", r#"{"message":"hi"}"#],
        &demo,
    )
    .ok();
    // Cut the file in the middle of its last line.
    let text = std::fs::read_to_string(&file).unwrap();
    let n = text.lines().count();
    let cut = text.trim_end().len() - 10;
    std::fs::write(&file, &text[..cut]).unwrap();
    let r = with_cmd(&["tools"], &replay_cmd(&file, None));
    r.ok();
    assert!(r.stdout.contains("echo"), "{}", r.stdout);
    let s = mcpdeck(&["stats", &f], limit(30));
    s.ok();
    assert!(
        s.stderr.contains(&format!("line {n}:")) && s.stderr.contains("truncated"),
        "{}",
        s.stderr
    );
    // A tools --json snapshot is not a recording.
    let other = write_file(dir.path(), "tools.json", "{\"tools\":[]}\n");
    let o = other.display().to_string();
    for args in [vec!["stats", o.as_str()], vec!["replay", o.as_str()]] {
        let r = mcpdeck(&args, limit(30));
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("is not an mcpdeck recording"),
            "{}",
            r.stderr
        );
    }
    let missing = dir.path().join("nope.jsonl").display().to_string();
    let r = mcpdeck(&["stats", &missing], limit(30));
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("cannot open the recording"),
        "{}",
        r.stderr
    );
    // A recording that cannot be written is one warning; the command goes on.
    let r = with_cmd(
        &[
            "--record",
            "/dev/full",
            "call",
            "echo",
            r#"{"message":"hi"}"#,
        ],
        &demo,
    );
    r.ok();
    assert_eq!(r.stdout.trim(), "echo: hi");
    assert_eq!(
        r.stderr
            .matches("writing the recording /dev/full failed")
            .count(),
        1,
        "{}",
        r.stderr
    );
    // An unwritable --record path is a usage error before anything runs.
    let r = mcpdeck(
        &["--record", "/nonexistent-dir/x.jsonl", "servers"],
        limit(30),
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("cannot create the recording"),
        "{}",
        r.stderr
    );
}

#[test]
fn stats_count_requests_per_method() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rec.jsonl");
    let f = file.display().to_string();
    let demo = vec![mcpdeck_bin().display().to_string(), "demo-server".into()];
    // One tool call that fails (isError), after the tools list.
    with_cmd(&["--record", &f, "call", "fail"], &demo);
    let r = mcpdeck(&["stats", &f, "--json"], limit(30));
    r.ok();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    let s = &v["servers"]["adhoc"];
    assert_eq!(s["tools/call"]["count"], 1, "{v}");
    assert_eq!(s["tools/call"]["tool_errors"], 1, "{v}");
    assert_eq!(s["tools/list"]["count"], 1, "{v}");
    assert!(s["tools/call"]["p50_ms"].as_f64().unwrap() > 0.0, "{v}");
    assert!(
        s["tools/call"]["max_ms"].as_f64().unwrap() >= s["tools/call"]["p99_ms"].as_f64().unwrap()
    );
    let t = mcpdeck(&["stats", &f], limit(30));
    t.ok();
    assert!(
        t.stdout.contains("tools/call") && t.stdout.contains("p95 ms"),
        "{}",
        t.stdout
    );
}

#[test]
fn secrets_stay_out_of_an_http_recording() {
    let http = everything_http("streamableHttp");
    let dir = tempfile::tempdir().unwrap();
    let url = format!("{}?api_key=QUERYSECRET&x=1", http.url);
    let config = write_file(
        dir.path(),
        "config.toml",
        &format!(
            "[servers.web]\nurl = \"{url}\"\nheaders = {{ Authorization = \"Bearer HEADERSECRET\", X-Api-Key = \"KEYSECRET\" }}\n"
        ),
    );
    let file = dir.path().join("rec.jsonl");
    let c = config.display().to_string();
    let f = file.display().to_string();
    let r = mcpdeck(
        &[
            "--config",
            &c,
            "--record",
            &f,
            "call",
            "web",
            "echo",
            r#"{"message":"hi"}"#,
        ],
        limit(60),
    );
    r.ok();
    let text = std::fs::read_to_string(&file).unwrap();
    for secret in ["HEADERSECRET", "KEYSECRET", "QUERYSECRET"] {
        assert!(!text.contains(secret), "{secret} leaked:\n{text}");
    }
    let rec = lines(&file);
    assert_eq!(rec[0]["servers"][0]["transport"], "http");
    let http_lines: Vec<&Value> = rec.iter().filter(|l| l["dir"] == "http").collect();
    assert!(!http_lines.is_empty(), "{text}");
    assert!(
        http_lines
            .iter()
            .any(|l| l["http"]["method"] == "POST" && l["http"]["status"] == 200),
        "{text}"
    );
    assert!(text.contains("Bearer ••••••"), "{text}");
    // everything's streamable HTTP gives a session id: not in the file.
    let mut ids = 0;
    for l in &http_lines {
        for side in ["request_headers", "response_headers"] {
            for h in l["http"][side].as_array().unwrap() {
                if h[0]
                    .as_str()
                    .unwrap()
                    .eq_ignore_ascii_case("mcp-session-id")
                {
                    assert_eq!(h[1], "••••••", "{l}");
                    ids += 1;
                }
            }
        }
    }
    assert!(ids > 0, "a session id header was recorded (masked): {text}");
    // The HTTP recording replays on stdio.
    let r = with_cmd(
        &["call", "echo", r#"{"message":"hi"}"#],
        &replay_cmd(&file, Some("web")),
    );
    r.ok();
    assert_eq!(r.stdout.trim(), "Echo: hi");
}

#[test]
fn the_tui_records_with_a_key_saves_its_log_and_opens_a_recording() {
    use common::pty::Tui;
    let dir = tempfile::tempdir().unwrap();
    let exe = mcpdeck_bin().display().to_string();
    let config = write_file(
        dir.path(),
        "config.toml",
        &format!("[servers.demo]\ncommand = {exe:?}\nargs = [\"demo-server\"]\n"),
    );
    let c = config.display().to_string();
    let mut t = Tui::spawn(&["--config", &c], Some(dir.path()), &[]);
    t.wait_for("get_weather", 20);
    assert!(!t.screen().contains("● REC"));
    t.keys("W");
    t.wait_for("● REC", 10);
    t.keys("p"); // a ping while recording
    t.wait_for("demo: ping ", 10);
    assert!(!t.screen().contains("ping failed"), "{}", t.screen());
    t.keys("W");
    t.wait_for("recording paused", 10);
    assert!(!t.screen().contains("● REC"), "{}", t.screen());
    t.keys("L");
    t.keys("s");
    t.wait_for("saved mcpdeck-log-", 10);
    t.keys("\x1b");
    t.quit();
    let files: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let find = |prefix: &str| {
        files
            .iter()
            .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix}* in {files:?}"))
            .clone()
    };
    let rec = lines(&find("mcpdeck-rec-"));
    assert_eq!(rec[0]["servers"][0]["name"], "demo", "{:?}", rec[0]);
    // The demo server speaks the stateless era, which removed `ping`:
    // `p` sends `server/discover` instead.
    assert!(
        rec.iter()
            .any(|l| l["dir"] == "send" && l["frame"]["method"] == "server/discover"),
        "{rec:?}"
    );
    assert!(
        !rec.iter().any(|l| l["frame"]["method"] == "tools/list"),
        "the listing before W is not in the recording: {rec:?}"
    );
    let log = find("mcpdeck-log-");
    let saved = lines(&log);
    assert!(
        saved.iter().any(|l| l["frame"]["method"] == "tools/list"),
        "the saved log holds what the log held: {saved:?}"
    );
    // The saved log opens in the TUI, with no server.
    let s = mcpdeck(&["stats", &log.display().to_string()], limit(30));
    s.ok();
    assert!(s.stdout.contains("tools/list"), "{}", s.stdout);
    let empty = common::repo().join("tests/fixtures/empty.toml");
    let mut t = Tui::spawn(
        &[
            "--config",
            &empty.display().to_string(),
            "open",
            &log.display().to_string(),
        ],
        Some(dir.path()),
        &[],
    );
    // It starts in the protocol log, naming the file.
    t.wait_for("tools/list", 10);
    t.wait_for("read-only", 10);
    t.keys("\x1b");
    t.quit();
}

#[test]
fn open_shows_a_recorded_calls_result_on_enter() {
    use common::pty::Tui;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rec.jsonl");
    let f = file.display().to_string();
    let demo = vec![mcpdeck_bin().display().to_string(), "demo-server".into()];
    with_cmd(
        &[
            "--record",
            &f,
            "call",
            "echo",
            r#"{"message":"from the file"}"#,
        ],
        &demo,
    )
    .ok();
    let empty = common::repo().join("tests/fixtures/empty.toml");
    let mut t = Tui::spawn(
        &["--config", &empty.display().to_string(), "open", &f],
        Some(dir.path()),
        &[],
    );
    t.wait_for("tools/call", 10);
    // Only the call's frames, the newest (its response) selected.
    t.keys("/");
    t.keys("tools/call");
    t.keys("\r");
    t.keys("\r");
    let shown = t.wait_for("echo: from the file", 10);
    assert!(
        shown.contains("adhoc disconnected"),
        "the recorded server is listed:\n{shown}"
    );
    t.keys("\x1b");
    t.keys("\x1b");
    t.quit();
}

/// A session with the server's own requests (server-everything asks for
/// roots after `initialized`, and elicits during a call), recorded through
/// the TUI's manager and its log's save, then replayed to a raw client:
/// the replay asks the same, waits for the answers, tells on stderr an
/// answer that differs, and gives the recorded results.
#[tokio::test]
async fn the_servers_own_requests_are_replayed_and_answered() {
    use mcpdeck::config::{ServerConfig, Settings};
    use mcpdeck::mcp::FrameLog;
    use mcpdeck::mcp::manager::{Command, Event, Manager, ServerStatus};
    use mcpdeck::mcp::transport::stdio::Children;
    use serde_json::json;
    use std::io::{BufRead, Write};
    use std::sync::Arc;

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    mkdir(&root);
    let settings = Settings {
        roots: vec![root.clone()],
        request_timeout: limit(30),
        ..Settings::default()
    };
    let server = ServerConfig::stdio("se", "node", &[everything_js().to_str().unwrap(), "stdio"]);
    let frames = Arc::new(FrameLog::new(10_000));
    let (m, mut rx) = Manager::start_full(
        settings,
        vec![server.clone()],
        frames.clone(),
        Children::new(),
        true,
    );
    let deadline = tokio::time::Instant::now() + limit(60);
    let mut next = async || {
        tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("in time")
            .expect("events")
    };
    loop {
        if let Event::Status {
            status: ServerStatus::Connected,
            ..
        } = next().await
        {
            break;
        }
    }
    m.send(Command::Call {
        tag: 1,
        server: "se".into(),
        tool: "trigger-elicitation-request".into(),
        arguments: json!({}),
    });
    let mut elicited = None;
    let live = loop {
        match next().await {
            Event::ServerRequest {
                id, method, params, ..
            } if method == "elicitation/create" => {
                let content = mcpdeck::schema::skeleton(&params["requestedSchema"]);
                let answer = json!({"action": "accept", "content": content});
                elicited = Some(answer.clone());
                m.send(Command::AnswerServerRequest {
                    id,
                    result: Ok(answer),
                });
            }
            Event::CallFinished { tag: 1, result, .. } => break result.expect("the call").raw,
            _ => {}
        }
    };
    let elicited = elicited.expect("server-everything elicited during the call");
    m.shutdown().await;
    let snapshot = frames.snapshot();
    let methods: Vec<&str> = snapshot
        .iter()
        .filter_map(|f| f.method.as_deref())
        .collect();
    assert!(
        methods.contains(&"roots/list") && methods.contains(&"elicitation/create"),
        "{methods:?}"
    );
    let file = dir.path().join("asks.jsonl");
    std::fs::write(
        &file,
        mcpdeck::record::recording_bytes(&snapshot, &[], std::slice::from_ref(&server)),
    )
    .unwrap();

    // A raw client against the replay.
    let child = std::process::Command::new(mcpdeck_bin())
        .args(["replay", file.to_str().unwrap()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = common::Reaped(child);
    let mut stdin = child.0.stdin.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel::<Value>();
    let stdout = child.0.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let line = line.unwrap();
            let _ = tx.send(serde_json::from_str(&line).unwrap());
        }
    });
    // Owns stdin: dropping it closes the replay's input.
    let mut send = move |v: Value| {
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    };
    let next_message = || lines.recv_timeout(limit(30)).expect("the replay answers");
    send(
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2025-11-25","clientInfo":{"name":"raw","version":"0"},
        "capabilities":{"roots":{"listChanged":true},"elicitation":{"form":{}}}}}),
    );
    let init = loop {
        let v = next_message();
        if v["id"] == 1 {
            break v;
        }
    };
    assert_eq!(
        init["result"]["serverInfo"]["name"], "mcp-servers/everything",
        "{init}"
    );
    send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call",
        "params":{"name":"trigger-elicitation-request","arguments":{}}}));
    // The server asked for roots about 350 ms after `initialized`: during
    // the call or after it, as the recording has it.
    let (mut reply, mut asked_roots) = (None, false);
    while reply.is_none() || !asked_roots {
        let v = next_message();
        let id = v["id"].clone();
        match v["method"].as_str() {
            Some("roots/list") => {
                assert!(id.as_str().is_some_and(|i| i.starts_with("replay-")), "{v}");
                asked_roots = true;
                // Not the recorded roots: told on stderr, and the replay goes on.
                send(
                    json!({"jsonrpc":"2.0","id":id,"result":{"roots":[{"uri":"file:///elsewhere"}]}}),
                );
            }
            Some("elicitation/create") => {
                assert!(reply.is_none(), "the elicitation comes before the answer");
                send(json!({"jsonrpc":"2.0","id":id,"result":elicited}));
            }
            Some(_) => {}
            None if id == 2 => reply = Some(v),
            None => {}
        }
    }
    let reply = reply.unwrap_or_default();
    assert_eq!(reply["result"], live, "{reply}");
    drop(send);
    let status = child.0.wait().unwrap();
    reader.join().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.0.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(status.success(), "{stderr}");
    assert!(
        stderr.contains("the client answered roots/list")
            && stderr.contains("file:///elsewhere")
            && !stderr.contains("elicitation/create"),
        "{stderr}"
    );
}
