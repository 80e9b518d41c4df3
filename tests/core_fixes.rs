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
use mcpdeck::mcp::manager::{Answers, Event, Manager, ServerStatus};
use mcpdeck::mcp::transport::stdio::Children;
use mcpdeck::tui::app::{Effect, Msg, State, update};
use mcpdeck::tui::keymap::Keymap;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;

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
    rx: UnboundedReceiver<Event>,
    /// Every manager event seen, in order.
    seen: Vec<Event>,
    /// Every command sent to the manager, as text.
    sent: Vec<String>,
}

impl Tui {
    fn start(servers: Vec<ServerConfig>, answers: Answers) -> Tui {
        let state = State::new(&servers, Keymap::default(), None);
        let (manager, rx) = Manager::start_answering(
            settings(),
            servers,
            Arc::new(FrameLog::new(10_000)),
            Children::new(),
            answers,
        );
        Tui {
            state,
            manager,
            rx,
            seen: Vec::new(),
            sent: Vec::new(),
        }
    }

    fn msg(&mut self, msg: Msg) {
        let mut fx = Vec::new();
        update(&mut self.state, msg, &mut fx);
        for e in fx {
            if let Effect::Manager(cmd) = e {
                self.sent.push(format!("{cmd:?}"));
                self.manager.send(cmd);
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
    assert_eq!(v["error"]["kind"], "closed", "{v:#}");
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
    let inflight = tui.state.inflight.as_ref().expect("the call is in flight");
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
