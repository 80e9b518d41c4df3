//! Latency statistics in the TUI: response frames in the shared frame log
//! become rows of the server's detail (count, p50, p95, p99, max, errors),
//! and the reset key forgets the selected server's.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use mcpdeck::config::ServerConfig;
use mcpdeck::mcp::framelog::{Direction, FrameLog, FrameMeta};
use mcpdeck::mcp::jsonrpc::Id;
use mcpdeck::mcp::manager::{Event, ServerStatus};
use mcpdeck::mcp::session::Negotiated;
use mcpdeck::mcp::types::{Era, ServerInfo};
use mcpdeck::tui::app::{Msg, State, update};
use mcpdeck::tui::keymap::Keymap;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new_with_kind(
        code,
        KeyModifiers::NONE,
        KeyEventKind::Press,
    ))
}

fn negotiated() -> Negotiated {
    Negotiated {
        era: Era::Initialize,
        version: "2025-11-25".into(),
        detection: "initialize answered".into(),
        server_info: ServerInfo {
            name: "demo".into(),
            title: None,
            version: "1.0.0".into(),
            raw: json!({}),
        },
        capabilities: json!({"tools": {}}),
        instructions: None,
        supported_versions: vec![],
        connect_time: Duration::from_millis(5),
        transport: "stdio",
    }
}

/// Two connected servers, `demo` selected, over a shared frame log.
fn state(log: &Arc<FrameLog>, w: u16, h: u16) -> State {
    let configs = vec![
        ServerConfig::stdio("demo", "x", &[]),
        ServerConfig::stdio("other", "x", &[]),
    ];
    let mut s = State::new(&configs, Keymap::default(), None);
    s.frames = Some(log.clone());
    let mut fx = Vec::new();
    for name in ["demo", "other"] {
        update(
            &mut s,
            Msg::Manager(Event::Status {
                server: name.into(),
                status: ServerStatus::Connected,
                negotiated: Some(Box::new(negotiated())),
            }),
            &mut fx,
        );
    }
    update(&mut s, Msg::Resize(w, h), &mut fx);
    s
}

/// A request and its response, `ms` apart, as a session records them.
fn exchange(log: &FrameLog, server: &str, id: i64, method: &str, ms: u64, response: &str) {
    let server: Arc<str> = Arc::from(server);
    let method: Arc<str> = Arc::from(method);
    log.record(
        &server,
        Direction::Out,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#),
        FrameMeta {
            method: Some(method.clone()),
            id: Some(Id::Num(id)),
            latency: None,
            json: false,
        },
    );
    log.record(
        &server,
        Direction::In,
        &format!(r#"{{"jsonrpc":"2.0","id":{id},{response}}}"#),
        FrameMeta {
            method: Some(method),
            id: Some(Id::Num(id)),
            latency: Some(Duration::from_millis(ms)),
            json: false,
        },
    );
}

const OK: &str = r#""result":{"content":[]}"#;
const TOOL_ERROR: &str = r#""result":{"content":[],"isError":true}"#;
const RPC_ERROR: &str = r#""error":{"code":-32602,"message":"bad"}"#;

fn screen(s: &State, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| mcpdeck::tui::ui::render(s, f)).unwrap();
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut line = String::new();
        for x in 0..buf.area.width {
            line.push_str(buf[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Calls of several speeds and outcomes on `demo`, one on `other`.
fn traffic(log: &FrameLog) {
    let mut id = 0;
    for ms in 1..=100u64 {
        id += 1;
        let response = match ms {
            7 | 70 => TOOL_ERROR,
            99 => RPC_ERROR,
            _ => OK,
        };
        exchange(log, "demo", id, "tools/call", ms, response);
    }
    for ms in [3, 5] {
        id += 1;
        exchange(
            log,
            "demo",
            id,
            "tools/list",
            ms,
            r#""result":{"tools":[]}"#,
        );
    }
    id += 1;
    exchange(
        log,
        "demo",
        id,
        "resources/templates/list",
        1_500,
        r#""result":{"resourceTemplates":[]}"#,
    );
    exchange(log, "other", 1, "ping", 2, r#""result":{}"#);
}

#[test]
fn response_frames_become_rows_per_server_and_method() {
    let log = Arc::new(FrameLog::new(1_000));
    let mut s = state(&log, 80, 24);
    traffic(&log);
    let mut fx = Vec::new();
    // Any update reads the new frames; the selected server got samples.
    assert!(update(&mut s, Msg::Clock(Instant::now()), &mut fx));
    let rows = s.latency.server_rows("demo");
    let call = rows.iter().find(|r| r.method == "tools/call").unwrap();
    assert_eq!((call.count, call.errors, call.tool_errors), (100, 1, 2));
    // Within the histogram's precision (0.8 %, never below); max exact.
    let near = |d: Duration, ms: u64| {
        let want = Duration::from_millis(ms);
        assert!(d >= want && d <= want + want / 125, "{d:?} is not {want:?}");
    };
    near(call.p50, 50);
    near(call.p95, 95);
    near(call.p99, 99);
    assert_eq!(call.max, Duration::from_millis(100));
    let list = rows.iter().find(|r| r.method == "tools/list").unwrap();
    assert_eq!(
        (list.count, list.errors, list.max),
        (2, 0, Duration::from_millis(5))
    );
    assert_eq!(s.latency.server_rows("other").len(), 1);
    // Requests (out) are not samples; the same frames are not read twice.
    assert!(!update(&mut s, Msg::Clock(Instant::now()), &mut fx));
    assert_eq!(s.latency.server_rows("demo")[1].count, 100);

    // (30 rows: the detail's lines above the table take 24's room.)
    let text = screen(&s, 80, 30);
    assert!(text.contains("Latency per method · Z resets"), "{text}");
    assert!(text.contains("tools/call"), "{text}");
    insta::assert_snapshot!("latency_80x30", text);
}

#[test]
fn the_table_fits_a_narrow_detail() {
    let log = Arc::new(FrameLog::new(1_000));
    let mut s = state(&log, 60, 20);
    traffic(&log);
    let mut fx = Vec::new();
    update(&mut s, Msg::Tick, &mut fx);
    // The detail is 34 columns wide here: each method on a line of its
    // own, its numbers under it.
    assert_eq!(s.areas.detail.width - 2, 34);
    // Tab through the (empty) tools pane reaches the server's detail;
    // End scrolls it to the table, its last lines.
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::End), &mut fx);
    let text = screen(&s, 60, 20);
    assert!(
        text.contains("│     n     p50     p95     max err│"),
        "{text}"
    );
    assert!(
        text.contains("│   100   50 ms   95 ms  100 ms   3│"),
        "{text}"
    );
    insta::assert_snapshot!("latency_60x20", text);
}

#[test]
fn the_reset_key_forgets_the_selected_servers_statistics_only() {
    let log = Arc::new(FrameLog::new(1_000));
    let mut s = state(&log, 80, 24);
    traffic(&log);
    let mut fx = Vec::new();
    update(&mut s, Msg::Tick, &mut fx);
    assert!(!s.latency.server_rows("demo").is_empty());
    assert!(update(&mut s, key(KeyCode::Char('Z')), &mut fx));
    assert!(fx.is_empty(), "resetting is the UI's own: {fx:?}");
    assert!(s.latency.server_rows("demo").is_empty());
    assert_eq!(s.latency.server_rows("other").len(), 1);
    assert_eq!(s.status.as_deref(), Some("demo: latency statistics reset"));
    let text = screen(&s, 80, 24);
    assert!(!text.contains("Latency per method"), "{text}");
    // New calls count from zero.
    exchange(&log, "demo", 500, "tools/call", 12, OK);
    update(&mut s, Msg::Tick, &mut fx);
    let rows = s.latency.server_rows("demo");
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].count, rows[0].max), (1, Duration::from_millis(12)));
}

#[test]
fn the_reset_key_can_be_rebound_and_the_help_lists_it() {
    let keymap = Keymap::with_overrides(&[("reset_stats".into(), vec!["ctrl-x".into()])]).unwrap();
    let log = Arc::new(FrameLog::new(1_000));
    let configs = vec![ServerConfig::stdio("demo", "x", &[])];
    let mut s = State::new(&configs, keymap, None);
    s.frames = Some(log.clone());
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(100, 40), &mut fx);
    exchange(&log, "demo", 1, "tools/call", 4, OK);
    update(&mut s, Msg::Tick, &mut fx);
    assert_eq!(s.latency.server_rows("demo").len(), 1);
    update(&mut s, key(KeyCode::Char('Z')), &mut fx);
    assert_eq!(s.latency.server_rows("demo").len(), 1, "Z is no longer it");
    update(
        &mut s,
        Msg::Key(KeyEvent::new_with_kind(
            KeyCode::Char('x'),
            KeyModifiers::CONTROL,
            KeyEventKind::Press,
        )),
        &mut fx,
    );
    assert!(s.latency.server_rows("demo").is_empty());
    update(&mut s, key(KeyCode::Char('?')), &mut fx);
    // (The help is longer than the screen: its search finds the row.)
    for c in "/latency".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    let text = screen(&s, 100, 40);
    assert!(
        text.contains("reset the selected server's latency") && text.contains("Ctrl-X"),
        "{text}"
    );
}

#[test]
fn a_server_removed_by_a_reload_takes_its_statistics_with_it() {
    let log = Arc::new(FrameLog::new(1_000));
    let mut s = state(&log, 80, 24);
    traffic(&log);
    let mut fx = Vec::new();
    update(&mut s, Msg::Clock(Instant::now()), &mut fx);
    assert_eq!(s.latency.server_rows("other").len(), 1);
    let kept = vec![ServerConfig::stdio("demo", "x", &[])];
    update(&mut s, Msg::Reloaded(Ok(kept)), &mut fx);
    assert!(s.latency.server_rows("other").is_empty());
    assert_eq!(s.latency.server_rows("demo").len(), 3);
}
