//! The latency table end to end: the mcpdeck binary in a pty against the
//! built-in demo server; a call shows as a row of the server's detail, and
//! the reset key empties it.

mod common;

use common::pty::Tui;
use common::write_file;

const CTRL_S: &str = "\x13";
const SHIFT_TAB: &str = "\x1b[Z";
const END: &str = "\x1b[F";

/// The detail's part of the screen (right of the left column).
fn detail_rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(|l| l.chars().skip(34).collect::<String>())
        .collect()
}

#[test]
fn a_call_shows_in_the_latency_table_and_the_key_resets_it() {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::mcpdeck_bin().display().to_string();
    let cfg = format!("[servers.demo]\ncommand = {exe:?}\nargs = [\"demo-server\"]\n");
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let mut t = Tui::start(&path);
    t.wait_for("demo 2026-07-28", 30);
    // The handshake's answers are counted already.
    t.wait_for("Latency per method · Z resets", 10);
    // Call echo (its form sends the required message as ""), then back to
    // the servers pane: the detail shows the server again.
    t.keys("\t");
    t.keys("\r");
    t.wait_for("echo on demo", 10);
    t.keys(CTRL_S);
    t.wait_for("Result · echo", 20);
    t.keys("\x1b");
    t.keys("h");
    // "latency: ping N ms · last call N ms" (the ping may not be back yet).
    t.wait_for("last call", 10);
    // The table is by method name: tools/call is below the detail's
    // first page. Shift-Tab from the servers pane focuses the server's
    // detail, End scrolls it to its last page.
    t.keys(SHIFT_TAB);
    t.keys(END);
    let s = t.wait_for("tools/call", 10);
    let row = detail_rows(&s)
        .into_iter()
        .find(|l| l.contains("tools/call"))
        .unwrap();
    // One call, no error: `tools/call  1  <p50> <p95> <p99> <max>  0`,
    // each time a number and its unit (`1.7 ms`).
    let cells: Vec<&str> = row
        .trim_matches(|c: char| c == '│' || c.is_whitespace())
        .split_whitespace()
        .collect();
    assert_eq!(cells.len(), 11, "{row:?}\n{s}");
    assert_eq!(
        (cells[0], cells[1], cells[10]),
        ("tools/call", "1", "0"),
        "{s}"
    );
    assert!(["ms", "s"].contains(&cells[3]), "{row:?}");
    // The reset key: the table is gone until the next answer.
    t.keys("Z");
    let s = t.wait_for("demo: latency statistics reset", 10);
    assert!(!s.contains("Latency per method"), "{s}");
    assert!(!s.contains("tools/call"), "{s}");
    t.quit();
}
