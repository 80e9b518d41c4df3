//! The skills view end to end: the mcpdeck binary in a pseudo-terminal on
//! the built-in demo server (two skills, listed one per page), and a
//! server without resources (so without the skills extension).

mod common;

use common::pty::Tui;
use common::write_file;

const DOWN: &str = "\x1b[B";
const ESC: &str = "\x1b";

fn config(dir: &std::path::Path, extra: &[&str]) -> String {
    let exe = common::mcpdeck_bin().display().to_string();
    let args: Vec<String> = ["demo-server", "--page-size", "1"]
        .iter()
        .chain(extra)
        .map(|a| format!("{a:?}"))
        .collect();
    let cfg = format!(
        "[servers.demo]\ncommand = {exe:?}\nargs = [{}]\n",
        args.join(", ")
    );
    write_file(dir, "config.toml", &cfg).display().to_string()
}

#[test]
fn the_demo_skills_are_listed_loaded_verified_and_read_file_by_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tui::start(&config(dir.path(), &[]));
    t.wait_for("K skills", 30);
    t.wait_until(|s| s.contains("11t"), 30);
    t.keys("K");
    // Two pages of one skill each.
    let s = t.wait_for("release-notes", 15);
    assert!(s.contains("Skills · demo (2)"), "{s}");
    assert!(s.contains("demo-tour"), "{s}");
    assert!(s.contains("2 files"), "{s}");
    // Enter loads demo-tour: its SKILL.md, verified.
    t.keys("\r");
    let s = t.wait_for(
        "✓ verified: size, sha256 and frontmatter match the entry",
        15,
    );
    assert!(s.contains("# A tour of the demo server"), "{s}");
    assert!(s.contains("references/KEYS.md"), "{s}");
    assert!(s.contains("not read"), "{s}");
    // Its files: down to KEYS.md, Enter reads it.
    t.keys("\r");
    t.keys(DOWN);
    t.keys("\r");
    let s = t.wait_for("Keys for the demo tour", 15);
    assert!(
        s.contains("✓ verified: size and sha256 match the entry"),
        "{s}"
    );
    // Esc: from the files back to the list, then to the panes.
    t.keys(ESC);
    t.wait_for("Enter files", 10);
    t.keys(ESC);
    t.wait_for("Tools · demo", 10);
    t.quit();
}

#[test]
fn a_server_without_the_extension_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut t = Tui::start(&config(dir.path(), &["--no-resources"]));
    t.wait_for("Tools · demo", 30);
    t.wait_until(|s| s.contains("11t"), 30);
    t.keys("K");
    let s = t.wait_for("does not declare the skills extension", 10);
    assert!(!s.contains("Skills · demo"), "{s}");
    t.quit();
}
