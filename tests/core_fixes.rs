//! Regressions below the TUI's panes, against real server processes
//! (tests/fixtures/core_server.py on the venv's python, and the built-in
//! demo server): the TUI's `update` driven by keys with its effects sent to
//! a real manager, and the CLI.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use mcpdeck::config::{ServerConfig, Settings};
use mcpdeck::mcp::framelog::FrameLog;
use mcpdeck::mcp::manager::EventReceiver;
use mcpdeck::mcp::manager::{Answers, Command, Event, Manager, ServerStatus};
use mcpdeck::mcp::transport::stdio::Children;
use mcpdeck::tui::app::{Effect, Msg, State, update};
use mcpdeck::tui::keymap::Keymap;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;

/// The fixture server in `mode`, under a unique marker.
fn core_server(name: &str, mode: &str, marker: &str) -> ServerConfig {
    let script = common::repo().join("tests/fixtures/core_server.py");
    let py = common::py_v1().display().to_string();
    ServerConfig::stdio(
        name,
        py,
        &["-X", marker, &script.display().to_string(), mode],
    )
}

fn settings() -> Settings {
    Settings {
        probe_timeout: Duration::from_millis(500),
        shutdown_grace: Duration::from_millis(500),
        request_timeout: common::limit(60),
        ..Settings::default()
    }
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new_with_kind(
        code,
        KeyModifiers::NONE,
        KeyEventKind::Press,
    ))
}

fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new_with_kind(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
        KeyEventKind::Press,
    ))
}

/// The TUI's state driven by messages, its manager effects carried out by
/// a real manager whose events come back into `update`.
struct Tui {
    state: State,
    manager: Manager,
    rx: EventReceiver,
    /// Every manager event seen, in order.
    seen: Vec<Event>,
    /// Every command sent to the manager, as text.
    sent: Vec<String>,
    /// Every text copied (`Effect::Copy`).
    copied: Vec<String>,
    /// The frames of every session.
    frames: Arc<FrameLog>,
    /// The config file's text, for the copy-as-curl effect.
    config_text: Option<String>,
}

impl Tui {
    fn start(servers: Vec<ServerConfig>, answers: Answers) -> Tui {
        let state = State::new(&servers, Keymap::default(), None);
        let frames = Arc::new(FrameLog::new(10_000));
        let (manager, rx) = Manager::start_answering(
            settings(),
            servers,
            frames.clone(),
            Children::new(),
            answers,
        );
        Tui {
            state,
            manager,
            rx,
            seen: Vec::new(),
            sent: Vec::new(),
            copied: Vec::new(),
            frames,
            config_text: None,
        }
    }

    fn msg(&mut self, msg: Msg) {
        let mut fx = Vec::new();
        update(&mut self.state, msg, &mut fx);
        for e in fx {
            match e {
                Effect::Manager(cmd) => {
                    self.sent.push(format!("{cmd:?}"));
                    self.manager.send(cmd);
                }
                Effect::Copy(text) => self.copied.push(text),
                // What the driver does: the script from the file as written.
                Effect::CopyCurl(call) => {
                    let text = self.config_text.as_deref().expect("a config file");
                    let script = mcpdeck::tui::app::script_for(&call, text).expect("a script");
                    self.copied.push(script);
                }
                _ => {}
            }
        }
    }

    /// Feed manager events into `update` until `done` holds.
    async fn until(&mut self, what: &str, done: impl Fn(&State) -> bool) {
        let deadline = Instant::now() + common::limit(60);
        while !done(&self.state) {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.rx.recv()).await {
                Ok(Some(ev)) => {
                    self.seen.push(ev.clone());
                    self.msg(Msg::Manager(ev));
                }
                Ok(None) => panic!("the manager stopped while waiting for {what}"),
                Err(_) => panic!(
                    "no {what} within the limit; sent {:#?}\nscreen:\n{}",
                    self.sent,
                    self.screen(100, 30)
                ),
            }
        }
    }

    /// Feed manager events into `update` until one matches `wanted`.
    async fn until_event(&mut self, what: &str, wanted: impl Fn(&Event) -> bool) {
        let deadline = Instant::now() + common::limit(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match tokio::time::timeout(left, self.rx.recv()).await {
                Ok(Some(ev)) => {
                    self.seen.push(ev.clone());
                    let done = wanted(&ev);
                    self.msg(Msg::Manager(ev));
                    if done {
                        return;
                    }
                }
                Ok(None) => panic!("the manager stopped while waiting for {what}"),
                Err(_) => panic!("no {what} within the limit; sent {:#?}", self.sent),
            }
        }
    }

    async fn connected(&mut self) {
        self.until("connected server with its tools", |s| {
            s.servers
                .first()
                .is_some_and(|v| v.status == ServerStatus::Connected && !v.lists.tools.is_empty())
        })
        .await;
    }

    fn screen(&self, w: u16, h: u16) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).expect("terminal");
        t.draw(|f| mcpdeck::tui::ui::render(&self.state, f))
            .expect("draw");
        let buf = t.backend().buffer().clone();
        let mut out = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                out.push_str(buf[(x, y)].symbol());
            }
            out.push('\n');
        }
        out
    }

    async fn stop(self) {
        self.manager.shutdown().await;
    }
}

// ----- 2. a crash during a call carries the server's stderr tail -----

const LAST_STDERR_LINE: &str = "RuntimeError: the database went away (last line)";

#[tokio::test]
async fn a_crash_mid_call_ends_the_call_with_the_stderr_tail_in_the_tui() {
    let mark = common::marker("crash");
    let mut tui = Tui::start(vec![core_server("core", "crash", &mark)], Answers::Nothing);
    tui.msg(Msg::Resize(120, 40));
    tui.connected().await;
    // Tools pane, the editor on `boom`, send.
    tui.msg(key(KeyCode::Tab));
    tui.msg(key(KeyCode::Enter));
    tui.msg(ctrl('s'));
    tui.until("the call's end", |s| s.outcome.is_some()).await;
    let error = tui
        .seen
        .iter()
        .find_map(|ev| match ev {
            Event::CallFinished { result: Err(e), .. } => Some(e.clone()),
            _ => None,
        })
        .expect("the call failed");
    let text = error.to_string();
    assert!(text.contains("exited with status 9"), "{text}");
    // Bounded: the last lines, ending with the last one.
    let tail = error.stderr_tail();
    assert_eq!(
        tail.last().map(String::as_str),
        Some(LAST_STDERR_LINE),
        "{tail:?}"
    );
    assert!(tail.len() <= 20, "{tail:?}");
    // And the result pane shows them.
    let screen = tui.screen(120, 40);
    assert!(screen.contains("exited with status 9"), "{screen}");
    assert!(screen.contains(LAST_STDERR_LINE), "{screen}");
    tui.stop().await;
    common::assert_no_leak(&mark);
}

#[test]
fn a_crash_mid_call_carries_the_stderr_tail_in_the_cli() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mark = common::marker("crash-cli");
    let server = core_server("core", "crash", &mark);
    let mcpdeck::config::TransportConfig::Stdio { command, args, .. } = &server.transport else {
        panic!("stdio");
    };
    let config = format!(
        "[servers.core]\ncommand = {command:?}\nargs = {}\n",
        serde_json::to_string(args).expect("args")
    );
    let path = common::write_file(dir.path(), "config.toml", &config)
        .display()
        .to_string();

    let r = common::mcpdeck(
        &["--config", &path, "call", "core", "boom", "{}"],
        common::limit(60),
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    assert!(r.stderr.contains("exited with status 9"), "{}", r.stderr);
    assert!(r.stderr.contains(LAST_STDERR_LINE), "{}", r.stderr);

    let r = common::mcpdeck(
        &["--config", &path, "call", "core", "boom", "{}", "--json"],
        common::limit(60),
    );
    assert_eq!(r.code, 3, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("--json prints the error as JSON ({e}): {}", r.stdout));
    assert_eq!(v["error"]["kind"], "server_exited", "{v:#}");
    let message = v["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("exited with status 9"), "{v:#}");
    let tail = v["error"]["stderrTail"].as_array().expect("stderrTail");
    assert_eq!(
        tail.last().and_then(Value::as_str),
        Some(LAST_STDERR_LINE),
        "{v:#}"
    );
    common::assert_no_leak(&mark);
}

// ----- 7. one progressToken for a call across input_required rounds -----

#[tokio::test]
async fn progress_keeps_showing_after_an_input_required_round() {
    let dir = tempfile::tempdir().expect("tempdir");
    let go = dir.path().join("go");
    let mark = common::marker("input-progress");
    let mut server = core_server("core", "input-progress", &mark);
    if let mcpdeck::config::TransportConfig::Stdio { env, .. } = &mut server.transport {
        env.push(("CORE_SERVER_GO".into(), go.display().to_string()));
    }
    // Elicitation is answered automatically (with the schema's defaults).
    let mut tui = Tui::start(vec![server], Answers::Automatically);
    tui.msg(Msg::Resize(120, 40));
    tui.connected().await;
    assert_eq!(
        tui.state.servers[0].negotiated.as_ref().map(|n| n.era),
        Some(mcpdeck::mcp::Era::Stateless)
    );
    tui.msg(key(KeyCode::Tab));
    tui.msg(key(KeyCode::Enter));
    tui.msg(ctrl('s'));
    // The progress notification of the retry (the second round) ...
    tui.until_event(
        "a progress notification",
        |ev| matches!(ev, Event::Notification { method, .. } if method == "notifications/progress"),
    )
    .await;
    // ... shows on the call's progress bar.
    let inflight = tui.state.inflight().expect("the call is in flight");
    let progress = inflight.progress.as_ref().unwrap_or_else(|| {
        panic!(
            "no progress shown; events {:#?}",
            tui.seen
                .iter()
                .filter(|e| matches!(e, Event::CallStarted { .. } | Event::Notification { .. }))
                .collect::<Vec<_>>()
        )
    });
    assert_eq!((progress.progress, progress.total), (1.0, Some(4.0)));
    let screen = tui.screen(120, 40);
    assert!(screen.contains("working"), "{screen}");
    // Both rounds asked with the same token: the one the call started with.
    let started = tui
        .seen
        .iter()
        .find_map(|e| match e {
            Event::CallStarted { request_id, .. } => Some(*request_id),
            _ => None,
        })
        .expect("the call started");
    std::fs::write(&go, "go").expect("write go");
    tui.until("the call's end", |s| s.outcome.is_some()).await;
    let outcome = tui.state.outcome.as_ref().expect("an outcome");
    assert!(outcome.result.is_ok(), "{:?}", outcome.result);
    let tokens: Vec<String> = tui.state.servers[0]
        .stderr
        .iter()
        .filter_map(|l| l.strip_prefix("token ").map(str::to_string))
        .collect();
    assert_eq!(tokens, vec![started.to_string(), started.to_string()]);
    tui.stop().await;
    common::assert_no_leak(&mark);
}

// ----- 8. a cancel during a long write -----

/// The next `CallFinished` of `tag`.
async fn finished(
    rx: &mut EventReceiver,
    tag: u64,
    seen: &mut Vec<Event>,
) -> Result<mcpdeck::mcp::CallResult, mcpdeck::mcp::manager::CallError> {
    let deadline = Instant::now() + common::limit(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, rx.recv()).await {
            Ok(Some(Event::CallFinished { tag: t, result, .. })) if t == tag => return result,
            Ok(Some(ev)) => seen.push(ev),
            Ok(None) => panic!("the manager stopped"),
            Err(_) => panic!("call {tag} did not end; events {seen:#?}"),
        }
    }
}

#[tokio::test]
async fn a_cancel_during_a_long_write_ends_the_call_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let go = dir.path().join("go");
    let mark = common::marker("no-read");
    let mut server = core_server("core", "no-read", &mark);
    if let mcpdeck::config::TransportConfig::Stdio { env, .. } = &mut server.transport {
        env.push(("CORE_SERVER_GO".into(), go.display().to_string()));
    }
    // Only a cancel can end a call before this.
    let settings = Settings {
        request_timeout: Duration::from_secs(3600),
        ..settings()
    };
    let frames = Arc::new(FrameLog::new(1000));
    let (m, mut rx) = Manager::start(settings, vec![server], frames.clone());
    let mut seen = Vec::new();
    let deadline = Instant::now() + common::limit(60);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, rx.recv()).await {
            Ok(Some(Event::Status { status, .. })) if status.settled() => {
                assert_eq!(status, ServerStatus::Connected);
                break;
            }
            Ok(Some(_)) => {}
            other => panic!("the server did not settle: {other:?}"),
        }
    }
    let call = |tag: u64, data: String| Command::Call {
        tag,
        server: "core".into(),
        tool: "sink".into(),
        arguments: serde_json::json!({ "data": data }),
    };
    // 8 MB: far more than a pipe holds, and the server reads nothing.
    m.send(call(1, "x".repeat(8 << 20)));
    // Its line is being written (the frame is logged as it starts).
    let deadline = Instant::now() + common::limit(60);
    let big_id = loop {
        let out = frames.snapshot().into_iter().find(|f| {
            f.dir == mcpdeck::mcp::framelog::Direction::Out
                && f.method.as_deref() == Some("tools/call")
        });
        if let Some(f) = out {
            break match &f.id {
                Some(mcpdeck::mcp::jsonrpc::Id::Num(n)) => *n,
                other => panic!("a numeric id: {other:?}"),
            };
        }
        assert!(Instant::now() < deadline, "the big call was never written");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    // A second call waits for its turn behind it.
    m.send(call(2, "small".into()));
    m.send(Command::Cancel { tag: 2 });
    m.send(Command::Cancel { tag: 1 });
    // Both end as cancelled while the server still reads nothing.
    for tag in [2, 1] {
        let result = finished(&mut rx, tag, &mut seen).await;
        assert!(
            matches!(
                &result,
                Err(mcpdeck::mcp::manager::CallError::Request(
                    mcpdeck::mcp::session::RequestError::Cancelled { .. }
                ))
            ),
            "call {tag}: {result:?}"
        );
    }
    // The server reads again: the whole first request, then its
    // cancellation; the second request never comes. A third call, after
    // them, shows the server has read everything before it.
    std::fs::write(&go, "go").expect("write go");
    m.send(call(3, "after".into()));
    let third = finished(&mut rx, 3, &mut seen).await;
    assert!(third.is_ok(), "{third:?}");
    let third_id = seen
        .iter()
        .find_map(|e| match e {
            Event::CallStarted {
                tag: 3, request_id, ..
            } => Some(*request_id),
            _ => None,
        })
        .expect("call 3 started");
    // Its stderr: every request and notification the server read.
    let mut lines: Vec<String> = Vec::new();
    let third_line = format!("request tools/call {third_id} ");
    let deadline = Instant::now() + common::limit(60);
    while !lines.iter().any(|l| l.starts_with(&third_line)) {
        lines.extend(seen.drain(..).filter_map(|e| match e {
            Event::Stderr { line, .. } => Some(line),
            _ => None,
        }));
        if lines.iter().any(|l| l.starts_with(&third_line)) {
            break;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, rx.recv()).await {
            Ok(Some(ev)) => seen.push(ev),
            other => panic!("no stderr line for call 3 ({other:?}); lines {lines:#?}"),
        }
    }
    let read: Vec<&String> = lines
        .iter()
        .filter(|l| {
            l.starts_with("request tools/call") || l.starts_with("got notifications/cancelled")
        })
        .collect();
    assert_eq!(read.len(), 3, "{read:#?}");
    let big = format!("request tools/call {big_id} ");
    assert!(read[0].starts_with(&big), "{read:#?}");
    let size: usize = read[0][big.len()..].trim().parse().expect("a size");
    assert!(size > 8 << 20, "the whole line arrived: {size} bytes");
    assert!(
        read[1].starts_with("got notifications/cancelled")
            && read[1].contains(&format!("\"requestId\": {big_id}")),
        "{read:#?}"
    );
    assert!(read[2].starts_with(&third_line), "{read:#?}");
    m.shutdown().await;
    common::assert_no_leak(&mark);
}

// ----- 9. Esc in the resources and prompts views cancels at the server -----

#[tokio::test]
async fn esc_in_the_resources_and_prompts_views_cancels_the_request_at_the_server() {
    let mark = common::marker("slow");
    let mut tui = Tui::start(vec![core_server("core", "slow", &mark)], Answers::Nothing);
    tui.msg(Msg::Resize(120, 40));
    tui.connected().await;
    for (done, (view, method)) in [('e', "resources/read"), ('P', "prompts/get")]
        .into_iter()
        .enumerate()
    {
        tui.msg(key(KeyCode::Char(view)));
        // slow://x, or the prompt `slow` (no arguments: got at once).
        tui.msg(key(KeyCode::Enter));
        let holding = format!("holding {method}");
        tui.until(&holding, |s| {
            s.servers[0].stderr.iter().any(|l| *l == holding)
        })
        .await;
        tui.msg(key(KeyCode::Esc));
        let status = tui.state.status.clone().unwrap_or_default();
        assert!(
            status.contains("cancelled") && status.contains("the server was told"),
            "{status}"
        );
        assert!(
            tui.sent.last().is_some_and(|c| c.starts_with("Cancel")),
            "{:#?}",
            tui.sent
        );
        // The server got notifications/cancelled for it.
        let count = done + 1;
        tui.until("the server's notifications/cancelled", move |s| {
            s.servers[0]
                .stderr
                .iter()
                .filter(|l| l.starts_with("got notifications/cancelled"))
                .count()
                == count
        })
        .await;
        // Still in the view; a second Esc leaves it.
        let in_view = match view {
            'e' => mcpdeck::tui::app::Mode::Resources,
            _ => mcpdeck::tui::app::Mode::Prompts,
        };
        assert_eq!(tui.state.mode, in_view);
        tui.msg(key(KeyCode::Esc));
        assert_eq!(tui.state.mode, mcpdeck::tui::app::Mode::Normal);
    }
    tui.stop().await;
    common::assert_no_leak(&mark);
}

// ----- copy as curl: the script makes the same call with curl alone -----

#[tokio::test]
async fn a_call_copied_as_curl_runs_again_with_curl_in_both_eras() {
    let cases = [
        (
            common::python_http(common::py_v2(), "py_v2_server.py"),
            mcpdeck::mcp::Era::Stateless,
            "text",
        ),
        (
            common::everything_http("streamableHttp"),
            mcpdeck::mcp::Era::Initialize,
            "message",
        ),
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    for (server, era, param) in cases {
        // A reference the shell expands as mcpdeck does (its value, once
        // loaded, is the home directory: never written out), one with a
        // default, and a secret written in the config.
        let text = format!(
            "# web\n[servers.web]\nurl = {:?}\nheaders = {{ X-Home = \"${{HOME}}\", X-Trace = \"${{CURL_TEST_TRACE:-t0}}\", X-Api-Key = \"s3cret-in-config\" }}\n",
            server.url
        );
        let path = common::write_file(dir.path(), "config.toml", &text);
        let loaded = mcpdeck::config::load(&path).expect("the config loads");
        let config = loaded.servers[0].clone();
        let home = std::env::var("HOME").unwrap_or_default();
        if let mcpdeck::config::TransportConfig::Http { headers, .. } = &config.transport {
            assert!(
                headers.iter().any(|(_, v)| *v == home),
                "loaded: {headers:?}"
            );
        }
        let mut tui = Tui::start(vec![config], Answers::Nothing);
        tui.config_text = Some(text);
        tui.msg(Msg::Resize(120, 40));
        tui.connected().await;
        assert_eq!(
            tui.state.servers[0].negotiated.as_ref().map(|n| n.era),
            Some(era)
        );
        tui.msg(key(KeyCode::Tab));
        let tool = tui.state.selected_names().expect("a tool").1;
        assert_eq!(tool, "echo");
        tui.state.last_args.insert(
            ("web".into(), "echo".into()),
            format!("{{\"{param}\": \"curl-said-so\"}}"),
        );
        tui.msg(key(KeyCode::Enter));
        tui.msg(ctrl('s'));
        tui.until("the call's result", |s| s.outcome.is_some())
            .await;
        tui.msg(key(KeyCode::Char('c')));
        let script = tui.copied.last().cloned().expect("copied");
        assert!(!script.contains("s3cret-in-config"), "{script}");
        assert!(home.is_empty() || !script.contains(&home), "{script}");
        assert!(
            script.contains("${MCPDECK_HEADER_X_API_KEY}")
                && script.contains("\"${CURL_TEST_TRACE:-t0}\"")
                && script.contains("\"${HOME}\""),
            "{script}"
        );
        assert!(
            script.starts_with("# set MCPDECK_HEADER_X_API_KEY"),
            "{script}"
        );
        let mut sh = std::process::Command::new("sh");
        sh.arg("-c")
            .arg(&script)
            .env("MCPDECK_HEADER_X_API_KEY", "s3cret-in-config")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let run = common::run_limited(sh, common::limit(30));
        assert!(
            run.stdout.contains("curl-said-so") && run.stdout.contains("\"result\""),
            "{era:?}: the script did not make the call:\n{script}\nstdout: {}\nstderr: {}",
            run.stdout,
            run.stderr
        );
        drop(tui);
        drop(server);
    }
}

// ----- roots changed in place: announced, no reconnect -----

#[tokio::test]
async fn new_roots_in_the_config_are_announced_without_a_reconnect() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    let mut server = ServerConfig::stdio(
        "everything",
        "node",
        &[&common::everything_js().display().to_string(), "stdio"],
    );
    server.roots = Some(vec![one.clone()]);
    let mut tui = Tui::start(vec![server.clone()], Answers::Person);
    tui.connected().await;
    // The server asks for its roots after `initialized`.
    let asked = |t: &Tui| {
        t.frames
            .snapshot()
            .iter()
            .filter(|f| f.method.as_deref() == Some("roots/list") && f.text.contains("\"method\""))
            .count()
    };
    let deadline = Instant::now() + common::limit(20);
    while asked(&tui) == 0 {
        assert!(
            Instant::now() < deadline,
            "the server never asked for its roots"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let before = tui.seen.len();
    // The config's roots change (as a reload hands it over).
    server.roots = Some(vec![two.clone()]);
    tui.manager.send(Command::SetServers(vec![server]));
    let deadline = Instant::now() + common::limit(20);
    while asked(&tui) < 2 {
        assert!(
            Instant::now() < deadline,
            "the server was not told, or did not ask again"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        while let Ok(ev) = tui.rx.try_recv() {
            tui.seen.push(ev);
        }
    }
    let frames = tui.frames.snapshot();
    assert!(
        frames
            .iter()
            .any(|f| f.method.as_deref() == Some("notifications/roots/list_changed")),
        "no roots/list_changed sent"
    );
    // The answer to the second roots/list offers the new root.
    let answers: Vec<&str> = frames
        .iter()
        .filter(|f| f.text.contains("\"roots\":["))
        .map(|f| f.text.as_str())
        .collect();
    let last = answers.last().expect("a roots/list answer");
    assert!(last.contains("/two/") && !last.contains("/one/"), "{last}");
    // And the session was never replaced: no status change since.
    assert!(
        !tui.seen[before..]
            .iter()
            .any(|e| matches!(e, Event::Status { .. })),
        "the server reconnected: {:#?}",
        &tui.seen[before..]
    );
}

// ----- a server request on a call's HTTP stream names that call -----

#[tokio::test]
async fn an_elicitation_on_a_calls_http_stream_says_it_is_that_calls() {
    let server = common::everything_http("streamableHttp");
    let config = ServerConfig::http("web", &server.url);
    let mut tui = Tui::start(vec![config], Answers::Person);
    tui.msg(Msg::Resize(120, 40));
    tui.connected().await;
    let call = |tui: &mut Tui, tool: &str| -> u64 {
        let names: Vec<String> = tui.state.servers[0]
            .lists
            .tools
            .iter()
            .map(|t| t.name.clone())
            .collect();
        let i = names.iter().position(|n| n == tool).expect("the tool");
        tui.state.focus = mcpdeck::tui::app::Pane::Tools;
        tui.state.tool_sel = i;
        tui.msg(key(KeyCode::Enter));
        tui.msg(ctrl('s'));
        tui.state.running.last().expect("running").tag
    };
    // Two calls run on the one server: only the stream tells whose the
    // request is.
    let long = call(&mut tui, "trigger-long-running-operation");
    let asks = call(&mut tui, "trigger-elicitation-request");
    assert_ne!(long, asks);
    tui.until("the elicitation", |s| !s.asks.is_empty()).await;
    assert_eq!(
        tui.state.asks.queue[0].call,
        Some(asks),
        "{:#?}",
        tui.state.asks.queue
    );
    assert!(
        tui.screen(120, 40)
            .contains("for call 2 (trigger-elicitation-request)")
    );
    // Cancel both; nothing is left waiting.
    tui.msg(key(KeyCode::Esc));
    tui.msg(key(KeyCode::Esc));
    tui.state.focus = mcpdeck::tui::app::Pane::Result;
    tui.msg(key(KeyCode::Char('[')));
    tui.msg(key(KeyCode::Esc));
    tui.until("both calls ended", |s| s.running.is_empty())
        .await;
}
