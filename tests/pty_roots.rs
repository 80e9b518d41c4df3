//! Roots are never widened silently: the TUI started in `/` offers
//! server-filesystem no root it was not given (it keeps the folder on its
//! command line), `--roots` and `[settings] roots` are what is offered, the
//! detail shows them (a root that is `/` with a warning badge) and when the
//! server last asked; the CLI gives the same answers.

mod common;

use std::path::Path;

use common::pty::Tui;
use common::{limit, mcpdeck_env, node_modules, write_file};

const CTRL_S: &str = "\x13";

fn filesystem_js() -> String {
    node_modules()
        .join("@modelcontextprotocol/server-filesystem/dist/index.js")
        .display()
        .to_string()
}

/// A config with server-filesystem limited to `allowed`, and `extra` lines
/// (settings) before it.
fn config(dir: &Path, allowed: &Path, extra: &str) -> String {
    let cfg = format!(
        "{extra}[servers.fs]\ncommand = \"node\"\nargs = [{:?}, {:?}]\n",
        filesystem_js(),
        allowed.display().to_string()
    );
    write_file(dir, "config.toml", &cfg).display().to_string()
}

/// The canonical path, as server-filesystem reports it.
fn real(p: &Path) -> String {
    std::fs::canonicalize(p).unwrap().display().to_string()
}

/// Call list_allowed_directories in the TUI; the screen with its result.
fn allowed_in_tui(t: &mut Tui) -> String {
    t.keys("\t");
    t.keys("/");
    t.keys("list_allowed");
    t.keys("\r");
    t.wait_for("list_allowed_directories", 10);
    t.keys("\r");
    t.wait_for("Arguments · list_allowed_directories", 10);
    t.keys(CTRL_S);
    t.wait_for("Allowed directories", 30)
}

#[test]
fn the_tui_started_in_root_offers_no_root_and_the_server_keeps_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let allowed = tempfile::tempdir().unwrap();
    let path = config(dir.path(), allowed.path(), "");
    let mut t = Tui::spawn(&["--config", &path], Some(Path::new("/")), &[]);
    // The detail says what is offered, and that the server asked.
    let s = t.wait_for("roots last asked: ", 30);
    assert!(s.contains("roots: none offered (none configured)"), "{s}");
    let s = t.wait_for("(0 given)", 30);
    assert!(!s.contains("⚠ root"), "{s}");
    let s = allowed_in_tui(&mut t);
    let name = allowed.path().file_name().unwrap().to_str().unwrap();
    // Had `/` been offered, server-filesystem would have replaced its
    // folder with it (as it is documented to do).
    assert!(s.contains(name), "the server's own folder: {s}");
    t.quit();

    // The CLI from the same folder agrees.
    let mut cmd = std::process::Command::new(common::mcpdeck_bin());
    cmd.args(["--config", &path, "call", "fs", "list_allowed_directories"])
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .env("MCPDECK_ERA_MEMORY", "off");
    let run = common::run_limited(cmd, limit(60));
    run.ok();
    assert!(run.stdout.contains(&real(allowed.path())), "{}", run.stdout);
}

#[test]
fn roots_flag_and_settings_are_what_is_offered_and_a_whole_disk_root_is_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let allowed = tempfile::tempdir().unwrap();
    let chosen = tempfile::tempdir().unwrap();
    let chosen_s = chosen.path().display().to_string();
    // `/` in the config: offered (the user wrote it), with a warning badge.
    let path = config(
        dir.path(),
        allowed.path(),
        "[settings]\nroots = [\"/\"]\n\n",
    );
    let t = Tui::spawn(&["--config", &path], Some(Path::new("/")), &[]);
    let s = t.wait_for("(1 given)", 30);
    assert!(s.contains("⚠ the whole disk"), "{s}");
    assert!(s.contains("⚠ root"), "the servers pane flags it: {s}");
    t.quit();

    // --roots wins over the config, for this run.
    let mut t = Tui::spawn(
        &["--config", &path, "--roots", &chosen_s],
        Some(Path::new("/")),
        &[],
    );
    let s = t.wait_for("(1 given)", 30);
    assert!(s.contains("roots (--roots): "), "{s}");
    assert!(!s.contains("⚠"), "{s}");
    // server-filesystem takes the roots after it asked for them.
    t.wait_for("roots last asked: ", 30);
    let s = allowed_in_tui(&mut t);
    let name = chosen.path().file_name().unwrap().to_str().unwrap();
    assert!(s.contains(name), "the chosen root replaced the list: {s}");
    t.quit();

    // The CLI: the same flag, the same answer. server-everything's
    // get-roots-list asks for the roots when it is called; server-filesystem
    // applies them only after `initialized`, in the background, so a call
    // made at once can race it (that server's behaviour, not mcpdeck's).
    let everything = write_file(
        dir.path(),
        "everything.toml",
        &format!(
            "[settings]\nroots = [\"/\"]\n\n[servers.everything]\ncommand = \"node\"\nargs = [{:?}]\n",
            common::everything_js().display().to_string()
        ),
    )
    .display()
    .to_string();
    let run = mcpdeck_env(
        &[
            "--config",
            &everything,
            "call",
            "everything",
            "get-roots-list",
            "--roots",
            &chosen_s,
        ],
        &[],
        limit(60),
    );
    run.ok();
    assert!(run.stdout.contains(&chosen_s), "{}", run.stdout);
    assert!(run.stdout.contains("(1 total)"), "{}", run.stdout);
    assert!(!run.stdout.contains("URI: file:///\n"), "{}", run.stdout);

    // A --roots that is no directory is a usage error, before anything runs.
    let run = mcpdeck_env(
        &["--config", &path, "--roots", "/no/such/dir", "tools", "fs"],
        &[],
        limit(30),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("--roots: /no/such/dir is not a directory"),
        "{}",
        run.stderr
    );
}
