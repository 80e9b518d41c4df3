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

// ----- 10. the mouse in the views -----

/// The inside (within the border) of a pane.
fn inner(r: ratatui::layout::Rect) -> ratatui::layout::Rect {
    ratatui::layout::Rect::new(r.x + 1, r.y + 1, r.width - 2, r.height - 2)
}

#[test]
fn clicks_select_rows_and_the_wheel_scrolls_in_the_resources_and_prompts_views() {
    for (view, mode) in [('e', Mode::Resources), ('P', Mode::Prompts)] {
        let mut s = state(100, 30);
        let mut fx = Vec::new();
        update(&mut s, key(KeyCode::Char(view)), &mut fx);
        assert_eq!(s.mode, mode);
        let (list, contents) = mcpdeck::tui::ui::browse::areas(s.areas.main, 30);
        let b = |s: &State| {
            if mode == Mode::Resources {
                s.resources.clone()
            } else {
                s.prompts.clone()
            }
        };
        // Row 0 is the first entry, row 1 its description (it is
        // selected), row 3 the third entry.
        let top = inner(list);
        let before = screen(&s, 100, 30);
        let clicked = before.lines().nth((top.y + 3) as usize).unwrap_or("");
        assert!(
            clicked.contains("r2") || clicked.contains("p2"),
            "the third entry is drawn on row 3: {clicked}\n{before}"
        );
        assert!(update(&mut s, click(top.x + 3, top.y + 3), &mut fx));
        assert_eq!(b(&s).sel, 2);
        // Now the third entry is on row 2 and its description on row 3:
        // a click on the description selects its entry.
        update(&mut s, click(top.x + 3, top.y + 3), &mut fx);
        assert_eq!(b(&s).sel, 2);
        update(&mut s, click(top.x + 3, top.y + 4), &mut fx);
        assert_eq!(b(&s).sel, 3);
        update(&mut s, click(top.x + 3, top.y + 2), &mut fx);
        assert_eq!(b(&s).sel, 2);
        // The wheel over the list moves the selection.
        update(
            &mut s,
            mouse(MouseEventKind::ScrollDown, top.x + 3, top.y + 1),
            &mut fx,
        );
        assert_eq!(b(&s).sel, 5);
        update(
            &mut s,
            mouse(MouseEventKind::ScrollUp, top.x + 3, top.y + 1),
            &mut fx,
        );
        assert_eq!(b(&s).sel, 2);
        // Something read: a click on it focuses it, the wheel scrolls it.
        update(&mut s, key(KeyCode::Enter), &mut fx);
        let method = if mode == Mode::Resources {
            "resources/read"
        } else {
            "prompts/get"
        };
        let tag = request_tag(&fx, method);
        let long: String = (0..80).map(|i| format!("line {i}\n")).collect();
        let result = if mode == Mode::Resources {
            json!({"contents": [{"uri": "file:///r2.txt", "mimeType": "text/plain", "text": long}]})
        } else {
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": long}}]})
        };
        update(
            &mut s,
            Msg::Manager(Event::Response {
                tag,
                server: "demo".into(),
                method: method.into(),
                result: Ok(result),
            }),
            &mut fx,
        );
        assert!(b(&s).shown.is_some());
        let body = inner(contents);
        assert!(update(&mut s, click(body.x + 2, body.y + 2), &mut fx));
        assert!(b(&s).contents_focus);
        update(
            &mut s,
            mouse(MouseEventKind::ScrollDown, body.x + 2, body.y + 2),
            &mut fx,
        );
        assert_eq!(b(&s).scroll, 3);
        assert_eq!(b(&s).sel, 2, "the wheel over the contents leaves the list");
        // A click on the list focuses it again.
        update(&mut s, click(top.x + 3, top.y), &mut fx);
        assert!(!b(&s).contents_focus);
        assert_eq!(b(&s).sel, 0);
        assert!(
            fx.iter()
                .all(|e| matches!(e, Effect::Manager(Command::Request { .. }))),
            "{fx:?}"
        );
    }
}

/// `n` frames, the last one long.
fn frames(n: usize) -> Arc<FrameLog> {
    let log = Arc::new(FrameLog::new(1000));
    let demo: Arc<str> = Arc::from("demo");
    for i in 0..n {
        log.record(
            &demo,
            if i.is_multiple_of(2) {
                Direction::Out
            } else {
                Direction::In
            },
            &format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/list"}}"#),
            FrameMeta {
                method: Some("tools/list".into()),
                ..FrameMeta::default()
            },
        );
    }
    log.record(
        &demo,
        Direction::Out,
        LONG_FRAME,
        FrameMeta {
            method: Some("tools/call".into()),
            ..FrameMeta::default()
        },
    );
    log
}

/// A message longer than a narrow screen, with its end marked.
const MESSAGE: &str = "Lorem-ipsum-dolor-sit-amet,-consectetur-adipiscing-elit,-sed-do-eiusmod-tempor-incididunt-ut-labore-et-dolore-magna-aliqua-END";

const LONG_FRAME: &str = r#"{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"echo","arguments":{"message":"Lorem-ipsum-dolor-sit-amet,-consectetur-adipiscing-elit,-sed-do-eiusmod-tempor-incididunt-ut-labore-et-dolore-magna-aliqua-END","count":3,"loud":true,"tags":["a","b","c"],"nested":{"deeper":{"deepest":"bottom-of-the-frame"}}}}}"#;

#[test]
fn clicks_and_the_wheel_in_the_protocol_log() {
    let mut s = state(100, 30);
    s.frames = Some(frames(30));
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('L')), &mut fx);
    assert_eq!(s.mode, Mode::Log);
    let [list, frame] = mcpdeck::tui::app::log_areas(s.areas.main, s.log.zoom);
    let rows = inner(list);
    // Following: the newest (index 30) is on the last row.
    let first_shown = 31 - rows.height as usize;
    let before = screen(&s, 100, 30);
    let row = before.lines().nth(rows.y as usize + 2).unwrap_or("");
    let out_or_in = if (first_shown + 2).is_multiple_of(2) {
        "C->S"
    } else {
        "S->C"
    };
    assert!(row.contains(out_or_in), "the row clicked: {row}\n{before}");
    assert!(update(&mut s, click(rows.x + 5, rows.y + 2), &mut fx));
    assert_eq!(s.log.sel, Some(first_shown + 2));
    let out = screen(&s, 100, 30);
    assert!(
        out.contains(&format!("\"id\": {}", first_shown + 2)),
        "the clicked frame is shown: {out}"
    );
    // The wheel over the list moves the selection.
    update(
        &mut s,
        mouse(MouseEventKind::ScrollUp, rows.x + 5, rows.y + 2),
        &mut fx,
    );
    assert_eq!(s.log.sel, Some(first_shown - 1));
    // The long frame: a click focuses the frame pane, the wheel scrolls it.
    update(&mut s, key(KeyCode::End), &mut fx);
    let pane = inner(frame);
    assert!(update(&mut s, click(pane.x + 1, pane.y + 1), &mut fx));
    assert!(s.log.frame_focus);
    update(
        &mut s,
        mouse(MouseEventKind::ScrollDown, pane.x + 1, pane.y + 1),
        &mut fx,
    );
    assert_eq!(s.log.frame_scroll, 3);
    // And a click on the list gives it the keys back.
    update(&mut s, click(rows.x + 5, rows.y), &mut fx);
    assert!(!s.log.frame_focus);
    assert!(fx.is_empty(), "{fx:?}");
}

#[test]
fn clicks_and_the_wheel_in_the_network_view() {
    let mut s = state(100, 30);
    let log = Arc::new(FrameLog::new(100));
    let server: Arc<str> = Arc::from("demo");
    let mut seqs = Vec::new();
    for i in 0..20 {
        let e = log.net().begin(
            &server,
            "POST",
            "https://example.com/mcp".into(),
            format!("call-{i}"),
            vec![("X-Header-A".into(), "1".into()); 12],
        );
        e.response(200, vec![("X-Header-B".into(), "2".into()); 12]);
        e.finish();
        seqs.push(i);
    }
    s.frames = Some(log);
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    assert_eq!(s.mode, Mode::Net);
    let (_, rows, detail) = mcpdeck::tui::app::net_areas(s.areas.main, 20);
    // Following: the newest (19) is on the last row.
    let first_shown = 20 - rows.height as usize;
    let before = screen(&s, 100, 30);
    let row = before.lines().nth(rows.y as usize + 1).unwrap_or("");
    assert!(
        row.contains(&format!("call-{} ", first_shown + 1)),
        "the row clicked: {row}\n{before}"
    );
    assert!(update(&mut s, click(rows.x + 3, rows.y + 1), &mut fx));
    let list = s.net_exchanges();
    assert_eq!(s.net.sel, Some(list[first_shown + 1].seq));
    update(
        &mut s,
        mouse(MouseEventKind::ScrollDown, rows.x + 3, rows.y + 1),
        &mut fx,
    );
    assert_eq!(s.net.sel, Some(list[first_shown + 4].seq));
    // The details: a click focuses them, the wheel scrolls them.
    assert!(update(&mut s, click(detail.x + 2, detail.y + 2), &mut fx));
    assert!(s.net.detail_focus);
    update(
        &mut s,
        mouse(MouseEventKind::ScrollDown, detail.x + 2, detail.y + 2),
        &mut fx,
    );
    assert_eq!(s.net.detail_scroll, 3);
    assert_eq!(s.net.sel, Some(list[first_shown + 4].seq));
    assert!(fx.is_empty(), "{fx:?}");
}

#[test]
fn the_wheel_scrolls_the_login_trace() {
    let mut s = state(100, 30);
    let mut view = mcpdeck::tui::app::LoginView::new("demo", Vec::new());
    view.trace = (0..40)
        .map(|i| format!("GET https://example.com/{i} 404"))
        .collect();
    s.login = Some(view);
    s.mode = Mode::Login;
    let mut fx = Vec::new();
    assert!(update(
        &mut s,
        mouse(MouseEventKind::ScrollDown, 50, 10),
        &mut fx
    ));
    assert_eq!(s.login.as_ref().map(|v| v.scroll), Some(3));
    update(&mut s, mouse(MouseEventKind::ScrollUp, 50, 10), &mut fx);
    assert_eq!(s.login.as_ref().map(|v| v.scroll), Some(0));
    assert!(fx.is_empty(), "{fx:?}");
}

// ----- 11. the protocol log's frame pane at narrow widths -----

/// The frame pane's inside, as text rows.
fn frame_rows(s: &State, w: u16, h: u16) -> Vec<String> {
    let [_, frame] = mcpdeck::tui::app::log_areas(s.areas.main, s.log.zoom);
    let pane = inner(frame);
    let out = screen(s, w, h);
    out.lines()
        .skip(pane.y as usize)
        .take(pane.height as usize)
        .map(|l| {
            l.chars()
                .skip(pane.x as usize)
                .take(pane.width as usize)
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect()
}

#[test]
fn the_frame_pane_wraps_and_scrolls_to_the_end_at_60x20() {
    let mut s = state(60, 20);
    s.frames = Some(frames(3));
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('L')), &mut fx);
    let out = screen(&s, 60, 20);
    // Times vary from run to run: blank them for the snapshot.
    let stable: String = out
        .lines()
        .map(|l| {
            if l.starts_with('│') && (l.contains(" C->S ") || l.contains(" S->C ")) {
                let chars: Vec<char> = l.chars().collect();
                let mut line = String::from("│t        ");
                line.extend(&chars[10..]);
                line
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("frame_pane_60x20", stable);

    // Tab gives the frame pane the keys; Down scrolls it to its end, and
    // every part of the frame was on screen on the way.
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert!(s.log.frame_focus);
    // The long message, wrapped at the pane's width.
    for _ in 0..8 {
        update(&mut s, key(KeyCode::Down), &mut fx);
    }
    let scrolled: Vec<String> = screen(&s, 60, 20)
        .lines()
        .skip_while(|l| !l.starts_with("┌Frame"))
        .map(str::to_string)
        .collect();
    insta::assert_snapshot!("frame_pane_60x20_scrolled", scrolled.join("\n"));
    update(&mut s, key(KeyCode::Home), &mut fx);
    let mut seen: Vec<String> = frame_rows(&s, 60, 20);
    for _ in 0..100 {
        let before = s.log.frame_scroll;
        update(&mut s, key(KeyCode::Down), &mut fx);
        if s.log.frame_scroll == before {
            break;
        }
        seen.extend(frame_rows(&s, 60, 20));
    }
    let [_, frame] = mcpdeck::tui::app::log_areas(s.areas.main, s.log.zoom);
    let pane = inner(frame);
    let all = s.frames.as_ref().unwrap().snapshot();
    let lines = mcpdeck::tui::app::frame_lines(&all[all.len() - 1], pane.width as usize);
    assert!(lines.len() > pane.height as usize, "it does not fit");
    assert_eq!(s.log.frame_scroll, lines.len() - pane.height as usize);
    let last = frame_rows(&s, 60, 20);
    assert_eq!(last.last().map(String::as_str), Some("}"), "{last:#?}");
    let text: String = seen.iter().map(|r| r.trim()).collect();
    assert!(text.contains(MESSAGE), "the message is readable: {seen:#?}");
    assert!(text.contains("bottom-of-the-frame"), "{seen:#?}");
    // No row is wider than the pane.
    assert!(
        lines
            .iter()
            .all(|l| l.chars().count() <= pane.width as usize)
    );
    // End and Home jump; moving the selection starts the frame from its top.
    update(&mut s, key(KeyCode::Home), &mut fx);
    assert_eq!(s.log.frame_scroll, 0);
    update(&mut s, key(KeyCode::End), &mut fx);
    assert_eq!(s.log.frame_scroll, lines.len() - pane.height as usize);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert!(!s.log.frame_focus);
    update(&mut s, key(KeyCode::Up), &mut fx);
    assert_eq!(s.log.frame_scroll, 0);
}

/// A server with an MCP Apps tool (its view listed with CSP and
/// permissions) and caching hints on its tool list.
fn app_state() -> State {
    let configs = vec![ServerConfig::stdio("apps", "x", &[])];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(120, 40), &mut fx);
    let mut findings = Vec::new();
    let tools = [
        json!({"name": "weather", "inputSchema": {"type": "object"},
               "_meta": {"ui": {"resourceUri": "ui://weather/view.html", "visibility": ["model", "app"]}}}),
        json!({"name": "plain", "inputSchema": {"type": "object"}}),
    ]
    .iter()
    .filter_map(|t| mcpdeck::mcp::types::Tool::parse(t, &mut findings))
    .collect();
    let resources = vec![
        json!({"uri": "ui://weather/view.html", "name": "weather view",
        "mimeType": "text/html;profile=mcp-app",
        "_meta": {"ui": {"csp": {"connectDomains": ["https://api.weather.example"]},
                          "permissions": {"clipboardWrite": {}}}}}),
    ];
    let hint =
        mcpdeck::mcp::session::CacheHint::of(&json!({"ttlMs": 60000, "cacheScope": "public"}))
            .expect("a hint");
    for ev in [
        Event::Status {
            server: "apps".into(),
            status: ServerStatus::Connected,
            negotiated: Some(Box::new(negotiated())),
        },
        Event::Lists {
            server: "apps".into(),
            lists: Arc::new(Lists {
                tools,
                resources,
                hints: vec![("tools/list", hint)],
                ..Lists::default()
            }),
        },
    ] {
        update(&mut s, Msg::Manager(ev), &mut fx);
    }
    s
}

#[test]
fn an_app_tool_has_its_badge_and_its_view_in_the_detail() {
    let mut s = app_state();
    let mut fx = Vec::new();
    // The server detail shows the list's caching hints.
    let out = screen(&s, 120, 40);
    assert!(
        out.contains("caching: tools/list fresh for 60 s, public"),
        "{out}"
    );
    update(&mut s, key(KeyCode::Tab), &mut fx);
    let out = screen(&s, 120, 40);
    let row = out
        .lines()
        .find(|l| l.contains("│weather"))
        .unwrap_or_default();
    assert!(row.contains("weather app"), "{out}");
    let plain = out
        .lines()
        .find(|l| l.contains("│plain"))
        .unwrap_or_default();
    assert!(!plain.contains(" app"), "{out}");
    for want in [
        "App view (MCP Apps; not rendered)",
        "resource: ui://weather/view.html",
        "visibility: model, app",
        "csp connectDomains: https://api.weather.example",
        "permissions: clipboardWrite",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
}

/// `R` lists every connected server again (whatever the caching hints
/// say: the person asked), and with no config file it says so.
#[test]
fn r_capital_lists_every_connected_server_again() {
    let mut s = app_state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('R')), &mut fx);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Manager(Command::Refresh(n)) if n == "apps")),
        "{fx:?}"
    );
    let out = screen(&s, 120, 40);
    assert!(out.contains("listing every server again"), "{out}");
}
