//! The TUI with a server whose `${VAR}` is not set: that server shows as
//! failed, naming the variable and where it is written, while the other
//! connects; an edit of the config that gives the variable a default
//! connects it, without a restart.

mod common;

use common::pty::Tui;
use common::write_file;

#[test]
fn a_server_with_an_unset_variable_fails_alone_and_an_edit_fixes_it() {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::mcpdeck_bin().display().to_string();
    let text = |value: &str| {
        format!(
            "[servers.h]\ncommand = {exe:?}\nargs = [\"demo-server\"]\nenv = {{ T = \"{value}\" }}\n\n[servers.fine]\ncommand = {exe:?}\nargs = [\"demo-server\"]\n"
        )
    };
    let path = write_file(
        dir.path(),
        "config.toml",
        &text("${MCPDECK_TEST_UNSET_TOK_27}"),
    );
    let cfg = path.display().to_string();
    let t = Tui::start(&cfg);
    // h is selected (first): its detail says what and where.
    t.wait_for("h failed", 30);
    t.wait_for("fine 2026-07-28", 30);
    let s = t.wait_for("MCPDECK_TEST_UNSET_TOK_27", 10);
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("config.toml:4:13"), "{s}");
    assert!(flat.contains("is not set"), "{s}");
    assert!(
        flat.contains("nothing was started; a fix in the config applies"),
        "{s}"
    );
    // Given a default, it connects on the config watch.
    std::fs::write(&path, text("${MCPDECK_TEST_UNSET_TOK_27:-x}")).unwrap();
    t.wait_for("h 2026-07-28", 30);
    t.quit();
}
