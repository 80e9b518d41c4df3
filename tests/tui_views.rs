//! The views beside the panes (resources, prompts, protocol log, network,
//! login) through `update()`: Esc cancelling at the server, the mouse, and
//! the protocol log's frame pane at narrow widths.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{
    KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use mcpdeck::config::ServerConfig;
use mcpdeck::mcp::framelog::{Direction, FrameLog, FrameMeta};
use mcpdeck::mcp::manager::{Command, Event, ServerStatus};
use mcpdeck::mcp::session::{Lists, Negotiated};
use mcpdeck::mcp::types::{Era, ServerInfo};
use mcpdeck::tui::app::{Effect, Mode, Msg, State, update};
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

fn mouse(kind: MouseEventKind, column: u16, row: u16) -> Msg {
    Msg::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    })
}

fn click(column: u16, row: u16) -> Msg {
    mouse(MouseEventKind::Down(MouseButton::Left), column, row)
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
        capabilities: json!({"tools": {}, "resources": {}, "prompts": {}}),
        instructions: None,
        supported_versions: vec![],
        connect_time: Duration::from_millis(5),
        transport: "stdio",
    }
}

/// One connected server with resources and prompts, at `w`×`h`.
fn state(w: u16, h: u16) -> State {
    let configs = vec![
        ServerConfig::stdio("demo", "x", &[]),
        ServerConfig::stdio("other", "x", &[]),
    ];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(w, h), &mut fx);
    let resources = (0..30)
        .map(|i| json!({"uri": format!("file:///r{i}.txt"), "name": format!("r{i}")}))
        .collect();
    let prompts = (0..30).map(|i| json!({"name": format!("p{i}")})).collect();
    for ev in [
        Event::Status {
            server: "demo".into(),
            status: ServerStatus::Connected,
            negotiated: Some(Box::new(negotiated())),
        },
        Event::Lists {
            server: "demo".into(),
            lists: Arc::new(Lists {
                resources,
                prompts,
                ..Lists::default()
            }),
        },
    ] {
        update(&mut s, Msg::Manager(ev), &mut fx);
    }
    s
}

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

/// The tag of the request the effects sent.
fn request_tag(fx: &[Effect], method: &str) -> u64 {
    fx.iter()
        .find_map(|e| match e {
            Effect::Manager(Command::Request { tag, method: m, .. }) if m == method => Some(*tag),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {method} among {fx:?}"))
}

// ----- 9. Esc cancels the pending read or get at the server -----

#[test]
fn esc_cancels_a_pending_read_or_get_and_a_second_esc_leaves() {
    for (view, method, mode) in [
        ('e', "resources/read", Mode::Resources),
        ('P', "prompts/get", Mode::Prompts),
    ] {
        let mut s = state(100, 30);
        let mut fx = Vec::new();
        update(&mut s, key(KeyCode::Char(view)), &mut fx);
        assert_eq!(s.mode, mode);
        update(&mut s, key(KeyCode::Enter), &mut fx);
        let tag = request_tag(&fx, method);
        fx.clear();
        assert!(update(&mut s, key(KeyCode::Esc), &mut fx));
        assert!(
            matches!(fx.as_slice(), [Effect::Manager(Command::Cancel { tag: t })] if *t == tag),
            "{fx:?}"
        );
        let status = s.status.clone().unwrap_or_default();
        assert!(
            status.contains("cancelled") && status.contains("the server was told"),
            "{status}"
        );
        assert_eq!(s.mode, mode, "the first Esc stays in the view");
        // The answer that comes anyway is dropped.
        fx.clear();
        update(
            &mut s,
            Msg::Manager(Event::Response {
                tag,
                server: "demo".into(),
                method: method.into(),
                result: Ok(json!({"contents": [], "messages": []})),
            }),
            &mut fx,
        );
        assert!(fx.is_empty(), "{fx:?}");
        update(&mut s, key(KeyCode::Esc), &mut fx);
        assert_eq!(s.mode, Mode::Normal);
        assert!(fx.is_empty(), "nothing more to cancel: {fx:?}");
    }
}
