//! The TUI's real event loop (`tui::run::run_loop`) on ratatui's
//! TestBackend: scripted keys from a test host, scripted manager events,
//! and a recorder standing in for the manager.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::{Event as TermEvent, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use mcpdeck::config::{Config, ServerConfig};
use mcpdeck::mcp::manager::{Command, Event, ServerStatus};
use mcpdeck::mcp::session::Lists;
use mcpdeck::mcp::types::Tool;
use mcpdeck::tui::app::State;
use mcpdeck::tui::keymap::Keymap;
use mcpdeck::tui::run::{Core, Host, Input, run_loop};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

/// Keys typed one at a time, each after the loop had time to take in what
/// came before; the input ends after the last.
struct ScriptedHost {
    keys: VecDeque<KeyEvent>,
    copied: Vec<String>,
}

impl Host for ScriptedHost {
    type Backend = TestBackend;

    fn redraw_all(&mut self, terminal: &mut Terminal<TestBackend>) -> std::io::Result<()> {
        terminal
            .clear()
            .map_err(|e| std::io::Error::other(e.to_string()))
    }

    async fn next_input(&mut self) -> Option<Input> {
        tokio::time::sleep(Duration::from_millis(20)).await;
        self.keys
            .pop_front()
            .map(|k| Input::Terminal(Ok(TermEvent::Key(k))))
    }

    async fn edit_externally(&mut self, text: &str) -> std::io::Result<Result<String, String>> {
        Ok(Ok(text.to_string()))
    }

    fn copy(&mut self, text: &str) {
        self.copied.push(text.to_string());
    }

    fn open_url(&mut self, _url: String) {}
}

#[derive(Default, Clone)]
struct Recorder(Arc<Mutex<Vec<Command>>>);

impl Core for Recorder {
    fn send(&self, cmd: Command) {
        self.0.lock().unwrap().push(cmd);
    }
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new_with_kind(code, KeyModifiers::NONE, KeyEventKind::Press)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new_with_kind(KeyCode::Char(c), KeyModifiers::CONTROL, KeyEventKind::Press)
}

fn echo_tool() -> Tool {
    let raw = json!({"name": "echo", "description": "Echo a message back.",
        "inputSchema": {"type": "object", "properties": {"message": {"type": "string", "default": "hi"}},
                        "required": ["message"]},
        "annotations": {"readOnlyHint": true}});
    Tool::parse(&raw, &mut Vec::new()).expect("a tool")
}

fn screen(t: &Terminal<TestBackend>) -> String {
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

#[tokio::test(flavor = "current_thread")]
async fn the_real_loop_calls_a_tool_and_quits() {
    let mut config = Config::empty(None);
    config.servers = vec![ServerConfig::stdio("demo", "x", &[])];
    let state = State::new(&config.servers, Keymap::default(), None);
    let (events_tx, events) = mcpdeck::mcp::manager::event_channel();
    // The server connects and lists its tool before any key is typed.
    events_tx
        .send(Event::Status {
            server: "demo".into(),
            status: ServerStatus::Connected,
            negotiated: None,
        })
        .unwrap();
    events_tx
        .send(Event::Lists {
            server: "demo".into(),
            lists: Arc::new(Lists {
                tools: vec![echo_tool()],
                ..Lists::default()
            }),
        })
        .unwrap();
    let mut host = ScriptedHost {
        // Tools pane, open the editor on echo, send, then quit.
        keys: [
            key(KeyCode::Tab),
            key(KeyCode::Enter),
            ctrl('s'),
            key(KeyCode::Char('q')),
        ]
        .into_iter()
        .collect(),
        copied: Vec::new(),
    };
    let recorder = Recorder::default();
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    tokio::time::timeout(
        Duration::from_secs(20),
        run_loop(&mut terminal, &mut host, &recorder, config, state, events),
    )
    .await
    .expect("the loop ends")
    .expect("no terminal error");
    let sent = recorder.0.lock().unwrap();
    let call = sent
        .iter()
        .find_map(|c| match c {
            Command::Call {
                server,
                tool,
                arguments,
                ..
            } => Some((server.clone(), tool.clone(), arguments.clone())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no call reached the manager: {sent:?}"));
    assert_eq!(
        call,
        ("demo".into(), "echo".into(), json!({"message": "hi"}))
    );
    // The last frame drawn: the call in flight on the result pane.
    let out = screen(&terminal);
    assert!(out.contains("calling echo on demo"), "{out}");
    // A call in flight makes `q` ask first; the input then ended.
    assert!(out.contains("Quit"), "{out}");
    drop(events_tx);
}

#[tokio::test(flavor = "current_thread")]
async fn the_loop_ends_when_the_input_ends_and_draws_each_change() {
    let config = Config::empty(None);
    let state = State::new(&config.servers, Keymap::default(), None);
    let (_events_tx, events) = mcpdeck::mcp::manager::event_channel();
    let mut host = ScriptedHost {
        keys: [key(KeyCode::Char('?'))].into_iter().collect(),
        copied: Vec::new(),
    };
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    run_loop(
        &mut terminal,
        &mut host,
        &Recorder::default(),
        config,
        state,
        events,
    )
    .await
    .unwrap();
    // `?` opened the help, drawn before the input ended.
    let out = screen(&terminal);
    assert!(out.contains("Keys ·") && out.contains("move up"), "{out}");
}

/// A host that counts the loop's turns (each turn asks for input once):
/// from turn `from` on it gives `keys`, one a turn; after them the input
/// waits, and ends once `done` holds when asked.
struct TurnHost {
    turns: usize,
    from: usize,
    keys: VecDeque<KeyEvent>,
    done: Box<dyn Fn() -> bool>,
}

impl Host for TurnHost {
    type Backend = TestBackend;

    fn redraw_all(&mut self, terminal: &mut Terminal<TestBackend>) -> std::io::Result<()> {
        terminal
            .clear()
            .map_err(|e| std::io::Error::other(e.to_string()))
    }

    async fn next_input(&mut self) -> Option<Input> {
        self.turns += 1;
        if self.turns >= self.from
            && let Some(k) = self.keys.pop_front()
        {
            return Some(Input::Terminal(Ok(TermEvent::Key(k))));
        }
        if self.keys.is_empty() && (self.done)() {
            return None;
        }
        std::future::pending().await
    }

    async fn edit_externally(&mut self, text: &str) -> std::io::Result<Result<String, String>> {
        Ok(Ok(text.to_string()))
    }

    fn copy(&mut self, _text: &str) {}

    fn open_url(&mut self, _url: String) {}
}

#[tokio::test(flavor = "current_thread")]
async fn keys_are_handled_while_a_flood_of_events_is_taken_in() {
    use mcpdeck::tui::run::MAX_EVENTS_PER_FRAME;
    let mut config = Config::empty(None);
    config.servers = vec![ServerConfig::stdio("demo", "x", &[])];
    let state = State::new(&config.servers, Keymap::default(), None);
    let (events_tx, events) = mcpdeck::mcp::manager::event_channel();
    // Many frames' worth of events are waiting. (A flood of stderr lines
    // or notifications is bounded by the event queue itself: these are
    // events it never drops.)
    for i in 0..40 * MAX_EVENTS_PER_FRAME {
        events_tx
            .send(Event::Ping {
                server: "demo".into(),
                result: Ok(Duration::from_micros(i as u64)),
                requested: false,
            })
            .unwrap();
    }
    // The last events: a request for the person, then the server fails,
    // which declines the request (a command the recorder sees).
    events_tx
        .send(Event::ServerRequest {
            id: 7,
            server: "demo".into(),
            method: "elicitation/create".into(),
            params: json!({"message": "name?", "requestedSchema": {"type": "object"}}),
            related: None,
            request_id: None,
        })
        .unwrap();
    events_tx
        .send(Event::Status {
            server: "demo".into(),
            status: ServerStatus::Disconnected,
            negotiated: None,
        })
        .unwrap();
    let recorder = Recorder::default();
    let seen = recorder.clone();
    let mut host = TurnHost {
        turns: 0,
        // `p` (ping) is typed once the flood is being taken in.
        from: 2,
        keys: [key(KeyCode::Char('p'))].into_iter().collect(),
        done: Box::new(move || {
            seen.0
                .lock()
                .unwrap()
                .iter()
                .any(|c| matches!(c, Command::AnswerServerRequest { id: 7, .. }))
        }),
    };
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    tokio::time::timeout(
        Duration::from_secs(60),
        run_loop(&mut terminal, &mut host, &recorder, config, state, events),
    )
    .await
    .expect("the loop took in every event without new input, and ended")
    .expect("no terminal error");
    let sent = recorder.0.lock().unwrap();
    let ping = sent.iter().position(|c| matches!(c, Command::Ping(_)));
    let answer = sent
        .iter()
        .position(|c| matches!(c, Command::AnswerServerRequest { id: 7, .. }));
    // The key was handled before the flood was through, and the rest of
    // the flood was still taken in, with no key or event to wake the loop.
    assert!(
        matches!((ping, answer), (Some(p), Some(a)) if p < a),
        "{sent:?}"
    );
    // Frames were drawn along the way: the loop turned many times.
    assert!(host.turns > 10, "{} turns", host.turns);
    drop(events_tx);
}

/// Opens the protocol log, then stays idle for an hour (of paused time),
/// counting the loop's turns meanwhile; then a frame arrives, and the
/// input ends a second later.
struct IdleLogHost {
    turns: usize,
    idle_turns: usize,
    until: Option<tokio::time::Instant>,
    frames: Arc<mcpdeck::mcp::framelog::FrameLog>,
    recorded: bool,
}

impl Host for IdleLogHost {
    type Backend = TestBackend;

    fn redraw_all(&mut self, terminal: &mut Terminal<TestBackend>) -> std::io::Result<()> {
        terminal
            .clear()
            .map_err(|e| std::io::Error::other(e.to_string()))
    }

    async fn next_input(&mut self) -> Option<Input> {
        self.turns += 1;
        if self.turns == 1 {
            return Some(Input::Terminal(Ok(TermEvent::Key(key(KeyCode::Char('L'))))));
        }
        let until = *self
            .until
            .get_or_insert_with(|| tokio::time::Instant::now() + Duration::from_secs(3600));
        if self.recorded {
            // A second later (the log shows new frames within a tick), done.
            tokio::time::sleep_until(until + Duration::from_secs(1)).await;
            return None;
        }
        if self.turns > 2 {
            // The loop turned although nothing happened.
            self.idle_turns += 1;
        }
        tokio::time::sleep_until(until).await;
        self.frames.record(
            &Arc::from("demo"),
            mcpdeck::mcp::framelog::Direction::In,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"a-new-frame"}}"#,
            mcpdeck::mcp::framelog::FrameMeta {
                method: Some("notifications/message".into()),
                ..Default::default()
            },
        );
        self.recorded = true;
        std::future::pending().await
    }

    async fn edit_externally(&mut self, text: &str) -> std::io::Result<Result<String, String>> {
        Ok(Ok(text.to_string()))
    }

    fn copy(&mut self, _text: &str) {}

    fn open_url(&mut self, _url: String) {}
}

#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn an_idle_open_log_does_not_wake_the_loop_and_a_new_frame_still_shows() {
    let mut config = Config::empty(None);
    config.servers = vec![ServerConfig::stdio("demo", "x", &[])];
    let mut state = State::new(&config.servers, Keymap::default(), None);
    let frames = Arc::new(mcpdeck::mcp::framelog::FrameLog::new(100));
    frames.record(
        &Arc::from("demo"),
        mcpdeck::mcp::framelog::Direction::Out,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        mcpdeck::mcp::framelog::FrameMeta {
            method: Some("tools/list".into()),
            ..Default::default()
        },
    );
    state.frames = Some(frames.clone());
    let (events_tx, events) = mcpdeck::mcp::manager::event_channel();
    // Settled: nothing pending, so nothing animates.
    events_tx
        .send(Event::Status {
            server: "demo".into(),
            status: ServerStatus::Connected,
            negotiated: None,
        })
        .unwrap();
    let mut host = IdleLogHost {
        turns: 0,
        idle_turns: 0,
        until: None,
        frames,
        recorded: false,
    };
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    run_loop(
        &mut terminal,
        &mut host,
        &Recorder::default(),
        config,
        state,
        events,
    )
    .await
    .unwrap();
    // An hour with the log open and nothing happening: not one turn (no
    // tick, no redraw).
    assert_eq!(host.idle_turns, 0);
    // The frame that came woke the loop, and the log shows it.
    let out = screen(&terminal);
    assert!(out.contains("a-new-frame"), "{out}");
    assert!(out.contains("tools/list"), "{out}");
    drop(events_tx);
}
