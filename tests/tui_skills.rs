//! The skills view (the MCP Skills extension, SEP-2640) through
//! `update()`: the listing (pages, name collisions, invalid entries, no
//! file read), loading a skill (its SKILL.md verified against the entry;
//! a mismatch shows nothing of it), reading its files one by one, and a
//! server without the extension. Answers are fed as manager events, and
//! the screen is rendered into ratatui's TestBackend.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use mcpdeck::config::ServerConfig;
use mcpdeck::mcp::manager::{CallError, Command, Event, ServerStatus};
use mcpdeck::mcp::session::{Lists, Negotiated, RequestError};
use mcpdeck::mcp::skills::digest_of;
use mcpdeck::mcp::types::{Era, ServerInfo};
use mcpdeck::tui::app::{Effect, Mode, Msg, State, update};
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

fn ch(c: char) -> Msg {
    key(KeyCode::Char(c))
}

fn negotiated(capabilities: Value) -> Negotiated {
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
        capabilities,
        instructions: None,
        supported_versions: vec![],
        connect_time: Duration::from_millis(5),
        transport: "stdio",
    }
}

/// One connected server, `demo`, with these capabilities.
fn state(capabilities: Value) -> State {
    let configs = vec![ServerConfig::stdio("demo", "x", &[])];
    let mut s = State::new(&configs, Keymap::default(), None);
    let mut fx = Vec::new();
    for ev in [
        Event::Status {
            server: "demo".into(),
            status: ServerStatus::Connected,
            negotiated: Some(Box::new(negotiated(capabilities))),
        },
        Event::Lists {
            server: "demo".into(),
            lists: Arc::new(Lists::default()),
        },
    ] {
        update(&mut s, Msg::Manager(ev), &mut fx);
    }
    assert!(fx.is_empty());
    s
}

fn with_skills() -> Value {
    json!({"tools": {}, "resources": {}, "extensions": {"io.modelcontextprotocol/skills": {}}})
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

/// The one request in `fx`, which must be `method`.
fn only_request(fx: &[Effect], method: &str) -> (u64, Value) {
    let r = requests(fx);
    assert_eq!(r.len(), 1, "{fx:?}");
    assert_eq!(r[0].1, method);
    (r[0].0, r[0].2.clone())
}

/// Feed an answer; the effects it asks for.
fn respond(s: &mut State, tag: u64, method: &str, result: Result<Value, CallError>) -> Vec<Effect> {
    let mut fx = Vec::new();
    update(
        s,
        Msg::Manager(Event::Response {
            tag,
            server: "demo".into(),
            method: method.into(),
            result,
        }),
        &mut fx,
    );
    fx
}

fn press<const N: usize>(s: &mut State, msgs: [Msg; N]) -> Vec<Effect> {
    let mut fx = Vec::new();
    for m in msgs {
        update(s, m, &mut fx);
    }
    fx
}

const TOUR_MD: &str = "---\nname: demo-tour\ndescription: A tour of the demo server.\nlicense: MIT\n---\n\n# The tour\n\nStart with \u{1b}[31mtools\u{1b}[0m, then read references/KEYS.md.\n";
const KEYS_MD: &str = "# Keys\n\nK opens the skills view.\n";
const LOGO: &[u8] = &[0x89, b'P', b'N', b'G', 0, 1, 2];

fn file(uri: &str, bytes: &[u8]) -> Value {
    json!({"uri": uri, "digest": digest_of(bytes), "size": bytes.len()})
}

fn tour() -> Value {
    json!({
        "uri": "skill://demo-tour/SKILL.md",
        "frontmatter": {"name": "demo-tour", "description": "A tour of the demo server.", "license": "MIT"},
        "resources": [
            file("skill://demo-tour/SKILL.md", TOUR_MD.as_bytes()),
            file("skill://demo-tour/references/KEYS.md", KEYS_MD.as_bytes()),
            file("skill://demo-tour/assets/logo.png", LOGO),
            // Listed with a digest that the bytes served will not match.
            {"uri": "skill://demo-tour/stale.md", "digest": digest_of(b"old"), "size": 3},
        ],
    })
}

fn refunds(team: &str) -> Value {
    let md = format!("---\nname: refunds\ndescription: Refunds for {team}.\n---\n");
    json!({
        "uri": format!("skill://acme/{team}/refunds/SKILL.md"),
        "frontmatter": {"name": "refunds", "description": format!("Refunds for {team}.")},
        "resources": [file(&format!("skill://acme/{team}/refunds/SKILL.md"), md.as_bytes())],
    })
}

/// An entry with problems: a name that is not its path's last segment
/// and breaks the naming rule, and no SKILL.md in its resources.
fn broken() -> Value {
    json!({
        "uri": "skill://broken/SKILL.md",
        "frontmatter": {"name": "Broken Name", "description": "Not \u{1b}]0;loadable\u{7}"},
        "resources": [],
    })
}

fn daily() -> Value {
    json!({
        "uri": "skill://reports/daily/SKILL.md",
        "frontmatter": {"name": "daily", "description": "Today's report, made live."},
        "resources": "dynamic",
    })
}

fn read_answer(uri: &str, text: &str) -> Result<Value, CallError> {
    Ok(json!({"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}))
}

/// The view opened and listed (two pages): demo-tour; refunds twice,
/// broken, daily.
fn listed() -> State {
    let mut s = state(with_skills());
    let fx = press(&mut s, [ch('K')]);
    assert_eq!(s.mode, Mode::Skills);
    let (tag, params) = only_request(&fx, "skills/list");
    assert_eq!(params, json!({}));
    let fx = respond(
        &mut s,
        tag,
        "skills/list",
        Ok(
            json!({"skills": [tour()], "nextCursor": "page-2", "ttlMs": 300000, "cacheScope": "public"}),
        ),
    );
    let (tag, params) = only_request(&fx, "skills/list");
    assert_eq!(params, json!({"cursor": "page-2"}));
    let fx = respond(
        &mut s,
        tag,
        "skills/list",
        Ok(json!({"skills": [refunds("billing"), refunds("support"), broken(), daily()]})),
    );
    assert!(fx.is_empty(), "the listing reads no file: {fx:?}");
    s
}

#[test]
fn a_server_without_the_extension_is_said_so_in_the_status_line() {
    let mut s = state(json!({"tools": {}, "resources": {}}));
    let fx = press(&mut s, [ch('K')]);
    assert!(fx.is_empty(), "{fx:?}");
    assert_eq!(s.mode, Mode::Normal);
    let status = s.status.clone().unwrap_or_default();
    assert!(
        status.contains(
            "demo does not declare the skills extension (io.modelcontextprotocol/skills): no skills to list"
        ),
        "{status}"
    );
    let out = screen(&s, 160, 30);
    assert!(
        out.contains("demo does not declare the skills extension"),
        "{out}"
    );
    // Nor is the key offered in the panes' hints, while it is for a
    // server that declares it.
    assert!(!screen(&state(json!({"tools": {}})), 200, 30).contains("K skills"));
    assert!(screen(&state(with_skills()), 200, 30).contains("K skills"));

    // A server not connected yet: connect it first.
    let configs = vec![ServerConfig::stdio("slow", "x", &[])];
    let mut s = State::new(&configs, Keymap::default(), None);
    let fx = press(&mut s, [ch('K')]);
    assert!(fx.is_empty());
    assert_eq!(s.mode, Mode::Normal);
    assert!(
        s.status
            .as_deref()
            .unwrap_or("")
            .contains("connect it first"),
        "{:?}",
        s.status
    );
}

#[test]
fn the_listing_follows_pages_labels_collisions_by_path_and_reads_nothing() {
    let mut s = listed();
    let out = screen(&s, 120, 40);
    assert!(out.contains("Skills · demo (5)"), "{out}");
    // Names collide: the two are told apart by their paths.
    assert!(out.contains("acme/billing/refunds"), "{out}");
    assert!(out.contains("acme/support/refunds"), "{out}");
    assert!(out.contains("demo-tour"), "{out}");
    assert!(out.contains("4 files, "), "{out}");
    assert!(out.contains("dynamic"), "{out}");
    assert!(out.contains("✗ invalid"), "{out}");
    // A server's control characters never reach the terminal.
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out}");
    assert!(out.contains("A tour of the demo server."), "{out}");
    // The selected entry's detail, before anything is read.
    assert!(out.contains("skill://demo-tour/SKILL.md"), "{out}");
    assert!(out.contains("license"), "{out}");
    assert!(out.contains("Enter loads it"), "{out}");

    // `/` filters (by label, name, description, URI); Esc clears it.
    let fx = press(&mut s, [ch('/'), ch('s'), ch('u'), ch('p')]);
    assert!(fx.is_empty());
    let out = screen(&s, 120, 40);
    assert!(out.contains("Skills · demo (1 of 5) /sup"), "{out}");
    assert!(out.contains("acme/support/refunds"), "{out}");
    assert!(!out.contains("acme/billing/refunds"), "{out}");
    press(&mut s, [key(KeyCode::Esc)]);
    assert!(s.skills.filter.is_empty());
    assert_eq!(s.mode, Mode::Skills);

    // Arrows and vim keys move.
    press(&mut s, [ch('j'), key(KeyCode::Down)]);
    assert_eq!(s.skills.sel, 2);
    press(&mut s, [ch('k')]);
    assert_eq!(s.skills.sel, 1);

    // `r` lists again, from the first page, and the selection stays on
    // the same skill.
    let fx = press(&mut s, [ch('r')]);
    let (tag, params) = only_request(&fx, "skills/list");
    assert_eq!(params, json!({}));
    let fx = respond(
        &mut s,
        tag,
        "skills/list",
        Ok(json!({"skills": [daily(), refunds("billing"), tour()]})),
    );
    assert!(fx.is_empty());
    assert_eq!(s.skills.selected().unwrap().1.path, "acme/billing/refunds");
    let out = screen(&s, 120, 40);
    assert!(out.contains("Skills · demo (3)"), "{out}");
    // No collision any more: the name alone.
    assert!(!out.contains("acme/billing/refunds  "), "{out}");

    // Every size renders.
    for (w, h) in [(120, 40), (80, 24), (60, 20), (30, 8), (10, 4)] {
        screen(&s, w, h);
    }
}

#[test]
fn loading_a_skill_reads_only_its_skill_md_verifies_it_and_lists_its_files() {
    let mut s = listed();
    let fx = press(&mut s, [key(KeyCode::Enter)]);
    let (tag, params) = only_request(&fx, "resources/read");
    assert_eq!(params, json!({"uri": "skill://demo-tour/SKILL.md"}));
    assert!(screen(&s, 120, 40).contains("reading SKILL.md…"));
    let fx = respond(
        &mut s,
        tag,
        "resources/read",
        read_answer("skill://demo-tour/SKILL.md", TOUR_MD),
    );
    assert!(fx.is_empty(), "nothing else is read: {fx:?}");
    let out = screen(&s, 120, 40);
    assert!(out.contains("✓ verified"), "{out}");
    assert!(
        out.contains("✓ verified: size, sha256 and frontmatter match the entry"),
        "{out}"
    );
    // The text, sanitized.
    assert!(out.contains("# The tour"), "{out}");
    assert!(out.contains("Start with ␛[31mtools␛[0m"), "{out}");
    // The other files, with their sizes, not read.
    assert!(out.contains("Files · demo-tour"), "{out}");
    assert!(out.contains("references/KEYS.md"), "{out}");
    assert!(out.contains("not read"), "{out}");
    assert!(
        s.status
            .as_deref()
            .unwrap_or("")
            .contains("SKILL.md verified")
    );
    for (w, h) in [(80, 24), (60, 20)] {
        let out = screen(&s, w, h);
        assert!(out.contains("✓ verified"), "{w}x{h}\n{out}");
        assert!(out.contains("SKILL.md"), "{w}x{h}\n{out}");
    }

    // The dynamic one: loaded, unverifiable.
    let fx = press(&mut s, [key(KeyCode::End), key(KeyCode::Enter)]);
    let (tag, params) = only_request(&fx, "resources/read");
    assert_eq!(params, json!({"uri": "skill://reports/daily/SKILL.md"}));
    let md = "---\nname: daily\ndescription: Today's report, made live.\n---\nNumbers.\n";
    respond(
        &mut s,
        tag,
        "resources/read",
        read_answer("skill://reports/daily/SKILL.md", md),
    );
    let out = screen(&s, 120, 40);
    assert!(out.contains("! dynamic"), "{out}");
    assert!(out.contains("Numbers."), "{out}");
    // The first one keeps its badge.
    assert!(out.contains("✓ verified"), "{out}");
}

#[test]
fn a_digest_mismatch_fails_and_shows_nothing_of_the_content() {
    let mut s = listed();
    let fx = press(&mut s, [key(KeyCode::Enter)]);
    let (tag, _) = only_request(&fx, "resources/read");
    // Same size, other bytes.
    let tampered = TOUR_MD.replace("The tour", "Bad tour");
    assert_eq!(tampered.len(), TOUR_MD.len());
    respond(
        &mut s,
        tag,
        "resources/read",
        read_answer("skill://demo-tour/SKILL.md", &tampered),
    );
    let out = screen(&s, 120, 40);
    assert!(out.contains("✗ failed: digest sha256:"), "{out}");
    assert!(!out.contains("Bad tour"), "{out}");
    assert!(!out.contains("✓ verified"), "{out}");
    assert!(out.contains("Nothing of its content is shown"), "{out}");
    assert!(!out.contains("Files · demo-tour"), "{out}");

    // Enter tries again; this time the frontmatter differs from the
    // entry's (the digest is the entry's own, so only the comparison can
    // catch it): a failure too.
    let fx = press(&mut s, [key(KeyCode::Enter)]);
    let (tag, _) = only_request(&fx, "resources/read");
    respond(
        &mut s,
        tag,
        "resources/read",
        read_answer("skill://demo-tour/SKILL.md", "short"),
    );
    let out = screen(&s, 120, 40);
    assert!(
        out.contains("✗ failed: 5 bytes read, the entry says"),
        "{out}"
    );
    assert!(!out.contains("short"), "{out}");

    // A request error is a failure as well.
    let fx = press(&mut s, [key(KeyCode::Enter)]);
    let (tag, _) = only_request(&fx, "resources/read");
    let error = RequestError::Timeout {
        method: "resources/read".into(),
        after: Duration::from_secs(30),
    };
    respond(&mut s, tag, "resources/read", Err(error.into()));
    assert!(screen(&s, 120, 40).contains("✗ failed: no answer to resources/read"));
}

#[test]
fn a_frontmatter_that_differs_from_the_entry_fails() {
    let md = "---\nname: tour\ndescription: What the file says.\n---\n";
    let entry = json!({
        "uri": "skill://tour/SKILL.md",
        "frontmatter": {"name": "tour", "description": "What the entry says."},
        "resources": [file("skill://tour/SKILL.md", md.as_bytes())],
    });
    let mut s = state(with_skills());
    let fx = press(&mut s, [ch('K')]);
    let (tag, _) = only_request(&fx, "skills/list");
    respond(&mut s, tag, "skills/list", Ok(json!({"skills": [entry]})));
    let fx = press(&mut s, [key(KeyCode::Enter)]);
    let (tag, _) = only_request(&fx, "resources/read");
    respond(
        &mut s,
        tag,
        "resources/read",
        read_answer("skill://tour/SKILL.md", md),
    );
    let out = screen(&s, 160, 40);
    assert!(
        out.contains(
            "✗ failed: the frontmatter of SKILL.md differs from the entry's: `description` differs"
        ),
        "{out}"
    );
    // What the file says is not shown, not even in the reason.
    assert!(!out.contains("What the file says"), "{out}");
    assert!(
        !s.status
            .as_deref()
            .unwrap_or("")
            .contains("What the file says")
    );
}

#[test]
fn a_file_is_read_when_asked_and_verified() {
    let mut s = listed();
    let fx = press(&mut s, [key(KeyCode::Enter)]);
    let (tag, _) = only_request(&fx, "resources/read");
    respond(
        &mut s,
        tag,
        "resources/read",
        read_answer("skill://demo-tour/SKILL.md", TOUR_MD),
    );
    // Enter on the loaded skill: its files; down to KEYS.md.
    let fx = press(&mut s, [key(KeyCode::Enter), key(KeyCode::Down)]);
    assert!(fx.is_empty());
    let out = screen(&s, 120, 40);
    assert!(out.contains("demo-tour · references/KEYS.md"), "{out}");
    assert!(out.contains("Enter reads it"), "{out}");
    let fx = press(&mut s, [key(KeyCode::Enter)]);
    let (tag, params) = only_request(&fx, "resources/read");
    assert_eq!(
        params,
        json!({"uri": "skill://demo-tour/references/KEYS.md"})
    );
    respond(
        &mut s,
        tag,
        "resources/read",
        read_answer("skill://demo-tour/references/KEYS.md", KEYS_MD),
    );
    let out = screen(&s, 120, 40);
    assert!(out.contains("K opens the skills view."), "{out}");
    assert!(
        out.contains("✓ verified: size and sha256 match the entry"),
        "{out}"
    );

    // A binary file: verified, not shown.
    let fx = press(&mut s, [key(KeyCode::Down), key(KeyCode::Enter)]);
    let (tag, params) = only_request(&fx, "resources/read");
    assert_eq!(params, json!({"uri": "skill://demo-tour/assets/logo.png"}));
    respond(
        &mut s,
        tag,
        "resources/read",
        Ok(
            json!({"contents": [{"uri": "skill://demo-tour/assets/logo.png", "mimeType": "image/png", "blob": "iVBORwABAg=="}]}),
        ),
    );
    let out = screen(&s, 120, 40);
    assert!(out.contains("binary, 7 bytes (not shown)"), "{out}");

    // A file whose bytes do not match its entry: failed, not shown.
    let fx = press(&mut s, [key(KeyCode::Down), key(KeyCode::Enter)]);
    let (tag, _) = only_request(&fx, "resources/read");
    respond(
        &mut s,
        tag,
        "resources/read",
        read_answer("skill://demo-tour/stale.md", "new"),
    );
    let out = screen(&s, 120, 40);
    assert!(out.contains("✗ failed: digest sha256:"), "{out}");
    assert!(!out.contains("\nnew") && !out.contains("│new"), "{out}");
    // The skill is still loaded and verified.
    assert!(out.contains("✓ verified"), "{out}");

    // Esc: out of the files, then out of the view.
    press(&mut s, [key(KeyCode::Esc)]);
    assert_eq!(s.mode, Mode::Skills);
    press(&mut s, [key(KeyCode::Esc)]);
    assert_eq!(s.mode, Mode::Normal);
}

#[test]
fn an_unlisted_file_is_never_read() {
    let skill = mcpdeck::mcp::skills::Skill::from_entry(&tour());
    let e = mcpdeck::tui::skills::may_read(&skill, "skill://demo-tour/secret.md").unwrap_err();
    assert!(e.contains("not listed"), "{e}");
    // An answer that brings more than was asked for is no way in either:
    // the file checked is the one asked for.
    let answer = json!({"contents": [
        {"uri": "skill://demo-tour/secret.md", "text": "psst"},
        {"uri": "skill://demo-tour/references/KEYS.md", "text": KEYS_MD},
    ]});
    let bytes =
        mcpdeck::tui::skills::check_file(&skill, "skill://demo-tour/references/KEYS.md", &answer)
            .unwrap();
    assert_eq!(bytes, KEYS_MD.as_bytes());
}

#[test]
fn an_invalid_entry_is_never_loaded_and_enter_shows_its_problems() {
    let mut s = listed();
    // demo-tour, refunds, refunds, broken.
    press(
        &mut s,
        [key(KeyCode::Down), key(KeyCode::Down), key(KeyCode::Down)],
    );
    assert_eq!(
        s.skills.selected().unwrap().1.uri,
        "skill://broken/SKILL.md"
    );
    let fx = press(&mut s, [key(KeyCode::Enter)]);
    assert!(fx.is_empty(), "{fx:?}");
    let status = s.status.clone().unwrap_or_default();
    assert!(
        status.contains("the entry is invalid, so it is never loaded"),
        "{status}"
    );
    let out = screen(&s, 160, 40);
    assert!(
        out.contains("✗ invalid: this entry is never loaded"),
        "{out}"
    );
    assert!(
        out.contains("resources does not list SKILL.md itself"),
        "{out}"
    );
    assert!(out.contains("breaks the Agent Skills naming rule"), "{out}");
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out}");
    assert!(!out.contains("Enter loads it"), "{out}");
}

#[test]
fn esc_cancels_at_the_server_and_stale_answers_are_dropped() {
    let mut s = listed();
    let fx = press(&mut s, [key(KeyCode::Enter)]);
    let (first, _) = only_request(&fx, "resources/read");
    let fx = press(&mut s, [key(KeyCode::Esc)]);
    assert!(
        matches!(fx[..], [Effect::Manager(Command::Cancel { tag })] if tag == first),
        "{fx:?}"
    );
    assert_eq!(s.mode, Mode::Skills, "the first Esc cancels");
    assert!(
        s.status
            .as_deref()
            .unwrap_or("")
            .contains("cancelled reading")
    );
    // The answer that comes anyway is not used.
    respond(
        &mut s,
        first,
        "resources/read",
        read_answer("skill://demo-tour/SKILL.md", TOUR_MD),
    );
    assert!(s.skills.loads.is_empty());
    assert!(!screen(&s, 120, 40).contains("✓ verified"));

    // A listing that comes while a load is under way, with the skill's
    // entry changed: the load's answer is dropped, not verified against
    // an entry no longer listed.
    let fx = press(&mut s, [key(KeyCode::Enter)]);
    let (tag, _) = only_request(&fx, "resources/read");
    let fx = press(&mut s, [ch('r')]);
    let (list_tag, _) = only_request(&fx, "skills/list");
    let mut changed = tour();
    changed["frontmatter"]["license"] = json!("Apache-2.0");
    respond(
        &mut s,
        list_tag,
        "skills/list",
        Ok(json!({"skills": [changed]})),
    );
    respond(
        &mut s,
        tag,
        "resources/read",
        read_answer("skill://demo-tour/SKILL.md", TOUR_MD),
    );
    assert!(s.skills.loads.is_empty());
    assert!(
        s.status
            .as_deref()
            .unwrap_or("")
            .contains("its entry changed")
    );
}

#[test]
fn the_help_lists_the_skills_key() {
    let mut s = listed();
    press(&mut s, [ch('?')]);
    assert_eq!(s.mode, Mode::Help);
    let out = screen(&s, 120, 40);
    // The view stays under the help.
    assert!(out.contains("Skills · demo"), "{out}");
    press(
        &mut s,
        [ch('/'), ch('s'), ch('k'), ch('i'), ch('l'), ch('l')],
    );
    let out = screen(&s, 120, 60);
    assert!(out.contains("K          skills"), "{out}");
    press(&mut s, [key(KeyCode::Enter), ch('x')]);
    assert_eq!(s.mode, Mode::Skills);
}

#[test]
fn the_skills_key_goes_there_from_the_resources_view_and_back() {
    let mut s = state(with_skills());
    press(&mut s, [ch('e')]);
    assert_eq!(s.mode, Mode::Resources);
    let fx = press(&mut s, [ch('K')]);
    assert_eq!(s.mode, Mode::Skills);
    only_request(&fx, "skills/list");
    press(&mut s, [ch('e')]);
    assert_eq!(s.mode, Mode::Resources);
    // A second K lists anew (a listing is a point-in-time snapshot).
    let fx = press(&mut s, [ch('K')]);
    only_request(&fx, "skills/list");
    // K in the view goes back to the panes.
    press(&mut s, [ch('K')]);
    assert_eq!(s.mode, Mode::Normal);
}
