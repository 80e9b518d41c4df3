//! The built-in themes (assets/themes/*.toml) picked with `[theme] name`:
//! each file sets every role, a rendered screen takes the colours its file
//! says, the user's roles win over the theme's, an unknown name is an error
//! at its line and column, and NO_COLOR still takes every colour out.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use mcpdeck::config::{Config, ServerConfig, load_str};
use mcpdeck::mcp::manager::{Event, ServerStatus};
use mcpdeck::mcp::session::{ConnectError, Lists, Negotiated};
use mcpdeck::mcp::types::{CallResult, Era, ServerInfo, Tool};
use mcpdeck::tui::app::{Msg, State, update};
use mcpdeck::tui::keymap::Keymap;
use mcpdeck::tui::theme::{ROLES, Role, Theme};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier};
use serde_json::json;

fn themes_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/themes")
}

fn config(text: &str) -> Config {
    load_str(text, None, &|_| None).unwrap_or_else(|e| panic!("{e}"))
}

/// The theme a config's `[theme]` table makes.
fn theme(text: &str, no_color: bool) -> Theme {
    Theme::from_config(&config(text).theme, no_color).unwrap_or_else(|e| panic!("{e}"))
}

/// `role = "value"` as written in a theme file.
fn file_value(file: &str, role: &str) -> String {
    let text = std::fs::read_to_string(themes_dir().join(format!("{file}.toml"))).unwrap();
    let table: toml::Table = text.parse().unwrap();
    table["theme"][role]
        .as_str()
        .unwrap_or_else(|| panic!("{file}: no {role}"))
        .to_string()
}

/// The foreground and background colours a value names (`"x on y"`).
fn colours(value: &str) -> (Option<Color>, Option<Color>) {
    let mut fg = None;
    let mut bg = None;
    let mut words = value.split_whitespace();
    while let Some(w) = words.next() {
        if w == "on" {
            bg = words.next().and_then(|c| Color::from_str(c).ok());
        } else if let Ok(c) = Color::from_str(w) {
            fg = Some(c);
        }
    }
    (fg, bg)
}

fn tool(raw: serde_json::Value) -> Tool {
    Tool::parse(&raw, &mut Vec::new()).unwrap()
}

/// A screen with most roles on it: a connected server, a failed one, a
/// read-only and a destructive tool, and a result with JSON in it.
fn state() -> State {
    let configs = vec![
        ServerConfig::stdio("demo", "x", &[]),
        ServerConfig::stdio("broken", "x", &[]),
        ServerConfig::stdio("slow", "x", &[]),
    ];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    let negotiated = Negotiated {
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
    };
    let tools = vec![
        tool(
            json!({"name": "get_weather", "description": "Weather for a city.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
            "annotations": {"readOnlyHint": true, "openWorldHint": true}}),
        ),
        tool(json!({"name": "wipe", "inputSchema": {"type": "object"},
            "annotations": {"destructiveHint": true}})),
    ];
    for ev in [
        Event::Status {
            server: "demo".into(),
            status: ServerStatus::Connected,
            negotiated: Some(Box::new(negotiated)),
        },
        Event::Lists {
            server: "demo".into(),
            lists: Arc::new(Lists {
                tools,
                ..Lists::default()
            }),
        },
        Event::Status {
            server: "broken".into(),
            status: ServerStatus::Failed(ConnectError::Lost {
                description: "the server exited with status 1".into(),
                stderr_tail: vec!["Error: no database".into()],
            }),
            negotiated: None,
        },
    ] {
        update(&mut s, Msg::Manager(ev), &mut fx);
    }
    let key = |code, mods| Msg::Key(KeyEvent::new_with_kind(code, mods, KeyEventKind::Press));
    update(&mut s, key(KeyCode::Tab, KeyModifiers::NONE), &mut fx);
    update(&mut s, key(KeyCode::Enter, KeyModifiers::NONE), &mut fx);
    update(
        &mut s,
        key(KeyCode::Char('s'), KeyModifiers::CONTROL),
        &mut fx,
    );
    let call = s.inflight().expect("a call in flight");
    let (tag, server, tool) = (call.tag, call.server.clone(), call.tool.clone());
    let result = json!({"content": [{"type": "text", "text": "{\"city\": \"Lisbon\", \"temperature\": 27.6, \"dry\": true}"}]});
    update(
        &mut s,
        Msg::Manager(Event::CallFinished {
            tag,
            server,
            tool,
            result: Ok(CallResult::parse(result, &mut Vec::new())),
            elapsed: Duration::from_millis(12),
        }),
        &mut fx,
    );
    s
}

fn render(theme: Theme) -> Buffer {
    let mut s = state();
    s.theme = theme;
    let mut t = Terminal::new(TestBackend::new(100, 30)).unwrap();
    t.draw(|f| mcpdeck::tui::ui::render(&s, f)).unwrap();
    t.backend().buffer().clone()
}

fn is_alert(c: &Cell) -> bool {
    let alert = Role::Alert.style();
    Some(c.fg) == alert.fg && Some(c.bg) == alert.bg
}

#[test]
fn every_theme_file_is_built_in_and_sets_every_role() {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(themes_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("# "),
            "{name}: the file starts with a comment saying what it is for"
        );
        let roles = config(&format!("[theme]\nname = {name:?}\n")).theme;
        for (role, _, _) in ROLES {
            assert_eq!(
                roles.iter().filter(|(r, _)| r == role).count(),
                1,
                "{name} sets {role} once: {roles:?}"
            );
        }
        assert_eq!(roles.len(), ROLES.len(), "{name}: {roles:?}");
        Theme::from_config(&roles, false).unwrap_or_else(|e| panic!("{name}: {e}"));
        names.push(name);
    }
    names.sort();
    assert_eq!(names, ["default", "high-contrast", "light"]);
}

#[test]
fn the_default_theme_draws_what_no_theme_draws() {
    let default = theme("[theme]\nname = \"default\"\n", false);
    assert_eq!(default, Theme::default());
    assert!(render(default) == render(Theme::default()));
}

#[test]
fn the_light_theme_recolours_a_screen_as_its_file_says() {
    let plain = render(Theme::default());
    let light = render(theme("[theme]\nname = \"light\"\n", false));
    let mut seen = Vec::new();
    for (name, role, _) in ROLES {
        if matches!(role, Role::Selected | Role::Alert) {
            continue;
        }
        let (want, _) = colours(&file_value("light", name));
        let want = want.unwrap_or_else(|| panic!("light sets a colour for {name}"));
        for (before, after) in plain.content.iter().zip(&light.content) {
            assert_eq!(before.symbol(), after.symbol());
            if before.fg == role.color()
                && !before.modifier.contains(Modifier::REVERSED)
                && !is_alert(before)
            {
                assert_eq!(after.fg, want, "{name} at {:?}", before.symbol());
                seen.push(name);
            }
        }
    }
    for role in ["accent", "ok", "error", "warn", "muted"] {
        assert!(seen.contains(&role), "the screen shows {role}");
    }
    // Nothing is drawn in a colour that is unreadable on white.
    for c in &light.content {
        assert!(!matches!(
            c.fg,
            Color::Yellow | Color::LightYellow | Color::DarkGray | Color::White
        ));
    }
    // The selection: the file's colours instead of reverse video.
    let (fg, bg) = colours(&file_value("light", "selected"));
    let mut selected = 0;
    for (before, after) in plain.content.iter().zip(&light.content) {
        if before.modifier.contains(Modifier::REVERSED) {
            selected += 1;
            assert_eq!((Some(after.fg), Some(after.bg)), (fg, bg));
            assert!(!after.modifier.contains(Modifier::REVERSED));
        }
    }
    assert!(selected > 0, "the screen has a selection");
}

#[test]
fn high_contrast_is_bold_and_its_selection_unmistakable() {
    let plain = render(Theme::default());
    let hc = render(theme("[theme]\nname = \"high-contrast\"\n", false));
    let (fg, bg) = colours(&file_value("high-contrast", "selected"));
    for (before, after) in plain.content.iter().zip(&hc.content) {
        if before.fg == Role::Accent.color() && !before.modifier.contains(Modifier::REVERSED) {
            assert_eq!(
                after.fg,
                colours(&file_value("high-contrast", "accent")).0.unwrap()
            );
            assert!(after.modifier.contains(Modifier::BOLD));
        }
        if before.modifier.contains(Modifier::REVERSED) {
            assert_eq!((Some(after.fg), Some(after.bg)), (fg, bg));
            assert!(after.modifier.contains(Modifier::BOLD));
        }
        // Never the dim gray of the default theme's hints.
        assert_ne!(after.fg, Color::DarkGray);
    }
}

#[test]
fn the_user_s_roles_win_over_the_theme_s() {
    let plain = render(Theme::default());
    // `name` after the role: the order in the table does not matter.
    let mixed = render(theme(
        "[theme]\naccent = \"#ff8800\"\nname = \"light\"\n",
        false,
    ));
    let (ok, _) = colours(&file_value("light", "ok"));
    let (mut accents, mut oks) = (0, 0);
    for (before, after) in plain.content.iter().zip(&mixed.content) {
        if before.modifier.contains(Modifier::REVERSED) || is_alert(before) {
            continue;
        }
        if before.fg == Role::Accent.color() {
            assert_eq!(after.fg, Color::Rgb(0xff, 0x88, 0x00));
            accents += 1;
        }
        if before.fg == Role::Ok.color() {
            assert_eq!(Some(after.fg), ok);
            oks += 1;
        }
    }
    assert!(accents > 0 && oks > 0);
}

#[test]
fn an_unknown_theme_is_an_error_at_its_line_and_column() {
    let text = "[settings]\nrequest_timeout = 30\n\n[theme]\nname = \"solarized\"\n";
    let err = load_str(text, Some(std::path::Path::new("config.toml")), &|_| None).unwrap_err();
    let d = err.diagnostic().expect("a diagnostic");
    let at = d.position().expect("a position");
    assert_eq!((at.line, at.column), (5, 8));
    for name in ["\"default\"", "\"light\"", "\"high-contrast\""] {
        assert!(d.message().contains(name), "{}", d.message());
    }
    assert!(err.to_string().contains("config.toml:5:8"), "{err}");
    // A role's bad colour is caught when the TUI starts, with the fix.
    let e = Theme::from_config(
        &config("[theme]\nname = \"light\"\nok = \"greenish\"\n").theme,
        false,
    )
    .unwrap_err();
    assert!(e.contains("\"greenish\" is not a colour"), "{e}");
}

#[test]
fn no_color_still_takes_every_colour_out() {
    let plain = render(Theme::default());
    for name in ["default", "light", "high-contrast"] {
        let buf = render(theme(&format!("[theme]\nname = {name:?}\n"), true));
        for (before, after) in plain.content.iter().zip(&buf.content) {
            assert_eq!((after.fg, after.bg), (Color::Reset, Color::Reset), "{name}");
            // The selection still shows, as reverse video.
            if before.modifier.contains(Modifier::REVERSED) {
                assert!(after.modifier.contains(Modifier::REVERSED), "{name}");
            }
        }
    }
}

#[test]
fn the_docs_name_every_role_and_theme_and_their_examples_work() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/themes.md")).unwrap();
    let example = std::fs::read_to_string(root.join("config.example.toml")).unwrap();
    for (role, _, _) in ROLES {
        assert!(
            doc.contains(&format!("| `{role}` |")),
            "docs/themes.md: {role}"
        );
        assert!(
            example.contains(&format!("#   {role} ")),
            "config.example.toml: {role}"
        );
    }
    for name in ["default", "light", "high-contrast"] {
        assert!(
            doc.contains(&format!("`\"{name}\"`")),
            "docs/themes.md: {name}"
        );
        assert!(
            example.contains(&format!("\"{name}\"")),
            "config.example.toml: {name}"
        );
    }
    // docs/themes.md's [theme] example.
    let block = doc
        .split("```toml\n[theme]\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/themes.md shows a [theme] example");
    let t = theme(&format!("[theme]\n{block}"), false);
    assert_ne!(t, theme("[theme]\nname = \"light\"\n", false));
    // config.example.toml's commented [theme] lines, uncommented.
    let tail = example
        .split("\n[theme]\n")
        .nth(1)
        .expect("a [theme] table");
    let lines: String = tail
        .lines()
        .filter_map(|l| l.strip_prefix("# "))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(lines.contains("name = "), "{lines}");
    theme(&format!("[theme]\n{lines}"), false);
}
