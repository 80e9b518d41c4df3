//! The TUI without a terminal: `update()` transitions, and snapshots of the
//! whole screen rendered into ratatui's TestBackend.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use mcpdeck::config::ServerConfig;
use mcpdeck::mcp::manager::{Command, Event, ServerStatus};
use mcpdeck::mcp::session::{ConnectError, Lists, Negotiated};
use mcpdeck::mcp::transport::HttpFailure;
use mcpdeck::mcp::types::{CallResult, Era, ServerInfo, Tool};
use mcpdeck::tui::app::{Effect, Mode, Msg, Pane, State, update};
use mcpdeck::tui::keymap::Keymap;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

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

fn tools() -> Vec<Tool> {
    let raw = [
        json!({"name": "echo", "title": "Echo", "description": "Echo a message back as text.",
               "inputSchema": {"type": "object", "properties": {"message": {"type": "string", "description": "What to echo"}}, "required": ["message"]},
               "annotations": {"readOnlyHint": true}}),
        json!({"name": "get_weather", "description": "Weather for a city.",
               "inputSchema": {"type": "object", "properties": {
                   "city": {"type": "string"},
                   "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric"}},
                   "required": ["city"]},
               "outputSchema": {"type": "object", "properties": {"temperature": {"type": "number"}}, "required": ["temperature"]},
               "annotations": {"openWorldHint": true}}),
        json!({"name": "delete_everything", "description": "Deletes \u{1b}[31mall\u{1b}[0m data.",
               "inputSchema": {"type": "object"}, "annotations": {"destructiveHint": true}}),
    ];
    let mut findings = Vec::new();
    raw.iter()
        .filter_map(|t| Tool::parse(t, &mut findings))
        .collect()
}

fn negotiated(name: &str, era: Era, version: &str) -> Negotiated {
    Negotiated {
        era,
        version: version.into(),
        detection: "server/discover answered".into(),
        server_info: ServerInfo {
            name: name.into(),
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

/// Four servers: connected, pending, failed, disabled.
fn state() -> State {
    let mut off = ServerConfig::stdio("off", "x", &[]);
    off.enabled = false;
    let configs = vec![
        ServerConfig::stdio("demo", "x", &[]),
        ServerConfig::stdio("slow", "x", &[]),
        ServerConfig::stdio("broken", "x", &[]),
        off,
    ];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    let events = [
        Event::Status {
            server: "demo".into(),
            status: ServerStatus::Connected,
            negotiated: Some(Box::new(negotiated("demo", Era::Stateless, "2026-07-28"))),
        },
        Event::Lists {
            server: "demo".into(),
            lists: Arc::new(Lists {
                tools: tools(),
                ..Lists::default()
            }),
        },
        Event::Status {
            server: "broken".into(),
            status: ServerStatus::Failed(ConnectError::Lost {
                description: "the server closed its output: the server exited with status 1".into(),
                stderr_tail: vec!["Error: cannot open database".into()],
            }),
            negotiated: None,
        },
    ];
    for ev in events {
        update(&mut s, Msg::Manager(ev), &mut fx);
    }
    assert!(fx.is_empty());
    s
}

fn screen(s: &State, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| mcpdeck::tui::ui::render(s, f)).unwrap();
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
        // A wide symbol (🔒) covers the next cell, as on a terminal.
        let mut line = String::new();
        let mut x = 0;
        while x < buf.area.width {
            let symbol = buf[(x, y)].symbol();
            line.push_str(symbol);
            x += ratatui::text::Span::raw(symbol).width().max(1) as u16;
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn finish(s: &mut State, result: Result<Value, &str>) {
    let mut fx = Vec::new();
    let tag = s.inflight().expect("a call in flight").tag;
    let result = match result {
        Ok(v) => {
            let mut f = Vec::new();
            Ok(CallResult::parse(v, &mut f))
        }
        Err(e) => Err(mcpdeck::mcp::manager::CallError::Request(
            mcpdeck::mcp::session::RequestError::Protocol(e.into()),
        )),
    };
    let (server, tool) = (
        s.inflight().unwrap().server.clone(),
        s.inflight().unwrap().tool.clone(),
    );
    update(
        s,
        Msg::Manager(Event::CallFinished {
            tag,
            server,
            tool,
            result,
            elapsed: Duration::from_millis(12),
        }),
        &mut fx,
    );
}

/// The style of the first cell where `text` starts on the screen.
fn first_cell_of(s: &State, w: u16, h: u16, text: &str) -> ratatui::buffer::Cell {
    let backend = TestBackend::new(w, h);
    let mut term = Terminal::new(backend).unwrap();
    term.draw(|f| mcpdeck::tui::ui::render(s, f)).unwrap();
    let buf = term.backend().buffer().clone();
    for y in 0..h {
        let row: String = (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect();
        if let Some(i) = row.find(text) {
            let x = row[..i].chars().count() as u16;
            return buf[(x, y)].clone();
        }
    }
    panic!("{text:?} is not on the screen");
}

/// Open the editor on the selected tool and send it as is.
fn call_selected(s: &mut State) -> Vec<Effect> {
    let mut fx = Vec::new();
    update(s, key(KeyCode::Enter), &mut fx);
    update(s, ctrl('s'), &mut fx);
    fx
}

#[test]
fn servers_in_every_state() {
    let s = state();
    insta::assert_snapshot!("servers_80x24", screen(&s, 80, 24));
}

#[test]
fn failed_server_shows_reason_and_stderr() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx);
    assert_eq!(s.server_sel, 2);
    let out = screen(&s, 100, 30);
    assert!(out.contains("error: the server closed its output"));
    assert!(out.contains("Error: cannot open database"));
    insta::assert_snapshot!("failed_server", out);
}

#[test]
fn tool_list_with_a_filter_and_the_schema_view() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert_eq!(s.focus, Pane::Tools);
    update(&mut s, key(KeyCode::Char('/')), &mut fx);
    assert_eq!(s.mode, Mode::Filter);
    for c in "weath".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.visible.len(), 1);
    let out = screen(&s, 100, 30);
    assert!(out.contains("/weath"));
    assert!(out.contains("units"));
    insta::assert_snapshot!("filtered_schema", out);
}

#[test]
fn escape_sequences_from_a_server_are_shown_as_placeholders() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::End), &mut fx);
    let out = screen(&s, 100, 30);
    assert!(out.contains("Deletes ␛[31mall␛[0m data."), "{out}");
    assert!(!out.contains('\u{1b}'));
}

#[test]
fn editor_prefilled_from_the_schema_validates_live() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.mode, Mode::Editor);
    // The form opens; its JSON is what it would send: the required city,
    // the default units only a placeholder.
    update(&mut s, ctrl('t'), &mut fx);
    let e = s.editor.as_ref().unwrap();
    let text = e.text.lines().join("\n");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v, json!({"city": ""}), "defaults are not sent");
    // Break it: a number where a string goes.
    let mut area = e.text.clone();
    area.select_all();
    area.cut();
    area.insert_str(r#"{"city": 7}"#);
    s.editor.as_mut().unwrap().text = area;
    update(&mut s, key(KeyCode::Char(' ')), &mut fx);
    let problems = &s.editor.as_ref().unwrap().problems;
    assert!(problems.iter().any(|p| p.contains("/city")), "{problems:?}");
    insta::assert_snapshot!("editor_errors", screen(&s, 100, 30));
}

#[test]
fn sending_a_call_and_its_results() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    let sent = call_selected(&mut s);
    let call = sent.iter().find_map(|e| match e {
        Effect::Manager(Command::Call {
            server,
            tool,
            arguments,
            ..
        }) => Some((server.clone(), tool.clone(), arguments.clone())),
        _ => None,
    });
    assert_eq!(
        call,
        Some(("demo".into(), "echo".into(), json!({"message": ""})))
    );
    assert!(s.busy());
    finish(
        &mut s,
        Ok(json!({"content": [{"type": "text", "text": "echo: hello"}]})),
    );
    assert!(s.inflight().is_none());
    assert_eq!(s.focus, Pane::Result);
    insta::assert_snapshot!("text_result", screen(&s, 80, 24));

    // Structured content is checked against the outputSchema.
    s.focus = Pane::Tools;
    update(&mut s, key(KeyCode::Down), &mut fx);
    let _ = call_selected(&mut s);
    finish(
        &mut s,
        Ok(
            json!({"content": [{"type": "text", "text": "{\"temperature\": \"warm\"}"}], "structuredContent": {"temperature": "warm"}}),
        ),
    );
    let out = screen(&s, 100, 30);
    assert!(
        out.contains("structuredContent") && out.contains("/temperature"),
        "{out}"
    );
    insta::assert_snapshot!("json_result", out);

    // An image, and an isError result.
    s.focus = Pane::Tools;
    let _ = call_selected(&mut s);
    finish(
        &mut s,
        Ok(
            json!({"content": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}, {"type": "text", "text": "it broke"}], "isError": true}),
        ),
    );
    let out = screen(&s, 80, 24);
    assert!(
        out.contains("[image] image/png") && out.contains("isError"),
        "{out}"
    );
    insta::assert_snapshot!("error_result", out);
}

#[test]
fn last_arguments_are_remembered_per_tool() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    update(&mut s, ctrl('t'), &mut fx);
    let mut area = s.editor.as_ref().unwrap().text.clone();
    area.select_all();
    area.cut();
    area.insert_str(r#"{"message": "again"}"#);
    s.editor.as_mut().unwrap().text = area;
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(
        s.editor.as_ref().unwrap().text.lines().join(""),
        r#"{"message": "again"}"#
    );
}

#[test]
fn toggles_go_to_the_manager_and_the_config_file() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char(' ')), &mut fx);
    // The file is written first; the driver tells the manager only then.
    assert!(
        matches!(&fx[..], [Effect::WriteEnabled { server, enabled: false, note }] if server == "demo" && note == "disabled demo")
    );
    fx.clear();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Char('d')), &mut fx);
    assert!(matches!(
        &fx[..],
        [Effect::WriteDeny { server, tools, previous, note }]
            if server == "demo" && tools == &["echo".to_string()] && previous.is_empty()
                && note == "denied echo on demo"
    ));
    // A denied tool does not open.
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
    assert!(s.status.as_deref().unwrap_or("").contains("denied"));
}

#[test]
fn deny_on_a_tool_refused_by_a_pattern_names_the_pattern_and_writes_nothing() {
    let mut s = state();
    s.servers[0].deny = vec!["ec*".to_string()];
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    fx.clear();
    update(&mut s, key(KeyCode::Char('d')), &mut fx);
    assert!(fx.is_empty(), "nothing written: {fx:?}");
    let status = s.status.clone().unwrap_or_default();
    assert!(
        status.contains("echo is refused by deny_tools entry \"ec*\""),
        "{status}"
    );
}

#[test]
fn quit_asks_while_a_call_is_in_flight_and_ctrl_c_always_quits() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    fx.clear();
    let _ = call_selected(&mut s);
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('q')), &mut fx);
    assert_eq!(s.mode, Mode::ConfirmQuit);
    assert!(fx.is_empty());
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
    // Esc cancels the call in flight.
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(matches!(fx[0], Effect::Manager(Command::Cancel { .. })));
    // Ctrl-C quits at once (the process then exits 130).
    update(&mut s, ctrl('c'), &mut fx);
    assert!(matches!(fx.last(), Some(Effect::Interrupt)));
}

#[test]
fn fifty_fast_downs_move_fifty_rows() {
    let configs: Vec<ServerConfig> = (0..1)
        .map(|_| ServerConfig::stdio("many", "x", &[]))
        .collect();
    let mut s = State::new(&configs, Keymap::default(), None);
    let many: Vec<Tool> = (0..200)
        .map(|i| {
            Tool::parse(
                &json!({"name": format!("tool_{i:04}"), "inputSchema": {"type": "object"}}),
                &mut Vec::new(),
            )
            .unwrap()
        })
        .collect();
    let mut fx = Vec::new();
    update(
        &mut s,
        Msg::Manager(Event::Lists {
            server: "many".into(),
            lists: Arc::new(Lists {
                tools: many,
                ..Lists::default()
            }),
        }),
        &mut fx,
    );
    update(&mut s, key(KeyCode::Tab), &mut fx);
    for _ in 0..50 {
        update(&mut s, key(KeyCode::Down), &mut fx);
    }
    assert_eq!(s.tool_sel, 50);
    assert!(screen(&s, 80, 24).contains("tool_0050"));
}

#[test]
fn help_is_generated_from_the_keymap() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('?')), &mut fx);
    assert_eq!(s.mode, Mode::Help);
    let out = screen(&s, 100, 40);
    assert!(
        out.contains("Ctrl-S F5") && out.contains("send: a call, a form, a reply"),
        "{out}"
    );
    insta::assert_snapshot!("help", out);
}

#[test]
fn the_protocol_log_lists_frames_filters_them_and_marks_bad_ones() {
    use mcpdeck::mcp::framelog::{Direction, FrameLog, FrameMeta};
    let mut s = state();
    let log = Arc::new(FrameLog::new(100));
    let demo: Arc<str> = Arc::from("demo");
    let broken: Arc<str> = Arc::from("broken");
    let meta = |m: &str| FrameMeta {
        method: Some(m.into()),
        ..FrameMeta::default()
    };
    log.record(
        &demo,
        Direction::Out,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        meta("tools/list"),
    );
    log.record(
        &demo,
        Direction::In,
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
        meta("tools/list"),
    );
    log.record(
        &broken,
        Direction::In,
        "Starting server on port 3000...",
        FrameMeta::default(),
    );
    s.frames = Some(log.clone());
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('L')), &mut fx);
    assert_eq!(s.mode, Mode::Log);
    let out = screen(&s, 100, 30);
    assert!(out.contains("Protocol log · all servers (3)"), "{out}");
    assert!(
        out.contains("C->S tools/list #") || out.contains("C->S tools/list"),
        "{out}"
    );
    assert!(out.contains("malformed"), "{out}");
    assert!(
        out.contains("Starting server on port 3000..."),
        "the selected (newest) frame is shown: {out}"
    );
    // Times vary from run to run: blank them for the snapshot.
    let stable: String = out
        .lines()
        .map(|l| match l.find(" C->S ").or_else(|| l.find(" S->C ")) {
            Some(_) if l.starts_with('│') => {
                let chars: Vec<char> = l.chars().collect();
                let time: String = chars[1..11].iter().collect();
                let rest: String = chars[11..].iter().collect();
                format!(
                    "│{}{rest}",
                    " ".repeat(time.chars().count()).replacen("  ", "t ", 1)
                )
            }
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("protocol_log", stable);
    // Up selects the previous frame, shown pretty-printed.
    update(&mut s, key(KeyCode::Up), &mut fx);
    assert!(screen(&s, 100, 30).contains("\"tools\": []"));
    // Filter by method.
    update(&mut s, key(KeyCode::Char('/')), &mut fx);
    for c in "list".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.log_frames().len(), 2);
    // With nothing pending, a tick redraws only when a frame arrived.
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "slow".into(),
            status: ServerStatus::Disconnected,
            negotiated: None,
        }),
        &mut fx,
    );
    update(&mut s, Msg::Tick, &mut fx);
    assert!(
        !update(&mut s, Msg::Tick, &mut fx),
        "no new frame, no redraw"
    );
    log.record(
        &demo,
        Direction::Out,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        meta("tools/list"),
    );
    assert!(update(&mut s, Msg::Tick, &mut fx));
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
}

#[test]
fn copy_and_save_a_result() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    let _ = call_selected(&mut s);
    // PNG signature bytes, base64.
    finish(
        &mut s,
        Ok(
            json!({"content": [{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}, {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}]}),
        ),
    );
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('s')), &mut fx);
    match &fx[..] {
        [Effect::Save(files)] => {
            assert_eq!(files[0].0, "mcpdeck-echo-1.png");
            assert_eq!(files[0].1, b"\x89PNG\r\n\x1a\n");
            assert_eq!(files[1].0, "mcpdeck-echo-2.wav");
            assert_eq!(files[1].1, b"RIFF");
        }
        other => panic!("{other:?}"),
    }
    fx.clear();
    update(&mut s, key(KeyCode::Char('y')), &mut fx);
    match &fx[..] {
        [Effect::Copy(text)] => {
            let v: Value = serde_json::from_str(text).unwrap();
            assert_eq!(v["content"][0]["mimeType"], "image/png");
        }
        other => panic!("{other:?}"),
    }
    // Too large for OSC 52: refused with a message.
    s.focus = Pane::Tools;
    let _ = call_selected(&mut s);
    finish(
        &mut s,
        Ok(json!({"content": [{"type": "text", "text": "x".repeat(200_000)}]})),
    );
    fx.clear();
    update(&mut s, key(KeyCode::Char('y')), &mut fx);
    // Too large for OSC 52: saved to a file instead, and said so.
    match &fx[..] {
        [Effect::Save(files)] => {
            assert_eq!(files[0].0, "mcpdeck-echo-result.json");
            let v: Value = serde_json::from_slice(&files[0].1).unwrap();
            assert_eq!(
                v["content"][0]["text"].as_str().map(str::len),
                Some(200_000)
            );
        }
        other => panic!("{other:?}"),
    }
    let status = s.status.clone().unwrap();
    assert!(status.contains("saving it to a file"), "{status}");
    // A text result: `s` saves it as text.
    fx.clear();
    update(&mut s, key(KeyCode::Char('s')), &mut fx);
    match &fx[..] {
        [Effect::Save(files)] => {
            assert_eq!(files.len(), 1);
            assert_eq!(files[0].0, "mcpdeck-echo.txt");
            assert_eq!(files[0].1.len(), 200_001, "the text and a newline");
        }
        other => panic!("{other:?}"),
    }
    // A small copy is sent, and the status does not claim more.
    s.focus = Pane::Tools;
    let _ = call_selected(&mut s);
    finish(
        &mut s,
        Ok(json!({"content": [{"type": "text", "text": "hi"}]})),
    );
    fx.clear();
    update(&mut s, key(KeyCode::Char('y')), &mut fx);
    assert!(matches!(&fx[..], [Effect::Copy(_)]), "{fx:?}");
    let status = s.status.clone().unwrap();
    assert!(
        status.starts_with("sent ") && !status.contains("copied"),
        "{status}"
    );
}

#[test]
fn a_search_in_the_result_finds_highlights_and_steps_between_matches() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(100, 30), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    let _ = call_selected(&mut s);
    let text: String = (1..=3000)
        .map(|i| format!("row {i} of the result\n"))
        .collect();
    finish(
        &mut s,
        Ok(json!({"content": [{"type": "text", "text": text}]})),
    );
    assert_eq!(s.focus, Pane::Result);
    // `/` types a search; each letter searches again.
    for c in "/row 2500 ".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    assert!(s.result_search.typing);
    assert_eq!(s.result_search.hits.len(), 1);
    let out = screen(&s, 100, 30);
    assert!(out.contains("row 2500 of the result"), "{out}");
    assert!(out.contains("/row 2500 ▏ · match 1 of 1"), "{out}");
    assert!(!out.contains("row 2400 of"), "{out}");
    // The match is painted.
    let cell = first_cell_of(&s, 100, 30, "row 2500 of");
    assert!(
        cell.modifier.contains(ratatui::style::Modifier::REVERSED),
        "{cell:?}"
    );
    // Enter keeps it; `n` is the next match here, not the network view.
    update(&mut s, key(KeyCode::Enter), &mut fx);
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(!s.result_search.active(), "Esc drops the search");
    assert_eq!(s.focus, Pane::Result, "and only the search");
    for c in "/OF THE".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    assert!(
        s.result_search.hits.is_empty(),
        "a capital asks for the exact case"
    );
    for _ in 0..6 {
        update(&mut s, key(KeyCode::Backspace), &mut fx);
    }
    for c in "of the".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    assert_eq!(s.result_search.hits.len(), 3000, "smart case: either case");
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let before = s.result_search.current;
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    assert_eq!(s.mode, Mode::Normal, "not the network view");
    assert_eq!(s.result_search.current, before + 1);
    update(&mut s, key(KeyCode::Char('N')), &mut fx);
    update(&mut s, key(KeyCode::Char('N')), &mut fx);
    assert_eq!(s.result_search.current, (before + 3000 - 1) % 3000);
    // Jumping to the last match brings the end into view.
    update(&mut s, key(KeyCode::Char('/')), &mut fx);
    for c in "row 3000 ".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let out = screen(&s, 100, 30);
    assert!(out.contains("row 3000 of the result"), "{out}");
    // No match: said, in the title and on Enter.
    update(&mut s, key(KeyCode::Char('/')), &mut fx);
    for c in "zebra".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    assert!(screen(&s, 100, 30).contains("/zebra▏ · no match"));
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert!(s.status.as_deref().unwrap_or("").contains("no match"));
    // The search stays for the next result, and looks in it.
    update(&mut s, key(KeyCode::Char('/')), &mut fx);
    for c in "row 2".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, key(KeyCode::Enter), &mut fx);
    s.focus = Pane::Tools;
    let _ = call_selected(&mut s);
    finish(
        &mut s,
        Ok(json!({"content": [{"type": "text", "text": "row 1\nrow 2\nrow 22"}]})),
    );
    assert_eq!(s.result_search.hits.len(), 2);
    assert!(screen(&s, 100, 30).contains("/row 2 · match 1 of 2"));
}

#[test]
fn zoom_gives_the_focused_pane_the_screen_and_back() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(100, 30), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    let _ = call_selected(&mut s);
    finish(
        &mut s,
        Ok(json!({"content": [{"type": "text", "text": "zoomed text"}]})),
    );
    let normal = s.areas.result;
    update(&mut s, key(KeyCode::Char('z')), &mut fx);
    assert_eq!(s.areas.result, s.areas.main, "the result has the screen");
    assert_eq!(s.areas.tools.area(), 0);
    let out = screen(&s, 100, 30);
    assert!(out.contains("zoomed text"));
    assert!(!out.contains("Servers"), "{out}");
    // Tab moves the focus, and the zoom follows it.
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert_eq!(s.areas.servers, s.areas.main);
    update(&mut s, key(KeyCode::BackTab), &mut fx);
    update(&mut s, key(KeyCode::Char('z')), &mut fx);
    assert_eq!(s.areas.result, normal, "z again gives it back");
    // In the help, z gives the help the screen.
    update(&mut s, key(KeyCode::Char('?')), &mut fx);
    update(&mut s, key(KeyCode::Char('z')), &mut fx);
    assert_eq!(s.mode, Mode::Help, "z does not close the help");
    assert!(s.help_zoom);
}

#[test]
fn reloading_keeps_known_servers_and_adds_new_ones() {
    let mut s = state();
    let mut fx = Vec::new();
    let mut demo = ServerConfig::stdio("demo", "x", &[]);
    demo.deny_tools = vec!["echo".into()];
    let fresh = vec![demo, ServerConfig::stdio("new", "y", &[])];
    update(&mut s, Msg::Reloaded(Ok(fresh)), &mut fx);
    let names: Vec<&str> = s.servers.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["demo", "new"]);
    assert_eq!(
        s.servers[0].status,
        ServerStatus::Connected,
        "a kept server keeps its state"
    );
    assert!(s.servers[0].denied("echo"), "its new deny list applies");
    assert_eq!(s.servers[1].status, ServerStatus::Pending);
    update(
        &mut s,
        Msg::Reloaded(Err("config.toml:3:1: unknown key".into())),
        &mut fx,
    );
    assert!(s.status.as_deref().unwrap().contains("not reloaded"));
}

#[test]
fn no_color_draws_without_colours() {
    let mut s = state();
    s.theme = mcpdeck::tui::theme::Theme::from_config(&[], true).unwrap();
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| mcpdeck::tui::ui::render(&s, f)).unwrap();
    let buf = t.backend().buffer();
    for cell in buf.content() {
        assert_eq!(cell.fg, ratatui::style::Color::Reset);
        assert_eq!(cell.bg, ratatui::style::Color::Reset);
    }
    // With colours, the same screen has some.
    s.theme = mcpdeck::tui::theme::Theme::default();
    t.draw(|f| mcpdeck::tui::ui::render(&s, f)).unwrap();
    assert!(
        t.backend()
            .buffer()
            .content()
            .iter()
            .any(|c| c.fg != ratatui::style::Color::Reset)
    );
}

#[test]
fn clicks_select_where_they_land_and_the_wheel_scrolls() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(80, 24), &mut fx);
    let click = |x, y| {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: x,
            row: y,
            modifiers: KeyModifiers::NONE,
        })
    };
    // Servers: border on row 0, then one row per server.
    update(&mut s, click(3, 3), &mut fx);
    assert_eq!((s.focus, s.server_sel), (Pane::Servers, 2));
    update(&mut s, click(3, 1), &mut fx);
    assert_eq!(s.server_sel, 0);
    // Tools start below the servers pane (4 servers + borders = rows 0..6).
    update(&mut s, click(3, 8), &mut fx);
    assert_eq!((s.focus, s.tool_sel), (Pane::Tools, 1));
    assert!(screen(&s, 80, 24).contains("Tool · get_weather"));
    // The wheel over the tools moves the selection.
    let wheel = Msg::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 3,
        row: 9,
        modifiers: KeyModifiers::NONE,
    });
    update(&mut s, wheel, &mut fx);
    assert_eq!(s.tool_sel, 2);
}

#[test]
fn the_empty_state_and_adding_a_server() {
    use mcpdeck::config::TransportConfig;
    use mcpdeck::tui::app::split_command;
    let mut s = State::new(
        &[],
        Keymap::default(),
        Some("/home/me/.config/mcpdeck/config.toml".into()),
    );
    let out = screen(&s, 80, 24);
    assert!(
        out.contains("No servers yet") && out.contains("Press a to add one"),
        "{out}"
    );
    insta::assert_snapshot!("empty_state", out);
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('a')), &mut fx);
    assert_eq!(s.mode, Mode::AddServer);
    for c in "my server".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, key(KeyCode::Enter), &mut fx);
    for c in r#"node "/opt/my server/index.js" --flag"#.chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, key(KeyCode::Enter), &mut fx);
    // A space is not allowed in a name: the form says so and stays.
    assert_eq!(s.mode, Mode::AddServer);
    assert!(s.add.error.as_deref().unwrap().contains("letters, digits"));
    assert!(fx.is_empty());
    assert_eq!(s.add.field, 0, "the cursor went back to the name");
    // Ctrl-U clears the field, as in every form.
    update(&mut s, ctrl('u'), &mut fx);
    assert_eq!(s.add.name, "");
    for c in "mine".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    match &fx[..] {
        [Effect::AddServer(server)] => {
            assert_eq!(server.name, "mine");
            match &server.transport {
                TransportConfig::Stdio { command, args, .. } => {
                    assert_eq!(command, "node");
                    assert_eq!(
                        args,
                        &["/opt/my server/index.js".to_string(), "--flag".to_string()]
                    );
                }
                other => panic!("{other:?}"),
            }
        }
        other => panic!("{other:?}"),
    }
    // A URL adds an HTTP server.
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('a')), &mut fx);
    for c in "remote".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, key(KeyCode::Enter), &mut fx);
    for c in "https://example.com/mcp".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, key(KeyCode::Enter), &mut fx);
    match &fx[..] {
        [Effect::AddServer(server)] => match &server.transport {
            TransportConfig::Http { url, .. } => assert_eq!(url, "https://example.com/mcp"),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    assert_eq!(
        split_command(r#"a 'b c' "d\"e" f\ g"#).unwrap(),
        ["a", "b c", "d\"e", "f g"]
    );
    assert!(split_command("a 'b").is_err());
}

#[test]
fn the_help_scrolls_searches_and_fits_every_size() {
    for (w, h) in [(60u16, 20u16), (80, 24), (120, 40)] {
        let mut s = state();
        let mut fx = Vec::new();
        update(&mut s, Msg::Resize(w, h), &mut fx);
        update(&mut s, key(KeyCode::Char('?')), &mut fx);
        let out = screen(&s, w, h);
        assert!(out.contains("move up"), "{w}x{h}\n{out}");
        // Scrolled to the end: the last bindings and the legend are there.
        insta::assert_snapshot!(format!("help_{w}x{h}"), out);
        update(&mut s, key(KeyCode::End), &mut fx);
        let end = screen(&s, w, h);
        assert!(end.contains("screen lines"), "{w}x{h}\n{end}");
        // Every description is whole: no word is cut at the border (each
        // help text's last word is on screen, wrapped if it must).
        let mut all = String::new();
        update(&mut s, key(KeyCode::Home), &mut fx);
        loop {
            all.push_str(&screen(&s, w, h));
            if !update(&mut s, key(KeyCode::PageDown), &mut fx) {
                break;
            }
        }
        for a in mcpdeck::tui::keymap::Action::all() {
            let last = a.help().split(' ').next_back().unwrap_or("");
            assert!(all.contains(last), "{w}x{h}: {last:?} of {a:?} not shown");
        }
        // The abbreviations of the lists are explained.
        for word in ["11 tools", "read-only", "open world", "round trip"] {
            assert!(all.contains(word), "{w}x{h}: {word:?} not explained");
        }
        // `/` searches: only matching rows stay.
        update(&mut s, key(KeyCode::Char('/')), &mut fx);
        for c in "ping".chars() {
            update(&mut s, key(KeyCode::Char(c)), &mut fx);
        }
        let found = screen(&s, w, h);
        assert!(found.contains("ping the selected server"), "{found}");
        assert!(!found.contains("move up"), "{found}");
        // Enter keeps the search and gives the keys back; Esc clears it;
        // another key closes the help.
        update(&mut s, key(KeyCode::Enter), &mut fx);
        update(&mut s, key(KeyCode::Esc), &mut fx);
        assert!(screen(&s, w, h).contains("move up"));
        assert_eq!(s.mode, mcpdeck::tui::app::Mode::Help);
        update(&mut s, key(KeyCode::Char('x')), &mut fx);
        assert_eq!(s.mode, mcpdeck::tui::app::Mode::Normal);
    }
}

/// The keys that edit text are no actions and stay outside the keymap
/// (a letter is typed, never a command, in a field), but the help lists
/// them after the actions, and its search finds them.
#[test]
fn the_help_lists_the_fixed_typing_keys() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('?')), &mut fx);
    update(&mut s, key(KeyCode::End), &mut fx);
    let end = screen(&s, 100, 40);
    let typing = end
        .split("Typing (text fields, filters, searches; fixed keys)")
        .nth(1)
        .unwrap_or_else(|| panic!("no typing keys:\n{end}"));
    let row = |keys: &str| {
        typing
            .lines()
            .map(|l| l.trim_start_matches(['│', ' ']))
            .find(|l| l.starts_with(&format!("{keys}  ")))
            .unwrap_or_else(|| panic!("no row for {keys}:\n{end}"))
            .to_string()
    };
    assert!(row("letters").contains("type into a text field"));
    assert!(row("Backspace").contains("before the cursor"));
    assert!(row("Del").contains("at the cursor"));
    assert!(row("← →").contains("move the cursor"));
    assert!(row("Home End").contains("the start, the end"));
    // The legend still comes last.
    assert!(typing.contains("What the lists show"), "{end}");
    // `/` finds them like any other row.
    update(&mut s, key(KeyCode::Char('/')), &mut fx);
    for c in "backspace".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    let found = screen(&s, 100, 40);
    assert!(
        found.contains("delete the character before the cursor"),
        "{found}"
    );
    assert!(!found.contains("move up"), "{found}");
}

#[test]
fn a_theme_remaps_the_palette() {
    use mcpdeck::tui::theme::Theme;
    let mut s = state();
    s.theme = Theme::from_config(&[("ok".into(), "#00ff00".into())], false).unwrap();
    let mut t = Terminal::new(TestBackend::new(80, 24)).unwrap();
    t.draw(|f| mcpdeck::tui::ui::render(&s, f)).unwrap();
    let colours: Vec<ratatui::style::Color> = t
        .backend()
        .buffer()
        .content()
        .iter()
        .map(|c| c.fg)
        .collect();
    assert!(
        colours.contains(&ratatui::style::Color::Rgb(0, 255, 0)),
        "the connected badge uses the theme's ok"
    );
    assert!(!colours.contains(&ratatui::style::Color::Green));
}

#[test]
fn end_in_the_result_shows_the_last_page() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(80, 24), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    let _ = call_selected(&mut s);
    let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
    finish(
        &mut s,
        Ok(json!({"content": [{"type": "text", "text": text}]})),
    );
    update(&mut s, key(KeyCode::End), &mut fx);
    let out = screen(&s, 80, 24);
    assert!(out.contains("line 100") && out.contains("line 95"), "{out}");
    update(&mut s, key(KeyCode::Home), &mut fx);
    assert!(screen(&s, 80, 24).contains("line 1\n") || screen(&s, 80, 24).contains("│line 1 "));
}

#[test]
fn any_terminal_size_renders_without_panicking() {
    let mut s = state();
    s.frames = Some(net_log());
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    let _ = call_selected(&mut s);
    finish(
        &mut s,
        Ok(json!({"content": [{"type": "text", "text": "x".repeat(5000)}]})),
    );
    for (w, h) in [
        (1, 1),
        (2, 2),
        (5, 3),
        (10, 4),
        (20, 6),
        (40, 10),
        (300, 100),
        (500, 200),
    ] {
        update(&mut s, Msg::Resize(w, h), &mut fx);
        for overlay in [Overlay::None, Overlay::Help, Overlay::Log, Overlay::Net] {
            match overlay {
                Overlay::None => {}
                Overlay::Help => {
                    update(&mut s, key(KeyCode::Char('?')), &mut fx);
                }
                Overlay::Log => {
                    update(&mut s, key(KeyCode::Char('L')), &mut fx);
                }
                Overlay::Net => {
                    update(&mut s, key(KeyCode::Char('n')), &mut fx);
                }
            }
            let _ = screen(&s, w, h);
            update(&mut s, key(KeyCode::Esc), &mut fx);
            // Mouse anywhere on a tiny screen.
            let click = Msg::Mouse(crossterm::event::MouseEvent {
                kind: crossterm::event::MouseEventKind::Down(crossterm::event::MouseButton::Left),
                column: w.saturating_sub(1),
                row: h.saturating_sub(1),
                modifiers: KeyModifiers::NONE,
            });
            update(&mut s, click, &mut fx);
            update(&mut s, key(KeyCode::End), &mut fx);
            let _ = screen(&s, w, h);
        }
    }
}

enum Overlay {
    None,
    Help,
    Log,
    Net,
}

#[test]
fn the_selection_stays_on_the_same_tool_when_the_list_changes() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx);
    assert_eq!(s.selected_tool().unwrap().1.name, "get_weather");
    // The server drops the tool above: the selection must not slide onto another tool.
    let mut rest = tools();
    rest.remove(0);
    update(
        &mut s,
        Msg::Manager(Event::Lists {
            server: "demo".into(),
            lists: Arc::new(Lists {
                tools: rest,
                ..Lists::default()
            }),
        }),
        &mut fx,
    );
    assert_eq!(s.selected_tool().unwrap().1.name, "get_weather");
}

/// A net log filled by hand, as the HTTP transport would fill it (secrets
/// masked by the core), with fixed times so snapshots are stable.
fn net_log() -> Arc<mcpdeck::mcp::framelog::FrameLog> {
    use mcpdeck::mcp::netlog::shown_header;
    let log = Arc::new(mcpdeck::mcp::framelog::FrameLog::new(100));
    let net = log.net();
    let remote: Arc<str> = Arc::from("remote");
    let local: Arc<str> = Arc::from("local");
    let url = "https://mcp.example.com/mcp".to_string();
    let ms = Duration::from_millis;
    let h = |n: &str, v: &str| (n.to_string(), v.to_string());
    let request = vec![
        // As the core records it: masked.
        shown_header("Authorization", "Bearer sk-live-123"),
        h("Accept", "application/json, text/event-stream"),
        h("Content-Type", "application/json"),
        h("Mcp-Protocol-Version", "2025-06-18"),
    ];
    // initialize: 200.
    let e = net.begin(
        &remote,
        "POST",
        url.clone(),
        "initialize".into(),
        request.clone(),
    );
    e.update(|x| {
        x.elapsed = ms(100);
        x.status = Some(200);
        x.response_headers = vec![
            h("content-type", "application/json"),
            h("mcp-session-id", "4f2c9a"),
        ];
        x.headers_after = Some(ms(12));
        x.total = Some(ms(15));
        x.bytes = 1234;
    });
    // The GET stream the server does not offer: 405.
    let e = net.begin(
        &remote,
        "GET",
        url.clone(),
        "GET stream".into(),
        request.clone(),
    );
    e.update(|x| {
        x.elapsed = ms(130);
        x.status = Some(405);
        x.headers_after = Some(ms(3));
        x.total = Some(ms(3));
    });
    // A call on a session the server forgot: 404.
    let e = net.begin(
        &remote,
        "POST",
        url.clone(),
        "tools/call".into(),
        request.clone(),
    );
    e.update(|x| {
        x.elapsed = ms(2_500);
        x.status = Some(404);
        x.response_headers = vec![h("content-type", "text/plain")];
        x.headers_after = Some(ms(8));
        x.total = Some(ms(9));
        x.bytes = 9;
        x.note = Some("the server no longer knows the session".into());
    });
    // A server that is not there: an error, no status. Its label carries
    // an escape sequence, which must be shown, not obeyed.
    let e = net.begin(
        &local,
        "POST",
        "http://127.0.0.1:9/mcp".into(),
        "tools/list\u{1b}[2J".into(),
        vec![h("Accept", "application/json, text/event-stream")],
    );
    e.update(|x| {
        x.elapsed = ms(3_000);
        x.total = Some(ms(2));
        x.error = Some("connection refused (127.0.0.1:9)".into());
    });
    // A server error: 500.
    let e = net.begin(
        &remote,
        "POST",
        url.clone(),
        "tools/call".into(),
        request.clone(),
    );
    e.update(|x| {
        x.elapsed = ms(4_200);
        x.status = Some(500);
        x.headers_after = Some(ms(40));
        x.total = Some(ms(41));
        x.bytes = 57;
    });
    // A resumed event stream, still open.
    let e = net.begin(&remote, "GET", url, "resume".into(), request);
    e.update(|x| {
        x.elapsed = ms(12_345);
        x.status = Some(200);
        x.response_headers = vec![h("content-type", "text/event-stream")];
        x.headers_after = Some(ms(5));
        x.bytes = 420;
        x.events = 3;
        x.note = Some("resumed with Last-Event-ID 17".into());
    });
    log
}

#[test]
fn the_network_key_opens_and_closes_the_view() {
    let mut s = state();
    let mut fx = Vec::new();
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "slow".into(),
            status: ServerStatus::Disconnected,
            negotiated: None,
        }),
        &mut fx,
    );
    assert!(!s.busy());
    assert!(update(&mut s, key(KeyCode::Char('n')), &mut fx));
    assert_eq!(s.mode, Mode::Net);
    assert!(!s.busy(), "the view does not poll: new exchanges wake it");
    assert_eq!(s.follows(), Some(mcpdeck::tui::app::Follow::Net));
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
    // The same key closes it, and q goes back rather than quitting.
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    update(&mut s, key(KeyCode::Char('q')), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
    assert!(fx.is_empty(), "{fx:?}");
    assert!(!s.busy());
    // From the protocol log and back.
    update(&mut s, key(KeyCode::Char('L')), &mut fx);
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    assert_eq!(s.mode, Mode::Net);
    update(&mut s, key(KeyCode::Char('L')), &mut fx);
    assert_eq!(s.mode, Mode::Log);
    // The help lists it.
    update(&mut s, key(KeyCode::Esc), &mut fx);
    update(&mut s, key(KeyCode::Char('?')), &mut fx);
    for c in "/network".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    let out = screen(&s, 100, 40);
    assert!(
        out.lines().any(|l| {
            let l = l.trim_start_matches(['│', ' ']);
            l.starts_with("n ") && l.contains("HTTP network view")
        }),
        "{out}"
    );
}

#[test]
fn the_network_view_lists_exchanges_with_masked_secrets() {
    let mut s = state();
    s.frames = Some(net_log());
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    let out = screen(&s, 80, 24);
    assert!(
        out.contains("Network · all servers (6) · following"),
        "{out}"
    );
    // Newest at the bottom and selected: the open stream.
    assert!(
        out.contains("still open") && out.contains("3 SSE events"),
        "{out}"
    );
    assert!(out.contains(" 404 ") && out.contains(" ERR "), "{out}");
    assert!(out.contains("tools/list␛[2J"), "{out}");
    // Home: the initialize exchange, with its headers.
    update(&mut s, key(KeyCode::Home), &mut fx);
    let out = screen(&s, 80, 24);
    assert!(out.contains("Authorization: Bearer ••••••"), "{out}");
    assert!(!out.contains("sk-live"), "{out}");
    assert!(!out.contains('\u{1b}'));
    insta::assert_snapshot!("network_80x24", out);

    // Wider: request and response side by side; the failed exchange.
    for _ in 0..3 {
        update(&mut s, key(KeyCode::Down), &mut fx);
    }
    let out = screen(&s, 120, 40);
    assert!(
        out.contains("error: connection refused (127.0.0.1:9)"),
        "{out}"
    );
    insta::assert_snapshot!("network_120x40", out);

    // Tab: the keys scroll the details; Tab again: back to the list.
    update(&mut s, key(KeyCode::Home), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert!(s.net.detail_focus);
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx);
    assert_eq!(s.net.detail_scroll, 2);
    let out = screen(&s, 80, 24);
    assert!(
        !out.contains("│POST https://mcp.example.com/mcp") && out.contains("Request headers"),
        "scrolled past the URL: {out}"
    );
    assert!(out.contains("scroll · Tab list"), "{out}");
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx);
    assert_eq!(s.net.detail_scroll, 0, "a new selection starts at the top");

    // Down past the newest follows again; t keeps the selected server only.
    update(&mut s, key(KeyCode::End), &mut fx);
    assert_eq!(s.net.sel, None);
    update(&mut s, key(KeyCode::Up), &mut fx);
    assert!(s.net.sel.is_some());
    update(&mut s, key(KeyCode::Down), &mut fx);
    assert_eq!(s.net.sel, None);
    update(&mut s, key(KeyCode::Char('t')), &mut fx);
    assert!(s.net_exchanges().is_empty(), "no exchange of demo");
    assert!(screen(&s, 80, 24).contains("t shows all servers"));
    update(&mut s, key(KeyCode::Char('t')), &mut fx);
    assert_eq!(s.net_exchanges().len(), 6);

    // Copy: the selected exchange as text, still masked.
    update(&mut s, key(KeyCode::Home), &mut fx);
    fx.clear();
    update(&mut s, key(KeyCode::Char('y')), &mut fx);
    match &fx[..] {
        [Effect::Copy(text)] => {
            assert!(
                text.starts_with("POST https://mcp.example.com/mcp\n"),
                "{text}"
            );
            assert!(text.contains("Authorization: Bearer ••••••"), "{text}");
            assert!(!text.contains("sk-live"), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_network_view_masks_a_secret_even_if_the_core_did_not() {
    let mut s = state();
    let log = Arc::new(mcpdeck::mcp::framelog::FrameLog::new(10));
    let demo: Arc<str> = Arc::from("demo");
    let e = log.net().begin(
        &demo,
        "POST",
        "https://u:pw@example.com/mcp?api_key=s3cret".into(),
        "ping".into(),
        vec![
            ("Authorization".into(), "Bearer s3cret".into()),
            ("X-Api-Key".into(), "s3cret".into()),
        ],
    );
    e.response(200, vec![("Set-Cookie".into(), "sid=s3cret".into())]);
    e.finish();
    s.frames = Some(log);
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    for (w, h) in [(80, 24), (120, 40)] {
        let out = screen(&s, w, h);
        assert!(!out.contains("s3cret") && !out.contains("pw@"), "{out}");
        assert!(out.contains("Bearer ••••••"), "{out}");
    }
}

#[test]
fn the_network_view_empty_state() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    let out = screen(&s, 80, 24);
    assert!(
        out.contains("No HTTP exchanges yet: network traffic of HTTP servers appears here"),
        "{out}"
    );
    insta::assert_snapshot!("network_empty", out);
}

#[test]
fn the_network_view_redraws_only_when_exchanges_change() {
    let mut s = state();
    // Nothing pending, so only the net log can ask for a redraw.
    let mut fx = Vec::new();
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "slow".into(),
            status: ServerStatus::Disconnected,
            negotiated: None,
        }),
        &mut fx,
    );
    let log = net_log();
    s.frames = Some(log.clone());
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    // The open stream receives an event: redraw; nothing more: none.
    let demo: Arc<str> = Arc::from("demo");
    assert!(!update(&mut s, Msg::Tick, &mut fx), "nothing changed yet");
    let a = log
        .net()
        .begin(&demo, "POST", "u".into(), "ping".into(), vec![]);
    assert!(update(&mut s, Msg::Tick, &mut fx), "a new exchange");
    assert!(!update(&mut s, Msg::Tick, &mut fx));
    a.response(200, vec![]);
    assert!(update(&mut s, Msg::Tick, &mut fx), "headers arrived");
    a.add_bytes(10, 1);
    assert!(update(&mut s, Msg::Tick, &mut fx), "bytes arrived");
    a.finish();
    assert!(update(&mut s, Msg::Tick, &mut fx), "finished");
    assert!(!update(&mut s, Msg::Tick, &mut fx));
    // An open but idle stream (the resumed GET of net_log()) asks for
    // nothing; once every exchange is done, the view stops looking closely.
    assert!(s.net.open);
    let quiet = Arc::new(mcpdeck::mcp::framelog::FrameLog::new(10));
    let b = quiet
        .net()
        .begin(&demo, "DELETE", "u".into(), "end session".into(), vec![]);
    s.frames = Some(quiet);
    assert!(update(&mut s, Msg::Tick, &mut fx));
    b.fail("connection reset".into());
    assert!(update(&mut s, Msg::Tick, &mut fx), "the last one ended");
    assert!(!s.net.open);
    assert!(!update(&mut s, Msg::Tick, &mut fx));
}

#[test]
fn an_insecure_http_server_shows_a_badge_and_masked_headers() {
    use mcpdeck::config::{HttpTransportKind, TransportConfig};
    let mut remote = ServerConfig::http("remote", "https://mcp.example.com/mcp?api_key=s3cret&x=1");
    if let TransportConfig::Http {
        headers,
        transport,
        insecure,
        ..
    } = &mut remote.transport
    {
        *headers = vec![
            ("Authorization".into(), "Bearer sk-live-123".into()),
            ("X-Team".into(), "blue".into()),
        ];
        *transport = HttpTransportKind::StreamableHttp;
        *insecure = true;
    }
    let configs = vec![
        remote,
        ServerConfig::http("locked", "https://locked.example.com/mcp"),
        ServerConfig::stdio("demo", "x", &[]),
    ];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "locked".into(),
            status: ServerStatus::NeedsAuth(ConnectError::Open(Box::new(HttpFailure::new(
                Some(401),
                "POST https://locked.example.com/mcp answered 401 Unauthorized to initialize"
                    .into(),
            )))),
            negotiated: None,
        }),
        &mut fx,
    );
    let out = screen(&s, 100, 30);
    assert!(out.contains("remote ⚠ insecure"), "{out}");
    assert!(out.contains("transport: streamable HTTP"), "{out}");
    assert!(
        out.contains("header: Authorization: Bearer ••••••"),
        "{out}"
    );
    assert!(out.contains("header: X-Team: blue"), "{out}");
    assert!(
        out.contains("⚠ insecure: TLS certificates are not verified (insecure = true)"),
        "{out}"
    );
    assert!(out.contains("n network"), "the hint names the view: {out}");
    assert!(!out.contains("s3cret") && !out.contains("sk-live"), "{out}");
    insta::assert_snapshot!("insecure_server", out);
    // The server that needs auth: the same words in the list and the detail.
    update(&mut s, key(KeyCode::Down), &mut fx);
    let out = screen(&s, 100, 30);
    assert!(out.contains("🔒 locked needs auth"), "{out}");
    assert!(out.contains("status: 🔒 needs auth"), "{out}");
    assert!(
        out.contains("reason: POST https://locked.example.com/mcp answered 401"),
        "{out}"
    );
}

#[test]
fn progress_notifications_drive_the_progress_bar() {
    let mut s = state();
    s.focus = Pane::Tools;
    let fx = call_selected(&mut s);
    let tag = match &fx[..] {
        [Effect::Manager(Command::Call { tag, .. })] => *tag,
        other => panic!("{other:?}"),
    };
    let mut fx = Vec::new();
    let tool = s.inflight().unwrap().tool.clone();
    update(
        &mut s,
        Msg::Manager(Event::CallStarted {
            tag,
            server: "demo".into(),
            tool,
            request_id: 7,
        }),
        &mut fx,
    );
    let progress = |p: f64, token: Value| {
        Msg::Manager(Event::Notification {
            server: "demo".into(),
            method: "notifications/progress".into(),
            params: Some(
                json!({"progressToken": token, "progress": p, "total": 4, "message": "step\u{1b}[31m"}),
            ),
        })
    };
    // Another request's token changes nothing.
    update(&mut s, progress(1.0, json!(8)), &mut fx);
    assert!(s.inflight().unwrap().progress.is_none());
    update(&mut s, progress(1.0, json!(7)), &mut fx);
    update(&mut s, progress(3.0, json!("7")), &mut fx);
    let p = s.inflight().unwrap().progress.clone().unwrap();
    assert_eq!(p.progress, 3.0);
    assert_eq!(p.ratio(), Some(0.75));
    assert!(
        p.text().starts_with("3/4 (75%) · step␛[31m"),
        "{}",
        p.text()
    );
    update(
        &mut s,
        Msg::Manager(Event::TaskStatus {
            tag,
            server: "demo".into(),
            status: mcpdeck::mcp::session::TaskStatus {
                task_id: "t1".into(),
                status: "working".into(),
                message: Some("Gathering sources...".into()),
                poll_interval: Duration::from_secs(1),
            },
        }),
        &mut fx,
    );
    let out = screen(&s, 220, 30);
    assert!(
        out.contains("task t1: working · Gathering sources..."),
        "{out}"
    );
    assert!(out.contains("███████████████░░░░░ 3/4 (75%)"), "{out}");
    insta::assert_snapshot!("progress_100x30", screen(&s, 100, 30));
    assert!(!out.contains('\u{1b}'));
    assert!(fx.is_empty());
}

#[test]
fn ping_log_level_log_messages_and_a_tool_diff() {
    let mut s = state();
    let mut fx = Vec::new();
    s.focus = Pane::Servers;
    update(&mut s, key(KeyCode::Char('p')), &mut fx);
    assert!(matches!(&fx[..], [Effect::Manager(Command::Ping(n))] if n == "demo"));
    fx.clear();
    update(
        &mut s,
        Msg::Manager(Event::Ping {
            requested: true,
            server: "demo".into(),
            result: Ok(Duration::from_millis(3)),
        }),
        &mut fx,
    );
    assert_eq!(s.servers[0].ping, Some(Duration::from_millis(3)));
    // v cycles the log level: debug first, then the next one.
    update(&mut s, key(KeyCode::Char('v')), &mut fx);
    assert!(
        matches!(&fx[..], [Effect::Manager(Command::SetLogLevel(n, l))] if n == "demo" && l == "debug")
    );
    fx.clear();
    update(
        &mut s,
        Msg::Manager(Event::LogLevel {
            server: "demo".into(),
            level: "debug".into(),
            result: Ok(()),
        }),
        &mut fx,
    );
    update(&mut s, key(KeyCode::Char('v')), &mut fx);
    assert!(matches!(&fx[..], [Effect::Manager(Command::SetLogLevel(_, l))] if l == "info"));
    fx.clear();
    update(
        &mut s,
        Msg::Manager(Event::Notification {
            server: "demo".into(),
            method: "notifications/message".into(),
            params: Some(json!({"level": "error", "logger": "db", "data": "disk full"})),
        }),
        &mut fx,
    );
    // The tool list changes: one added, one removed, one changed.
    let mut new_tools = tools();
    let removed = new_tools.remove(0).name;
    new_tools[0].raw["description"] = json!("changed");
    let mut f = Vec::new();
    new_tools.push(
        Tool::parse(
            &json!({"name": "fresh", "inputSchema": {"type": "object"}}),
            &mut f,
        )
        .unwrap(),
    );
    let changed = new_tools[0].name.clone();
    update(
        &mut s,
        Msg::Manager(Event::Lists {
            server: "demo".into(),
            lists: Arc::new(Lists {
                tools: new_tools,
                ..Lists::default()
            }),
        }),
        &mut fx,
    );
    let status = s.status.clone().unwrap();
    assert!(status.contains("+fresh"), "{status}");
    assert!(status.contains(&format!("-{removed}")), "{status}");
    assert!(status.contains(&format!("~{changed}")), "{status}");
    let out = screen(&s, 120, 40);
    assert!(out.contains("latency: ping 3.0 ms"), "{out}");
    assert!(out.contains("log level: debug and above"), "{out}");
    assert!(out.contains("[error] db: disk full"), "{out}");
    insta::assert_snapshot!("ping_log_and_diff", out);
}

// ---- Server requests: elicitation (form, URL) and sampling ----

fn shift_tab() -> Msg {
    Msg::Key(KeyEvent::new_with_kind(
        KeyCode::BackTab,
        KeyModifiers::SHIFT,
        KeyEventKind::Press,
    ))
}

fn type_text(s: &mut State, text: &str, fx: &mut Vec<Effect>) {
    for c in text.chars() {
        update(s, key(KeyCode::Char(c)), fx);
    }
}

fn ask(s: &mut State, id: u64, server: &str, method: &str, params: Value) {
    let mut fx = Vec::new();
    update(
        s,
        Msg::Manager(Event::ServerRequest {
            id,
            server: server.into(),
            method: method.into(),
            params,
            related: None,
            request_id: None,
        }),
        &mut fx,
    );
    assert!(fx.is_empty());
}

/// The answers sent to the manager, in order.
fn answers(fx: &[Effect]) -> Vec<(u64, Result<Value, mcpdeck::mcp::jsonrpc::RpcError>)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Manager(Command::AnswerServerRequest { id, result }) => {
                Some((*id, result.clone()))
            }
            _ => None,
        })
        .collect()
}

fn form_params() -> Value {
    json!({
        "message": "Tell us about \u{1b}[31myourself\u{1b}[0m.",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name", "description": "Your full name", "minLength": 2},
                "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150, "default": 30},
                "email": {"type": "string", "format": "email", "title": "Email"},
                "subscribe": {"type": "boolean", "title": "Subscribe", "default": true},
                "color": {"type": "string", "title": "Colour", "enum": ["r", "g", "b"],
                          "enumNames": ["Red", "Green", "Blue"], "default": "g"},
                "size": {"type": "string", "title": "Size",
                         "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
                "ratio": {"type": "number", "title": "Ratio", "default": 0.5},
                "tags": {"type": "array", "title": "Tags", "minItems": 1, "maxItems": 2,
                         "items": {"type": "string", "enum": ["a", "b", "c"]}, "default": ["a"]}
            },
            "required": ["name", "age"]
        }
    })
}

#[test]
fn an_elicitation_form_with_defaults_and_a_validation_error() {
    let mut s = state();
    ask(&mut s, 7, "demo", "elicitation/create", form_params());
    let mut fx = Vec::new();
    // Name, then the email field: a bad address.
    type_text(&mut s, "Ada Lovelace", &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    type_text(&mut s, "ada@", &mut fx);
    assert!(fx.is_empty());
    let out = screen(&s, 100, 30);
    assert!(out.contains("demo asks for input"), "{out}");
    assert!(out.contains("1 of 1"), "{out}");
    assert!(out.contains("✗ not an email address"), "{out}");
    assert!(out.contains("␛[31myourself␛[0m"), "sanitized: {out}");
    assert!(out.contains("Ctrl-S accept"), "{out}");
    insta::assert_snapshot!("elicitation_form", out);
    insta::assert_snapshot!("elicitation_form_80x24", screen(&s, 80, 24));
}

#[test]
fn accepting_a_form_sends_typed_values_and_omits_empty_optional_ones() {
    let mut s = state();
    ask(&mut s, 7, "demo", "elicitation/create", form_params());
    let mut fx = Vec::new();
    type_text(&mut s, "Ada", &mut fx);
    update(&mut s, ctrl('s'), &mut fx);
    assert_eq!(
        answers(&fx),
        vec![(
            7,
            Ok(json!({"action": "accept", "content": {
                "name": "Ada",
                "age": 30,
                "subscribe": true,
                "color": "g",
                "ratio": 0.5,
                "tags": ["a"]
            }}))
        )]
    );
    assert!(!s.asks.is_open() && s.asks.is_empty());
    // Integers typed as text go out as numbers; choices and ticks too.
    ask(&mut s, 8, "demo", "elicitation/create", form_params());
    let mut fx = Vec::new();
    type_text(&mut s, "Bob", &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx); // age
    update(&mut s, key(KeyCode::Backspace), &mut fx);
    update(&mut s, key(KeyCode::Backspace), &mut fx);
    type_text(&mut s, "42", &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx); // email
    type_text(&mut s, "bob@example.com", &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx); // subscribe
    update(&mut s, key(KeyCode::Char(' ')), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx); // colour
    update(&mut s, key(KeyCode::Right), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx); // size: none, then Small
    update(&mut s, key(KeyCode::Right), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx); // ratio
    update(&mut s, key(KeyCode::End), &mut fx);
    type_text(&mut s, "25", &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx); // tags: tick b too
    update(&mut s, key(KeyCode::Right), &mut fx);
    update(&mut s, key(KeyCode::Char(' ')), &mut fx);
    update(&mut s, key(KeyCode::F(5)), &mut fx);
    assert_eq!(
        answers(&fx),
        vec![(
            8,
            Ok(json!({"action": "accept", "content": {
                "name": "Bob",
                "age": 42,
                "email": "bob@example.com",
                "subscribe": false,
                "color": "b",
                "size": "s",
                "ratio": 0.525,
                "tags": ["a", "b"]
            }}))
        )]
    );
}

#[test]
fn an_invalid_form_cannot_be_accepted() {
    let mut s = state();
    ask(&mut s, 3, "demo", "elicitation/create", form_params());
    let mut fx = Vec::new();
    // The required name is empty; the age out of range.
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Backspace), &mut fx);
    update(&mut s, key(KeyCode::Backspace), &mut fx);
    type_text(&mut s, "200", &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, ctrl('s'), &mut fx);
    assert!(answers(&fx).is_empty(), "nothing is sent");
    assert_eq!(
        s.status.as_deref(),
        Some("not sent: 2 fields need attention")
    );
    let out = screen(&s, 100, 30);
    assert!(out.contains("✗ required"), "{out}");
    assert!(out.contains("✗ at most 150"), "{out}");
    // The cursor went to the first field that needs attention.
    assert!(out.contains("▸ Name*"), "{out}");
    // A name too short, a number that is not one: still not sent.
    type_text(&mut s, "A", &mut fx);
    update(&mut s, ctrl('s'), &mut fx);
    assert!(answers(&fx).is_empty());
    assert!(screen(&s, 100, 30).contains("✗ at least 2 characters"));
    type_text(&mut s, "l", &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx);
    type_text(&mut s, "x", &mut fx);
    assert!(screen(&s, 100, 30).contains("✗ a whole number"));
    update(&mut s, ctrl('s'), &mut fx);
    assert!(answers(&fx).is_empty());
    // Fixed, it goes.
    update(&mut s, key(KeyCode::Backspace), &mut fx);
    update(&mut s, key(KeyCode::Backspace), &mut fx);
    update(&mut s, ctrl('s'), &mut fx);
    let a = answers(&fx);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].1.as_ref().unwrap()["content"]["age"], json!(20));
    assert_eq!(a[0].1.as_ref().unwrap()["content"]["name"], json!("Al"));
}

/// The request form on screen, when one is shown.
fn ask_form(s: &State) -> &mcpdeck::tui::ask::Form {
    match s.asks.screen.as_ref() {
        Some((_, mcpdeck::tui::ask::AskScreen::Form(f))) => f,
        _ => panic!("no request form is shown"),
    }
}

fn declined(id: u64) -> Vec<(u64, Result<Value, mcpdeck::mcp::jsonrpc::RpcError>)> {
    vec![(id, Ok(json!({"action": "decline"})))]
}

#[test]
fn letters_type_in_a_form_and_declining_asks_before_throwing_typing_away() {
    let mut s = state();
    ask(&mut s, 1, "demo", "elicitation/create", form_params());
    let mut fx = Vec::new();
    // In a text field, d is a letter.
    update(&mut s, key(KeyCode::Char('d')), &mut fx);
    assert_eq!(ask_form(&s).fields[0].line().unwrap().text, "d");
    // On a yes/no and on a choice, letters are never commands either: the
    // issue's `dave@example.org` declined at `d`, and `a` then opened
    // "Add a server" with the rest typed into it.
    for _ in 0..3 {
        update(&mut s, key(KeyCode::Tab), &mut fx);
    }
    type_text(&mut s, "dave@example.org", &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    type_text(&mut s, "dave@example.org", &mut fx);
    assert!(answers(&fx).is_empty(), "{fx:?}");
    assert!(s.asks.is_open());
    assert_eq!(s.mode, Mode::Normal, "no other screen took the keys");
    // On the choice, `b` picks Blue.
    type_text(&mut s, "b", &mut fx);
    assert_eq!(ask_form(&s).fields[4].value(), Ok(Some(json!("b"))));
    // Ctrl-D asks first, since something was typed; any other key goes
    // back to the form, and is not typed.
    update(&mut s, ctrl('d'), &mut fx);
    assert!(answers(&fx).is_empty());
    let out = screen(&s, 100, 30);
    assert!(
        out.contains("decline and throw away what you typed?"),
        "{out}"
    );
    assert!(out.contains("y or Ctrl-D: yes, throw it away"), "{out}");
    update(&mut s, key(KeyCode::Char('g')), &mut fx);
    assert!(answers(&fx).is_empty());
    assert_eq!(ask_form(&s).confirm, None);
    assert_eq!(ask_form(&s).fields[4].value(), Ok(Some(json!("b"))));
    // y (or Ctrl-D again) throws it away.
    update(&mut s, ctrl('d'), &mut fx);
    update(&mut s, key(KeyCode::Char('y')), &mut fx);
    assert_eq!(answers(&fx), declined(1));
    assert!(!s.asks.is_open());
    // Nothing typed: Ctrl-D declines at once.
    ask(&mut s, 2, "demo", "elicitation/create", form_params());
    let mut fx = Vec::new();
    update(&mut s, ctrl('d'), &mut fx);
    assert_eq!(answers(&fx), declined(2));
    // Esc cancels; after typing it asks too, and Esc again cancels.
    ask(&mut s, 3, "demo", "elicitation/create", form_params());
    let mut fx = Vec::new();
    type_text(&mut s, "Al", &mut fx);
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(answers(&fx).is_empty());
    assert!(screen(&s, 100, 30).contains("cancel and throw away what you typed?"));
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(answers(&fx), vec![(3, Ok(json!({"action": "cancel"})))]);
    ask(&mut s, 4, "demo", "elicitation/create", form_params());
    let mut fx = Vec::new();
    update(&mut s, shift_tab(), &mut fx);
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(answers(&fx), vec![(4, Ok(json!({"action": "cancel"})))]);
    assert!(!s.asks.is_open());
}

#[test]
fn a_form_has_buttons_that_tab_reaches() {
    let mut s = state();
    ask(&mut s, 1, "demo", "elicitation/create", form_params());
    let out = screen(&s, 100, 30);
    assert!(
        out.contains("[ Accept ]   [ Decline ]   [ Cancel ]"),
        "{out}"
    );
    let mut fx = Vec::new();
    // Past the last of the 8 fields: the buttons; ← → move between them.
    for _ in 0..8 {
        update(&mut s, key(KeyCode::Tab), &mut fx);
    }
    assert!(screen(&s, 100, 30).contains("▸[ Accept ]"));
    update(&mut s, key(KeyCode::Right), &mut fx);
    assert!(screen(&s, 100, 30).contains("▸[ Decline ]"));
    // Nothing typed: Enter on Decline declines at once.
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(answers(&fx), declined(1));
    // Typed: the button asks first too.
    ask(&mut s, 2, "demo", "elicitation/create", form_params());
    let mut fx = Vec::new();
    type_text(&mut s, "Ada", &mut fx);
    // (End and ← edit the text field; Page Down leaves it.)
    update(&mut s, key(KeyCode::PageDown), &mut fx);
    update(&mut s, key(KeyCode::PageDown), &mut fx);
    update(&mut s, key(KeyCode::Right), &mut fx);
    update(&mut s, key(KeyCode::Right), &mut fx);
    update(&mut s, key(KeyCode::Left), &mut fx);
    assert!(screen(&s, 100, 30).contains("▸[ Decline ]"));
    update(&mut s, key(KeyCode::Char(' ')), &mut fx);
    assert!(answers(&fx).is_empty());
    update(&mut s, key(KeyCode::Char('y')), &mut fx);
    assert_eq!(answers(&fx), declined(2));
    // Accept sends, as Ctrl-S does.
    ask(&mut s, 3, "demo", "elicitation/create", form_params());
    let mut fx = Vec::new();
    type_text(&mut s, "Ada", &mut fx);
    update(&mut s, key(KeyCode::PageDown), &mut fx);
    update(&mut s, key(KeyCode::PageDown), &mut fx);
    update(&mut s, key(KeyCode::Left), &mut fx);
    update(&mut s, key(KeyCode::Left), &mut fx);
    assert!(screen(&s, 100, 30).contains("▸[ Accept ]"));
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let a = answers(&fx);
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].1.as_ref().unwrap()["action"], "accept");
    assert_eq!(a[0].1.as_ref().unwrap()["content"]["name"], "Ada");
}

#[test]
fn a_form_shows_choices_whole_descriptions_and_selected_defaults() {
    let mut s = state();
    let mut params = form_params();
    params["requestedSchema"]["properties"]["name"]["description"] = json!(
        "Your full, legal name as it is written in your passport, with every middle name and any accents, so that the bank can match it whole"
    );
    params["requestedSchema"]["properties"]["age"]["maximum"] = json!(9007199254740991_u64);
    ask(&mut s, 1, "demo", "elicitation/create", params);
    // The focused field's description, whole; the age's bound is "≥ 0".
    let out = screen(&s, 80, 30);
    // The words inside the request's frame (columns 3 to 76 at 80 wide).
    let words: String = out
        .lines()
        .map(|l| l.chars().skip(3).take(74).collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains("any accents, so that the bank can match it whole"),
        "{out}"
    );
    assert!(out.contains("whole number, ≥ 0"), "{out}");
    assert!(!out.contains("9007199254740991"), "{out}");
    let mut fx = Vec::new();
    // Off the field: one row, cut.
    update(&mut s, key(KeyCode::Tab), &mut fx);
    let out = screen(&s, 80, 30);
    assert!(!out.contains("match it whole"), "{out}");
    // The age's default 30 is selected: the first key replaces it.
    type_text(&mut s, "4", &mut fx);
    assert_eq!(ask_form(&s).fields[1].value(), Ok(Some(json!(4))));
    // A focused choice shows every choice.
    for _ in 0..3 {
        update(&mut s, key(KeyCode::Tab), &mut fx);
    }
    let out = screen(&s, 100, 30);
    assert!(out.contains("Red   Green   Blue"), "{out}");
    // Ctrl-U clears a field.
    update(&mut s, ctrl('u'), &mut fx);
    assert_eq!(ask_form(&s).fields[4].value(), Ok(None));
}

#[test]
fn keys_typed_as_a_request_comes_or_goes_never_reach_another_screen() {
    use std::time::Instant;
    let ms = Duration::from_millis;
    let mut s = state();
    let mut fx = Vec::new();
    let t0 = Instant::now();
    let at = |s: &mut State, t: Duration, m: Msg, fx: &mut Vec<Effect>| {
        update(s, Msg::Clock(t0 + t), fx);
        update(s, m, fx);
    };
    // A request appears while the person types on the main screen: what
    // they type as it appears, and right after, was not meant for it.
    update(&mut s, Msg::Clock(t0), &mut fx);
    ask(&mut s, 1, "demo", "elicitation/create", form_params());
    at(&mut s, ms(100), key(KeyCode::Char('a')), &mut fx);
    at(&mut s, ms(350), key(KeyCode::Enter), &mut fx);
    assert_eq!(ask_form(&s).fields[0].line().unwrap().text, "");
    assert_eq!(ask_form(&s).focus, 0, "Enter did not move on");
    assert_eq!(
        s.status.as_deref(),
        Some("2 keys typed as demo's request appeared were not used")
    );
    // After a pause, keys go to it.
    at(&mut s, ms(700), key(KeyCode::Char('D')), &mut fx);
    at(&mut s, ms(800), key(KeyCode::Char('a')), &mut fx);
    assert_eq!(ask_form(&s).fields[0].line().unwrap().text, "Da");
    // The server goes away while the person types into its form: the
    // rest of the burst goes nowhere (not `a` for "Add a server").
    at(
        &mut s,
        ms(900),
        Msg::Manager(Event::Status {
            server: "demo".into(),
            status: ServerStatus::Disconnected,
            negotiated: None,
        }),
        &mut fx,
    );
    assert!(!s.asks.is_open());
    at(&mut s, ms(1000), key(KeyCode::Char('v')), &mut fx);
    at(&mut s, ms(1200), key(KeyCode::Char('a')), &mut fx);
    at(&mut s, ms(1400), key(KeyCode::Char('d')), &mut fx);
    assert_eq!(s.mode, Mode::Normal, "no screen took the keys");
    assert!(
        s.status
            .as_deref()
            .is_some_and(|t| t.starts_with("3 keys typed as the request went away")),
        "{:?}",
        s.status
    );
    // Ctrl-C always goes through.
    let mut quit = Vec::new();
    at(&mut s, ms(1500), ctrl('c'), &mut quit);
    assert!(quit.iter().any(|e| matches!(e, Effect::Interrupt)));
    // A pause, then `a` is meant: it opens "Add a server".
    at(&mut s, ms(2000), key(KeyCode::Char('a')), &mut fx);
    assert_eq!(s.mode, Mode::AddServer);
    update(&mut s, key(KeyCode::Esc), &mut fx);
    // A request the person answers with a key is their own doing: what
    // they type next goes to the screen behind; only keys already on
    // their way as it closed (the same burst as Ctrl-D) are dropped.
    let mut s = state();
    update(&mut s, Msg::Clock(t0), &mut fx);
    ask(&mut s, 2, "other", "elicitation/create", form_params());
    at(&mut s, ms(1000), ctrl('d'), &mut fx);
    assert!(!s.asks.is_open());
    at(&mut s, ms(1005), key(KeyCode::Char('a')), &mut fx);
    assert_eq!(s.mode, Mode::Normal, "not Add a server");
    assert_eq!(
        s.status.as_deref(),
        Some("1 key typed as the request closed was not used")
    );
    at(&mut s, ms(1120), key(KeyCode::Char('?')), &mut fx);
    assert_eq!(s.mode, Mode::Help);
}

#[test]
fn a_typed_sampling_reply_is_not_thrown_away_without_asking() {
    let mut s = state();
    ask(
        &mut s,
        9,
        "demo",
        "sampling/createMessage",
        sampling_params(),
    );
    let mut fx = Vec::new();
    type_text(&mut s, "Paris", &mut fx);
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(answers(&fx).is_empty());
    assert!(
        screen(&s, 100, 30).contains("decline and throw away your reply"),
        "the question is in the status bar"
    );
    // Any other key goes back to the reply, untouched.
    update(&mut s, key(KeyCode::Char('x')), &mut fx);
    assert!(answers(&fx).is_empty());
    update(&mut s, key(KeyCode::Esc), &mut fx);
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(
        answers(&fx),
        vec![(
            9,
            Err(mcpdeck::mcp::jsonrpc::RpcError::new(
                -1,
                "the user declined the sampling request"
            ))
        )]
    );
}

#[test]
fn a_url_elicitation_opens_copies_and_accepts() {
    let mut s = state();
    let params = json!({
        "mode": "url",
        "message": "Sign in to continue.",
        "url": "https://auth.example.com/authorize?state=abc\u{1b}]0;x\u{7}",
        "elicitationId": "el-42"
    });
    ask(&mut s, 5, "demo", "elicitation/create", params);
    let out = screen(&s, 100, 30);
    assert!(out.contains("auth.example.com"), "{out}");
    assert!(!out.contains('\u{1b}') && out.contains("␛]0;x␇"), "{out}");
    insta::assert_snapshot!("elicitation_url", out);
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('o')), &mut fx);
    update(&mut s, key(KeyCode::Char('y')), &mut fx);
    match &fx[..] {
        [Effect::OpenUrl(open), Effect::Copy(copied)] => {
            // The parsed URL: escapes percent-encoded, never raw.
            assert!(open.starts_with("https://auth.example.com/authorize?state=abc"));
            assert!(!open.contains('\u{1b}') && !copied.contains('\u{1b}'));
            assert_eq!(open, copied);
        }
        other => panic!("{other:?}"),
    }
    assert!(answers(&fx).is_empty(), "opening is not answering");
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(answers(&fx), vec![(5, Ok(json!({"action": "accept"})))]);
    // A URL that is not http(s) is never opened.
    ask(
        &mut s,
        6,
        "demo",
        "elicitation/create",
        json!({"mode": "url", "message": "m", "url": "file:///etc/passwd", "elicitationId": "x"}),
    );
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('o')), &mut fx);
    assert!(fx.is_empty(), "{fx:?}");
    assert!(s.status.as_deref().unwrap().contains("only http(s)"));
    update(&mut s, key(KeyCode::Char('d')), &mut fx);
    assert_eq!(answers(&fx), vec![(6, Ok(json!({"action": "decline"})))]);
    // A mode this client does not know is shown, and can only be refused.
    ask(
        &mut s,
        7,
        "demo",
        "elicitation/create",
        json!({"mode": "telepathy", "message": "think of a number"}),
    );
    let out = screen(&s, 80, 24);
    assert!(
        out.contains("\"telepathy\", which mcpdeck does not know"),
        "{out}"
    );
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Enter), &mut fx);
    update(&mut s, ctrl('s'), &mut fx);
    assert!(fx.is_empty(), "{fx:?}");
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(answers(&fx), vec![(7, Ok(json!({"action": "cancel"})))]);
}

fn sampling_params() -> Value {
    json!({
        "systemPrompt": "You are a helpful test server.",
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}},
            {"role": "assistant", "content": {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}},
            {"role": "user", "content": [{"type": "text", "text": "And \u{1b}[2Jof Spain?"},
                                          {"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="}]}
        ],
        "maxTokens": 100,
        "temperature": 0.7,
        "modelPreferences": {"hints": [{"name": "claude-3-sonnet"}], "intelligencePriority": 0.8}
    })
}

#[test]
fn a_sampling_request_is_answered_by_hand() {
    let mut s = state();
    ask(
        &mut s,
        9,
        "demo",
        "sampling/createMessage",
        sampling_params(),
    );
    let mut fx = Vec::new();
    type_text(&mut s, "Paris; and Madrid.", &mut fx);
    let out = screen(&s, 100, 30);
    assert!(out.contains("What is the capital of France?"), "{out}");
    assert!(out.contains("[image image/png, 8 B]"), "{out}");
    assert!(out.contains("[audio audio/wav, 4 B]"), "{out}");
    assert!(out.contains("␛[2Jof Spain?"), "{out}");
    assert!(out.contains("max tokens 100 · temperature 0.7"), "{out}");
    assert!(
        out.contains("model hints claude-3-sonnet · intelligence 0.8"),
        "{out}"
    );
    insta::assert_snapshot!("sampling", out);
    insta::assert_snapshot!("sampling_80x24", screen(&s, 80, 24));
    // d is typed into the reply; Ctrl-S sends it.
    update(&mut s, key(KeyCode::Char('d')), &mut fx);
    assert!(answers(&fx).is_empty());
    update(&mut s, key(KeyCode::Backspace), &mut fx);
    update(&mut s, ctrl('s'), &mut fx);
    assert_eq!(
        answers(&fx),
        vec![(
            9,
            Ok(json!({
                "role": "assistant",
                "content": {"type": "text", "text": "Paris; and Madrid."},
                "model": "mcpdeck-human",
                "stopReason": "endTurn"
            }))
        )]
    );
    // Esc declines with an error; so does d from the request view.
    for (id, keys) in [
        (10, vec![key(KeyCode::Esc)]),
        (11, vec![key(KeyCode::Tab), key(KeyCode::Char('d'))]),
    ] {
        ask(
            &mut s,
            id,
            "demo",
            "sampling/createMessage",
            sampling_params(),
        );
        let mut fx = Vec::new();
        for k in keys {
            update(&mut s, k, &mut fx);
        }
        assert_eq!(
            answers(&fx),
            vec![(
                id,
                Err(mcpdeck::mcp::jsonrpc::RpcError::new(
                    -1,
                    "the user declined the sampling request"
                ))
            )]
        );
    }
    // An empty reply is not sent.
    ask(
        &mut s,
        12,
        "demo",
        "sampling/createMessage",
        sampling_params(),
    );
    let mut fx = Vec::new();
    update(&mut s, ctrl('s'), &mut fx);
    assert!(fx.is_empty());
}

#[test]
fn requests_queue_oldest_first_and_keys_do_not_reach_the_panes() {
    let configs: Vec<ServerConfig> = ["demo", "other"]
        .into_iter()
        .map(|n| ServerConfig::stdio(n, "x", &[]))
        .collect();
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    for name in ["demo", "other"] {
        update(
            &mut s,
            Msg::Manager(Event::Status {
                server: name.into(),
                status: ServerStatus::Connected,
                negotiated: None,
            }),
            &mut fx,
        );
    }
    ask(
        &mut s,
        1,
        "demo",
        "sampling/createMessage",
        sampling_params(),
    );
    ask(&mut s, 2, "other", "elicitation/create", form_params());
    ask(
        &mut s,
        3,
        "demo",
        "elicitation/create",
        json!({"mode": "url", "url": "https://x.example", "message": "go", "elicitationId": "e"}),
    );
    let out = screen(&s, 100, 30);
    assert!(
        out.contains("demo asks for a model reply") && out.contains("1 of 3"),
        "{out}"
    );
    // q is typed, Tab switches inside the screen: nothing reaches the app.
    let focus = s.focus;
    update(&mut s, key(KeyCode::Char('q')), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert!(fx.is_empty(), "{fx:?}");
    assert_eq!(s.focus, focus);
    assert_eq!(s.mode, Mode::Normal);
    // demo goes away: its two requests are dropped (and answered with an
    // error, so the manager forgets them); other's form is shown.
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "demo".into(),
            status: ServerStatus::Disconnected,
            negotiated: None,
        }),
        &mut fx,
    );
    let dropped = answers(&fx);
    assert_eq!(dropped.iter().map(|a| a.0).collect::<Vec<_>>(), vec![1, 3]);
    assert!(dropped.iter().all(|a| a.1.is_err()));
    assert_eq!(s.asks.len(), 1);
    let out = screen(&s, 100, 30);
    assert!(
        out.contains("other asks for input") && out.contains("1 of 1"),
        "{out}"
    );
    assert!(
        out.contains("demo is no longer connected: 2 requests dropped"),
        "{out}"
    );
    // Answered, the screen goes and keys reach the panes again.
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(answers(&fx), vec![(2, Ok(json!({"action": "cancel"})))]);
    assert!(!s.asks.is_open());
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert_ne!(s.focus, focus);
    // Ctrl-C quits even over a request.
    ask(
        &mut s,
        4,
        "other",
        "sampling/createMessage",
        sampling_params(),
    );
    let mut fx = Vec::new();
    update(&mut s, ctrl('c'), &mut fx);
    assert!(matches!(fx[..], [Effect::Interrupt]));
}

// ---- The resources and prompts views ----

use mcpdeck::mcp::session::RequestError;

/// One connected server with resources, a template and prompts, and
/// these capabilities.
fn browse_state(capabilities: Value) -> State {
    let configs = vec![ServerConfig::stdio("demo", "x", &[])];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut n = negotiated("demo", Era::Initialize, "2025-11-25");
    n.capabilities = capabilities;
    let lists = Lists {
        tools: tools(),
        resources: vec![
            json!({"uri": "demo://docs/readme.md", "name": "readme.md", "title": "Read me",
                   "mimeType": "text/markdown", "size": 1234, "description": "The project's read-me."}),
            json!({"uri": "demo://data/config.json", "name": "config.json",
                   "mimeType": "application/json", "description": "Settings as JSON"}),
            json!({"uri": "demo://img/logo.png", "name": "logo", "mimeType": "image/png", "size": 4}),
            json!({"uri": "demo://evil", "name": "evil \u{1b}[31mred\u{1b}[0m", "description": "\u{1b}]0;title\u{7}"}),
        ],
        templates: vec![
            json!({"uriTemplate": "demo://city/{country}/{city}", "name": "city", "title": "City facts",
                   "mimeType": "text/plain", "description": "Facts about a city"}),
        ],
        prompts: vec![
            json!({"name": "greet", "title": "Greeting", "description": "Say hello to someone",
                   "arguments": [
                       {"name": "name", "description": "Who to greet", "required": true},
                       {"name": "style", "description": "formal or casual"}]}),
            json!({"name": "simple", "description": "A prompt without arguments"}),
            json!({"name": "team", "title": "Team lead",
                   "arguments": [{"name": "department", "required": true}, {"name": "member", "required": true}]}),
        ],
        errors: Vec::new(),
        ..Lists::default()
    };
    let mut fx = Vec::new();
    for ev in [
        Event::Status {
            server: "demo".into(),
            status: ServerStatus::Connected,
            negotiated: Some(Box::new(n)),
        },
        Event::Lists {
            server: "demo".into(),
            lists: Arc::new(lists),
        },
    ] {
        update(&mut s, Msg::Manager(ev), &mut fx);
    }
    assert!(fx.is_empty());
    s
}

fn full_caps() -> Value {
    json!({"tools": {}, "resources": {"subscribe": true}, "prompts": {}, "completions": {}})
}

/// The requests sent to the manager: (tag, method, params).
fn requests(fx: &[Effect]) -> Vec<(u64, String, Value)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Manager(Command::Request {
                tag,
                method,
                params,
                server,
            }) => {
                assert_eq!(server, "demo");
                Some((*tag, method.clone(), params.clone()))
            }
            _ => None,
        })
        .collect()
}

fn respond(s: &mut State, tag: u64, method: &str, result: Result<Value, RequestError>) -> bool {
    let mut fx = Vec::new();
    let redraw = update(
        s,
        Msg::Manager(Event::Response {
            tag,
            server: "demo".into(),
            method: method.into(),
            result: result.map_err(Into::into),
        }),
        &mut fx,
    );
    assert!(fx.is_empty(), "{fx:?}");
    redraw
}

/// The one request in `fx`, which must be `method`.
fn only_request(fx: &[Effect], method: &str) -> (u64, Value) {
    let r = requests(fx);
    assert_eq!(r.len(), 1, "{fx:?}");
    assert_eq!(r[0].1, method);
    (r[0].0, r[0].2.clone())
}

#[test]
fn the_resources_view_lists_reads_and_drops_stale_answers() {
    let mut s = browse_state(full_caps());
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('e')), &mut fx);
    assert_eq!(s.mode, Mode::Resources);
    let out = screen(&s, 100, 30);
    assert!(out.contains("Resources · demo (4 + 1 template)"), "{out}");
    assert!(out.contains("demo://city/{country}/{city}"), "{out}");
    assert!(!out.contains('\u{1b}') && out.contains("␛[31m"), "{out}");
    insta::assert_snapshot!("resources_list", out);
    insta::assert_snapshot!("resources_list_80x24", screen(&s, 80, 24));

    // Enter reads the selected resource.
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (first, params) = only_request(&fx, "resources/read");
    assert_eq!(params, json!({"uri": "demo://docs/readme.md"}));
    // Another read before the answer: the first answer is stale.
    fx.clear();
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (second, params) = only_request(&fx, "resources/read");
    assert_eq!(params, json!({"uri": "demo://data/config.json"}));
    let text = json!({"contents": [{"uri": "demo://docs/readme.md", "mimeType": "text/markdown", "text": "# stale"}]});
    assert!(!respond(&mut s, first, "resources/read", Ok(text)));
    assert!(s.resources.shown.is_none());
    let json_text = json!({"contents": [{"uri": "demo://data/config.json", "mimeType": "application/json",
        "text": "{\"debug\":true,\"level\":3}"}]});
    assert!(respond(&mut s, second, "resources/read", Ok(json_text)));
    let out = screen(&s, 100, 30);
    assert!(!out.contains("stale"), "{out}");
    // JSON by its mime type: pretty-printed.
    assert!(
        out.contains("  \"debug\": true,") && out.contains("  \"level\": 3"),
        "{out}"
    );

    // A text resource.
    fx.clear();
    update(&mut s, key(KeyCode::Up), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (tag, _) = only_request(&fx, "resources/read");
    let text = json!({"contents": [{"uri": "demo://docs/readme.md", "mimeType": "text/markdown",
        "text": "# Read me\n\nThis project reads \u{1b}[1mresources\u{1b}[0m.\nSecond line."}]});
    respond(&mut s, tag, "resources/read", Ok(text));
    let out = screen(&s, 100, 30);
    assert!(out.contains("Contents · demo://docs/readme.md"), "{out}");
    assert!(
        out.contains("demo://docs/readme.md · text/markdown · 61 B"),
        "{out}"
    );
    assert!(
        out.contains("This project reads ␛[1mresources␛[0m."),
        "{out}"
    );
    insta::assert_snapshot!("resource_text", out);
    insta::assert_snapshot!("resource_text_80x24", screen(&s, 80, 24));
}

#[test]
fn errors_and_blobs_are_shown_and_blobs_saved() {
    let mut s = browse_state(full_caps());
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('e')), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (tag, _) = only_request(&fx, "resources/read");
    let error = RequestError::Rpc {
        method: "resources/read".into(),
        error: Box::new(mcpdeck::mcp::jsonrpc::RpcError::new(
            -32002,
            "Resource not found",
        )),
    };
    respond(&mut s, tag, "resources/read", Err(error));
    let out = screen(&s, 100, 30);
    assert!(
        out.contains("✗ the server answered resources/read with error -32002 Resource not found"),
        "{out}"
    );
    // A timeout.
    fx.clear();
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (tag, _) = only_request(&fx, "resources/read");
    let timeout = RequestError::Timeout {
        method: "resources/read".into(),
        after: Duration::from_secs(30),
    };
    respond(&mut s, tag, "resources/read", Err(timeout));
    assert!(
        screen(&s, 100, 30).contains("✗ no answer to resources/read within 30"),
        "{}",
        screen(&s, 100, 30)
    );
    // A blob: its mime type and decoded size; s saves it under a safe name.
    fx.clear();
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (tag, params) = only_request(&fx, "resources/read");
    assert_eq!(params, json!({"uri": "demo://img/logo.png"}));
    respond(
        &mut s,
        tag,
        "resources/read",
        Ok(
            json!({"contents": [{"uri": "demo://img/logo.png", "mimeType": "image/png", "blob": "iVBORw=="}]}),
        ),
    );
    let out = screen(&s, 100, 30);
    assert!(out.contains("[blob] image/png, 4 B decoded"), "{out}");
    fx.clear();
    update(&mut s, key(KeyCode::Char('s')), &mut fx);
    match fx.as_slice() {
        [Effect::Save(files)] => {
            assert_eq!(files.len(), 1);
            assert_eq!(files[0].0, "img_logo.png");
            assert_eq!(files[0].1, vec![0x89, b'P', b'N', b'G']);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_template_form_asks_for_completions_and_drops_stale_ones() {
    let mut s = browse_state(full_caps());
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('e')), &mut fx);
    update(&mut s, key(KeyCode::End), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    // The form asks for the first variable's suggestions at once.
    let (first, params) = only_request(&fx, "completion/complete");
    assert_eq!(
        params,
        json!({"ref": {"type": "ref/resource", "uri": "demo://city/{country}/{city}"},
               "argument": {"name": "country", "value": ""}})
    );
    fx.clear();
    type_text(&mut s, "F", &mut fx);
    let (second, params) = only_request(&fx, "completion/complete");
    assert_eq!(params["argument"], json!({"name": "country", "value": "F"}));
    // Only a change of the value asks again: moving the cursor does not.
    fx.clear();
    update(&mut s, key(KeyCode::Left), &mut fx);
    update(&mut s, key(KeyCode::End), &mut fx);
    assert!(fx.is_empty(), "{fx:?}");
    // The answer to the first is stale: dropped.
    let answer = |values: &[&str]| {
        Ok(json!({"completion": {"values": values, "total": 12, "hasMore": true}}))
    };
    assert!(!respond(
        &mut s,
        first,
        "completion/complete",
        answer(&["Albania", "Brazil"])
    ));
    assert!(!screen(&s, 100, 30).contains("Albania"));
    assert!(respond(
        &mut s,
        second,
        "completion/complete",
        answer(&["France", "Finland"])
    ));
    assert!(screen(&s, 100, 30).contains("Finland"));
    // Tab picks the first suggestion (no new request: nothing was typed).
    fx.clear();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert!(requests(&fx).is_empty(), "{fx:?}");
    let form = s.resources.form.as_ref().unwrap();
    assert_eq!(form.texts()[0], ("country".into(), "France".into()));
    // Tab again: the next one; Shift-Tab back.
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert_eq!(s.resources.form.as_ref().unwrap().texts()[0].1, "Finland");
    update(&mut s, shift_tab(), &mut fx);
    assert_eq!(s.resources.form.as_ref().unwrap().texts()[0].1, "France");
    assert!(requests(&fx).is_empty(), "{fx:?}");
    // The next field: its request carries the other field as context.
    update(&mut s, key(KeyCode::Down), &mut fx);
    let (tag, params) = only_request(&fx, "completion/complete");
    assert_eq!(
        params,
        json!({"ref": {"type": "ref/resource", "uri": "demo://city/{country}/{city}"},
               "argument": {"name": "city", "value": ""},
               "context": {"arguments": {"country": "France"}}})
    );
    respond(
        &mut s,
        tag,
        "completion/complete",
        Ok(json!({"completion": {"values": ["Paris", "Lyon", "Marseille"]}})),
    );
    let out = screen(&s, 100, 30);
    assert!(out.contains("URI       demo://city/France/"), "{out}");
    insta::assert_snapshot!("template_form", out);
    insta::assert_snapshot!("template_form_80x24", screen(&s, 80, 24));
    // Not read while a variable is empty.
    fx.clear();
    update(&mut s, ctrl('s'), &mut fx);
    assert!(fx.is_empty(), "{fx:?}");
    assert!(
        s.status
            .as_deref()
            .unwrap()
            .contains("not sent: 1 field needs attention")
    );
    // Pick Lyon, read the expanded URI.
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert!(screen(&s, 100, 30).contains("URI       demo://city/France/Lyon"));
    update(&mut s, ctrl('s'), &mut fx);
    let (_, params) = only_request(&fx, "resources/read");
    assert_eq!(params, json!({"uri": "demo://city/France/Lyon"}));
    assert!(s.resources.form.is_none());
    // Reopened, the form has the values of last time.
    fx.clear();
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let form = s.resources.form.as_ref().unwrap();
    assert_eq!(
        form.texts(),
        vec![
            ("country".to_string(), "France".to_string()),
            ("city".to_string(), "Lyon".to_string())
        ]
    );
}

#[test]
fn no_completions_without_the_capability() {
    let mut s = browse_state(json!({"resources": {}, "prompts": {}}));
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('P')), &mut fx);
    assert_eq!(s.mode, Mode::Prompts);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    type_text(&mut s, "Ada", &mut fx);
    assert!(fx.is_empty(), "{fx:?}");
    assert!(screen(&s, 100, 30).contains("the server offers no completions"));
}

#[test]
fn the_prompts_view_validates_gets_and_renders_messages() {
    let mut s = browse_state(full_caps());
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('P')), &mut fx);
    assert_eq!(s.mode, Mode::Prompts);
    let out = screen(&s, 100, 30);
    assert!(
        out.contains("greet") && out.contains("name*, style"),
        "{out}"
    );
    insta::assert_snapshot!("prompts_list", out);
    insta::assert_snapshot!("prompts_list_80x24", screen(&s, 80, 24));

    // A prompt without arguments is got at once.
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (_, params) = only_request(&fx, "prompts/get");
    assert_eq!(params, json!({"name": "simple", "arguments": {}}));

    // The form: a required argument must be filled.
    fx.clear();
    update(&mut s, key(KeyCode::Up), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (tag, params) = only_request(&fx, "completion/complete");
    assert_eq!(
        params,
        json!({"ref": {"type": "ref/prompt", "name": "greet"}, "argument": {"name": "name", "value": ""}})
    );
    respond(
        &mut s,
        tag,
        "completion/complete",
        Ok(json!({"completion": {"values": ["Ada", "Alan", "Grace"]}})),
    );
    fx.clear();
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, ctrl('s'), &mut fx);
    assert!(
        requests(&fx).iter().all(|r| r.1 == "completion/complete"),
        "not sent: {fx:?}"
    );
    assert_eq!(
        s.prompts.form.as_ref().unwrap().focus,
        0,
        "back to the empty one"
    );
    assert!(s.status.as_deref().unwrap().contains("not sent"));
    let out = screen(&s, 100, 30);
    assert!(out.contains("✗ required"), "{out}");
    insta::assert_snapshot!("prompt_form", out);
    insta::assert_snapshot!("prompt_form_80x24", screen(&s, 80, 24));
    fx.clear();
    type_text(&mut s, "Ada", &mut fx);
    update(&mut s, ctrl('s'), &mut fx);
    let gets: Vec<_> = requests(&fx)
        .into_iter()
        .filter(|r| r.1 == "prompts/get")
        .collect();
    assert_eq!(gets.len(), 1, "{fx:?}");
    // The empty optional argument is left out.
    assert_eq!(
        gets[0].2,
        json!({"name": "greet", "arguments": {"name": "Ada"}})
    );
    let messages = json!({"description": "A greeting for Ada", "messages": [
        {"role": "user", "content": {"type": "text", "text": "Please greet Ada.\nKeep it short."}},
        {"role": "assistant", "content": {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}},
        {"role": "user", "content": {"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="}},
        {"role": "user", "content": {"type": "resource", "resource": {"uri": "demo://docs/readme.md", "mimeType": "text/markdown", "text": "# Read me"}}},
        {"role": "user", "content": {"type": "resource_link", "uri": "demo://img/logo.png", "name": "logo", "mimeType": "image/png"}},
    ]});
    respond(&mut s, gets[0].0, "prompts/get", Ok(messages));
    let out = screen(&s, 100, 30);
    for want in [
        "Prompt · greet",
        "A greeting for Ada",
        "user:",
        "  Please greet Ada.",
        "assistant:",
        "  [image] image/png, 8 B",
        "  [audio] audio/wav, 4 B",
        "  [resource] demo://docs/readme.md · text/markdown",
        "    # Read me",
        "  [link] demo://img/logo.png logo · image/png",
    ] {
        assert!(out.contains(want), "{want:?}:\n{out}");
    }
    insta::assert_snapshot!("prompt_messages", out);
    insta::assert_snapshot!("prompt_messages_80x24", screen(&s, 80, 24));
    // The image and audio can be saved.
    fx.clear();
    update(&mut s, key(KeyCode::Char('s')), &mut fx);
    match fx.as_slice() {
        [Effect::Save(files)] => {
            let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
            assert_eq!(names, ["mcpdeck-greet-2-1.png", "mcpdeck-greet-3-1.wav"]);
        }
        other => panic!("{other:?}"),
    }
    // A JSON-RPC error from prompts/get.
    fx.clear();
    update(&mut s, key(KeyCode::Enter), &mut fx);
    update(&mut s, ctrl('s'), &mut fx);
    let get = requests(&fx)
        .into_iter()
        .find(|r| r.1 == "prompts/get")
        .unwrap();
    let error = RequestError::Rpc {
        method: "prompts/get".into(),
        error: Box::new(mcpdeck::mcp::jsonrpc::RpcError::new(
            -32602,
            "Invalid arguments",
        )),
    };
    respond(&mut s, get.0, "prompts/get", Err(error));
    assert!(
        screen(&s, 100, 30)
            .contains("✗ the server answered prompts/get with error -32602 Invalid arguments")
    );
}

#[test]
fn subscriptions_toggle_and_updates_reread_the_resource_shown() {
    let mut s = browse_state(full_caps());
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('e')), &mut fx);
    update(&mut s, key(KeyCode::Char('S')), &mut fx);
    match fx.as_slice() {
        [Effect::Manager(Command::Subscribe(server, uri))] => {
            assert_eq!(
                (server.as_str(), uri.as_str()),
                ("demo", "demo://docs/readme.md")
            );
        }
        other => panic!("{other:?}"),
    }
    let uri = "demo://docs/readme.md".to_string();
    let sub = |s: &mut State, subscribed: bool| {
        update(
            s,
            Msg::Manager(Event::Subscription {
                server: "demo".into(),
                uri: uri.clone(),
                subscribed,
                result: Ok(()),
            }),
            &mut Vec::new(),
        );
    };
    sub(&mut s, true);
    assert!(s.servers[0].subs.on.contains(&uri));
    assert!(screen(&s, 100, 30).contains("◉  Read me"));
    // Read it; an update for it reads it again.
    fx.clear();
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (tag, _) = only_request(&fx, "resources/read");
    let contents = |n: u32| {
        Ok(
            json!({"contents": [{"uri": "demo://docs/readme.md", "mimeType": "text/plain", "text": format!("version {n}")}]}),
        )
    };
    respond(&mut s, tag, "resources/read", contents(1));
    let updated = |s: &mut State, uri: &str, fx: &mut Vec<Effect>| {
        update(
            s,
            Msg::Manager(Event::Notification {
                server: "demo".into(),
                method: "notifications/resources/updated".into(),
                params: Some(json!({"uri": uri})),
            }),
            fx,
        );
    };
    fx.clear();
    updated(&mut s, "demo://docs/readme.md", &mut fx);
    assert!(s.servers[0].subs.updated.contains(&uri));
    let (tag, params) = only_request(&fx, "resources/read");
    assert_eq!(params, json!({"uri": "demo://docs/readme.md"}));
    respond(&mut s, tag, "resources/read", contents(2));
    let out = screen(&s, 100, 30);
    assert!(
        out.contains("version 2") && out.contains("updated 1×"),
        "{out}"
    );
    assert!(
        !s.servers[0].subs.updated.contains(&uri),
        "read: no longer marked"
    );
    // An update for a URI not subscribed to is only a notice.
    fx.clear();
    updated(&mut s, "demo://data/config.json", &mut fx);
    assert!(fx.is_empty() && s.servers[0].subs.updated.is_empty());
    // Updated while another one is shown: marked.
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (tag, _) = only_request(&fx, "resources/read");
    respond(
        &mut s,
        tag,
        "resources/read",
        Ok(json!({"contents": [{"uri": "demo://data/config.json", "text": "{}"}]})),
    );
    fx.clear();
    updated(&mut s, "demo://docs/readme.md", &mut fx);
    assert!(fx.is_empty());
    assert!(screen(&s, 100, 30).contains("✱  Read me"));
    // S again on it: unsubscribe.
    update(&mut s, key(KeyCode::Up), &mut fx);
    update(&mut s, key(KeyCode::Char('S')), &mut fx);
    assert!(
        matches!(fx.as_slice(), [Effect::Manager(Command::Unsubscribe(_, u))] if *u == uri),
        "{fx:?}"
    );
    sub(&mut s, false);
    assert!(s.servers[0].subs.on.is_empty() && s.servers[0].subs.updated.is_empty());
    // Templates cannot be subscribed to.
    fx.clear();
    update(&mut s, key(KeyCode::End), &mut fx);
    update(&mut s, key(KeyCode::Char('S')), &mut fx);
    assert!(fx.is_empty());
    assert!(s.status.as_deref().unwrap().contains("template"));
    // Subscriptions end with the session.
    update(&mut s, key(KeyCode::Home), &mut fx);
    update(&mut s, key(KeyCode::Char('S')), &mut fx);
    sub(&mut s, true);
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "demo".into(),
            status: ServerStatus::Disconnected,
            negotiated: None,
        }),
        &mut fx,
    );
    assert!(s.servers[0].subs.on.is_empty());
}

#[test]
fn no_subscription_without_the_capability() {
    let mut s = browse_state(json!({"resources": {}, "completions": {}}));
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('e')), &mut fx);
    update(&mut s, key(KeyCode::Char('S')), &mut fx);
    assert!(fx.is_empty(), "{fx:?}");
    assert_eq!(
        s.status.as_deref(),
        Some("demo does not declare resources.subscribe: it sends no resource updates")
    );
}

#[test]
fn esc_goes_back_step_by_step() {
    let mut s = browse_state(full_caps());
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('e')), &mut fx);
    // The filter narrows by name, title, URI and description.
    update(&mut s, key(KeyCode::Char('/')), &mut fx);
    type_text(&mut s, "city", &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert!(screen(&s, 100, 30).contains("Resources · demo (1 of 5) /city"));
    // Form open → Esc closes it.
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert!(s.resources.form.is_some());
    type_text(&mut s, "q", &mut fx);
    assert_eq!(s.mode, Mode::Resources, "q types in a field");
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(s.resources.form.is_none());
    assert_eq!(s.mode, Mode::Resources);
    // Something read, the contents focused → Esc back to the list.
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(s.resources.filter.is_empty(), "Esc clears the filter");
    fx.clear();
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (tag, _) = only_request(&fx, "resources/read");
    let long: String = (0..100).map(|i| format!("line {i}\n")).collect();
    respond(
        &mut s,
        tag,
        "resources/read",
        Ok(json!({"contents": [{"uri": "demo://docs/readme.md", "text": long}]})),
    );
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert!(s.resources.contents_focus);
    update(&mut s, key(KeyCode::End), &mut fx);
    assert!(s.resources.scroll > 50);
    assert!(screen(&s, 100, 30).contains("line 99"));
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(!s.resources.contents_focus);
    // A read in flight: Esc stops waiting; its answer is dropped.
    fx.clear();
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (tag, _) = only_request(&fx, "resources/read");
    assert!(screen(&s, 100, 30).contains("reading demo://docs/readme.md"));
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(s.resources.pending.is_none());
    assert!(!respond(
        &mut s,
        tag,
        "resources/read",
        Ok(json!({"contents": []}))
    ));
    // Then out of the view; the help goes back to the view.
    update(&mut s, key(KeyCode::Char('?')), &mut fx);
    assert_eq!(s.mode, Mode::Help);
    update(&mut s, key(KeyCode::Char('x')), &mut fx);
    assert_eq!(s.mode, Mode::Resources);
    update(&mut s, key(KeyCode::Char('P')), &mut fx);
    assert_eq!(s.mode, Mode::Prompts);
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
}

#[test]
fn the_views_render_at_any_size() {
    let mut s = browse_state(full_caps());
    let mut fx = Vec::new();
    for (w, h) in [
        (1, 1),
        (2, 2),
        (5, 3),
        (10, 4),
        (20, 6),
        (40, 10),
        (300, 100),
    ] {
        update(&mut s, Msg::Resize(w, h), &mut fx);
        for view in ['e', 'P'] {
            update(&mut s, key(KeyCode::Char(view)), &mut fx);
            let _ = screen(&s, w, h);
            update(&mut s, key(KeyCode::Enter), &mut fx);
            let _ = screen(&s, w, h);
            update(&mut s, key(KeyCode::Esc), &mut fx);
            update(&mut s, key(KeyCode::Esc), &mut fx);
            update(&mut s, key(KeyCode::Esc), &mut fx);
            assert_eq!(s.mode, Mode::Normal);
        }
    }
}

/// Every command key goes through the keymap: the quit confirmation, the
/// filters and the add-server form follow `[keys]`, and so do their hints.
#[test]
fn dialogs_and_filters_follow_rebound_keys() {
    let keys = Keymap::with_overrides(&[
        ("confirm".into(), vec!["o".into()]),
        ("back".into(), vec!["ctrl-g".into()]),
        ("open".into(), vec!["ctrl-o".into()]),
    ])
    .unwrap();
    let mut s = state();
    s.keymap = keys;
    let mut fx = Vec::new();
    // A filter: characters are typed; the rebound keys keep and clear it.
    update(&mut s, key(KeyCode::Char('/')), &mut fx);
    assert_eq!(s.mode, Mode::Filter);
    update(&mut s, key(KeyCode::Char('e')), &mut fx);
    assert_eq!(s.filter, "e");
    let out = screen(&s, 100, 30);
    assert!(out.contains("Ctrl-O keep · Ctrl-G clear"), "{out}");
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(s.mode, Mode::Filter, "Esc is no longer `back`");
    update(&mut s, ctrl('g'), &mut fx);
    assert_eq!((s.mode, s.filter.as_str()), (Mode::Normal, ""));
    // The quit confirmation asks with the rebound key, and takes it.
    update(&mut s, key(KeyCode::Tab), &mut fx);
    let _ = call_selected_with(&mut s, ctrl('o'));
    update(&mut s, key(KeyCode::Char('q')), &mut fx);
    assert_eq!(s.mode, Mode::ConfirmQuit);
    let out = screen(&s, 100, 30);
    assert!(out.contains("Quit anyway? (o/n)"), "{out}");
    assert!(out.contains("o quits, any other key stays"), "{out}");
    fx.clear();
    update(&mut s, key(KeyCode::Char('y')), &mut fx);
    assert!(
        fx.iter().all(|e| !matches!(e, Effect::Quit)),
        "y no longer confirms"
    );
    update(&mut s, key(KeyCode::Char('q')), &mut fx);
    update(&mut s, key(KeyCode::Char('o')), &mut fx);
    assert!(fx.iter().any(|e| matches!(e, Effect::Quit)));
}

/// Open the editor on the selected tool with `open` and send it.
fn call_selected_with(s: &mut State, open: Msg) -> Vec<Effect> {
    let mut fx = Vec::new();
    update(s, open, &mut fx);
    update(s, ctrl('s'), &mut fx);
    fx
}

/// A state with one HTTP server that waits for a login.
fn oauth_state() -> State {
    let configs = vec![ServerConfig::http(
        "remote",
        "https://remote.example.com/mcp",
    )];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    let mut failure = HttpFailure::new(
        Some(401),
        "POST https://remote.example.com/mcp answered 401".into(),
    );
    failure.auth = Some(Box::new(mcpdeck::mcp::auth::AuthError::new(
        mcpdeck::mcp::auth::AuthErrorKind::NeedsLogin,
        "remote needs a login at https://login.example.com (a browser login)",
    )));
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "remote".into(),
            status: ServerStatus::NeedsAuth(ConnectError::Open(Box::new(failure))),
            negotiated: None,
        }),
        &mut fx,
    );
    s
}

#[test]
fn the_login_key_opens_the_login_screen_which_follows_the_login() {
    use mcpdeck::mcp::auth::{LoginEvent, Trace};
    let mut s = oauth_state();
    let out = screen(&s, 100, 24);
    // Why, and the key that helps.
    assert!(
        out.contains("reason: remote needs a login at https://login.example.com"),
        "{out}"
    );
    assert!(out.contains("press o to log in"), "{out}");
    assert!(
        out.contains("o log in"),
        "the status bar offers it first: {out}"
    );

    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('o')), &mut fx);
    match &fx[..] {
        [Effect::Manager(Command::Login { server, scopes })] => {
            assert_eq!(server, "remote");
            assert!(scopes.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.mode, Mode::Login);
    let mut trace = Trace::default();
    trace.push(
        "GET",
        "https://remote.example.com/.well-known/oauth-protected-resource/mcp",
        Some(200),
        "protected resource metadata, read",
    );
    trace.note("authorization server: https://login.example.com");
    let url = "https://login.example.com/authorize?response_type=code&state=abc";
    for ev in [
        LoginEvent::Discovered(trace),
        LoginEvent::OpenUrl(url.into()),
        LoginEvent::Browser("opened with `firefox`".into()),
        LoginEvent::Waiting,
    ] {
        update(
            &mut s,
            Msg::Manager(Event::Login {
                server: "remote".into(),
                event: ev,
            }),
            &mut fx,
        );
    }
    // Another server's events are not this screen's.
    assert!(!update(
        &mut s,
        Msg::Manager(Event::Login {
            server: "other".into(),
            event: LoginEvent::Exchanging,
        }),
        &mut fx,
    ));
    assert!(s.busy(), "the spinner runs while the login waits");
    let out = screen(&s, 100, 24);
    for want in [
        "Log in · remote",
        "GET https://remote.example.com/.well-known/oauth-protected-resource/mcp -> 200",
        "authorization server: https://login.example.com",
        "Open this URL to log in:",
        url,
        "opened with `firefox`",
        "waiting for the browser",
        "Esc cancel",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    // Each row of the URL is a terminal hyperlink (OSC 8) to the whole URL.
    assert!(out.contains(&format!("\x1b]8;;{url}\x1b\\")), "{out:?}");
    // The copy key copies the URL; Esc cancels the login.
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('y')), &mut fx);
    assert!(matches!(&fx[..], [Effect::Copy(t)] if t == url), "{fx:?}");
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(
        matches!(&fx[..], [Effect::Manager(Command::CancelLogin(n))] if n == "remote"),
        "{fx:?}"
    );
    assert_eq!(s.mode, Mode::Normal);
    assert!(s.login.is_none());

    // A URL with control characters (from a hostile authorization server's
    // metadata) is drawn as plain, sanitized text: no link, no escape.
    update(&mut s, key(KeyCode::Char('o')), &mut fx);
    update(
        &mut s,
        Msg::Manager(Event::Login {
            server: "remote".into(),
            event: LoginEvent::OpenUrl("https://evil.example/\x1b]8;;x\x07\x1b[2J".into()),
        }),
        &mut fx,
    );
    let out = screen(&s, 100, 24);
    assert!(!out.contains('\x1b') && !out.contains('\x07'), "{out:?}");
    assert!(out.contains("https://evil.example/"), "{out}");
}

#[test]
fn a_failed_login_says_why_and_a_good_one_shows_the_issuer_scopes_and_expiry() {
    use mcpdeck::mcp::auth::{AuthError, AuthErrorKind, TokenInfo};
    let mut s = oauth_state();
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('o')), &mut fx);
    update(
        &mut s,
        Msg::Manager(Event::LoginFinished {
            server: "remote".into(),
            result: Err(AuthError::new(
                AuthErrorKind::Denied,
                "the authorization server refused: access_denied",
            )),
        }),
        &mut fx,
    );
    assert_eq!(s.mode, Mode::Login, "a failure stays on screen");
    let out = screen(&s, 100, 24);
    assert!(
        out.contains("✗ the authorization server refused: access_denied"),
        "{out}"
    );
    assert!(out.contains("o try again"), "{out}");
    // Enter closes a finished login.
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.mode, Mode::Normal);

    update(&mut s, key(KeyCode::Char('o')), &mut fx);
    let info = TokenInfo {
        issuer: "https://login.example.com".into(),
        client_id: "mcpdeck-test".into(),
        scopes: vec!["files:read".into(), "files:write".into()],
        expires_at: Some(1_795_999_999),
        refreshable: true,
        dpop: true,
        storage: "file /home/u/.local/share/mcpdeck/credentials.json".into(),
    };
    update(
        &mut s,
        Msg::Manager(Event::LoginFinished {
            server: "remote".into(),
            result: Ok(info),
        }),
        &mut fx,
    );
    assert_eq!(s.mode, Mode::Normal, "success goes back to the panes");
    let out = screen(&s, 160, 30);
    for want in [
        "oauth issuer: https://login.example.com",
        "oauth scopes: files:read files:write",
        "expires 2026-11-30 00:53 UTC",
        "refreshed before it expires",
        "DPoP-bound",
        "press O to log out",
        "remote: logged in",
    ] {
        assert!(out.contains(want), "{want:?} missing:\n{out}");
    }
    // The log-out key asks the manager.
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('O')), &mut fx);
    assert!(
        matches!(&fx[..], [Effect::Manager(Command::Logout(n))] if n == "remote"),
        "{fx:?}"
    );
    update(
        &mut s,
        Msg::Manager(Event::LoggedOut {
            server: "remote".into(),
            result: Ok(vec!["revoked the access token".into()]),
        }),
        &mut fx,
    );
    assert!(s.servers[0].auth.is_none());
    assert!(screen(&s, 100, 30).contains("remote: logged out"));
}

#[test]
fn a_call_that_needs_more_scope_offers_to_authorize_it() {
    use mcpdeck::mcp::auth::{AuthError, AuthErrorKind};
    use mcpdeck::mcp::manager::CallError;
    use mcpdeck::mcp::session::RequestError;
    let mut s = oauth_state();
    s.track(mcpdeck::tui::app::InFlight {
        tag: 41,
        server: "remote".into(),
        tool: "write_file".into(),
        request_id: Some(3),
        progress: None,
        task: None,
        args: "{}".into(),
        started: None,
    });
    let mut failure = HttpFailure::new(
        Some(403),
        "POST https://remote.example.com/mcp answered 403".into(),
    );
    let wanted = vec!["files:read".to_string(), "files:write".to_string()];
    failure.auth = Some(Box::new(
        AuthError::new(
            AuthErrorKind::NeedsLogin,
            "remote needs a login with scope \"files:read files:write\"",
        )
        .with_scopes(&wanted),
    ));
    let mut fx = Vec::new();
    update(
        &mut s,
        Msg::Manager(Event::CallFinished {
            tag: 41,
            server: "remote".into(),
            tool: "write_file".into(),
            result: Err(CallError::Request(RequestError::Http(Box::new(failure)))),
            elapsed: Duration::from_millis(12),
        }),
        &mut fx,
    );
    let out = screen(&s, 160, 30);
    assert!(
        out.contains(
            "step-up: remote asks for more scope; press o to authorize \"files:read files:write\""
        ),
        "{out}"
    );
    // The login key (here, from the result pane) asks for those scopes.
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('o')), &mut fx);
    match &fx[..] {
        [Effect::Manager(Command::Login { server, scopes })] => {
            assert_eq!(server, "remote");
            assert_eq!(scopes, &wanted);
        }
        other => panic!("{other:?}"),
    }
    let out = screen(&s, 160, 30);
    assert!(
        out.contains("asking for scope \"files:read files:write\""),
        "{out}"
    );
}

// ---------------------------------------------------------------------
// Defects found by hand (issue 11): one regression test each.

/// The text inside a pane's border, its rows joined (a wrapped line reads
/// as one).
fn pane_text(s: &State, w: u16, h: u16, area: ratatui::layout::Rect) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| mcpdeck::tui::ui::render(s, f)).unwrap();
    let buf = t.backend().buffer();
    let mut out = String::new();
    for y in area.y + 1..area.y + area.height - 1 {
        for x in area.x + 1..area.x + area.width - 1 {
            out.push_str(buf[(x, y)].symbol());
        }
    }
    out
}

fn sized(w: u16, h: u16) -> State {
    let mut s = state();
    update(&mut s, Msg::Resize(w, h), &mut Vec::new());
    s
}

/// Call the first tool and finish it with this result.
fn result_of(s: &mut State, v: Value) {
    let mut fx = Vec::new();
    update(s, key(KeyCode::Tab), &mut fx);
    let _ = call_selected(s);
    finish(s, Ok(v));
}

#[test]
fn the_end_of_a_long_line_is_reached_and_nothing_is_skipped() {
    for (w, h) in [(60u16, 20u16), (80, 24), (120, 40)] {
        let mut s = sized(w, h);
        // 1,897 characters ending THE-END (the reported case), then a
        // line of numbered words: every word must be seen when paging.
        let long = format!("{}THE-END", "x".repeat(1890));
        let words: String = (0..600).map(|i| format!("w{i:03} ")).collect();
        result_of(
            &mut s,
            json!({"content": [{"type": "text", "text": format!("{long}\n{words}\nlast line")}]}),
        );
        assert_eq!(s.focus, Pane::Result, "the result takes the focus");
        let mut fx = Vec::new();
        let mut seen = String::new();
        loop {
            seen.push_str(&pane_text(&s, w, h, s.areas.result));
            if !update(&mut s, key(KeyCode::PageDown), &mut fx) {
                break;
            }
        }
        assert!(seen.contains("THE-END"), "{w}x{h}");
        // Words may be cut at the pane's edge; each one's digits are seen.
        let flat: String = seen.split_whitespace().collect();
        for i in (0..600).step_by(37) {
            assert!(
                flat.contains(&format!("w{i:03}")),
                "{w}x{h}: w{i:03} never shown"
            );
        }
        update(&mut s, key(KeyCode::End), &mut fx);
        let end = screen(&s, w, h);
        assert!(end.contains("last line"), "{w}x{h}\n{end}");
        // The end is the last page: Down moves no further.
        assert!(!update(&mut s, key(KeyCode::Down), &mut fx));
    }
}

#[test]
fn a_huge_line_scrolls_by_screen_lines_to_its_end() {
    let mut s = sized(80, 24);
    let text = format!("{}TAIL-MARK", "0123456789".repeat(2_000_000));
    result_of(&mut s, json!({"content": [{"type": "text", "text": text}]}));
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::End), &mut fx);
    let out = screen(&s, 80, 24);
    assert!(out.contains("TAIL-MARK"), "{out}");
    // Wrapped at the pane's width: each row is full up to the border.
    let inner = s.areas.result.width as usize - 2;
    assert!(out.contains(&"0123456789".repeat(inner / 10)), "{out}");
}

#[test]
fn non_ascii_and_indented_lines_wrap_under_themselves() {
    let mut s = sized(60, 20);
    let cjk = "漢字".repeat(60);
    result_of(
        &mut s,
        json!({"content": [
            {"type": "text", "text": format!("{cjk}END")},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain",
                "text": format!("{}tail", "r".repeat(120))}},
            {"type": "resource", "resource": {"uri": "file:///b.txt", "mimeType": "text/plain",
                "blob": "aGVsbG8gYmxvYg=="}},
        ]}),
    );
    let mut fx = Vec::new();
    let mut all = String::new();
    loop {
        all.push_str(&screen(&s, 60, 20));
        if !update(&mut s, key(KeyCode::PageDown), &mut fx) {
            break;
        }
    }
    assert!(all.contains("END"), "{all}");
    // The embedded text's continuation keeps its two-space indent.
    assert!(all.contains("│  rrrr"), "{all}");
    assert!(
        !all.lines()
            .any(|l| l.starts_with("│") && l.contains("│rrr")),
        "{all}"
    );
    // A small text blob is shown decoded.
    assert!(all.contains("hello blob"), "{all}");
}

#[test]
fn a_failed_servers_last_stderr_line_is_shown_and_the_detail_scrolls() {
    let mut s = sized(80, 24);
    let mut tail: Vec<String> = (1..=39)
        .map(|i| format!("  File \"x.py\", line {i}"))
        .collect();
    tail.push("ValueError: the token is missing".into());
    let mut fx = Vec::new();
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "broken".into(),
            status: ServerStatus::Failed(ConnectError::Lost {
                description: "the server exited with status 1".into(),
                stderr_tail: tail,
            }),
            negotiated: None,
        }),
        &mut fx,
    );
    // Select broken (third) in the servers pane.
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx);
    let out = screen(&s, 80, 24);
    assert!(out.contains("last stderr line: ValueError"), "{out}");
    // Tab keeps the server's detail and lets it scroll to the newest line.
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert_eq!(s.focus, Pane::Detail);
    assert!(screen(&s, 80, 24).contains("Server · broken"));
    update(&mut s, key(KeyCode::End), &mut fx);
    let end = screen(&s, 80, 24);
    assert!(end.contains("  ValueError: the token is missing"), "{end}");
    assert!(end.contains("line 39"), "{end}");
    // Bounded: the last page is as far as it goes.
    let at_end = s.detail_scroll;
    assert!(!update(&mut s, key(KeyCode::Down), &mut fx));
    assert_eq!(s.detail_scroll, at_end);
    assert!(at_end <= s.detail_len());
}

#[test]
fn keys_act_on_the_focused_panes_selection_and_say_what_they_wrote() {
    let mut s = sized(100, 30);
    let mut fx = Vec::new();
    // `d` in the servers pane denies nothing.
    assert_eq!(s.focus, Pane::Servers);
    update(&mut s, key(KeyCode::Char('d')), &mut fx);
    assert!(fx.is_empty(), "{fx:?}");
    assert!(
        s.status
            .as_deref()
            .unwrap_or("")
            .contains("pick one in the tools pane")
    );
    // Space on a tool of the all-servers view toggles the tool, not its
    // server.
    update(&mut s, key(KeyCode::Char('t')), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Char(' ')), &mut fx);
    match &fx[..] {
        [Effect::WriteDeny { tools, note, .. }] => {
            assert_eq!(tools, &["echo".to_string()]);
            assert_eq!(note, "denied echo on demo");
        }
        other => panic!("{other:?}"),
    }
    assert!(s.servers[0].enabled);
    fx.clear();
    // Allowing says so (not the same words as denying).
    update(&mut s, key(KeyCode::Char('d')), &mut fx);
    match &fx[..] {
        [Effect::WriteDeny { tools, note, .. }] => {
            assert!(tools.is_empty());
            assert_eq!(note, "allowed echo on demo");
        }
        other => panic!("{other:?}"),
    }
    // The driver's answer is shown as it came.
    update(
        &mut s,
        Msg::Written(Ok("allowed echo on demo; saved".into())),
        &mut fx,
    );
    assert!(screen(&s, 100, 30).contains("allowed echo on demo; saved"));
}

#[test]
fn enter_on_a_connecting_server_waits_and_keeps_the_keys_for_the_editor() {
    let configs = vec![ServerConfig::stdio("late", "x", &[])];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
    assert!(screen(&s, 100, 30).contains("waiting for late to connect"));
    // `e` would open the resources view: it must go to the editor.
    for c in "hello".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    assert_eq!(s.mode, Mode::Normal);
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "late".into(),
            status: ServerStatus::Connected,
            negotiated: Some(Box::new(negotiated("late", Era::Stateless, "2026-07-28"))),
        }),
        &mut fx,
    );
    update(
        &mut s,
        Msg::Manager(Event::Lists {
            server: "late".into(),
            lists: Arc::new(Lists {
                tools: tools(),
                ..Lists::default()
            }),
        }),
        &mut fx,
    );
    assert_eq!(s.mode, Mode::Editor);
    let e = s.editor.as_ref().expect("the editor opened");
    assert_eq!(e.tool, "echo");
    assert!(
        fx.iter().all(|e| !matches!(e, Effect::Manager(_))),
        "{fx:?}"
    );
    // A server that fails instead drops the keys and says so.
    let mut s = State::new(&configs, Keymap::default(), None);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    update(&mut s, key(KeyCode::Char('x')), &mut fx);
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "late".into(),
            status: ServerStatus::Failed(ConnectError::Lost {
                description: "gone".into(),
                stderr_tail: vec![],
            }),
            negotiated: None,
        }),
        &mut fx,
    );
    assert!(s.pending_open.is_none());
    assert!(
        s.status
            .as_deref()
            .unwrap_or("")
            .contains("1 typed keys were dropped")
    );
    assert_eq!(s.mode, Mode::Normal);
}

#[test]
fn messages_go_with_the_next_key_or_expire_and_help_stays_visible() {
    for (w, h) in [(60u16, 20u16), (80, 24), (120, 40)] {
        let mut s = sized(w, h);
        let mut fx = Vec::new();
        let t0 = std::time::Instant::now();
        update(&mut s, Msg::Clock(t0), &mut fx);
        update(
            &mut s,
            Msg::Written(Ok("disabled demo; saved".into())),
            &mut fx,
        );
        let out = screen(&s, w, h);
        assert!(out.contains("disabled demo; saved"), "{out}");
        // `? help` at any width, even beside a message.
        assert!(
            out.lines().last().unwrap_or("").ends_with("? help"),
            "{w}x{h}\n{out}"
        );
        update(&mut s, key(KeyCode::Down), &mut fx);
        assert!(!screen(&s, w, h).contains("saved"));
        // Without a key, the message expires.
        update(
            &mut s,
            Msg::Written(Ok("enabled demo; saved".into())),
            &mut fx,
        );
        assert!(!update(
            &mut s,
            Msg::Clock(t0 + std::time::Duration::from_secs(1)),
            &mut fx
        ));
        assert!(update(
            &mut s,
            Msg::Clock(t0 + mcpdeck::tui::app::STATUS_TTL),
            &mut fx
        ));
        assert!(s.status.is_none());
    }
    // "cancelling …" ends with the call.
    let mut s = sized(80, 24);
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    let _ = call_selected(&mut s);
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(s.status.as_deref().unwrap_or("").starts_with("cancelling"));
    finish(&mut s, Err("cancelled"));
    assert!(s.status.is_none());
}

#[test]
fn a_running_call_owns_the_result_pane() {
    let mut s = sized(100, 30);
    result_of(
        &mut s,
        json!({"content": [{"type": "text", "text": "OLD-RESULT"}]}),
    );
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Esc), &mut fx);
    let _ = call_selected(&mut s);
    let out = screen(&s, 100, 30);
    assert!(out.contains("Result · running echo on demo"), "{out}");
    assert!(!out.contains("OLD-RESULT"), "{out}");
}

#[test]
fn after_a_call_the_result_has_the_focus_and_esc_goes_back() {
    let mut s = sized(100, 30);
    result_of(&mut s, json!({"content": [{"type": "text", "text": "ok"}]}));
    assert_eq!(s.focus, Pane::Result);
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(s.focus, Pane::Tools);
}

#[test]
fn a_copy_escapes_bidi_and_control_characters_and_says_so() {
    let mut s = sized(100, 30);
    result_of(
        &mut s,
        json!({"content": [{"type": "text", "text": "abc\u{202e}def\u{9b}"}]}),
    );
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('y')), &mut fx);
    let copied = fx
        .iter()
        .find_map(|e| match e {
            Effect::Copy(t) => Some(t.clone()),
            _ => None,
        })
        .expect("a copy");
    assert!(
        !copied.contains('\u{202e}') && !copied.contains('\u{9b}'),
        "{copied}"
    );
    assert!(copied.contains("\\u202e"), "{copied}");
    // Still the same JSON.
    let v: Value = serde_json::from_str(&copied).unwrap();
    assert_eq!(v["content"][0]["text"], "abc\u{202e}def\u{9b}");
    assert!(
        s.status
            .as_deref()
            .unwrap_or("")
            .contains("2 control or bidi characters escaped")
    );
}

#[test]
fn narrow_panes_keep_badges_latency_and_labels() {
    let mut s = sized(60, 20);
    let mut fx = Vec::new();
    update(
        &mut s,
        Msg::Manager(Event::Ping {
            server: "demo".into(),
            result: Ok(Duration::from_millis(2)),
            requested: false,
        }),
        &mut fx,
    );
    let out = screen(&s, 60, 20);
    assert!(out.contains(" 2.0 ms"), "{out}");
    // A cut tool name ends with … and keeps its badge.
    assert!(
        out.contains("… destructive")
            || out.contains("…destructive")
            || out.contains("… risk destructive"),
        "{out}"
    );
    // No server selected: no empty scope in the title.
    let mut e = State::new(&[], Keymap::default(), None);
    update(&mut e, Msg::Resize(60, 20), &mut fx);
    assert!(!screen(&e, 60, 20).contains("Tools ·  ("));
    // The add dialog: the label and the value apart.
    update(&mut s, key(KeyCode::Char('a')), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    for c in "/tmp/server".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    let out = screen(&s, 60, 20);
    assert!(out.contains("command or URL  /tmp/server"), "{out}");
    update(&mut s, key(KeyCode::Esc), &mut fx);
    // A second / starts a new filter.
    for c in ["/", "e", "c"] {
        update(
            &mut s,
            key(KeyCode::Char(c.chars().next().unwrap())),
            &mut fx,
        );
    }
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.filter, "ec");
    update(&mut s, key(KeyCode::Char('/')), &mut fx);
    update(&mut s, key(KeyCode::Char('g')), &mut fx);
    assert_eq!(s.filter, "g");
}

#[test]
fn page_down_moves_a_page_of_the_focused_pane() {
    let mut s = state();
    let many: Vec<Tool> = (0..200)
        .filter_map(|i| {
            Tool::parse(
                &json!({"name": format!("t{i}"), "inputSchema": {"type": "object"}}),
                &mut Vec::new(),
            )
        })
        .collect();
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(100, 40), &mut fx);
    update(
        &mut s,
        Msg::Manager(Event::Lists {
            server: "demo".into(),
            lists: Arc::new(Lists {
                tools: many,
                ..Lists::default()
            }),
        }),
        &mut fx,
    );
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::PageDown), &mut fx);
    let rows = s.areas.tools.height as usize - 2;
    assert!(rows > 10);
    assert_eq!(s.tool_sel, rows);
}

#[test]
fn structured_content_is_coloured_like_json_text() {
    let mut s = sized(100, 30);
    result_of(
        &mut s,
        json!({"content": [], "structuredContent": {"temperature": 21.5}}),
    );
    let mut t = Terminal::new(TestBackend::new(100, 30)).unwrap();
    t.draw(|f| mcpdeck::tui::ui::render(&s, f)).unwrap();
    let buf = t.backend().buffer();
    let area = s.areas.result;
    let mut number_colour = None;
    for y in area.y..area.y + area.height {
        for x in area.x..area.x + area.width {
            if buf[(x, y)].symbol() == "2" && buf[(x + 1, y)].symbol() == "1" {
                number_colour = Some(buf[(x, y)].fg);
            }
        }
    }
    assert_eq!(
        number_colour,
        Some(mcpdeck::tui::theme::Role::Warn.color()),
        "numbers in structuredContent are coloured"
    );
}

#[test]
fn reload_follows_the_selection_by_name_and_closes_an_orphan_editor() {
    let mut s = sized(100, 30);
    let mut fx = Vec::new();
    // Select broken, open an editor on demo's echo.
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx);
    assert_eq!(s.selected_server().unwrap().name, "broken");
    // A new server before it: the selection stays on broken.
    let mut configs = vec![ServerConfig::stdio("aaa", "x", &[])];
    for n in ["demo", "slow", "broken"] {
        configs.push(ServerConfig::stdio(n, "x", &[]));
    }
    update(&mut s, Msg::Reloaded(Ok(configs)), &mut fx);
    assert_eq!(s.selected_server().unwrap().name, "broken");
    // An editor on demo, then demo is removed.
    update(&mut s, key(KeyCode::Up), &mut fx);
    update(&mut s, key(KeyCode::Up), &mut fx);
    assert_eq!(s.selected_server().unwrap().name, "demo");
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.mode, Mode::Editor);
    update(
        &mut s,
        Msg::Reloaded(Ok(vec![ServerConfig::stdio("slow", "x", &[])])),
        &mut fx,
    );
    assert_eq!(s.mode, Mode::Normal);
    assert!(s.editor.is_none());
    assert!(
        s.status
            .as_deref()
            .unwrap_or("")
            .contains("the server was removed")
    );
}

#[test]
fn the_end_of_a_long_resource_line_is_reached_in_the_resources_view() {
    let mut s = browse_state(full_caps());
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(80, 24), &mut fx);
    update(&mut s, key(KeyCode::Char('e')), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let (tag, _) = only_request(&fx, "resources/read");
    let long = format!("{} RESOURCE-END", "word ".repeat(900));
    let text = json!({"contents": [{"uri": "demo://docs/readme.md", "mimeType": "text/plain",
        "text": long}]});
    respond(&mut s, tag, "resources/read", Ok(text));
    assert!(!screen(&s, 80, 24).contains("RESOURCE-END"));
    // Tab to the contents, End: the last screen line of the wrapped line.
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::End), &mut fx);
    let out = screen(&s, 80, 24);
    assert!(out.contains("RESOURCE-END"), "{out}");
    assert!(!update(&mut s, key(KeyCode::Down), &mut fx));
}

fn imported(
    name: &str,
    server: ServerConfig,
    warnings: &[&str],
) -> mcpdeck::config::import::Imported {
    use mcpdeck::config::import::{Client, Imported, Origin};
    Imported {
        name: name.into(),
        client: Origin::Client(Client::Cursor),
        path: "/home/u/.cursor/mcp.json".into(),
        server,
        warnings: warnings.iter().map(|w| w.to_string()).collect(),
    }
}

#[test]
fn the_import_screen_ticks_previews_and_imports() {
    use mcpdeck::tui::app::{ImportFound, ImportRow};
    let mut s = State::new(&[], Keymap::default(), None);
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(80, 24), &mut fx);
    assert!(screen(&s, 80, 24).contains("to import their servers"));
    update(&mut s, key(KeyCode::Char('i')), &mut fx);
    assert_eq!(s.mode, Mode::Import);
    assert!(matches!(&fx[..], [Effect::FindImports]), "{fx:?}");
    fx.clear();
    let mut remote = ServerConfig::http("remote", "https://example.com/mcp");
    if let mcpdeck::config::TransportConfig::Http { headers, .. } = &mut remote.transport {
        headers.push(("Authorization".into(), "Bearer sk-live-SECRET".into()));
    }
    let rows = vec![
        ImportRow {
            item: imported(
                "demo",
                ServerConfig::stdio("demo", "npx", &["-y", "pkg"]),
                &[],
            ),
            checked: true,
            already: false,
        },
        ImportRow {
            item: imported("remote", remote, &["`Authorization` holds a secret"]),
            checked: true,
            already: false,
        },
        ImportRow {
            item: imported("old", ServerConfig::stdio("old", "x", &[]), &[]),
            checked: false,
            already: true,
        },
    ];
    update(
        &mut s,
        Msg::ImportsFound(Ok(ImportFound {
            rows,
            errors: vec![
                "zed /home/u/.config/zed/settings.json: line 3, column 5: expected `,`".into(),
            ],
            files: 3,
        })),
        &mut fx,
    );
    let out = screen(&s, 80, 24);
    insta::assert_snapshot!("import_80x24", out);
    assert!(out.contains("[x] demo") && out.contains("[=] old"), "{out}");
    assert!(
        out.contains("could not be read") && out.contains("column 5"),
        "{out}"
    );
    assert!(out.contains("# imported from Cursor"), "{out}");
    // The secret is masked in the preview.
    update(&mut s, key(KeyCode::Down), &mut fx);
    let out = screen(&s, 80, 24);
    assert!(
        out.contains("holds a secret") && !out.contains("sk-live-SECRET"),
        "{out}"
    );
    // Untick it; a server already there cannot be ticked.
    update(&mut s, key(KeyCode::Char(' ')), &mut fx);
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Char(' ')), &mut fx);
    assert!(
        s.status
            .as_deref()
            .unwrap_or("")
            .contains("in the config already")
    );
    update(&mut s, key(KeyCode::Enter), &mut fx);
    match &fx[..] {
        [Effect::Import(items)] => {
            assert_eq!(
                items.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(),
                ["demo"]
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.mode, Mode::Normal);
    // Esc leaves without importing; nothing ticked says so.
    fx.clear();
    update(&mut s, key(KeyCode::Char('i')), &mut fx);
    update(
        &mut s,
        Msg::ImportsFound(Ok(ImportFound::default())),
        &mut fx,
    );
    assert!(screen(&s, 80, 24).contains("No servers found in 0 files"));
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert!(s.status.as_deref().unwrap_or("").contains("nothing ticked"));
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
    assert!(fx.iter().all(|e| !matches!(e, Effect::Import(_))));
}

/// A connected server's detail longer than its pane: Shift-Tab from the
/// servers pane focuses it, the moves (PgDn, End, Home) scroll it, Shift-Tab
/// goes back; a click on a server row focuses the servers pane and shows
/// that server; the wheel over the detail scrolls the server's detail and
/// does not switch it to a tool.
#[test]
fn a_connected_servers_long_detail_is_focused_and_scrolled() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(80, 24), &mut fx);
    for i in 0..60 {
        update(
            &mut s,
            Msg::Manager(Event::Stderr {
                server: "demo".into(),
                line: format!("stderr line {i}"),
            }),
            &mut fx,
        );
    }
    // The tools pane had the focus: the detail is the tool's.
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert!(screen(&s, 80, 24).contains("Tool · echo"));
    // A click on the first server row: the servers pane and its detail.
    let mouse = |kind, x, y| {
        Msg::Mouse(MouseEvent {
            kind,
            column: x,
            row: y,
            modifiers: KeyModifiers::NONE,
        })
    };
    update(
        &mut s,
        mouse(MouseEventKind::Down(MouseButton::Left), 3, 1),
        &mut fx,
    );
    assert_eq!((s.focus, s.server_sel), (Pane::Servers, 0));
    assert!(screen(&s, 80, 24).contains("Server · demo"));
    // Shift-Tab: into the server's detail.
    update(&mut s, key(KeyCode::BackTab), &mut fx);
    assert_eq!(s.focus, Pane::Detail);
    let top = screen(&s, 80, 24);
    assert!(top.contains("Server · demo · 1–"), "{top}");
    update(&mut s, key(KeyCode::PageDown), &mut fx);
    assert!(s.detail_scroll > 0);
    update(&mut s, key(KeyCode::End), &mut fx);
    let end = screen(&s, 80, 24);
    assert!(
        end.contains("stderr line 0"),
        "the oldest line is last: {end}"
    );
    assert!(end.contains("Server · demo"), "{end}");
    update(&mut s, key(KeyCode::Home), &mut fx);
    assert_eq!(s.detail_scroll, 0);
    update(&mut s, key(KeyCode::BackTab), &mut fx);
    assert_eq!(s.focus, Pane::Servers);
    // From the tools pane (a tool's detail), a click on the server, then
    // the wheel over the detail: it scrolls the server's detail.
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert!(screen(&s, 80, 24).contains("Tool · echo"));
    update(
        &mut s,
        mouse(MouseEventKind::Down(MouseButton::Left), 3, 1),
        &mut fx,
    );
    let (x, y) = (s.areas.detail.x + 3, s.areas.detail.y + 3);
    update(&mut s, mouse(MouseEventKind::ScrollDown, x, y), &mut fx);
    assert_eq!((s.focus, s.detail_scroll), (Pane::Detail, 3));
    assert!(screen(&s, 80, 24).contains("Server · demo"));
    // The help says where Shift-Tab goes.
    let help = s.keymap.help();
    assert!(
        help.iter()
            .flat_map(|(_, rows)| rows)
            .any(|(_, what)| what.contains("the server's detail")),
        "{help:?}"
    );
}

/// A status message too long for the bar (a write conflict) is shown whole,
/// wrapped over the bottom of the panes.
#[test]
fn a_long_status_message_is_read_whole() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(60, 20), &mut fx);
    let msg = "not saved: /home/me/.config/mcpdeck/config.toml changed on disk since it was read, and the change touches deny_tools of everything; press R to read it again, then repeat the edit";
    update(&mut s, Msg::Written(Err(msg.into())), &mut fx);
    let out = screen(&s, 60, 20);
    let flat: String = out.lines().map(str::trim).collect::<Vec<_>>().join(" ");
    assert!(flat.contains("then repeat the edit"), "{out}");
    assert!(flat.contains("touches deny_tools of everything"), "{out}");
}

/// A pending server's detail says for how long and at which step (from
/// its frames); a failed one what was run (secrets masked, env values never
/// shown) and where.
#[test]
fn a_pending_server_shows_its_wait_and_step_and_a_failed_one_what_was_run() {
    use mcpdeck::mcp::FrameLog;
    use mcpdeck::mcp::framelog::{Direction, FrameMeta};
    use mcpdeck::mcp::jsonrpc::Id;
    let mut broken = ServerConfig::stdio(
        "broken",
        "node",
        &["my server.js", "--token", "s3cret", "--api-key=k3y"],
    );
    if let mcpdeck::config::TransportConfig::Stdio { env, cwd, .. } = &mut broken.transport {
        env.push(("API_KEY".into(), "v@lue".into()));
        *cwd = Some("/srv/app".into());
    }
    let configs = vec![ServerConfig::stdio("slow", "x", &[]), broken];
    let mut s = State::new(&configs, Keymap::default(), None);
    let log = Arc::new(FrameLog::new(100));
    s.frames = Some(log.clone());
    let mut fx = Vec::new();
    let t0 = std::time::Instant::now();
    update(&mut s, Msg::Clock(t0), &mut fx);
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "slow".into(),
            status: ServerStatus::Pending,
            negotiated: None,
        }),
        &mut fx,
    );
    update(&mut s, Msg::Clock(t0 + Duration::from_secs(3)), &mut fx);
    let out = screen(&s, 100, 24);
    assert!(
        out.contains("status: pending · 3 s · starting the process"),
        "{out}"
    );
    log.record(
        &Arc::from("slow"),
        Direction::Out,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
        FrameMeta {
            method: Some(Arc::from("initialize")),
            id: Some(Id::Num(1)),
            ..FrameMeta::default()
        },
    );
    update(&mut s, Msg::Clock(t0 + Duration::from_secs(4)), &mut fx);
    let out = screen(&s, 100, 24);
    assert!(
        out.contains("status: pending · 4 s · initialize sent, waiting for its answer"),
        "{out}"
    );
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "broken".into(),
            status: ServerStatus::Failed(ConnectError::Spawn {
                message: "node exited at once".into(),
            }),
            negotiated: None,
        }),
        &mut fx,
    );
    update(&mut s, key(KeyCode::Down), &mut fx);
    let out = screen(&s, 120, 30);
    assert!(
        out.contains("ran: node 'my server.js' --token •••••• --api-key=••••••"),
        "{out}"
    );
    assert!(out.contains("in: /srv/app"), "{out}");
    assert!(out.contains("env: API_KEY (values not shown)"), "{out}");
    assert!(
        !out.contains("s3cret") && !out.contains("k3y") && !out.contains("v@lue"),
        "{out}"
    );
}

/// A 401 without a challenge suggests an API key header; a login that finds
/// no OAuth on a server that answers without credentials says it needs
/// none, and on a 401 one that it wants an API key.
#[test]
fn no_oauth_says_api_key_or_no_login_needed() {
    use mcpdeck::mcp::auth::{AuthError, AuthErrorKind};
    let configs = vec![
        ServerConfig::http("locked", "https://locked.example.com/mcp"),
        ServerConfig::http("open", "https://open.example.com/mcp"),
    ];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "locked".into(),
            status: ServerStatus::NeedsAuth(ConnectError::Open(Box::new(HttpFailure::new(
                Some(401),
                "POST https://locked.example.com/mcp answered 401 Unauthorized to initialize"
                    .into(),
            )))),
            negotiated: None,
        }),
        &mut fx,
    );
    let out = screen(&s, 120, 30);
    assert!(
        out.contains("no WWW-Authenticate challenge: the server may want an API key"),
        "{out}"
    );
    assert!(out.contains("headers = { Authorization ="), "{out}");
    assert!(out.contains("try an OAuth login anyway"), "{out}");
    let no_registration = || {
        Err(AuthError::new(
            AuthErrorKind::Registration,
            "dynamic client registration failed (HTTP 404)",
        ))
    };
    update(
        &mut s,
        Msg::Manager(Event::LoginFinished {
            server: "locked".into(),
            result: no_registration(),
        }),
        &mut fx,
    );
    let status = s.status.clone().unwrap_or_default();
    assert!(status.contains("most likely wants an API key"), "{status}");
    update(
        &mut s,
        Msg::Manager(Event::Status {
            server: "open".into(),
            status: ServerStatus::Connected,
            negotiated: Some(Box::new(negotiated("open", Era::Initialize, "2025-11-25"))),
        }),
        &mut fx,
    );
    update(
        &mut s,
        Msg::Manager(Event::LoginFinished {
            server: "open".into(),
            result: no_registration(),
        }),
        &mut fx,
    );
    let status = s.status.clone().unwrap_or_default();
    assert!(status.contains("open needs no login"), "{status}");
}

/// The demo's own tools, as `mcpdeck --demo tools demo --json` lists them.
fn demo_tools() -> Vec<Tool> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .args(["--demo", "tools", "demo", "--json"])
        .env("MCPDECK_ERA_MEMORY", "off")
        .output()
        .expect("run mcpdeck --demo tools");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut findings = Vec::new();
    let tools: Vec<Tool> = v["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| Tool::parse(t, &mut findings))
        .collect();
    assert!(tools.len() >= 5, "{v}");
    tools
}

/// Servers connected with the same tools; the all-tools view rendered.
fn connected_with(configs: &[ServerConfig], tools: &[Tool]) -> (State, String) {
    let mut s = State::new(configs, Keymap::default(), None);
    let mut fx = Vec::new();
    for c in configs {
        for ev in [
            Event::Status {
                server: c.name.clone(),
                status: ServerStatus::Connected,
                negotiated: Some(Box::new(negotiated(&c.name, Era::Stateless, "2026-07-28"))),
            },
            Event::Lists {
                server: c.name.clone(),
                lists: Arc::new(Lists {
                    tools: tools.to_vec(),
                    ..Lists::default()
                }),
            },
        ] {
            update(&mut s, Msg::Manager(ev), &mut fx);
        }
    }
    update(&mut s, key(KeyCode::Char('t')), &mut fx);
    // Wide and tall enough for every row whole.
    let shown = screen(&s, 240, 3 * tools.len() as u16 + 12);
    (s, shown)
}

/// The rows of the all-tools view: `server__tool …`.
fn tool_rows<'a>(screen: &'a str, servers: &[&str]) -> Vec<&'a str> {
    screen
        .lines()
        .filter(|l| servers.iter().any(|s| l.contains(&format!("{s}__"))))
        .collect()
}

/// `--demo` runs one binary three ways: its servers share every tool
/// name, and must not be linted against each other (every tool was
/// tagged `lint`). The same servers outside the demo's group are.
#[test]
fn the_demos_tools_are_not_linted_against_each_other() {
    let tools = demo_tools();
    let demo: Vec<ServerConfig> = mcpdeck::demo::demo_config()
        .servers
        .into_iter()
        .filter(|c| c.name.starts_with("demo"))
        .collect();
    let names: Vec<&str> = demo.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["demo", "demo-legacy", "demo-stateless"]);
    let (s, shown) = connected_with(&demo, &tools);
    let rows = tool_rows(&shown, &names);
    assert_eq!(rows.len(), 3 * tools.len(), "{shown}");
    for row in &rows {
        assert!(
            !row.contains(" lint") && !row.contains(" risk"),
            "{row}\n{shown}"
        );
    }
    for v in &s.servers {
        let shadowing: Vec<_> = v
            .trust
            .findings
            .iter()
            .filter(|f| f.rule == "tool-shadowing")
            .collect();
        assert!(shadowing.is_empty(), "{}: {shadowing:#?}", v.name);
    }

    // Three different servers with these tools: each one is tagged, as
    // the demo's were (a tool naming another's tool is even a risk).
    let apart: Vec<ServerConfig> = names
        .iter()
        .map(|n| ServerConfig::stdio(*n, format!("/opt/{n}/server"), &[]))
        .collect();
    let (_, shown) = connected_with(&apart, &tools);
    let rows = tool_rows(&shown, &names);
    assert_eq!(rows.len(), 3 * tools.len(), "{shown}");
    assert!(
        rows.iter()
            .all(|r| r.contains(" lint") || r.contains(" risk")),
        "{shown}"
    );
}

/// One server configured twice (an import makes that: the same package,
/// another name): identical tools are not shadowing; a different
/// definition is a low note, without a badge.
#[test]
fn the_same_server_configured_twice_is_not_shadowing() {
    let tools = demo_tools();
    let twice = [
        ServerConfig::stdio("files", "npx", &["-y", "@acme/files@1.2.0", "/srv"]),
        ServerConfig::stdio("files-imported", "npx", &["@acme/files", "/srv"]),
    ];
    let (s, shown) = connected_with(&twice, &tools);
    let rows = tool_rows(&shown, &["files", "files-imported"]);
    assert_eq!(rows.len(), 2 * tools.len(), "{shown}");
    assert!(
        rows.iter()
            .all(|r| !r.contains(" lint") && !r.contains(" risk")),
        "{shown}"
    );
    assert!(
        s.servers
            .iter()
            .all(|v| v.trust.findings.iter().all(|f| f.rule != "tool-shadowing")),
        "identical definitions"
    );
    // A newer version of one tool on the second: a low note on both.
    let mut newer = tools.clone();
    newer[0].description = Some("Echo a message back, now with a prefix.".into());
    let mut st = s;
    let mut fx = Vec::new();
    update(
        &mut st,
        Msg::Manager(Event::Lists {
            server: "files-imported".into(),
            lists: Arc::new(Lists {
                tools: newer,
                ..Lists::default()
            }),
        }),
        &mut fx,
    );
    let notes: Vec<(String, String, mcpdeck::trust::Severity)> = st
        .servers
        .iter()
        .flat_map(|v| {
            v.trust
                .findings
                .iter()
                .filter(|f| f.rule == "tool-shadowing")
                .map(|f| (v.name.clone(), f.name.clone(), f.severity))
        })
        .collect();
    let first = tools[0].name.clone();
    assert_eq!(
        notes,
        [
            (
                "files".to_string(),
                first.clone(),
                mcpdeck::trust::Severity::Low
            ),
            (
                "files-imported".to_string(),
                first,
                mcpdeck::trust::Severity::Low
            ),
        ]
    );
    let shown = screen(&st, 240, 3 * tools.len() as u16 + 12);
    assert!(!shown.contains(" lint"), "{shown}");
}

/// Every badge the tools pane shows is in the help's legend, and `/`
/// with the badge finds its row there (searching "lint" found nothing).
#[test]
fn every_badge_is_in_the_help_legend_and_found_by_its_search() {
    use mcpdeck::trust::pin::{Change, ChangeKind};
    use mcpdeck::trust::{Finding, Kind, Severity};
    let mut s = state();
    let finding = |name: &str, severity| Finding {
        server: "demo".into(),
        kind: Kind::Tool,
        name: name.into(),
        rule: "model-instruction",
        severity,
        message: "m".into(),
        evidence: "e".into(),
        field: "description".into(),
    };
    let change = |name: &str, what| Change {
        kind: Kind::Tool,
        name: name.into(),
        what,
        fields: Vec::new(),
    };
    let v = &mut s.servers[0];
    v.trust.findings = vec![
        finding("echo", Severity::High),
        finding("get_weather", Severity::Medium),
    ];
    v.trust.changes = vec![
        change("echo", ChangeKind::Changed),
        change("get_weather", ChangeKind::Added),
    ];
    v.deny = vec!["delete_everything".into()];
    let out = screen(&s, 120, 30);
    let row = |tool: &str| {
        out.lines()
            .find(|l| l.contains(&format!("│{tool} ")))
            .unwrap_or_else(|| panic!("no row for {tool}:\n{out}"))
            .to_string()
    };
    // What the rows show (each badge at least once).
    let shown = [
        ("echo", "risk changed ro"),
        ("get_weather", "lint new open"),
        ("delete_everything", "destructive denied"),
    ];
    let mut badges = Vec::new();
    for (tool, want) in shown {
        assert!(row(tool).contains(want), "{tool}: {}", row(tool));
        badges.extend(want.split(' '));
    }
    let mut fx = Vec::new();
    for badge in badges {
        update(&mut s, key(KeyCode::Char('?')), &mut fx);
        update(&mut s, key(KeyCode::Char('/')), &mut fx);
        for c in badge.chars() {
            update(&mut s, key(KeyCode::Char(c)), &mut fx);
        }
        let found = screen(&s, 100, 40);
        let legend = found
            .split("What the lists show")
            .nth(1)
            .unwrap_or_else(|| panic!("{badge}: no legend found:\n{found}"));
        assert!(
            legend.lines().any(|l| l
                .trim_start_matches(['│', ' '])
                .starts_with(&format!("{badge} "))),
            "{badge}: no legend row:\n{found}"
        );
        // Close the search and the help.
        update(&mut s, key(KeyCode::Esc), &mut fx);
        update(&mut s, key(KeyCode::Esc), &mut fx);
        assert_eq!(s.mode, Mode::Normal, "{badge}");
    }
}

#[test]
fn a_search_in_the_server_detail_and_in_a_frame() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(100, 30), &mut fx);
    // Shift-Tab from the servers pane focuses the server's detail.
    update(&mut s, key(KeyCode::BackTab), &mut fx);
    assert_eq!(s.focus, Pane::Detail);
    for c in "/roots".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    // "client offers: roots, …", "roots: none offered", "roots last asked".
    assert_eq!(s.detail_search.hits.len(), 3);
    let out = screen(&s, 100, 30);
    assert!(
        out.contains("Server · demo · /roots▏ · match 1 of 3"),
        "{out}"
    );
    let bold = |s: &State, text: &str| {
        first_cell_of(s, 100, 30, text)
            .modifier
            .contains(ratatui::style::Modifier::BOLD)
    };
    assert!(bold(&s, "roots, sampling") && !bold(&s, "roots: none"));
    update(&mut s, key(KeyCode::Enter), &mut fx);
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    assert_eq!(s.mode, Mode::Normal, "n is the next match here");
    assert!(screen(&s, 100, 30).contains("match 2 of 3"));
    assert!(bold(&s, "roots: none"));
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(!s.detail_search.active());
    assert_eq!(s.focus, Pane::Detail, "Esc dropped the search only");

    // The protocol log: Tab focuses the frame, `/` searches it.
    use mcpdeck::mcp::framelog::{Direction, FrameLog, FrameMeta};
    let log = Arc::new(FrameLog::new(100));
    let demo: Arc<str> = Arc::from("demo");
    let body: Vec<String> = (0..200)
        .map(|i| format!("\"k{i}\": \"value {i}\""))
        .collect();
    log.record(
        &demo,
        Direction::In,
        &format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{{}}}}}",
            body.join(",")
        ),
        FrameMeta::default(),
    );
    s.frames = Some(log);
    update(&mut s, key(KeyCode::Char('L')), &mut fx);
    assert_eq!(s.mode, Mode::Log);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    assert!(s.log.frame_focus);
    for c in "/value 150\"".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    assert_eq!(s.log.frame_search.hits.len(), 1);
    let out = screen(&s, 100, 30);
    assert!(out.contains("\"k150\": \"value 150\""), "{out}");
    assert!(out.contains("· match 1 of 1"), "{out}");
    update(&mut s, key(KeyCode::Enter), &mut fx);
    update(&mut s, key(KeyCode::Char('n')), &mut fx);
    assert_eq!(
        s.mode,
        Mode::Log,
        "n is the next match, not the network view"
    );
    // z gives the frame the screen.
    update(&mut s, key(KeyCode::Char('z')), &mut fx);
    assert!(s.log.zoom);
    let out = screen(&s, 100, 30);
    assert!(!out.contains("Protocol log ·"), "{out}");
    assert!(out.contains("value 150"), "{out}");

    // A match that the pane's wrap cuts in two is found all the same.
    let long = format!("{}NEEDLE-ACROSS-THE-CUT{}", "a".repeat(85), "b".repeat(40));
    s.frames.as_ref().unwrap().record(
        &demo,
        Direction::In,
        &format!("{{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{{\"t\":\"{long}\"}}}}"),
        FrameMeta::default(),
    );
    update(&mut s, key(KeyCode::Esc), &mut fx);
    update(&mut s, key(KeyCode::End), &mut fx);
    for c in "/needle-across".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    assert_eq!(
        s.log.frame_search.hits.len(),
        1,
        "the match across the wrap"
    );
    assert!(screen(&s, 100, 30).contains("match 1 of 1"));
}

#[test]
fn a_call_is_copied_as_a_command_line_a_shell_reads_back() {
    let mut s = state();
    s.config_path = Some(std::path::PathBuf::from("/tmp/it's my config.toml"));
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    // A message with a quote, a space and a dollar: the shell must not
    // touch any of them.
    for c in "it's $HOME".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, ctrl('s'), &mut fx);
    finish(
        &mut s,
        Ok(json!({"content": [{"type": "text", "text": "ok"}]})),
    );
    fx.clear();
    update(&mut s, key(KeyCode::Char('Y')), &mut fx);
    let line = match &fx[..] {
        [Effect::Copy(line)] => line.clone(),
        other => panic!("{other:?}"),
    };
    // The words as a shell splits them.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "set -- {line}; for w in \"$@\"; do printf '%s\\n' \"$w\"; done"
        ))
        .output()
        .unwrap();
    let words: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        words,
        [
            "mcpdeck",
            "--config",
            "/tmp/it's my config.toml",
            "call",
            "demo",
            "echo",
            r#"{"message":"it's $HOME"}"#
        ],
        "{line}"
    );
}

#[test]
fn f_follows_a_resource_link_and_esc_comes_back_to_the_result() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(100, 30), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    let _ = call_selected(&mut s);
    finish(
        &mut s,
        Ok(json!({"content": [
            {"type": "resource_link", "uri": "test://a", "name": "A"},
            {"type": "text", "text": "two links"},
            {"type": "resource_link", "uri": "test://b", "name": "B", "description": "the second"}
        ]})),
    );
    update(&mut s, key(KeyCode::Char('f')), &mut fx);
    assert_eq!(s.mode, Mode::Links);
    let out = screen(&s, 100, 30);
    assert!(out.contains("Links in the result (2)"), "{out}");
    assert!(out.contains("test://b  B · the second"), "{out}");
    fx.clear();
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.mode, Mode::Resources);
    match &fx[..] {
        [
            Effect::Manager(Command::Request {
                method,
                params,
                server,
                ..
            }),
        ] => {
            assert_eq!(method, "resources/read");
            assert_eq!(server, "demo");
            assert_eq!(params["uri"], "test://b");
        }
        other => panic!("{other:?}"),
    }
    // Esc comes back at once; the read still under way is cancelled.
    fx.clear();
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(
        matches!(&fx[..], [Effect::Manager(Command::Cancel { .. })]),
        "{fx:?}"
    );
    assert_eq!(s.mode, Mode::Normal);
    assert_eq!(s.focus, Pane::Result);
    // A result without links says so.
    s.focus = Pane::Tools;
    let _ = call_selected(&mut s);
    finish(
        &mut s,
        Ok(json!({"content": [{"type": "text", "text": "none"}]})),
    );
    update(&mut s, key(KeyCode::Char('f')), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
    assert!(
        s.status
            .as_deref()
            .unwrap_or("")
            .contains("no resource link")
    );
}

#[test]
fn every_call_goes_into_the_history_which_shows_and_runs_it_again() {
    let mut s = state();
    let mut fx = Vec::new();
    update(&mut s, Msg::Resize(120, 30), &mut fx);
    update(&mut s, key(KeyCode::Tab), &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    for c in "hi there".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, ctrl('s'), &mut fx);
    let mut fx = Vec::new();
    let tag = s.inflight().unwrap().tag;
    update(
        &mut s,
        Msg::Manager(Event::CallFinished {
            tag,
            server: "demo".into(),
            tool: "echo".into(),
            result: Ok(CallResult::parse(
                json!({"content": [{"type": "text", "text": "kept text"}]}),
                &mut Vec::new(),
            )),
            elapsed: Duration::from_millis(12),
        }),
        &mut fx,
    );
    match &fx[..] {
        [Effect::History(e)] => {
            assert_eq!((e.server.as_str(), e.tool.as_str()), ("demo", "echo"));
            assert_eq!(e.args, json!({"message": "hi there"}));
            assert_eq!(e.status, mcpdeck::tui::history::Status::Ok);
            assert_eq!(e.ms, 12);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(s.history.len(), 1);
    // A failed call too, newest first.
    update(&mut s, key(KeyCode::BackTab), &mut fx);
    let _ = call_selected(&mut s);
    finish(&mut s, Err("the server fell over"));
    assert_eq!(s.history[0].status, mcpdeck::tui::history::Status::Error);
    update(&mut s, key(KeyCode::Char('H')), &mut fx);
    assert_eq!(s.mode, Mode::History);
    let out = screen(&s, 120, 30);
    assert!(out.contains("History (2)"), "{out}");
    assert!(out.contains("error"), "{out}");
    assert!(out.contains("message=\"hi there\""), "{out}");
    // `/` filters (server, tool, status, arguments); Enter shows the kept
    // result.
    for c in "/ok".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(mcpdeck::tui::app::history_shown(&s).len(), 1);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
    assert_eq!(s.focus, Pane::Result);
    assert!(screen(&s, 120, 30).contains("kept text"));
    // `r` runs it again, as it was.
    update(&mut s, key(KeyCode::Char('H')), &mut fx);
    fx.clear();
    update(&mut s, key(KeyCode::Char('r')), &mut fx);
    match &fx[..] {
        [
            Effect::Manager(Command::Call {
                server,
                tool,
                arguments,
                ..
            }),
        ] => {
            assert_eq!((server.as_str(), tool.as_str()), ("demo", "echo"));
            assert_eq!(arguments, &json!({"message": "hi there"}));
        }
        other => panic!("{other:?}"),
    }
    assert!(s.inflight().is_some());
    // `e` opens the editor with its arguments (after this call ends).
    finish(&mut s, Ok(json!({"content": []})));
    update(&mut s, key(KeyCode::Char('H')), &mut fx);
    update(&mut s, key(KeyCode::Char('e')), &mut fx);
    assert_eq!(s.mode, Mode::Editor);
    let out = screen(&s, 120, 30);
    assert!(out.contains("hi there"), "{out}");
}

// ─── Calls side by side ────────────────────────────────────────────────────

/// Start a call of the selected tool; its tag.
fn start(s: &mut State) -> u64 {
    s.focus = Pane::Tools;
    let fx = call_selected(s);
    fx.iter()
        .find_map(|e| match e {
            Effect::Manager(Command::Call { tag, .. }) => Some(*tag),
            _ => None,
        })
        .expect("the call is sent at once, whatever else runs")
}

fn started(s: &mut State, tag: u64, id: i64) {
    let (server, tool) = {
        let c = s.running.iter().find(|c| c.tag == tag).expect("running");
        (c.server.clone(), c.tool.clone())
    };
    update(
        s,
        Msg::Manager(Event::CallStarted {
            tag,
            server,
            tool,
            request_id: id,
        }),
        &mut Vec::new(),
    );
}

fn ended(s: &mut State, tag: u64, result: Result<Value, mcpdeck::mcp::session::RequestError>) {
    let c = s
        .running
        .iter()
        .find(|c| c.tag == tag)
        .expect("running")
        .clone();
    let result = result
        .map(|v| CallResult::parse(v, &mut Vec::new()))
        .map_err(mcpdeck::mcp::manager::CallError::Request);
    update(
        s,
        Msg::Manager(Event::CallFinished {
            tag,
            server: c.server,
            tool: c.tool,
            result,
            elapsed: Duration::from_millis(30),
        }),
        &mut Vec::new(),
    );
}

fn text(t: &str) -> Value {
    json!({"content": [{"type": "text", "text": t}]})
}

#[test]
fn calls_run_side_by_side_and_each_keeps_its_own_entry() {
    let mut s = sized(120, 40);
    let first = start(&mut s);
    let mut fx = Vec::new();
    // A second call while the first runs: sent at once, not refused.
    s.focus = Pane::Tools;
    update(&mut s, key(KeyCode::Down), &mut fx);
    let second = start(&mut s);
    assert_ne!(first, second);
    assert_eq!(s.running.len(), 2);
    let tools: Vec<String> = s.running.iter().map(|c| c.tool.clone()).collect();
    assert_eq!(tools, ["echo", "get_weather"]);
    // The newest is shown; the strip lists both.
    assert_eq!(s.inflight().map(|c| c.tag), Some(second));
    let out = screen(&s, 120, 40);
    assert!(
        out.contains("Result · running get_weather on demo"),
        "{out}"
    );
    assert!(
        out.contains("2/2") && out.contains(" 1 ") && out.contains("echo"),
        "{out}"
    );
    // The first ends while the second is shown: the screen stays on the
    // second; the status bar says the first ended and how to see it.
    ended(&mut s, first, Ok(text("FIRST-RESULT")));
    assert_eq!(s.inflight().map(|c| c.tag), Some(second));
    let status = s.status.clone().unwrap_or_default();
    assert!(
        status.contains("call 1 (echo on demo) ended: ok"),
        "{status}"
    );
    assert!(!screen(&s, 120, 40).contains("FIRST-RESULT"));
    // `[` shows it, `]` goes back to the running one.
    update(&mut s, key(KeyCode::Char('[')), &mut fx);
    assert_eq!(s.shown, Some(first));
    let out = screen(&s, 120, 40);
    assert!(out.contains("FIRST-RESULT") && out.contains("1/2"), "{out}");
    update(&mut s, key(KeyCode::Char(']')), &mut fx);
    assert_eq!(s.inflight().map(|c| c.tag), Some(second));
    // Esc on the running call's result cancels that call only.
    s.focus = Pane::Result;
    fx.clear();
    update(&mut s, key(KeyCode::Esc), &mut fx);
    let cancels: Vec<u64> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Manager(Command::Cancel { tag }) => Some(*tag),
            _ => None,
        })
        .collect();
    assert_eq!(cancels, [second]);
    ended(
        &mut s,
        second,
        Err(mcpdeck::mcp::session::RequestError::Cancelled {
            method: "tools/call get_weather".into(),
        }),
    );
    assert!(s.running.is_empty());
    assert_eq!(s.outcome.as_ref().map(|o| o.tag), Some(second));
    // Each went into the history with its own arguments.
    let kept: Vec<(String, &str)> = s
        .history
        .iter()
        .map(|e| (e.tool.clone(), e.status.word()))
        .collect();
    assert_eq!(
        kept,
        [
            ("get_weather".to_string(), "cancelled"),
            ("echo".to_string(), "ok")
        ]
    );
    let out = screen(&s, 120, 40);
    assert!(
        out.contains("⊘ get_weather") && out.contains("✓ echo"),
        "{out}"
    );
}

#[test]
fn each_call_keeps_its_progress_and_its_scroll() {
    let mut s = sized(100, 30);
    let a = start(&mut s);
    let b = start(&mut s);
    started(&mut s, a, 3);
    started(&mut s, b, 4);
    let progress = |token: i64, p: f64| {
        Msg::Manager(Event::Notification {
            server: "demo".into(),
            method: "notifications/progress".into(),
            params: Some(json!({"progressToken": token, "progress": p, "total": 4})),
        })
    };
    let mut fx = Vec::new();
    update(&mut s, progress(3, 1.0), &mut fx);
    update(&mut s, progress(4, 3.0), &mut fx);
    let ratio = |s: &State, t: u64| {
        s.running
            .iter()
            .find(|c| c.tag == t)
            .and_then(|c| c.progress.as_ref())
            .and_then(|p| p.ratio())
    };
    assert_eq!(ratio(&s, a), Some(0.25));
    assert_eq!(ratio(&s, b), Some(0.75));
    assert!(screen(&s, 100, 30).contains("75%"));
    // A long result, scrolled; another entry shown; back: where it was.
    let long: String = (0..200).map(|i| format!("line {i}\n")).collect();
    ended(&mut s, b, Ok(text(&long)));
    s.focus = Pane::Result;
    for _ in 0..3 {
        update(&mut s, key(KeyCode::PageDown), &mut fx);
    }
    let scrolled = s.result_scroll;
    assert!(scrolled > 0);
    update(&mut s, key(KeyCode::Char('[')), &mut fx);
    assert_eq!(s.inflight().map(|c| c.tag), Some(a));
    update(&mut s, key(KeyCode::Char(']')), &mut fx);
    assert_eq!(s.result_scroll, scrolled);
    // At the newest, `]` says so.
    update(&mut s, key(KeyCode::Char(']')), &mut fx);
    assert!(s.status.as_deref().unwrap_or("").contains("newest"));
}

#[test]
fn finished_calls_kept_beside_the_history_are_bounded() {
    let mut s = sized(100, 30);
    for i in 0..(mcpdeck::tui::app::KEEP_CALLS + 5) {
        let t = start(&mut s);
        ended(&mut s, t, Ok(text(&format!("result {i}"))));
    }
    assert_eq!(s.entry_count(), mcpdeck::tui::app::KEEP_CALLS + 1);
    // The oldest went; the newest is shown.
    let out = screen(&s, 100, 30);
    let last = mcpdeck::tui::app::KEEP_CALLS + 4;
    assert!(out.contains(&format!("result {last}")), "{out}");
    assert_eq!(s.history.len(), mcpdeck::tui::app::KEEP_CALLS + 5);
}

#[test]
fn a_server_request_says_which_call_it_is_for() {
    let mut s = sized(120, 40);
    let a = start(&mut s);
    started(&mut s, a, 5);
    // One call running on the server: the request is its.
    ask(
        &mut s,
        1,
        "demo",
        "elicitation/create",
        json!({"message": "name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}),
    );
    assert_eq!(s.asks.queue[0].call, Some(a));
    let out = screen(&s, 120, 40);
    assert!(out.contains("for call 1 (echo)"), "{out}");
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Esc), &mut fx);
    // Two: only the protocol's word tells (a stateless round names it).
    let b = start(&mut s);
    started(&mut s, b, 9);
    ask(
        &mut s,
        2,
        "demo",
        "elicitation/create",
        json!({"message": "?"}),
    );
    assert_eq!(s.asks.queue[0].call, None);
    update(&mut s, key(KeyCode::Esc), &mut fx);
    let related = |s: &mut State, id: u64, to: i64, fx: &mut Vec<Effect>| {
        update(
            s,
            Msg::Manager(Event::ServerRequest {
                id,
                server: "demo".into(),
                method: "elicitation/create".into(),
                params: json!({"message": "?"}),
                related: Some(to),
                request_id: None,
            }),
            fx,
        );
    };
    related(&mut s, 3, 5, &mut fx);
    assert_eq!(s.asks.queue[0].call, Some(a));
    update(&mut s, key(KeyCode::Esc), &mut fx);
    // A call the protocol names that is not running, with two running:
    // none, not a guess.
    related(&mut s, 4, 99, &mut fx);
    assert_eq!(s.asks.queue[0].call, None);
}

#[test]
fn a_request_put_aside_holds_nothing_else_and_comes_back_as_it_was() {
    let mut s = sized(100, 30);
    let a = start(&mut s);
    ask(
        &mut s,
        1,
        "demo",
        "elicitation/create",
        json!({"message": "name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}),
    );
    let mut fx = Vec::new();
    type_text(&mut s, "Ada", &mut fx);
    assert!(s.asks.is_open());
    // Ctrl-L: later. The panes have the keys again.
    update(&mut s, ctrl('l'), &mut fx);
    assert!(!s.asks.is_open());
    assert!(answers(&fx).is_empty(), "nothing is answered");
    let out = screen(&s, 100, 30);
    assert!(out.contains("⚑ 1 request (I)"), "{out}");
    assert!(!out.contains("asks for input"), "{out}");
    // Another call starts and ends meanwhile.
    s.focus = Pane::Tools;
    update(&mut s, key(KeyCode::Down), &mut fx);
    let b = start(&mut s);
    ended(&mut s, b, Ok(text("OTHER")));
    assert!(screen(&s, 100, 30).contains("OTHER"));
    // A second request waits with the first, and says so.
    ask(
        &mut s,
        2,
        "demo",
        "elicitation/create",
        json!({"message": "more?"}),
    );
    assert!(!s.asks.is_open());
    assert!(s.status.as_deref().unwrap_or("").contains("2 waiting"));
    // I: back, as it was left.
    update(&mut s, key(KeyCode::Char('I')), &mut fx);
    assert!(s.asks.is_open());
    let out = screen(&s, 100, 30);
    assert!(out.contains("Ada") && out.contains("1 of 2"), "{out}");
    assert!(s.running.iter().any(|c| c.tag == a));
}

#[test]
fn quitting_with_calls_running_asks_and_says_how_many() {
    let mut s = sized(100, 30);
    start(&mut s);
    start(&mut s);
    let mut fx = Vec::new();
    s.focus = Pane::Tools;
    update(&mut s, key(KeyCode::Char('q')), &mut fx);
    assert!(screen(&s, 100, 30).contains("2 calls are in flight"));
}

#[test]
fn two_marked_calls_in_the_history_show_their_diff() {
    use mcpdeck::tui::history::{Entry, Status};
    let mut s = sized(120, 40);
    let entry = |at: u64, city: &str, lines: &str| Entry {
        server: "demo".into(),
        tool: "get_weather".into(),
        args: json!({"city": city, "units": "metric"}),
        status: Status::Ok,
        ms: 12,
        at,
        result: Some(text(lines)),
        error: None,
        cut: None,
    };
    let same: String = (0..20).map(|i| format!("same {i}\n")).collect();
    // Newest first, as the history keeps them.
    s.history = vec![
        entry(1_800_000_100, "Paris", &format!("{same}Temp: 21\nwind: 3")),
        entry(1_800_000_000, "Oslo", &format!("{same}Temp: 4\nwind: 3")),
    ];
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('H')), &mut fx);
    // One marked: `d` compares it with the one selected.
    update(&mut s, key(KeyCode::Char('m')), &mut fx);
    assert!(screen(&s, 120, 40).contains("● "));
    update(&mut s, key(KeyCode::Char('d')), &mut fx);
    assert!(s.history_diff.is_none(), "the same call twice is no diff");
    update(&mut s, key(KeyCode::Down), &mut fx);
    update(&mut s, key(KeyCode::Char('d')), &mut fx);
    let out = screen(&s, 120, 40);
    // The older is A.
    assert!(
        out.contains("A  2027-01-15") && out.contains("city=\"Oslo\""),
        "{out}"
    );
    assert!(out.contains("Arguments: 1 field differs"), "{out}");
    assert!(out.contains("city: [-Oslo-]{+Paris+}"), "{out}");
    assert!(out.contains("1 line removed, 1 added"), "{out}");
    assert!(
        out.contains("- Temp: 4") && out.contains("+ Temp: 21"),
        "{out}"
    );
    // Long unchanged runs are cut around the change.
    assert!(out.contains("… 17 same lines …"), "{out}");
    assert!(
        out.contains("  same 19") && !out.contains("  same 2\n"),
        "{out}"
    );
    // Esc: back to the list, the marks kept.
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(s.history_diff.is_none());
    assert_eq!(s.history_marked.len(), 1);
    assert_eq!(s.mode, mcpdeck::tui::app::Mode::History);
}

#[test]
fn the_entries_kept_are_bounded_by_when_they_ended_and_none_shown_is_lost() {
    use mcpdeck::tui::app::KEEP_CALLS;
    let mut s = sized(100, 30);
    // A long call first, then more than KEEP quick ones.
    let long = start(&mut s);
    for i in 0..KEEP_CALLS + 2 {
        let t = start(&mut s);
        ended(&mut s, t, Ok(text(&format!("quick {i}"))));
    }
    // It ends last, unseen: it is kept (it ended last), with its number.
    ended(&mut s, long, Ok(text("LONG")));
    assert!(s.entries().iter().any(|e| e.tag == long));
    let status = s.status.clone().unwrap_or_default();
    assert!(status.starts_with("call 1 ("), "{status}");
    // Step to the oldest and back and forth: the entry shown is always
    // there, never dropped by the bound.
    let mut fx = Vec::new();
    s.focus = Pane::Result;
    for _ in 0..KEEP_CALLS + 3 {
        update(&mut s, key(KeyCode::Char('[')), &mut fx);
        assert_eq!(s.outcome.as_ref().map(|o| o.tag), s.shown);
    }
    assert_eq!(s.shown, Some(long));
    assert!(screen(&s, 100, 30).contains("LONG"));
    update(&mut s, key(KeyCode::Char(']')), &mut fx);
    update(&mut s, key(KeyCode::Char('[')), &mut fx);
    assert_eq!(s.outcome.as_ref().map(|o| o.tag), Some(long));
    assert_eq!(s.entry_count(), KEEP_CALLS + 1);
}

#[test]
fn a_call_that_ends_takes_its_waiting_requests_with_it() {
    let mut s = sized(100, 30);
    let a = start(&mut s);
    ask(
        &mut s,
        1,
        "demo",
        "elicitation/create",
        json!({"message": "?"}),
    );
    let mut fx = Vec::new();
    update(&mut s, ctrl('l'), &mut fx);
    assert_eq!(s.asks.waiting_aside(), 1);
    // Cancelled from its result: the request is answered `cancel`.
    s.focus = Pane::Result;
    update(&mut s, key(KeyCode::Esc), &mut fx);
    let mut fx2 = Vec::new();
    let c = s.running[0].clone();
    update(
        &mut s,
        Msg::Manager(Event::CallFinished {
            tag: a,
            server: c.server,
            tool: c.tool,
            result: Err(mcpdeck::mcp::manager::CallError::Request(
                mcpdeck::mcp::session::RequestError::Cancelled {
                    method: "tools/call echo".into(),
                },
            )),
            elapsed: Duration::from_millis(5),
        }),
        &mut fx2,
    );
    assert_eq!(answers(&fx2), [(1, Ok(json!({"action": "cancel"})))]);
    assert!(s.asks.is_empty());
    assert_eq!(s.asks.waiting_aside(), 0);
    assert!(!screen(&s, 100, 30).contains("⚑"));
}

#[test]
fn json_in_a_result_folds_and_unfolds() {
    let mut s = sized(100, 40);
    let list: Vec<u32> = (0..40).collect();
    let doc = json!({"a": {"x": 1, "y": 2}, "list": list, "deep": {"inner": {"k": "v"}}});
    result_of(&mut s, text(&doc.to_string()));
    let mut fx = Vec::new();
    let pane = |s: &State| pane_text(s, 100, 40, s.areas.result);
    assert!(pane(&s).contains("\"x\": 1"));
    // C: everything below the top level folded, each with its size.
    update(&mut s, key(KeyCode::Char('C')), &mut fx);
    let out = pane(&s);
    assert!(out.contains("\"a\": {…} 2 keys,"), "{out}");
    assert!(out.contains("\"list\": […] 40 items,"), "{out}");
    assert!(out.contains("\"deep\": {…} 1 key"), "{out}");
    assert!(!out.contains("\"x\": 1") && !out.contains("inner"), "{out}");
    // → on the top line (the root, not folded): the first folded in view.
    update(&mut s, key(KeyCode::Right), &mut fx);
    let out = pane(&s);
    assert!(
        out.contains("\"x\": 1") && out.contains("\"list\": […] 40 items,"),
        "{out}"
    );
    // E: all of it again.
    update(&mut s, key(KeyCode::Char('E')), &mut fx);
    let out = pane(&s);
    assert!(out.contains("    39") || out.contains("    3,"), "{out}");
    // ← folds the innermost node holding the cursor: ↓ down to the
    // line of "inner" (near the end: the view follows the cursor).
    let mut guard = 0;
    loop {
        let o = s.outcome.as_ref().unwrap();
        let row = o
            .lines
            .line(o.cursor)
            .map(|l| l.to_string())
            .unwrap_or_default();
        if row.contains("\"inner\"") {
            break;
        }
        assert!(
            update(&mut s, key(KeyCode::Down), &mut fx),
            "the cursor moves"
        );
        guard += 1;
        assert!(guard < 100, "inner never reached");
    }
    // The cursor's row is drawn selected.
    let cell = first_cell_of(&s, 100, 40, "\"inner\"");
    assert!(cell.modifier.contains(ratatui::style::Modifier::REVERSED));
    update(&mut s, key(KeyCode::Left), &mut fx);
    let out = pane(&s);
    assert!(out.contains("\"inner\": {…} 1 key"), "{out}");
    assert!(!out.contains("\"k\": \"v\""), "{out}");
    // ← again: the node around it (deep), then → opens deep again with
    // inner still folded.
    update(&mut s, key(KeyCode::Left), &mut fx);
    let out = pane(&s);
    assert!(out.contains("\"deep\": {…} 1 key"), "{out}");
    update(&mut s, key(KeyCode::Right), &mut fx);
    let out = pane(&s);
    assert!(out.contains("\"inner\": {…} 1 key"), "{out}");
    // Home: the top, the rest as it was.
    update(&mut s, key(KeyCode::Home), &mut fx);
    assert!(pane(&s).contains("\"x\": 1"));
    assert_eq!(s.outcome.as_ref().unwrap().cursor, 0);
    // A result that is not JSON: ← moves between panes as before.
    result_of(&mut s, text("plain words"));
    update(&mut s, key(KeyCode::Left), &mut fx);
    assert_eq!(s.focus, Pane::Servers);
}

#[test]
fn the_roots_dialog_writes_a_servers_roots() {
    let mut s = sized(100, 30);
    let mut fx = Vec::new();
    // The demo (no config file) keeps nothing.
    update(&mut s, key(KeyCode::Char('D')), &mut fx);
    assert!(s.status.as_deref().unwrap_or("").contains("no config file"));
    s.config_path = Some("/tmp/mcpdeck-test.toml".into());
    // D asks the driver for the roots as written in the file.
    update(&mut s, key(KeyCode::Char('D')), &mut fx);
    assert!(
        matches!(&fx[..], [Effect::ReadRoots(n)] if n == "demo"),
        "{fx:?}"
    );
    let read = |s: &mut State, roots: Option<Vec<&str>>, fx: &mut Vec<Effect>| {
        update(
            s,
            Msg::RootsRead {
                server: "demo".into(),
                roots: Ok(roots.map(|r| r.into_iter().map(String::from).collect())),
            },
            fx,
        );
    };
    // As written: a reference stays one.
    read(&mut s, Some(vec!["${HOME}/src", "rel dir"]), &mut fx);
    let out = screen(&s, 100, 30);
    assert!(out.contains("Roots of demo"), "{out}");
    assert!(out.contains("'${HOME}/src' 'rel dir'"), "{out}");
    fx.clear();
    update(&mut s, ctrl('u'), &mut fx);
    type_text(&mut s, "/srv/a \"${HOME}/my notes\"", &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let written: Vec<Option<Vec<String>>> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::WriteRoots { server, roots } if server == "demo" => Some(roots.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        written,
        [Some(vec![
            "/srv/a".to_string(),
            "${HOME}/my notes".to_string()
        ])]
    );
    // A server on the global roots opens on `-`: Enter keeps it so.
    fx.clear();
    read(&mut s, None, &mut fx);
    assert!(screen(&s, 100, 30).contains("the global roots"));
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert!(
        matches!(&fx[..], [Effect::WriteRoots { roots: None, .. }]),
        "{fx:?}"
    );
    // `~`: refused, with the fix.
    fx.clear();
    read(&mut s, Some(vec![]), &mut fx);
    type_text(&mut s, "~/src", &mut fx);
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert!(fx.is_empty());
    assert!(screen(&s, 100, 30).contains("${HOME}"));
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(s.mode, mcpdeck::tui::app::Mode::Normal);
    // With --roots, the config's roots are not the ones offered.
    s.roots_flag = true;
    update(&mut s, key(KeyCode::Char('D')), &mut fx);
    assert!(s.status.as_deref().unwrap_or("").contains("--roots"));
}

#[test]
fn a_result_is_saved_as_a_test_step_through_the_picker() {
    use mcpdeck::tui::app::PickFor;
    let mut s = sized(120, 40);
    let mut fx = Vec::new();
    // Nothing called yet: nothing to save, and it says so.
    update(&mut s, key(KeyCode::Char('T')), &mut fx);
    assert!(fx.is_empty());
    assert!(
        s.status.as_deref().unwrap().contains("no call yet"),
        "{:?}",
        s.status
    );
    result_of(&mut s, text("Echo: hi"));
    s.focus = Pane::Result;
    update(&mut s, key(KeyCode::Char('T')), &mut fx);
    let draft = match fx.as_slice() {
        [Effect::FindSuites(PickFor::Add(d))] => d.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        (draft.server.as_str(), draft.tool.as_str()),
        ("demo", "echo")
    );
    assert!(draft.snapshot);
    fx.clear();
    let dir = tempfile::tempdir().unwrap();
    let found = vec![
        dir.path().join("a.mcpdeck.toml"),
        dir.path().join("sub/b.mcpdeck.toml"),
    ];
    update(
        &mut s,
        Msg::SuitesFound {
            purpose: PickFor::Add(draft.clone()),
            base: dir.path().to_path_buf(),
            found,
        },
        &mut fx,
    );
    assert_eq!(s.mode, Mode::SuitePick);
    let out = screen(&s, 120, 40);
    assert!(out.contains("Add echo on demo to a test suite"), "{out}");
    assert!(out.contains("2 found (↑/↓ takes one)"), "{out}");
    assert!(out.contains("sub/b.mcpdeck.toml"), "{out}");
    // The first found is offered; ↓ takes the next; typing replaces it
    // with a new name, which gets the suite ending.
    assert_eq!(s.suite_pick.as_ref().unwrap().line, "a.mcpdeck.toml");
    update(&mut s, key(KeyCode::Down), &mut fx);
    assert_eq!(s.suite_pick.as_ref().unwrap().line, "sub/b.mcpdeck.toml");
    for _ in 0.."sub/b.mcpdeck.toml".len() {
        update(&mut s, key(KeyCode::Backspace), &mut fx);
    }
    for c in "weather".chars() {
        update(&mut s, key(KeyCode::Char(c)), &mut fx);
    }
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
    let (file, draft) = match fx.as_slice() {
        [Effect::SaveStep { file, draft }] => (file.clone(), draft.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(file, dir.path().join("weather.mcpdeck.toml"));
    // What the driver does with it, and what the status says after.
    let saved = mcpdeck::suite::append::save(&file, &draft);
    update(&mut s, Msg::StepSaved(saved), &mut fx);
    let status = s.status.clone().unwrap();
    assert!(
        status.starts_with("made a suite with step \"echo\""),
        "{status}"
    );
    assert!(status.contains("mcpdeck --demo test"), "{status}");
    let suite = mcpdeck::suite::load(&file).unwrap();
    assert_eq!(suite.steps[0].subject, "echo");
    // The next pick offers the file picked last.
    fx.clear();
    update(&mut s, key(KeyCode::Char('X')), &mut fx);
    assert!(matches!(fx.as_slice(), [Effect::FindSuites(PickFor::Run)]));
    update(
        &mut s,
        Msg::SuitesFound {
            purpose: PickFor::Run,
            base: dir.path().to_path_buf(),
            found: vec![file.clone()],
        },
        &mut fx,
    );
    assert_eq!(s.suite_pick.as_ref().unwrap().line, "weather.mcpdeck.toml");
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
}

#[test]
fn a_suites_run_shows_its_steps_and_a_failures_diff() {
    use mcpdeck::tui::app::PickFor;
    let mut s = sized(100, 30);
    let mut fx = Vec::new();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("w.mcpdeck.toml");
    update(
        &mut s,
        Msg::SuitesFound {
            purpose: PickFor::Run,
            base: dir.path().to_path_buf(),
            found: vec![file.clone()],
        },
        &mut fx,
    );
    update(&mut s, key(KeyCode::Enter), &mut fx);
    assert!(matches!(fx.as_slice(), [Effect::RunSuite(f)] if *f == file));
    assert_eq!(s.mode, Mode::Tests);
    assert!(screen(&s, 100, 30).contains("running `mcpdeck test"));
    // Another run is refused while this one goes.
    fx.clear();
    update(&mut s, key(KeyCode::Char('r')), &mut fx);
    assert!(fx.is_empty());
    let doc = json!({"suites": [{"file": "w.mcpdeck.toml", "steps": [
        {"name": "echo hi", "kind": "call", "server": "demo", "status": "passed", "ms": 1.5, "failures": []},
        {"name": "weather", "kind": "call", "server": "demo", "status": "failed", "ms": 3.0, "failures": [
            {"assertion": "snapshot", "message": "the result differs from the snapshot",
             "expected": {"city": "Oslo", "temp": 4}, "actual": {"city": "Paris", "temp": 4}},
            {"assertion": "max_ms", "message": "took 3 ms, more than max_ms = 1", "expected": 1, "actual": 3}
        ]},
        {"name": "gone", "kind": "read", "server": "x", "status": "error", "ms": 0.0, "failures": [],
         "error": "could not connect: \u{1b}[31mboom"}
    ]}], "passed": 1, "failed": 1});
    update(
        &mut s,
        Msg::SuiteRan {
            file: file.clone(),
            result: Ok(doc),
        },
        &mut fx,
    );
    let out = screen(&s, 100, 30);
    assert!(
        out.contains("Tests · 1 passed, 1 failed, 1 error (3)"),
        "{out}"
    );
    assert!(out.contains("✓ echo hi"), "{out}");
    assert!(
        out.contains("✗ weather") && out.contains("the result differs from the snapshot"),
        "{out}"
    );
    assert!(out.contains("! gone") && !out.contains('\u{1b}'), "{out}");
    // The first step that did not pass is selected; Enter opens it.
    update(&mut s, key(KeyCode::Enter), &mut fx);
    let out = screen(&s, 100, 30);
    assert!(out.contains("✗ weather · call failed on demo"), "{out}");
    assert!(
        out.contains("snapshot: the result differs from the snapshot"),
        "{out}"
    );
    assert!(out.contains("-   \"city\": \"Oslo\","), "{out}");
    assert!(out.contains("+   \"city\": \"Paris\","), "{out}");
    assert!(
        out.contains("max_ms: took 3 ms, more than max_ms = 1"),
        "{out}"
    );
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert!(!s.tests.as_ref().unwrap().open);
    // A run without a report says why.
    update(&mut s, key(KeyCode::Char('r')), &mut fx);
    update(
        &mut s,
        Msg::SuiteRan {
            file,
            result: Err("w.mcpdeck.toml:3:1: unknown key `tol`".into()),
        },
        &mut fx,
    );
    let out = screen(&s, 100, 30);
    assert!(out.contains("Tests · not run"), "{out}");
    assert!(out.contains("unknown key `tol`"), "{out}");
    update(&mut s, key(KeyCode::Esc), &mut fx);
    assert_eq!(s.mode, Mode::Normal);
}

#[test]
fn a_history_call_with_masked_arguments_is_not_saved_as_a_step() {
    use mcpdeck::tui::history::{Entry, Status};
    let mut s = sized(120, 40);
    s.history = vec![Entry {
        server: "demo".into(),
        tool: "echo".into(),
        args: json!({"api_key": "••••••"}),
        status: Status::Ok,
        ms: 3,
        at: 1_800_000_000,
        result: Some(text("ok")),
        error: None,
        cut: None,
    }];
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('H')), &mut fx);
    update(&mut s, key(KeyCode::Char('T')), &mut fx);
    assert!(fx.is_empty(), "{fx:?}");
    let status = s.status.clone().unwrap();
    assert!(status.contains("kept masked"), "{status}");
    // A result with a value masked (a key that looks like a secret's) is
    // not the server's result: it would make a snapshot that fails.
    s.history[0].args = json!({"text": "hi"});
    s.history[0].result = Some(json!({"structuredContent": {"input_tokens": "••••••"}}));
    update(&mut s, key(KeyCode::Char('T')), &mut fx);
    assert!(fx.is_empty(), "{fx:?}");
    let status = s.status.clone().unwrap();
    assert!(status.contains("its result had values masked"), "{status}");
}

#[test]
fn a_request_the_server_gives_up_leaves_the_screen() {
    let mut s = state();
    let mut fx = Vec::new();
    for (id, theirs) in [(1, "ask-1"), (2, "ask-2")] {
        update(
            &mut s,
            Msg::Manager(Event::ServerRequest {
                id,
                server: "demo".into(),
                method: "elicitation/create".into(),
                params: form_params(),
                related: None,
                request_id: Some(json!(theirs)),
            }),
            &mut fx,
        );
    }
    assert_eq!(s.asks.len(), 2);
    // Another server's cancellation of the same id touches nothing here.
    update(
        &mut s,
        Msg::Manager(Event::Notification {
            server: "other".into(),
            method: "notifications/cancelled".into(),
            params: Some(json!({"requestId": "ask-1"})),
        }),
        &mut fx,
    );
    assert_eq!(s.asks.len(), 2);
    assert!(answers(&fx).is_empty());
    // The server gives up the first (the one on screen): it goes, the
    // manager is told, and the next one is shown.
    update(
        &mut s,
        Msg::Manager(Event::Notification {
            server: "demo".into(),
            method: "notifications/cancelled".into(),
            params: Some(json!({"requestId": "ask-1", "reason": "took too long"})),
        }),
        &mut fx,
    );
    assert_eq!(s.asks.len(), 1);
    let sent = answers(&fx);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].0, 1);
    assert!(sent[0].1.is_err());
    assert!(
        s.status.as_deref().is_some_and(|m| m.contains("gave up")),
        "{:?}",
        s.status
    );
    assert!(s.asks.is_open(), "the second request is shown");
    assert_eq!(s.asks.queue.front().map(|a| a.id), Some(2));
}

/// Copy as curl (`c`) on a server whose token is DPoP-bound says why it
/// cannot (each request needs a fresh proof signed with mcpdeck's key),
/// instead of a script that would send the token as Bearer.
#[test]
fn copy_as_curl_refuses_a_dpop_bound_server() {
    use mcpdeck::mcp::auth::TokenInfo;
    let mut s = oauth_state();
    let mut fx = Vec::new();
    update(
        &mut s,
        Msg::Manager(Event::LoginFinished {
            server: "remote".into(),
            result: Ok(TokenInfo {
                issuer: "https://login.example.com".into(),
                client_id: "c".into(),
                scopes: vec![],
                expires_at: None,
                refreshable: false,
                dpop: true,
                storage: "memory".into(),
            }),
        }),
        &mut fx,
    );
    s.track(mcpdeck::tui::app::InFlight {
        tag: 7,
        server: "remote".into(),
        tool: "echo".into(),
        request_id: Some(2),
        progress: None,
        task: None,
        args: "{}".into(),
        started: None,
    });
    let mut findings = Vec::new();
    update(
        &mut s,
        Msg::Manager(Event::CallFinished {
            tag: 7,
            server: "remote".into(),
            tool: "echo".into(),
            result: Ok(mcpdeck::mcp::types::CallResult::parse(
                serde_json::json!({"content": [{"type": "text", "text": "hi"}]}),
                &mut findings,
            )),
            elapsed: Duration::from_millis(3),
        }),
        &mut fx,
    );
    let mut fx = Vec::new();
    update(&mut s, key(KeyCode::Char('c')), &mut fx);
    assert!(!fx.iter().any(|e| matches!(e, Effect::Copy(_))), "{fx:?}");
    let status = s.status.clone().unwrap_or_default();
    assert!(
        status.contains("DPoP-bound") && status.contains("a curl script cannot make"),
        "{status}"
    );
}
