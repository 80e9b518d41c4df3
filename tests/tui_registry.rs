//! The MCP Registry browser (`F`) through `update()`: the search sent once
//! the typing pauses (the cache's results shown first, then the
//! network's), the results (deprecated marked, deleted left out, hostile
//! text made safe), an entry's detail (what each way runs, the inputs it
//! still needs and their flags), trying an entry (a server of this
//! session, not in the config), the add form (a secret masked, the
//! config written with `${secret:NAME}`), and a registry that cannot be
//! reached. The driver's answers are fed as messages; the screen is
//! rendered into ratatui's TestBackend.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use mcpdeck::config::{CredentialStoreKind, ServerConfig, TransportConfig};
use mcpdeck::registry::Entry;
use mcpdeck::tui::app::{Effect, Mode, Msg, State, update};
use mcpdeck::tui::keymap::Keymap;
use mcpdeck::tui::registry::{Item, Purpose, RegistryFx, RegistryMsg, Source};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};

const BASE: &str = "http://registry.test";

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new_with_kind(
        code,
        KeyModifiers::NONE,
        KeyEventKind::Press,
    ))
}

fn ch(c: char) -> Msg {
    key(KeyCode::Char(c))
}

fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new_with_kind(
        KeyCode::Char(c),
        KeyModifiers::CONTROL,
        KeyEventKind::Press,
    ))
}

fn press(s: &mut State, msgs: impl IntoIterator<Item = Msg>) -> Vec<Effect> {
    let mut fx = Vec::new();
    for m in msgs {
        update(s, m, &mut fx);
    }
    fx
}

fn typed(text: &str) -> Vec<Msg> {
    text.chars().map(ch).collect()
}

/// One configured server, and the registry at [`BASE`].
fn state(config: Option<PathBuf>) -> State {
    let configs = vec![ServerConfig::stdio("demo", "x", &[])];
    let mut s = State::new(&configs, Keymap::default(), config);
    s.settings.registry_url = Some(BASE.into());
    update(&mut s, Msg::Resize(120, 40), &mut Vec::new());
    s
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

/// The searches asked for: (query, seq).
fn searches(fx: &[Effect]) -> Vec<(String, u64)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Registry(RegistryFx::Search { base, query, seq }) => {
                assert_eq!(base, BASE);
                Some((query.clone(), *seq))
            }
            _ => None,
        })
        .collect()
}

fn response(server: Value, status: &str, message: Option<&str>) -> Value {
    let mut official = json!({"status": status, "isLatest": true,
        "publishedAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"});
    if let Some(m) = message {
        official["statusMessage"] = json!(m);
    }
    json!({"server": server, "_meta": {"io.modelcontextprotocol.registry/official": official}})
}

fn entry(v: Value) -> Entry {
    Entry::from_response(&v).expect("an entry")
}

/// A pypi package with a required secret, a choice and an optional path.
fn weather() -> Entry {
    entry(response(
        json!({
            "name": "io.github.example/weather-py",
            "title": "Weather (Python)",
            "description": "Python MCP server for weather data",
            "version": "0.5.0",
            "repository": {"url": "https://github.com/example/weather-py", "source": "github"},
            "packages": [{
                "registryType": "pypi",
                "identifier": "mcp-weather-example",
                "version": "0.5.0",
                "transport": {"type": "stdio"},
                "environmentVariables": [
                    {"name": "WEATHER_API_KEY", "description": "Your API key", "isRequired": true, "isSecret": true},
                    {"name": "WEATHER_UNITS", "description": "Units", "default": "metric", "choices": ["metric", "imperial"]},
                    {"name": "WEATHER_CACHE_DIR", "description": "Where to cache"}
                ]
            }]
        }),
        "active",
        None,
    ))
}

/// An npm package that needs nothing.
fn plain() -> Entry {
    entry(response(
        json!({
            "name": "io.example/new",
            "description": "The new server\nwith a second line",
            "version": "2.0.0",
            "packages": [{"registryType": "npm", "identifier": "@example/new-server",
                          "version": "2.0.0", "transport": {"type": "stdio"}}]
        }),
        "active",
        None,
    ))
}

fn deprecated() -> Entry {
    entry(response(
        json!({
            "name": "io.example/old",
            "description": "The old server",
            "version": "1.0.0",
            "packages": [{"registryType": "npm", "identifier": "@example/old-server",
                          "version": "1.0.0", "transport": {"type": "stdio"}}]
        }),
        "deprecated",
        Some("use io.example/new instead"),
    ))
}

fn deleted() -> Entry {
    entry(response(
        json!({"name": "io.example/gone", "description": "Deleted", "version": "1.0.0",
               "packages": [{"registryType": "npm", "identifier": "@example/gone", "transport": {"type": "stdio"}}]}),
        "deleted",
        None,
    ))
}

fn hostile() -> Entry {
    entry(response(
        json!({
            "name": "io.example/hostile-text",
            "title": "\u{1b}[31mRed Alert\u{1b}[0m \u{1b}]0;owned\u{7}Tool",
            "description": "Looks harmless\u{1b}[2J\u{1b}[H until printed: \u{1b}]0;owned\u{7} reversed \u{202e}txet\u{200b}",
            "version": "1.0.0",
            "packages": [{"registryType": "npm", "identifier": "@example/hostile-text",
                          "version": "1.0.0", "transport": {"type": "stdio"}}]
        }),
        "active",
        None,
    ))
}

fn items(entries: Vec<Entry>) -> Vec<Item> {
    entries
        .into_iter()
        .map(|e| Item::new(e, &|rt| rt == "npx"))
        .collect()
}

fn found(seq: u64, query: &str, entries: Vec<Entry>, cached: Option<Duration>) -> Msg {
    Msg::Registry(RegistryMsg::Found {
        seq,
        query: query.into(),
        items: items(entries),
        cached,
        more: false,
    })
}

/// The view open, with `entries` found for the empty query.
fn browsing(config: Option<PathBuf>, entries: Vec<Entry>) -> State {
    let mut s = state(config);
    let fx = press(&mut s, [ch('F')]);
    assert_eq!(s.mode, Mode::Registry);
    assert_eq!(searches(&fx), vec![(String::new(), 1)]);
    press(&mut s, [found(1, "", entries, None)]);
    s
}

#[test]
fn typing_searches_after_a_pause_and_the_cache_answers_first() {
    let mut s = state(None);
    let t0 = Instant::now();
    let fx = press(&mut s, [Msg::Clock(t0), ch('F')]);
    // Opening asks for everything at once.
    assert_eq!(searches(&fx), vec![(String::new(), 1)]);
    assert!(s.busy(), "the spinner turns while the registry is asked");
    // Keys typed quickly ask nothing yet, not even on a tick.
    let mut fx = Vec::new();
    for (i, c) in "wea".chars().enumerate() {
        update(
            &mut s,
            Msg::Clock(t0 + Duration::from_millis(50 * i as u64)),
            &mut fx,
        );
        update(&mut s, ch(c), &mut fx);
    }
    update(&mut s, Msg::Clock(t0 + Duration::from_millis(250)), &mut fx);
    update(&mut s, Msg::Tick, &mut fx);
    assert!(searches(&fx).is_empty(), "{fx:?}");
    assert_eq!(s.registry.query, "wea");
    // 300 ms after the last key: one search, of what was typed.
    let fx = press(
        &mut s,
        [Msg::Clock(t0 + Duration::from_millis(450)), Msg::Tick],
    );
    assert_eq!(searches(&fx), vec![("wea".to_string(), 2)]);
    // An answer to the first search, late, is dropped.
    press(&mut s, [found(1, "", vec![plain(), deprecated()], None)]);
    assert!(s.registry.items.is_empty());
    // The cache answers first, at once; the network is still asked.
    press(
        &mut s,
        [found(
            2,
            "wea",
            vec![weather()],
            Some(Duration::from_secs(5 * 60)),
        )],
    );
    assert_eq!(
        s.registry.source,
        Some(Source::Cache(Duration::from_secs(300)))
    );
    assert!(s.registry.pending.is_some());
    let out = screen(&s, 120, 40);
    assert!(out.contains("io.github.example/weather-py"), "{out}");
    assert!(out.contains("cached 5 min ago"), "{out}");
    assert!(out.contains("asking the registry"), "{out}");
    // Then the network's answer replaces it.
    let mut w2 = weather();
    w2.version = "0.6.0".into();
    press(&mut s, [found(2, "wea", vec![w2, plain()], None)]);
    assert_eq!(s.registry.source, Some(Source::Network));
    assert!(s.registry.pending.is_none());
    assert!(!s.registry.busy());
    let out = screen(&s, 120, 40);
    assert!(
        out.contains("0.6.0") && out.contains("io.example/new"),
        "{out}"
    );
    assert!(!out.contains("cached") && !out.contains("asking"), "{out}");
    // Enter asks at once what waits, and goes to the list.
    let fx = press(&mut s, [ch('x'), key(KeyCode::Enter)]);
    assert_eq!(searches(&fx), vec![("weax".to_string(), 3)]);
    let fx = press(&mut s, [ch('r')]);
    assert_eq!(searches(&fx), vec![("weax".to_string(), 4)], "r asks again");
}

#[test]
fn results_mark_deprecated_leave_out_deleted_and_show_hostile_text_safely() {
    let mut s = browsing(None, vec![plain(), deprecated(), deleted(), hostile()]);
    assert_eq!(s.registry.items.len(), 3, "deleted entries are not shown");
    let out = screen(&s, 120, 40);
    assert!(!out.contains("io.example/gone"), "{out}");
    let old = out
        .lines()
        .find(|l| l.contains("io.example/old"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        old.contains("deprecated") && old.contains("The old"),
        "{old}"
    );
    // Only the description's first line, in the list.
    let new = out
        .lines()
        .find(|l| l.contains("io.example/new "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        new.contains("The new server") && !new.contains("second"),
        "{new}"
    );
    // Nothing the registry sent reaches the terminal as a control.
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out}");
    assert!(
        !out.contains('\u{202e}') && !out.contains('\u{200b}'),
        "{out}"
    );
    // Its detail: the deprecation's message; hostile text as placeholders.
    press(&mut s, [key(KeyCode::Enter), key(KeyCode::Down)]);
    let out = screen(&s, 120, 40);
    assert!(
        out.contains("status: deprecated, latest: use io.example/new instead"),
        "{out}"
    );
    press(&mut s, [key(KeyCode::Down)]);
    let out = screen(&s, 120, 40);
    assert!(out.contains("␛[31mRed Alert"), "{out}");
    assert!(
        out.contains("⟨U+202E⟩") && out.contains("⟨U+200B⟩"),
        "{out}"
    );
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{202e}'),
        "{out}"
    );
}

#[test]
fn the_detail_of_a_pypi_entry_says_what_it_runs_and_needs() {
    let s = browsing(None, vec![weather()]);
    let out = screen(&s, 120, 40);
    for want in [
        "io.github.example/weather-py 0.5.0",
        "title: Weather (Python)",
        "status: active, latest",
        "repository: https://github.com/example/weather-py",
        "package 1: pypi mcp-weather-example 0.5.0  (the default)",
        "runtime: uvx (not installed here)",
        "needs, before it can run:",
        "--env WEATHER_API_KEY=… (secret)",
        "input WEATHER_API_KEY (env, required, secret):",
        "input WEATHER_UNITS (env, default metric, one of metric,",
        "input WEATHER_CACHE_DIR (env): Where to cache",
    ] {
        assert!(out.contains(want), "{want}:\n{out}");
    }
    // At 60x20 it still shows, and scrolls.
    let mut s = s;
    press(&mut s, [Msg::Resize(60, 20), key(KeyCode::Enter)]);
    let out = screen(&s, 60, 20);
    assert!(out.contains("Entry ·"), "{out}");
    press(&mut s, [key(KeyCode::Enter), key(KeyCode::End)]);
    assert!(s.registry.detail_scroll > 0);
    let out = screen(&s, 60, 20);
    assert!(out.contains("adds it"), "the end of the detail:\n{out}");
}

#[test]
fn the_try_key_adds_a_server_for_this_session_only() {
    let mut s = browsing(None, vec![plain()]);
    // In the search field `u` is typed; in the list it tries.
    let fx = press(&mut s, [key(KeyCode::Enter), ch('u')]);
    let tried: Vec<&ServerConfig> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Registry(RegistryFx::Try(c)) => Some(&**c),
            _ => None,
        })
        .collect();
    assert_eq!(tried.len(), 1, "{fx:?}");
    let c = tried[0];
    assert_eq!(c.name, "new");
    match &c.transport {
        TransportConfig::Stdio { command, args, .. } => {
            assert_eq!(command, "npx");
            assert_eq!(args, &["-y", "@example/new-server@2.0.0"]);
        }
        other => panic!("{other:?}"),
    }
    // Not written anywhere: no config effect.
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::AddServer(_) | Effect::Reload)),
        "{fx:?}"
    );
    assert!(s.registry.is_tried("new"));
    assert_eq!(s.mode, Mode::Normal);
    assert_eq!(s.selected_server().map(|v| v.name.as_str()), Some("new"));
    let out = screen(&s, 120, 40);
    assert!(out.contains("new try"), "the servers pane marks it:\n{out}");
    assert!(out.contains("tried from the MCP Registry"), "{out}");
    let status = s.status.clone().unwrap_or_default();
    assert!(
        status.contains("trying new") && status.contains("not in the config"),
        "{status}"
    );
    // Disabling it is for this session: nothing is written.
    let fx = press(&mut s, [ch(' ')]);
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::WriteEnabled { .. })),
        "{fx:?}"
    );
    // A config server of the same name makes the tried one `new-try`.
    let mut s = state(None);
    s.servers[0].name = "new".into();
    press(&mut s, [ch('F'), found(1, "", vec![plain()], None)]);
    let fx = press(&mut s, [key(KeyCode::Enter), ch('u')]);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Registry(RegistryFx::Try(c)) if c.name == "new-try")),
        "{fx:?}"
    );
}

#[test]
fn trying_an_entry_with_missing_inputs_asks_for_them_first() {
    let mut s = browsing(None, vec![weather()]);
    let fx = press(&mut s, [key(KeyCode::Enter), ch('u')]);
    assert!(fx.is_empty(), "{fx:?}");
    let form = s.registry.form.as_ref().expect("the form");
    assert_eq!(form.purpose, Purpose::Try);
    let out = screen(&s, 120, 40);
    assert!(out.contains("still needed: WEATHER_API_KEY"), "{out}");
    // A letter types into the field (never a command).
    let fx = press(&mut s, typed("k3y-value"));
    assert!(fx.is_empty());
    let out = screen(&s, 120, 40);
    assert!(
        !out.contains("k3y-value") && out.contains("•••••••••"),
        "{out}"
    );
    assert!(out.contains("runs: WEATHER_API_KEY=••••••"), "{out}");
    assert!(out.contains("uvx mcp-weather-example==0.5.0"), "{out}");
    let fx = press(&mut s, [ctrl('s')]);
    let c = fx
        .iter()
        .find_map(|e| match e {
            Effect::Registry(RegistryFx::Try(c)) => Some(c.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{fx:?}"));
    match &c.transport {
        TransportConfig::Stdio { env, .. } => {
            assert!(
                env.iter()
                    .any(|(k, v)| k == "WEATHER_API_KEY" && v == "k3y-value"),
                "{env:?}"
            );
            assert!(
                env.iter()
                    .any(|(k, v)| k == "WEATHER_UNITS" && v == "metric"),
                "{env:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(s.registry.form.is_none());
}

#[test]
fn the_add_form_masks_the_secret_and_its_submit_writes_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        "[settings]\ncredentials = \"file\"\n\n[servers.demo]\ncommand = \"x\"\n",
    )
    .unwrap();
    let mut s = browsing(Some(config.clone()), vec![weather()]);
    press(&mut s, [key(KeyCode::Enter), ch('a')]);
    let form = s.registry.form.as_ref().expect("the form");
    assert_eq!(form.purpose, Purpose::Add);
    assert_eq!(form.name, "weather-py");
    let out = screen(&s, 120, 40);
    assert!(
        out.contains("Add io.github.example/weather-py 0.5.0"),
        "{out}"
    );
    // Defaults filled in, the choice shown as one.
    assert!(out.contains("metric"), "{out}");
    // Submitting with the secret missing says so and writes nothing.
    let fx = press(&mut s, [ctrl('s')]);
    assert!(fx.is_empty(), "{fx:?}");
    let err = s.registry.form.as_ref().and_then(|f| f.error.clone());
    assert_eq!(err.as_deref(), Some("still needed: WEATHER_API_KEY"));
    // The secret, masked as it is typed.
    press(&mut s, typed("sekrit-123"));
    let out = screen(&s, 120, 40);
    assert!(!out.contains("sekrit"), "{out}");
    assert!(out.contains("••••••••••▏"), "{out}");
    assert!(
        out.contains("secret WEATHER_API_KEY → the credential store as weather-py_WEATHER_API_KEY"),
        "{out}"
    );
    assert!(out.contains("[servers.weather-py]"), "{out}");
    // The choice cycles: metric → imperial.
    press(&mut s, [key(KeyCode::Down), key(KeyCode::Right)]);
    let fx = press(&mut s, [ctrl('s')]);
    // Effects may be logged: theirs never hold the value.
    assert!(!format!("{fx:?}").contains("sekrit"), "{fx:?}");
    let add = fx
        .into_iter()
        .find_map(|e| match e {
            Effect::Registry(RegistryFx::Add(a)) => Some(a),
            _ => None,
        })
        .expect("the add");
    assert_eq!(add.local, "weather-py");
    assert_eq!(add.base, BASE);
    assert!(s.registry.form.as_ref().is_some_and(|f| f.busy));
    // What the driver does with it: the secret into the store, the config
    // with `${secret:NAME}`.
    let data = dir.path().join("data");
    // SAFETY: the only test of this binary that reads the data directory.
    unsafe { std::env::set_var("XDG_DATA_HOME", &data) };
    let stored =
        mcpdeck::tui::registry::fetch::write_add(Some(&config), CredentialStoreKind::File, &add)
            .expect("written");
    assert_eq!(stored, vec!["weather-py_WEATHER_API_KEY".to_string()]);
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.contains("# from the MCP Registry: io.github.example/weather-py 0.5.0"),
        "{text}"
    );
    assert!(text.contains("[servers.weather-py]"), "{text}");
    assert!(
        text.contains("WEATHER_API_KEY = \"${secret:weather-py_WEATHER_API_KEY}\""),
        "{text}"
    );
    assert!(text.contains("WEATHER_UNITS = \"imperial\""), "{text}");
    assert!(!text.contains("sekrit"), "{text}");
    let secrets = std::fs::read_to_string(data.join("mcpdeck/secrets.json")).unwrap();
    assert!(secrets.contains("sekrit-123"));
    // Its answer: the form closes, the config is read again, the server
    // is selected once it is there.
    let fx = press(
        &mut s,
        [Msg::Registry(RegistryMsg::Added {
            local: "weather-py".into(),
            result: Ok(stored),
        })],
    );
    assert!(
        fx.iter().any(|e| matches!(
            e,
            Effect::Registry(RegistryFx::Reload { note }) if note.contains("added weather-py")
        )),
        "{fx:?}"
    );
    assert!(s.registry.form.is_none());
    assert_eq!(s.mode, Mode::Normal);
    let loaded = mcpdeck::config::load(&config).expect("the config loads");
    press(&mut s, [Msg::Reloaded(Ok(loaded.servers))]);
    assert_eq!(
        s.selected_server().map(|v| v.name.as_str()),
        Some("weather-py")
    );
}

#[test]
fn a_failed_add_keeps_the_form_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, "").unwrap();
    let mut s = browsing(Some(config), vec![plain()]);
    press(&mut s, [key(KeyCode::Enter), ch('a')]);
    // A name the config cannot take.
    press(&mut s, [ctrl('u')]);
    press(&mut s, typed("bad name"));
    let fx = press(&mut s, [ctrl('s')]);
    assert!(fx.is_empty(), "{fx:?}");
    assert!(
        s.registry
            .form
            .as_ref()
            .and_then(|f| f.error.as_deref())
            .is_some(),
    );
    // The name of a config server is refused too.
    press(&mut s, [ctrl('u')]);
    press(&mut s, typed("demo"));
    let fx = press(&mut s, [ctrl('s')]);
    assert!(fx.is_empty(), "{fx:?}");
    let err = s.registry.form.as_ref().and_then(|f| f.error.clone());
    assert!(err.unwrap_or_default().contains("already"));
    press(&mut s, [ctrl('u')]);
    press(&mut s, typed("new"));
    press(&mut s, [ctrl('s')]);
    press(
        &mut s,
        [Msg::Registry(RegistryMsg::Added {
            local: "new".into(),
            result: Err("the credential store cannot be opened: no".into()),
        })],
    );
    let form = s.registry.form.as_ref().expect("the form stays");
    assert!(!form.busy);
    assert!(
        form.error
            .as_deref()
            .unwrap_or("")
            .contains("credential store")
    );
    // Esc steps back: the form, the detail, then the view.
    press(&mut s, [key(KeyCode::Esc)]);
    assert!(s.registry.form.is_none());
    assert_eq!(s.mode, Mode::Registry);
    press(&mut s, [key(KeyCode::Enter)]);
    assert_eq!(s.registry.focus, mcpdeck::tui::registry::Focus::Detail);
    press(&mut s, [key(KeyCode::Esc)]);
    assert_eq!(s.registry.focus, mcpdeck::tui::registry::Focus::List);
    press(&mut s, [key(KeyCode::Esc)]);
    assert_eq!(s.mode, Mode::Normal);
}

#[test]
fn without_a_config_file_adding_is_refused_and_trying_still_works() {
    let mut s = browsing(None, vec![plain()]);
    let fx = press(&mut s, [key(KeyCode::Enter), ch('a')]);
    assert!(fx.is_empty());
    assert!(s.registry.form.is_none());
    let status = s.status.clone().unwrap_or_default();
    assert!(
        status.contains("no config file") && status.contains("u tries it"),
        "{status}"
    );
    let fx = press(&mut s, [ch('u')]);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Registry(RegistryFx::Try(_)))),
        "{fx:?}"
    );
}

#[test]
fn an_unreachable_registry_is_said_and_the_cache_still_shows() {
    let mut s = state(None);
    press(&mut s, [ch('F')]);
    let age = Duration::from_secs(17 * 60);
    press(&mut s, [found(1, "", vec![plain(), weather()], Some(age))]);
    let why = format!("the registry {BASE} cannot be reached: connection refused");
    press(
        &mut s,
        [Msg::Registry(RegistryMsg::Failed {
            seq: 1,
            why: why.clone(),
            cache_age: Some(age),
        })],
    );
    assert!(s.registry.pending.is_none());
    press(&mut s, [Msg::Resize(80, 24)]);
    let out = screen(&s, 80, 24);
    assert!(
        out.contains("cannot be reached: connection refused;"),
        "{out}"
    );
    assert!(out.contains("showing the cache of 17 min ago"), "{out}");
    assert!(out.contains("io.example/new"), "the cache stays:\n{out}");
    // The view keeps working from it: the detail, trying.
    let fx = press(&mut s, [key(KeyCode::Enter), ch('u')]);
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Registry(RegistryFx::Try(_)))),
        "{fx:?}"
    );
    // A search with nothing cached says so, and shows nothing of another.
    let mut s = state(None);
    press(&mut s, [ch('F'), found(1, "", vec![plain()], None)]);
    let t0 = Instant::now();
    let fx = press(
        &mut s,
        [
            Msg::Clock(t0),
            ch('z'),
            Msg::Clock(t0 + Duration::from_millis(400)),
            Msg::Tick,
        ],
    );
    assert_eq!(searches(&fx), vec![("z".to_string(), 2)]);
    press(
        &mut s,
        [Msg::Registry(RegistryMsg::Failed {
            seq: 2,
            why,
            cache_age: None,
        })],
    );
    let out = screen(&s, 80, 24);
    assert!(out.contains("nothing cached for this search"), "{out}");
    assert!(!out.contains("io.example/new"), "{out}");
    assert!(out.contains("r asks again"), "{out}");
}

#[test]
fn the_view_fits_small_terminals() {
    let mut s = browsing(None, vec![weather(), plain(), deprecated(), hostile()]);
    for (w, h) in [(120, 40), (80, 24), (60, 20)] {
        press(&mut s, [Msg::Resize(w, h)]);
        let out = screen(&s, w, h);
        assert!(out.contains("MCP Registry"), "{w}x{h}:\n{out}");
        assert!(out.contains("weather-py"), "{w}x{h}:\n{out}");
        assert!(
            out.lines().last().unwrap_or("").contains("close"),
            "{w}x{h}:\n{out}"
        );
    }
    // The form fits too.
    press(&mut s, [key(KeyCode::Enter), ch('u')]);
    let out = screen(&s, 60, 20);
    assert!(out.contains("WEATHER_API_KEY*"), "{out}");
    assert!(out.contains("Ctrl-S try"), "{out}");
    // The help over the view keeps it, and lists the keys.
    press(&mut s, [key(KeyCode::Esc), ch('?'), ch('/')]);
    press(&mut s, typed("registry"));
    let out = screen(&s, 120, 40);
    assert!(out.contains("find servers in the MCP Registry"), "{out}");
    assert!(out.contains("try the selected entry"), "{out}");
}
