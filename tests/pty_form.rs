//! The argument form end to end: the mcpdeck binary in a pseudo-terminal
//! on the built-in demo server; a tool's form is filled in as a person
//! would, sent, and the result read on the screen.

mod common;

use common::pty::Tui;
use common::{limit, mcpdeck, mcpdeck_bin, write_file};
use serde_json::Value;

const DOWN: &str = "\x1b[B";
const RIGHT: &str = "\x1b[C";
const BACKSPACE: &str = "\x7f";
const CTRL_S: &str = "\x13";

/// A config with the demo server.
fn demo_config(dir: &std::path::Path) -> String {
    let exe = mcpdeck_bin().display().to_string();
    let cfg = format!("[servers.demo]\ncommand = {exe:?}\nargs = [\"demo-server\"]\n");
    write_file(dir, "config.toml", &cfg).display().to_string()
}

/// What the demo server answers for these arguments, asked headless
/// (`mcpdeck call`): the structured content the screen must show.
fn answer(tool: &str, arguments: &str) -> Value {
    let exe = mcpdeck_bin().display().to_string();
    let run = mcpdeck(
        &["call", tool, arguments, "--json", "--", &exe, "demo-server"],
        limit(30),
    );
    run.ok();
    let result: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
    result["structuredContent"].clone()
}

#[test]
fn the_weather_form_is_filled_in_and_sent() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tui::start(&demo_config(dir.path()));
    t.wait_for("demo 2026-07-28", 30);
    // Tools pane: echo, add, get_weather.
    t.keys("\t");
    t.keys(DOWN);
    t.keys(DOWN);
    t.wait_for("Tool · get_weather", 10);
    t.keys("\r");
    let s = t.wait_for("Arguments · get_weather on demo", 10);
    assert!(s.contains("city*"), "the city is required: {s}");
    assert!(
        s.contains("(default: metric)"),
        "the default is a placeholder: {s}"
    );
    // The city has the focus: type it; then the units, two choices on.
    t.keys("Lisbon");
    t.keys("\t");
    t.keys(RIGHT);
    t.keys(RIGHT);
    // Every choice shows (the one taken highlighted).
    t.wait_for("(default: metric)   metric   imperial", 10);
    t.wait_for("valid against the inputSchema", 10);
    t.keys(CTRL_S);
    let s = t.wait_for("\"units\": \"imperial\"", 30);
    assert!(s.contains("Result · get_weather on demo"), "{s}");
    assert!(s.contains("\"city\": \"Lisbon\""), "{s}");
    let imperial = answer("get_weather", r#"{"city": "Lisbon", "units": "imperial"}"#);
    let metric = answer("get_weather", r#"{"city": "Lisbon", "units": "metric"}"#);
    assert_ne!(imperial["temperature"], metric["temperature"]);
    let want = format!("\"temperature\": {}", imperial["temperature"]);
    assert!(s.contains(&want), "{want:?} not on screen:\n{s}");
    t.quit();
}

#[test]
fn a_bad_number_is_flagged_and_not_sent_until_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tui::start(&demo_config(dir.path()));
    t.wait_for("demo 2026-07-28", 30);
    t.keys("\t");
    t.keys(DOWN);
    t.wait_for("Tool · add", 10);
    t.keys("\r");
    t.wait_for("Arguments · add on demo", 10);
    t.keys("2");
    t.keys("\t");
    t.keys("40.5x");
    let s = t.wait_for("✗ /b: not a number", 10);
    assert!(s.contains("✗ not a number"), "next to the field: {s}");
    t.keys(CTRL_S);
    t.wait_for("not sent: 1 problem", 10);
    t.keys(BACKSPACE);
    t.wait_for("valid against the inputSchema", 10);
    t.keys(CTRL_S);
    let sum = answer("add", r#"{"a": 2, "b": 40.5}"#)["sum"].to_string();
    let s = t.wait_for("Result · add on demo", 30);
    let s = if s.contains(&sum) {
        s
    } else {
        t.wait_for(&sum, 10)
    };
    assert!(s.contains(&sum), "{sum} not on screen:\n{s}");
    t.quit();
}

const CTRL_A: &str = "\x01";
const CTRL_T: &str = "\x14";

/// The words of the pane whose rows start at the column of the focused
/// field's `▸` (the form), for text that wraps over rows.
fn pane_words(screen: &str) -> String {
    let col = screen
        .lines()
        .find_map(|l| l.chars().position(|c| c == '▸'))
        .unwrap_or(0);
    screen
        .lines()
        .map(|l| l.chars().skip(col).collect::<String>())
        .map(|l| l.trim_end_matches([' ', '│']).to_string())
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn an_invalid_form_switches_to_json_where_a_paste_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tui::start(&demo_config(dir.path()));
    t.wait_for("demo 2026-07-28", 30);
    t.keys("\t");
    t.keys(DOWN);
    t.wait_for("Tool · add", 10);
    t.keys("\r");
    t.wait_for("Arguments · add on demo", 10);
    // b cannot be read: Ctrl-T switches anyway (it used to refuse with
    // "fix /b: not a number first"), with what the form holds.
    t.keys("2");
    t.keys("\t");
    t.keys("40.5x");
    t.wait_for("✗ not a number", 10);
    t.keys(CTRL_T);
    let s = t.wait_for("\"b\": \"40.5x\"", 10);
    assert!(s.contains(" JSON "), "{s}");
    assert!(s.contains("\"a\": 2"), "{s}");
    assert!(
        s.contains("the JSON holds the form as it is, with its problem"),
        "{s}"
    );
    assert!(s.contains("✗ /b:"), "the problems are listed: {s}");
    // Select all, then a paste (as a terminal without bracketed paste
    // sends it: keys, newlines and all) replaces the JSON.
    t.keys(CTRL_A);
    t.keys("{\r\"a\": 1,\r\"b\": 2\r}");
    let s = t.wait_for("valid against the inputSchema", 10);
    assert!(!s.contains("40.5x"), "replaced: {s}");
    t.keys(CTRL_S);
    let sum = answer("add", r#"{"a": 1, "b": 2}"#)["sum"].to_string();
    let s = t.wait_for("Result · add on demo", 30);
    let s = if s.contains(&sum) {
        s
    } else {
        t.wait_for(&sum, 10)
    };
    assert!(s.contains(&sum), "{sum} not on screen:\n{s}");
    t.quit();
}

#[test]
fn zod_bounds_choices_and_descriptions_read_as_a_person_expects() {
    let dir = tempfile::tempdir().unwrap();
    let script = common::server_script("zod_bounds.cjs")
        .display()
        .to_string();
    let cfg = format!("[servers.zod]\ncommand = \"node\"\nargs = [{script:?}]\n");
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    // The server's SDK and Zod come from the test node_modules (the
    // versions server-everything pins in tests/deps/package-lock.json).
    let modules = common::node_modules();
    for dep in ["zod", "@modelcontextprotocol/sdk"] {
        assert!(
            modules.join(dep).exists(),
            "{dep} is missing in {}: run scripts/test.sh, which installs the test servers",
            modules.display()
        );
    }
    let modules = modules.display().to_string();
    let mut t = Tui::start_with(&path, &[("NODE_PATH", modules.as_str())]);
    t.wait_for("zod-bounds", 30);
    t.keys("\t");
    t.wait_for("Tool · pick", 10);
    t.keys("\r");
    let s = t.wait_for("Arguments · pick on zod", 10);
    // Zod's int() bounds are Number.MAX_SAFE_INTEGER: no bound to show.
    assert!(s.contains("whole number, ≥ 1"), "{s}");
    assert!(!s.contains("9007199254740991"), "{s}");
    // Ctrl-U clears what was typed.
    t.keys("39");
    t.wait_for("▸ count*   39", 10);
    t.keys("\x15");
    t.keys("3");
    t.wait_for("▸ count*   3 ", 10);
    t.keys("\t");
    // The focused choice shows its choices, and its description whole.
    let s = t.wait_for("debug   info   warning", 10);
    let words = pane_words(&s);
    assert!(
        words.contains("cannot fit on one row of any terminal, and ends with the word whole"),
        "{words}\n{s}"
    );
    // Letters pick the choice starting with them, and are no commands
    // here: `q` does not quit, `d` does not deny.
    t.keys("e");
    t.keys("q");
    t.keys("d");
    t.keys("e");
    // Chosen, the problem beside it goes: every choice fits.
    t.wait_for("debug   info   warning   error", 10);
    t.keys("\t");
    let s = t.wait_for("▸ offset", 10);
    assert!(s.contains("Arguments · pick on zod"), "{s}");
    t.keys("-5");
    t.keys(CTRL_S);
    let s = t.wait_for("picked", 30);
    assert!(
        s.contains(r#"picked {"count":3,"level":"error","offset":-5}"#),
        "{s}"
    );
    t.quit();
}

#[test]
fn the_warning_goes_once_the_editor_made_the_last_arguments_fit() {
    let dir = tempfile::tempdir().unwrap();
    // An "editor" that writes arguments the form can show.
    let editor = write_file(
        dir.path(),
        "editor.sh",
        "#!/bin/sh\nprintf '{\\n  \"city\": \"Oslo\"\\n}\\n' > \"$1\"\n",
    );
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut t = Tui::start_with(
        &demo_config(dir.path()),
        &[("VISUAL", editor.to_str().unwrap())],
    );
    t.wait_for("demo 2026-07-28", 30);
    t.keys("\t");
    t.keys(DOWN);
    t.keys(DOWN);
    t.wait_for("Tool · get_weather", 10);
    t.keys("\r");
    t.wait_for("Arguments · get_weather on demo", 10);
    // Arguments the form cannot show, kept as the draft by Esc.
    t.keys(CTRL_T);
    t.keys(CTRL_A);
    t.keys(r#"{"city": 5}"#);
    t.wait_for("is not of type", 10);
    t.keys("\x1b");
    t.keys("\r");
    t.wait_for("your last arguments do not fit the form", 10);
    // $EDITOR fixes them: into the form, and the warning goes.
    t.keys("\x05");
    let s = t.wait_for("Oslo", 10);
    let s = if s.contains(" form ") {
        s
    } else {
        t.wait_for(" form ", 10)
    };
    assert!(!s.contains("do not fit"), "{s}");
    assert!(s.contains("city*") && s.contains("Oslo"), "{s}");
    t.keys("\x1b");
    t.quit();
}
