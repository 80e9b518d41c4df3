//! The registry browser end to end: the mcpdeck binary in a
//! pseudo-terminal, its `registry_url` pointing at tests/servers/
//! fake_registry.py, whose entry io.example/local-remote is a remote at a
//! fake MCP server (tests/servers/fake_http.py) that wants an API key
//! header. From the welcome screen: `F`, a search typed, the entry's
//! detail; `u` tries it (the key asked in the form, masked; the server
//! connects and lists its tools; the config is not written); `a` adds it
//! (the key to the credential store, `${secret:NAME}` in the config); then
//! with the registry gone, the cache is shown and the view says so.

mod common;

use std::process::Command;

use common::pty::Tui;

const ESC: &str = "\x1b";
const CTRL_S: &str = "\x13";

#[test]
fn find_try_and_add_a_server_from_the_registry() {
    let mut mcp = Command::new("python3");
    mcp.arg(common::server_script("fake_http.py")).arg("basic");
    let mcp = common::HttpServer::start_announced(mcp, "/mcp");
    let mut reg = Command::new("python3");
    reg.arg(common::server_script("fake_registry.py"))
        .args(["--local-remote", &mcp.url]);
    let registry = common::HttpServer::start_announced(reg, "/v0.1/servers");
    let dir = tempfile::tempdir().unwrap();
    for sub in ["home", "data", "cache", "state"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    let config = dir.path().join("config.toml");
    let text = format!(
        "[settings]\ncredentials = \"file\"\nregistry_url = \"http://127.0.0.1:{}\"\n",
        registry.port
    );
    std::fs::write(&config, &text).unwrap();
    let d = |s: &str| dir.path().join(s).display().to_string();
    let (home, data, cache, state) = (d("home"), d("data"), d("cache"), d("state"));
    let mut t = Tui::start_with(
        &config.display().to_string(),
        &[
            ("HOME", &home),
            ("XDG_DATA_HOME", &data),
            ("XDG_CACHE_HOME", &cache),
            ("XDG_STATE_HOME", &state),
        ],
    );
    t.wait_for("Press F to find one in the MCP Registry", 30);
    t.keys("F");
    t.wait_for("io.example/bulk-000", 30);
    // Search as you type: one search once the typing pauses.
    t.keys("local-r");
    let s = t.wait_until(
        |s| s.contains("io.example/local-remote") && !s.contains("bulk-000"),
        30,
    );
    assert!(s.contains("Servers (1)"), "{s}");
    assert!(s.contains("--header X-Api-Key=… (secret)"), "{s}");
    // Try it: the key is asked first, masked.
    t.keys("\r");
    t.keys("u");
    t.wait_for("Try io.example/local-remote", 15);
    let secret = "k3y-Zq9-test";
    t.keys(secret);
    let s = t.wait_for("runs: streamable-http", 15);
    assert!(!s.contains(secret), "{s}");
    assert!(s.contains("••••••"), "{s}");
    t.keys(CTRL_S);
    // It connects and lists its tools, marked as tried.
    let s = t.wait_until(|s| s.contains("local-remote try") && s.contains("2t"), 30);
    assert!(s.contains("echo"), "{s}");
    assert!(!s.contains(secret), "{s}");
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        text,
        "trying writes nothing"
    );
    // Add it: the form, the key to the credential store.
    t.keys("F");
    t.wait_for("MCP Registry", 15);
    t.keys("\r");
    t.keys("a");
    t.wait_for("Add io.example/local-remote", 15);
    t.keys(secret);
    t.wait_for("→ the credential store as local-remote_X-Api-Key", 15);
    t.keys(CTRL_S);
    t.wait_for("added local-remote to", 30);
    let s = t.wait_until(
        |s| s.contains("local-remote") && s.contains("2t") && !s.contains("local-remote try"),
        30,
    );
    assert!(!s.contains(secret), "{s}");
    let written = std::fs::read_to_string(&config).unwrap();
    assert!(
        written.contains("X-Api-Key = \"${secret:local-remote_X-Api-Key}\""),
        "{written}"
    );
    assert!(!written.contains(secret), "{written}");
    // The registry goes away: the cache answers, and the view says so.
    drop(registry);
    t.keys("F");
    t.wait_for("MCP Registry", 15);
    t.keys("\r");
    t.keys("r");
    // (The message wraps: its words are looked for one by one.)
    let s = t.wait_until(
        |s| s.contains("cannot be reached") && s.contains("cache of") && s.contains("s ago"),
        30,
    );
    assert!(s.contains("io.example/local-remote"), "{s}");
    t.keys(ESC);
    t.wait_for("? help", 10);
    t.quit();
}
