//! The TUI watches its config file: an edit made elsewhere (`mcpdeck deny`
//! from a shell) applies at once, without `R`, and the server stays
//! connected; allowing the tool again with `d` gives the file back byte
//! for byte (no `deny_tools = []` left behind, though another run added
//! the key); a file that no longer loads keeps what runs and says why.

mod common;

use std::time::{Duration, Instant};

use common::pty::Tui;
use common::{limit, mcpdeck_env, write_file};

/// Wait until the file reads `want`.
fn file_becomes(path: &std::path::Path, want: &str) {
    let deadline = Instant::now() + limit(10);
    loop {
        let text = std::fs::read_to_string(path).unwrap();
        if text == want {
            return;
        }
        assert!(Instant::now() < deadline, "the config reads:\n{text}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_edit_from_a_shell_applies_live_and_allowing_again_restores_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::mcpdeck_bin().display().to_string();
    let original = format!(
        "# my servers\n[servers.demo]\ncommand = {exe:?}\nargs = [\"demo-server\"]  # built in\n"
    );
    let path = write_file(dir.path(), "config.toml", &original);
    let cfg = path.display().to_string();
    let mut t = Tui::start(&cfg);
    t.wait_for("Tools · demo (", 30);
    // A deny from a shell, while the TUI runs.
    let run = mcpdeck_env(&["--config", &cfg, "deny", "demo", "echo"], &[], limit(30));
    run.ok();
    let s = t.wait_for("the config file changed on disk: applied", 10);
    assert!(s.contains("echo denied") || s.contains("denied"), "{s}");
    // Not reconnected: still connected, and the call is refused.
    assert!(!s.contains("pending"), "{s}");
    // Allow it again in the TUI: the key another run added goes.
    t.keys("\t");
    t.keys("d");
    t.wait_for("allowed echo on demo; saved", 10);
    file_becomes(&path, &original);
    // A file that does not load: what runs stays, and the status says why.
    std::fs::write(&path, "[servers.demo\n").unwrap();
    let s = t.wait_for("the config file changed but was not applied", 10);
    assert!(s.contains("Tools · demo ("), "{s}");
    t.quit();
}
