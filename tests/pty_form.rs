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
    t.wait_for("‹ imperial ›", 10);
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
