//! The argument form: `update()` transitions on a tool's form (fields
//! from the schema, typed inputs, nested groups, lists, the switch to raw
//! JSON and back, reset, sending) and snapshots of it at small sizes.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use mcpdeck::config::ServerConfig;
use mcpdeck::mcp::manager::{Command, Event, ServerStatus};
use mcpdeck::mcp::session::{Lists, Negotiated};
use mcpdeck::mcp::types::{Era, ServerInfo, Tool};
use mcpdeck::tui::app::{Effect, Mode, Msg, State, update};
use mcpdeck::tui::argform::ArgForm;
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

fn shift_tab() -> Msg {
    Msg::Key(KeyEvent::new_with_kind(
        KeyCode::BackTab,
        KeyModifiers::SHIFT,
        KeyEventKind::Press,
    ))
}

fn tool_list() -> Vec<Value> {
    vec![
        json!({"name": "get_weather", "description": "Weather for a city.",
               "inputSchema": {"type": "object", "properties": {
                   "city": {"type": "string", "description": "City name", "examples": ["Lisbon"]},
                   "units": {"type": "string", "enum": ["metric", "imperial"], "default": "metric",
                             "description": "Temperature units"}},
                   "required": ["city"]}}),
        json!({"name": "add", "description": "Add numbers.",
               "inputSchema": {"type": "object", "properties": {
                   "a": {"type": "number", "description": "First addend"},
                   "b": {"type": "number", "description": "Second addend"},
                   "times": {"type": "integer", "minimum": 1, "maximum": 10, "description": "How often"}},
                   "required": ["a", "b"]}}),
        json!({"name": "deploy", "description": "Deploy a service.",
               "inputSchema": {"type": "object", "properties": {
                   "service": {"type": "string", "minLength": 2, "description": "The service to deploy; a long description that goes on and on so that it cannot fit on one row of a small terminal"},
                   "config": {"type": "object", "description": "Where it goes", "properties": {
                       "host": {"type": "string"},
                       "port": {"type": "integer", "minimum": 1, "maximum": 65535, "default": 443},
                       "tags": {"type": "array", "items": {"type": "string"}}},
                       "required": ["host"]},
                   "dry_run": {"type": "boolean", "description": "Only print the plan"},
                   "mode": {"type": "string", "enum": ["fast", "safe"], "default": "safe"}},
                   "required": ["service", "config", "mode"]}}),
        json!({"name": "shapes", "description": "Object alternatives.",
               "inputSchema": {"type": "object", "properties": {
                   "shape": {"oneOf": [
                       {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]},
                       {"type": "object", "properties": {"side": {"type": "number"}}, "required": ["side"]}]},
                   "label": {"type": "string"}},
                   "required": ["shape"]}}),
        json!({"name": "tree", "description": "A recursive schema.",
               "inputSchema": {"$defs": {"Node": {"type": "object", "properties": {
                       "name": {"type": "string"},
                       "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
                   "type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}}}),
        json!({"name": "labels", "description": "Free-form names.",
               "inputSchema": {"type": "object", "additionalProperties": {"type": "string"}}}),
        json!({"name": "long", "description": "A long name.",
               "inputSchema": {"type": "object", "properties": {
                   "a_really_long_property_name_for_a_field": {"type": "string", "default": "x"}}}}),
        json!({"name": "evil", "description": "Control characters in names.",
               "inputSchema": {"type": "object", "properties": {
                   "na\u{1b}[31mme": {"type": "string", "title": "Ti\u{202e}tle",
                                      "description": "desc\u{7}ription"}},
                   "required": ["na\u{1b}[31mme"]}}),
    ]
}

fn negotiated() -> Negotiated {
    Negotiated {
        era: Era::Stateless,
        version: "2026-07-28".into(),
        detection: "server/discover answered".into(),
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

fn state() -> State {
    state_with(tool_list())
}

fn state_with(list: Vec<Value>) -> State {
    let configs = vec![ServerConfig::stdio("demo", "x", &[])];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut findings = Vec::new();
    let tools: Vec<Tool> = list
        .iter()
        .filter_map(|t| Tool::parse(t, &mut findings))
        .collect();
    let mut fx = Vec::new();
    for ev in [
        Event::Status {
            server: "demo".into(),
            status: ServerStatus::Connected,
            negotiated: Some(Box::new(negotiated())),
        },
        Event::Lists {
            server: "demo".into(),
            lists: Arc::new(Lists {
                tools,
                ..Lists::default()
            }),
        },
    ] {
        update(&mut s, Msg::Manager(ev), &mut fx);
    }
    assert!(fx.is_empty());
    s
}

/// Select `tool` and open the editor on it.
fn open(s: &mut State, tool: &str) {
    let mut fx = Vec::new();
    s.mode = Mode::Normal;
    s.focus = mcpdeck::tui::app::Pane::Tools;
    let i = (0..s.visible.len())
        .find(|i| {
            s.tool_sel = *i;
            s.selected_tool().is_some_and(|(_, t)| t.name == tool)
        })
        .expect("the tool is listed");
    s.tool_sel = i;
    update(s, key(KeyCode::Enter), &mut fx);
    assert_eq!(s.mode, Mode::Editor);
}

fn form(s: &State) -> &ArgForm {
    let e = s.editor.as_ref().expect("the editor is open");
    assert!(e.in_form, "the form is shown");
    e.form.as_ref().expect("the schema has a form")
}

fn type_text(s: &mut State, text: &str) {
    let mut fx = Vec::new();
    for c in text.chars() {
        update(s, key(KeyCode::Char(c)), &mut fx);
    }
}

fn press(s: &mut State, msg: Msg) -> Vec<Effect> {
    let mut fx = Vec::new();
    update(s, msg, &mut fx);
    fx
}

/// The arguments of the call sent, if one was.
fn sent(fx: &[Effect]) -> Option<Value> {
    fx.iter().find_map(|e| match e {
        Effect::Manager(Command::Call { arguments, .. }) => Some(arguments.clone()),
        _ => None,
    })
}

fn screen(s: &State, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| mcpdeck::tui::ui::render(s, f)).unwrap();
    let buf = t.backend().buffer().clone();
    let mut out = String::new();
    for y in 0..buf.area.height {
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

/// Whether the first place `text` shows on screen is drawn reversed (the
/// selection's look); `None`: not on screen.
fn styled(s: &State, w: u16, h: u16, text: &str) -> Option<bool> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| mcpdeck::tui::ui::render(s, f)).unwrap();
    let buf = t.backend().buffer().clone();
    for y in 0..buf.area.height {
        let line: String = (0..buf.area.width).map(|x| buf[(x, y)].symbol()).collect();
        if let Some(byte) = line.find(text) {
            let x = (line[..byte].chars().count() + text.chars().count() / 2) as u16;
            let reversed = buf[(x, y)]
                .modifier
                .contains(ratatui::style::Modifier::REVERSED);
            return Some(reversed);
        }
    }
    None
}

fn json_of(s: &State) -> Value {
    let text = s.editor.as_ref().unwrap().text.lines().join("\n");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

fn focus(s: &State) -> String {
    form(s).focus_path().unwrap_or_default()
}

fn status(s: &State) -> &str {
    s.status.as_deref().unwrap_or("")
}

#[test]
fn fields_follow_the_schema_order_with_required_marks() {
    let mut s = state();
    open(&mut s, "deploy");
    let f = form(&s);
    let rows: Vec<(String, bool)> = f
        .rows()
        .iter()
        .map(|r| (r.path.clone(), f.node(&r.at).unwrap().required))
        .collect();
    let want = [
        ("/service", true),
        ("/config", true),
        ("/config/host", true),
        ("/config/port", false),
        ("/config/tags", false),
        ("/dry_run", false),
        ("/mode", true),
    ];
    assert_eq!(
        rows,
        want.iter()
            .map(|(p, r)| (p.to_string(), *r))
            .collect::<Vec<_>>()
    );
    assert_eq!(focus(&s), "/service", "the first field has the focus");
    let out = screen(&s, 120, 40);
    for want in [
        "service*",
        "config*",
        "host*",
        "443 (default)",
        "dry_run",
        "mode*",
        "Where it goes",
    ] {
        assert!(out.contains(want), "{want:?} not on screen:\n{out}");
    }
    assert!(!out.contains("port*"), "port is optional:\n{out}");
    // A required choice with a default starts with it; nothing else is set.
    assert_eq!(
        form(&s).value().unwrap(),
        *json!({"service": "", "config": {"host": ""}, "mode": "safe"})
            .as_object()
            .unwrap()
    );
}

#[test]
fn an_enum_is_a_choice_that_cycles_and_sends_the_one_picked() {
    let mut s = state();
    open(&mut s, "get_weather");
    type_text(&mut s, "Lisbon");
    press(&mut s, key(KeyCode::Tab));
    assert_eq!(focus(&s), "/units");
    assert!(screen(&s, 80, 24).contains("(default: metric)"));
    let mut seen = Vec::new();
    for _ in 0..3 {
        press(&mut s, key(KeyCode::Right));
        seen.push(form(&s).value().unwrap().get("units").cloned());
    }
    // An optional choice passes by "none" (then the default is not sent).
    assert_eq!(seen, [Some(json!("metric")), Some(json!("imperial")), None]);
    press(&mut s, key(KeyCode::Left));
    // Every choice shows, the one taken highlighted.
    let out = screen(&s, 80, 24);
    assert!(
        out.contains("(default: metric)   metric   imperial"),
        "{out}"
    );
    assert_eq!(styled(&s, 80, 24, "imperial"), Some(true));
    assert_eq!(styled(&s, 80, 24, " metric "), Some(false));
    let fx = press(&mut s, ctrl('s'));
    assert_eq!(
        sent(&fx),
        Some(json!({"city": "Lisbon", "units": "imperial"}))
    );
    assert_eq!(s.mode, Mode::Normal);
}

#[test]
fn defaults_are_placeholders_and_are_not_sent() {
    let mut s = state();
    open(&mut s, "get_weather");
    type_text(&mut s, "Oslo");
    let fx = press(&mut s, ctrl('s'));
    assert_eq!(sent(&fx), Some(json!({"city": "Oslo"})));
}

#[test]
fn a_boolean_toggles_with_space() {
    let mut s = state();
    open(&mut s, "deploy");
    while focus(&s) != "/dry_run" {
        press(&mut s, key(KeyCode::Down));
    }
    let mut seen = Vec::new();
    for _ in 0..3 {
        press(&mut s, key(KeyCode::Char(' ')));
        seen.push(form(&s).value().unwrap().get("dry_run").cloned());
    }
    assert_eq!(seen, [Some(json!(true)), Some(json!(false)), None]);
    press(&mut s, key(KeyCode::Char(' ')));
    assert!(screen(&s, 80, 24).contains("[x] yes"));
}

#[test]
fn numbers_are_checked_as_they_are_typed_and_flagged_by_path() {
    let mut s = state();
    open(&mut s, "add");
    // Empty required numbers are flagged, and the form does not send.
    assert_eq!(form(&s).error_at("/a"), Some("required"));
    type_text(&mut s, "4x");
    assert_eq!(form(&s).error_at("/a"), Some("not a number"));
    let problems = &s.editor.as_ref().unwrap().problems;
    assert!(
        problems.contains(&"/a: not a number".to_string()),
        "{problems:?}"
    );
    let out = screen(&s, 80, 24);
    assert!(out.contains("✗ not a number"), "next to the field:\n{out}");
    assert!(out.contains("✗ /a: not a number"), "in the list:\n{out}");
    let fx = press(&mut s, ctrl('s'));
    assert_eq!(sent(&fx), None);
    assert!(
        status(&s).starts_with("not sent: 2 problems"),
        "{}",
        status(&s)
    );
    assert_eq!(s.mode, Mode::Editor);
    press(&mut s, key(KeyCode::Backspace));
    assert_eq!(form(&s).error_at("/a"), None);
    assert_eq!(status(&s), "", "the next edit clears what the editor said");
    press(&mut s, key(KeyCode::Tab));
    type_text(&mut s, "2.5");
    press(&mut s, key(KeyCode::Tab));
    type_text(&mut s, "1.5");
    assert_eq!(form(&s).error_at("/times"), Some("not a whole number"));
    for _ in 0..3 {
        press(&mut s, key(KeyCode::Backspace));
    }
    type_text(&mut s, "11");
    // Beyond the maximum: the schema's own check, at the field's path.
    assert!(
        form(&s)
            .error_at("/times")
            .is_some_and(|e| e.contains("10")),
        "{:?}",
        form(&s).errors
    );
    press(&mut s, key(KeyCode::Backspace));
    let fx = press(&mut s, ctrl('s'));
    assert_eq!(sent(&fx), Some(json!({"a": 4, "b": 2.5, "times": 1})));
}

#[test]
fn nested_groups_and_lists_with_add_and_remove() {
    let mut s = state();
    open(&mut s, "deploy");
    type_text(&mut s, "api");
    press(&mut s, key(KeyCode::Tab));
    assert_eq!(focus(&s), "/config/host", "the group's first field");
    type_text(&mut s, "h1");
    press(&mut s, key(KeyCode::Tab));
    type_text(&mut s, "8443");
    press(&mut s, key(KeyCode::Tab));
    assert_eq!(focus(&s), "/config/tags");
    assert!(screen(&s, 80, 24).contains("empty list · Ctrl-N adds one"));
    press(&mut s, ctrl('n'));
    assert_eq!(focus(&s), "/config/tags/0");
    type_text(&mut s, "blue");
    press(&mut s, ctrl('n'));
    assert_eq!(focus(&s), "/config/tags/1", "added after the focused item");
    type_text(&mut s, "green");
    press(&mut s, shift_tab());
    press(&mut s, shift_tab());
    // Enter on the list's row adds at its end.
    press(&mut s, key(KeyCode::Enter));
    assert_eq!(focus(&s), "/config/tags/2");
    type_text(&mut s, "red");
    assert!(screen(&s, 80, 24).contains("Ctrl-D remove item"));
    press(&mut s, key(KeyCode::Up));
    press(&mut s, ctrl('d'));
    assert_eq!(status(&s), "item 1 removed from tags");
    assert_eq!(focus(&s), "/config/tags/1");
    let fx = press(&mut s, ctrl('s'));
    assert_eq!(
        sent(&fx),
        Some(
            json!({"service": "api", "config": {"host": "h1", "port": 8443, "tags": ["blue", "red"]}, "mode": "safe"})
        )
    );
}

#[test]
fn the_form_and_the_json_stay_in_sync() {
    let mut s = state();
    open(&mut s, "get_weather");
    type_text(&mut s, "Oslo");
    press(&mut s, key(KeyCode::Tab));
    press(&mut s, key(KeyCode::Right));
    press(&mut s, key(KeyCode::Right));
    press(&mut s, ctrl('t'));
    let e = s.editor.as_ref().unwrap();
    assert!(!e.in_form);
    assert_eq!(json_of(&s), json!({"city": "Oslo", "units": "imperial"}));
    assert_eq!(status(&s), "", "a switch that works needs no words");
    let out = screen(&s, 80, 24);
    assert!(
        out.contains("\"units\": \"imperial\"") && out.contains(" JSON "),
        "{out}"
    );
    // Edit the JSON, then back to the form.
    let area = &mut s.editor.as_mut().unwrap().text;
    area.select_all();
    area.insert_str(r#"{"city": "Bergen", "units": "metric"}"#);
    press(&mut s, ctrl('t'));
    assert_eq!(
        Value::Object(form(&s).value().unwrap()),
        json!({"city": "Bergen", "units": "metric"})
    );
    // JSON the form cannot take: the JSON stays, and says why.
    for (text, why) in [
        (r#"{"city": "#, "not valid JSON"),
        (r#"{"city": "X", "zip": 1}"#, "/zip: not in the schema"),
        (
            r#"{"units": "kelvin"}"#,
            "\"kelvin\" is not one of the choices",
        ),
    ] {
        press(&mut s, ctrl('t'));
        let area = &mut s.editor.as_mut().unwrap().text;
        area.select_all();
        area.insert_str(text);
        press(&mut s, ctrl('t'));
        assert!(!s.editor.as_ref().unwrap().in_form, "{text}");
        assert!(status(&s).contains(why), "{text}: {}", status(&s));
        assert!(status(&s).starts_with("staying in JSON"), "{}", status(&s));
        // What the JSON says is what gets sent from here.
        let area = &mut s.editor.as_mut().unwrap().text;
        area.select_all();
        area.insert_str(r#"{"city": "Bergen", "units": "metric"}"#);
        press(&mut s, ctrl('t'));
        assert!(s.editor.as_ref().unwrap().in_form);
    }
}

#[test]
fn ctrl_t_switches_an_invalid_form_and_lists_its_problems() {
    let mut s = state();
    open(&mut s, "add");
    // /a cannot be read, /b is an empty required number: still switches.
    type_text(&mut s, "40.5x");
    press(&mut s, ctrl('t'));
    let e = s.editor.as_ref().unwrap();
    assert!(!e.in_form, "the switch always works");
    assert_eq!(json_of(&s), json!({"a": "40.5x"}), "what the form holds");
    assert_eq!(
        status(&s),
        "the JSON holds the form as it is, with its problems (listed under it)"
    );
    let problems = &s.editor.as_ref().unwrap().problems;
    assert!(
        problems.iter().any(|p| p.starts_with("/a:"))
            && problems.iter().any(|p| p.contains("\"b\" is a required")),
        "{problems:?}"
    );
    let out = screen(&s, 120, 40);
    assert!(out.contains("\"a\": \"40.5x\""), "{out}");
    assert!(
        out.contains("✗ /a:") && out.contains("\"b\" is a required"),
        "{out}"
    );
    // And back: the text typed comes back into the number field, flagged.
    press(&mut s, ctrl('t'));
    assert!(s.editor.as_ref().unwrap().in_form, "{}", status(&s));
    assert_eq!(form(&s).error_at("/a"), Some("not a number"));
    assert_eq!(form(&s).draft()["a"], "40.5x");
    // A valid form still switches without a word.
    let mut s = state();
    open(&mut s, "get_weather");
    type_text(&mut s, "Oslo");
    press(&mut s, ctrl('t'));
    assert_eq!(status(&s), "");
}

#[test]
fn the_json_editor_selects_all_and_clears_so_a_paste_replaces_it() {
    let mut s = state();
    open(&mut s, "add");
    press(&mut s, ctrl('t'));
    // Select all, then a paste (keys, as a terminal without bracketed
    // paste sends them): it replaces the JSON, newlines and all.
    press(&mut s, ctrl('a'));
    for c in "{\n\"a\": 1,\n\"b\": 2}".chars() {
        let msg = if c == '\n' {
            key(KeyCode::Enter)
        } else {
            key(KeyCode::Char(c))
        };
        press(&mut s, msg);
    }
    assert_eq!(json_of(&s), json!({"a": 1, "b": 2}));
    assert!(s.editor.as_ref().unwrap().problems.is_empty());
    // Clear empties it (as one edit); undo brings it back.
    press(&mut s, ctrl('u'));
    let e = s.editor.as_ref().unwrap();
    assert_eq!(e.text.lines().join(""), "");
    assert!(
        e.problems[0].starts_with("not valid JSON"),
        "{:?}",
        e.problems
    );
    press(&mut s, ctrl('z'));
    assert_eq!(json_of(&s), json!({"a": 1, "b": 2}));
    let fx = press(&mut s, ctrl('s'));
    assert_eq!(sent(&fx), Some(json!({"a": 1, "b": 2})));
    // The status bar names the keys.
    open(&mut s, "add");
    press(&mut s, ctrl('t'));
    let bar = screen(&s, 120, 40).lines().last().unwrap_or("").to_string();
    assert!(bar.contains("Ctrl-A select all"), "{bar}");
}

#[test]
fn letters_pick_choices_and_never_act_as_commands_in_the_form() {
    let mut s = state();
    open(&mut s, "get_weather");
    press(&mut s, key(KeyCode::Tab));
    assert_eq!(focus(&s), "/units");
    // i: imperial; j and q are not "down" and "quit" here.
    press(&mut s, key(KeyCode::Char('i')));
    assert_eq!(form(&s).draft()["units"], "imperial");
    press(&mut s, key(KeyCode::Char('m')));
    assert_eq!(form(&s).draft()["units"], "metric");
    for c in ['j', 'q', 'd', '?'] {
        let fx = press(&mut s, key(KeyCode::Char(c)));
        assert!(fx.is_empty(), "{c}");
        assert_eq!(s.mode, Mode::Editor, "{c}");
        assert_eq!(focus(&s), "/units", "{c}");
        assert_eq!(form(&s).draft()["units"], "metric", "{c}");
    }
    // A yes/no takes y and n.
    open(&mut s, "deploy");
    while focus(&s) != "/dry_run" {
        press(&mut s, key(KeyCode::Down));
    }
    press(&mut s, key(KeyCode::Char('y')));
    assert_eq!(form(&s).draft()["dry_run"], true);
    press(&mut s, key(KeyCode::Char('n')));
    assert_eq!(form(&s).draft()["dry_run"], false);
    // Ctrl-U clears it (not set), as it clears any field.
    press(&mut s, ctrl('u'));
    assert!(form(&s).draft().get("dry_run").is_none());
}

/// A tool whose required fields start with their defaults.
fn defaults_tool() -> Value {
    let zod = 9007199254740991_u64;
    json!({"name": "tune", "description": "Defaults and Zod bounds.",
           "inputSchema": {"type": "object", "properties": {
               "level": {"type": "number", "default": 42, "description": "How loud"},
               "count": {"type": "integer", "minimum": 1, "maximum": zod},
               "name": {"type": "string", "default": "hello"}},
               "required": ["level", "count", "name"]}})
}

#[test]
fn a_prefilled_default_is_replaced_by_the_first_key_and_ctrl_u_clears() {
    let mut s = state_with(vec![defaults_tool()]);
    open(&mut s, "tune");
    assert_eq!(form(&s).draft()["level"], 42);
    // The default shows selected.
    assert_eq!(styled(&s, 80, 24, "42"), Some(true));
    type_text(&mut s, "4.5");
    assert_eq!(form(&s).draft()["level"], 4.5, "not 424.5");
    assert_eq!(styled(&s, 80, 24, "4.5"), Some(false));
    // Ctrl-U clears a field; Ctrl-A selects what is in it.
    press(&mut s, key(KeyCode::Tab));
    press(&mut s, key(KeyCode::Tab));
    press(&mut s, ctrl('u'));
    assert_eq!(form(&s).draft()["name"], "");
    type_text(&mut s, "abc");
    press(&mut s, ctrl('a'));
    type_text(&mut s, "xyz");
    assert_eq!(form(&s).draft()["name"], "xyz");
    // Zod's int() bounds: "≥ 1", not "1 to 9007199254740991".
    let out = screen(&s, 120, 40);
    assert!(out.contains("whole number, ≥ 1"), "{out}");
    assert!(!out.contains("9007199254740991"), "{out}");
}

#[test]
fn a_focused_fields_description_is_shown_whole() {
    let mut s = state();
    open(&mut s, "deploy");
    let whole = "The service to deploy; a long description that goes on and on so that it cannot fit on one row of a small terminal";
    // The words of the form's pane, from the column of its `▸` on.
    let pane_words = |out: &str| {
        let col = out
            .lines()
            .find_map(|l| l.chars().position(|c| c == '▸'))
            .unwrap_or(0);
        out.lines()
            .map(|l| l.chars().skip(col).collect::<String>())
            .map(|l| l.trim_end_matches('│').to_string())
            .collect::<Vec<_>>()
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    // Focused: every word of it, wrapped under the field, at any size.
    for (w, h) in [(60, 20), (80, 24), (120, 40)] {
        let out = screen(&s, w, h);
        assert!(pane_words(&out).contains(whole), "{w}x{h}:\n{out}");
    }
    // Not focused: one row, cut.
    press(&mut s, key(KeyCode::Tab));
    let out = screen(&s, 60, 20);
    assert!(out.contains("The service to deploy; a long"), "{out}");
    assert!(!out.contains("small terminal"), "{out}");
}

#[test]
fn the_note_goes_once_the_external_editor_made_the_arguments_fit() {
    let mut s = state();
    s.last_args.insert(
        ("demo".into(), "get_weather".into()),
        "{\"city\": 5}".into(),
    );
    open(&mut s, "get_weather");
    let e = s.editor.as_ref().unwrap();
    assert!(!e.in_form);
    assert!(
        e.note
            .as_deref()
            .is_some_and(|n| n.starts_with("your last arguments do not fit the form")),
        "{:?}",
        e.note
    );
    press(&mut s, ctrl('e'));
    press(
        &mut s,
        Msg::EditorReturned(Ok("{\"city\": \"Oslo\"}\n".into())),
    );
    let e = s.editor.as_ref().unwrap();
    assert_eq!(e.note, None, "fixed: no warning left");
    assert!(e.in_form, "and into the form, which can show them now");
    assert_eq!(form(&s).draft()["city"], "Oslo");
    assert!(!screen(&s, 80, 24).contains("do not fit"));
    // JSON chosen by hand stays JSON after $EDITOR.
    press(&mut s, ctrl('t'));
    press(
        &mut s,
        Msg::EditorReturned(Ok("{\"city\": \"Rome\"}".into())),
    );
    assert!(!s.editor.as_ref().unwrap().in_form);
    assert_eq!(json_of(&s), json!({"city": "Rome"}));
}

#[test]
fn schemas_the_form_cannot_show_open_in_json_with_a_note() {
    let mut s = state();
    for (tool, why) in [
        ("shapes", "/shape: oneOf with object alternatives"),
        ("tree", "a $ref cycle"),
        ("labels", "declares no properties and takes any"),
    ] {
        open(&mut s, tool);
        let e = s.editor.as_ref().unwrap();
        assert!(!e.in_form, "{tool}");
        let note = e.note.as_deref().unwrap_or("");
        assert!(
            note.starts_with("no form for this schema") && note.contains(why),
            "{tool}: {note}"
        );
        let out = screen(&s, 120, 40);
        assert!(out.contains("⚠ no form for this schema"), "{out}");
        press(&mut s, ctrl('t'));
        assert!(status(&s).contains(why), "{}", status(&s));
        assert!(!s.editor.as_ref().unwrap().in_form);
        press(&mut s, key(KeyCode::Esc));
    }
    // The JSON sends as it stands: the skeleton here.
    open(&mut s, "shapes");
    let fx = press(&mut s, ctrl('s'));
    assert_eq!(sent(&fx), Some(json!({"shape": {"r": 0.0}})));
}

#[test]
fn reset_restores_the_last_sent_arguments_then_the_skeleton_then_the_draft() {
    let mut s = state();
    open(&mut s, "get_weather");
    // Nothing sent yet: the skeleton, then the draft.
    type_text(&mut s, "Ro");
    press(&mut s, ctrl('r'));
    assert_eq!(
        status(&s),
        "reset to the skeleton (Ctrl-R again: your draft)"
    );
    assert!(form(&s).value().unwrap()["city"] == "");
    press(&mut s, ctrl('r'));
    assert_eq!(form(&s).value().unwrap()["city"], "Ro");
    type_text(&mut s, "me");
    let fx = press(&mut s, ctrl('s'));
    assert_eq!(sent(&fx), Some(json!({"city": "Rome"})));
    // Opened again: the last arguments; then an edit.
    open(&mut s, "get_weather");
    assert_eq!(form(&s).value().unwrap()["city"], "Rome");
    press(&mut s, key(KeyCode::End));
    type_text(&mut s, "o");
    let city = |s: &State| form(s).value().unwrap()["city"].clone();
    let mut seen = Vec::new();
    for _ in 0..4 {
        press(&mut s, ctrl('r'));
        seen.push((city(&s), status(&s).to_string()));
    }
    assert_eq!(
        seen,
        [
            (
                json!("Rome"),
                "reset to the last sent arguments (Ctrl-R again: the skeleton)".to_string()
            ),
            (
                json!(""),
                "reset to the skeleton (Ctrl-R again: your draft)".to_string()
            ),
            (
                json!("Romeo"),
                "reset to your draft (Ctrl-R again: the last sent arguments)".to_string()
            ),
            (
                json!("Rome"),
                "reset to the last sent arguments (Ctrl-R again: the skeleton)".to_string()
            ),
        ]
    );
    // A half-typed number comes back as it was typed.
    open(&mut s, "add");
    type_text(&mut s, "4x");
    press(&mut s, ctrl('r'));
    assert_eq!(form(&s).error_at("/a"), Some("required"));
    press(&mut s, ctrl('r'));
    assert_eq!(form(&s).error_at("/a"), Some("not a number"));
    assert_eq!(form(&s).draft()["a"], "4x");
    press(&mut s, key(KeyCode::Esc));
    // In the JSON too.
    open(&mut s, "get_weather");
    press(&mut s, ctrl('t'));
    let area = &mut s.editor.as_mut().unwrap().text;
    area.select_all();
    area.insert_str("{broken");
    press(&mut s, ctrl('r'));
    assert_eq!(json_of(&s), json!({"city": "Rome"}));
    press(&mut s, ctrl('r'));
    assert_eq!(json_of(&s), json!({"city": ""}));
    press(&mut s, ctrl('r'));
    assert_eq!(s.editor.as_ref().unwrap().text.lines().join(""), "{broken");
}

#[test]
fn the_json_editor_starts_where_typing_makes_sense() {
    let mut s = state();
    open(&mut s, "get_weather");
    press(&mut s, ctrl('t'));
    // The cursor is inside the first value's quotes: typing fills it in.
    type_text(&mut s, "abc");
    assert_eq!(json_of(&s), json!({"city": "abc"}));
    assert!(s.editor.as_ref().unwrap().problems.is_empty());
    // A JSON-only tool: the first value is selected, typing replaces it;
    // Tab goes to the next value rather than inserting spaces.
    open(&mut s, "shapes");
    type_text(&mut s, "2.5");
    assert_eq!(json_of(&s), json!({"shape": {"r": 2.5}}));
    let area = &mut s.editor.as_mut().unwrap().text;
    area.select_all();
    area.insert_str("{\n  \"a\": 1,\n  \"b\": \"x\"\n}");
    area.move_cursor(ratatui_textarea::CursorMove::Top);
    press(&mut s, key(KeyCode::Tab));
    type_text(&mut s, "7");
    press(&mut s, key(KeyCode::Tab));
    type_text(&mut s, "y");
    press(&mut s, shift_tab());
    type_text(&mut s, "8");
    assert_eq!(json_of(&s), json!({"a": 8, "b": "y"}));
}

#[test]
fn ctrl_s_sends_exactly_the_arguments_of_the_form() {
    let mut s = state();
    open(&mut s, "deploy");
    type_text(&mut s, "ab");
    let fx = press(&mut s, ctrl('s'));
    // Required texts left empty are sent as "", optional fields left out,
    // the required choice with its default.
    assert_eq!(
        sent(&fx),
        Some(json!({"service": "ab", "config": {"host": ""}, "mode": "safe"}))
    );
    let call = fx.iter().find_map(|e| match e {
        Effect::Manager(Command::Call { server, tool, .. }) => Some((server.clone(), tool.clone())),
        _ => None,
    });
    assert_eq!(call, Some(("demo".into(), "deploy".into())));
    // What was sent is what the editor comes back with, and what reset
    // offers first.
    assert_eq!(
        serde_json::from_str::<Value>(mcpdeck::tui::app::last_sent(&s, "demo", "deploy").unwrap())
            .unwrap(),
        json!({"service": "ab", "config": {"host": ""}, "mode": "safe"})
    );
}

#[test]
fn control_characters_in_names_show_as_placeholders() {
    let mut s = state();
    open(&mut s, "evil");
    let out = screen(&s, 80, 24);
    for want in ["na␛[31mme*", "Ti⟨U+202E⟩tle", "desc␇ription"] {
        assert!(out.contains(want), "{want:?} not on screen:\n{out}");
    }
    for raw in ['\u{1b}', '\u{202e}', '\u{7}'] {
        assert!(!out.contains(raw), "{raw:?} reached the screen");
    }
    type_text(&mut s, "v\u{7}");
    let out = screen(&s, 80, 24);
    assert!(out.contains("v␇"), "{out}");
    // The JSON shows escapes (the same JSON); the key sent is the real one.
    press(&mut s, ctrl('t'));
    let out = screen(&s, 120, 40);
    assert!(out.contains(r#""na\u001b[31mme": "v\u0007""#), "{out}");
    assert!(!out.contains('\u{1b}'));
    let fx = press(&mut s, ctrl('s'));
    assert_eq!(sent(&fx), Some(json!({"na\u{1b}[31mme": "v\u{7}"})));
}

#[test]
fn the_external_editor_feeds_the_form() {
    let mut s = state();
    open(&mut s, "get_weather");
    type_text(&mut s, "Nice");
    let fx = press(&mut s, ctrl('e'));
    let text = fx
        .iter()
        .find_map(|e| match e {
            Effect::ExternalEditor(t) => Some(t.clone()),
            _ => None,
        })
        .expect("the editor is asked for");
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!({"city": "Nice"})
    );
    press(
        &mut s,
        Msg::EditorReturned(Ok("{\"city\": \"Rome\", \"units\": \"imperial\"}\n".into())),
    );
    assert_eq!(
        Value::Object(form(&s).value().unwrap()),
        json!({"city": "Rome", "units": "imperial"})
    );
    // What the form cannot show comes back as JSON, with the reason.
    press(&mut s, Msg::EditorReturned(Ok("{\"city\": 5}".into())));
    let e = s.editor.as_ref().unwrap();
    assert!(!e.in_form);
    assert!(
        e.note
            .as_deref()
            .unwrap_or("")
            .contains("the edited arguments do not fit the form: /city: 5"),
        "{:?}",
        e.note
    );
    assert_eq!(json_of(&s), json!({"city": 5}));
    assert!(
        e.problems.iter().any(|p| p.contains("/city")),
        "{:?}",
        e.problems
    );
}

#[test]
fn the_last_arguments_come_back_in_the_view_that_can_show_them() {
    let mut s = state();
    open(&mut s, "get_weather");
    type_text(&mut s, "Paris");
    press(&mut s, key(KeyCode::Esc));
    assert_eq!(s.mode, Mode::Normal);
    open(&mut s, "get_weather");
    assert_eq!(form(&s).value().unwrap()["city"], "Paris");
    // A broken draft comes back as JSON, as it was typed, with a note.
    press(&mut s, ctrl('t'));
    let area = &mut s.editor.as_mut().unwrap().text;
    area.select_all();
    area.insert_str("{\"city\": \"Par");
    press(&mut s, key(KeyCode::Esc));
    open(&mut s, "get_weather");
    let e = s.editor.as_ref().unwrap();
    assert!(!e.in_form);
    assert_eq!(e.text.lines().join(""), "{\"city\": \"Par");
    assert!(
        e.note
            .as_deref()
            .unwrap_or("")
            .starts_with("your last arguments do not fit the form: it is not valid JSON"),
        "{:?}",
        e.note
    );
}

#[test]
fn the_keys_are_in_the_keymap_help_and_status_and_can_be_rebound() {
    let mut s = state();
    open(&mut s, "deploy");
    let out = screen(&s, 120, 40);
    let bar = out.lines().last().unwrap_or("");
    assert!(
        bar.contains("Ctrl-T JSON") && bar.contains("Ctrl-R reset"),
        "{bar}"
    );
    press(&mut s, key(KeyCode::Esc));
    press(&mut s, key(KeyCode::Char('?')));
    let out = screen(&s, 120, 40);
    for want in [
        "Ctrl-T",
        "argument form ⇄ raw JSON",
        "Ctrl-R",
        "Ctrl-N",
        "Ctrl-D",
    ] {
        assert!(out.contains(want), "{want:?} not in the help:\n{out}");
    }
    press(&mut s, key(KeyCode::Esc));
    s.keymap = Keymap::with_overrides(&[
        ("toggle_json".into(), vec!["f2".into()]),
        ("reset_arguments".into(), vec!["f3".into()]),
    ])
    .unwrap();
    open(&mut s, "get_weather");
    let out = screen(&s, 120, 40);
    let bar = out.lines().last().unwrap_or("");
    assert!(bar.contains("F2 JSON") && bar.contains("F3 reset"), "{bar}");
    press(&mut s, ctrl('t'));
    assert!(
        s.editor.as_ref().unwrap().in_form,
        "Ctrl-T no longer switches"
    );
    press(&mut s, key(KeyCode::F(2)));
    assert!(!s.editor.as_ref().unwrap().in_form);
    let bar = screen(&s, 120, 40).lines().last().unwrap_or("").to_string();
    assert!(
        bar.contains("F2 form") && bar.contains("Tab next value"),
        "{bar}"
    );
}

#[test]
fn labels_never_run_into_values_and_every_size_renders() {
    let mut s = state();
    open(&mut s, "long");
    let out = screen(&s, 60, 20);
    let row = out
        .lines()
        .find(|l| l.contains("▸ a_really"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(row.contains("… ") && row.contains("x (default)"), "{row}");
    let names: Vec<String> = tool_list()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    for tool in &names {
        open(&mut s, tool);
        for view in 0..2 {
            for (w, h) in [(120, 40), (80, 24), (60, 20), (30, 8), (5, 3), (1, 1)] {
                let _ = screen(&s, w, h);
            }
            press(&mut s, ctrl('t'));
            let _ = view;
        }
        press(&mut s, key(KeyCode::Esc));
    }
}

#[test]
fn snapshots_of_the_form() {
    let mut s = state();
    open(&mut s, "deploy");
    type_text(&mut s, "a");
    insta::assert_snapshot!("form_80x24", screen(&s, 80, 24));
    open(&mut s, "get_weather");
    type_text(&mut s, "Lisbon");
    press(&mut s, key(KeyCode::Tab));
    press(&mut s, key(KeyCode::Right));
    insta::assert_snapshot!("form_60x20", screen(&s, 60, 20));
    press(&mut s, ctrl('t'));
    insta::assert_snapshot!("form_as_json_120x40", screen(&s, 120, 40));
}
