//! The import screen in a real terminal: servers found in another
//! client's file (under a throw-away HOME) are ticked, imported into the
//! config with a comment naming where they came from, and connect.

mod common;

use common::pty::Tui;

#[test]
fn the_import_screen_brings_in_a_cursor_server() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let xdg = dir.path().join("xdg");
    let work = dir.path().join("work");
    for d in [home.join(".cursor"), xdg.clone(), work.clone()] {
        std::fs::create_dir_all(&d).unwrap();
    }
    let exe = common::mcpdeck_bin().display().to_string();
    std::fs::write(
        home.join(".cursor/mcp.json"),
        format!(
            "{{\n  // mine\n  \"mcpServers\": {{\n    \"demo\": {{\"command\": {exe:?}, \"args\": [\"demo-server\"]}},\n    \"remote\": {{\"url\": \"https://example.com/mcp\", \"headers\": {{\"Authorization\": \"Bearer sk-live-SECRET\"}}}},\n  }},\n}}\n"
        ),
    )
    .unwrap();
    let env = [
        ("HOME", home.to_str().unwrap()),
        ("XDG_CONFIG_HOME", xdg.to_str().unwrap()),
        ("XDG_DATA_HOME", xdg.to_str().unwrap()),
        ("XDG_STATE_HOME", xdg.to_str().unwrap()),
        ("MCPDECK_CONFIG", ""),
    ];
    let mut t = Tui::spawn(&[], Some(&work), &env);
    t.wait_for("No servers yet", 20);
    t.wait_for("to import their servers", 5);
    t.keys("i");
    let s = t.wait_for("[x] remote", 15);
    assert!(s.contains("[x] demo"), "{s}");
    assert!(s.contains("Cursor"), "{s}");
    // The secret is masked in the preview and the list.
    t.keys("\x1b[B"); // Down: remote
    let s = t.wait_for("holds a secret", 10);
    assert!(!s.contains("sk-live-SECRET"), "{s}");
    // Untick remote, import demo.
    t.keys(" ");
    t.wait_for("[ ] remote", 5);
    t.keys("\r");
    t.wait_for("imported 1 server", 15);
    t.wait_for("demo 2026-07-28", 30);
    let config = std::fs::read_to_string(xdg.join("mcpdeck/config.toml")).unwrap();
    assert!(config.starts_with("# imported from Cursor: "), "{config}");
    assert!(
        config.contains("[servers.demo]") && !config.contains("remote"),
        "{config}"
    );
    // The other client's file is untouched.
    let cursor = std::fs::read_to_string(home.join(".cursor/mcp.json")).unwrap();
    assert!(cursor.contains("// mine"));
    t.quit();
}
