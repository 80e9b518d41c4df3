//! End to end in a real pseudo-terminal: the mcpdeck binary runs the TUI in
//! a pty, a vt100 parser keeps the screen, and the test types keys and
//! reads the screen as a person would.

mod common;

use std::time::{Duration, Instant};

use common::pty::Tui;
use common::{assert_no_leak, everything_js, limit, marker, py_v1, server_script, write_file};

/// A config with one hostile.py server in `mode`, marked for the leak check.
fn hostile_config(dir: &std::path::Path, name: &str, mark: &str, mode: &str) -> String {
    let cfg = format!(
        "[servers.{name}]\ncommand = {:?}\nargs = [\"-X\", {mark:?}, {:?}, \"--mode\", {mode:?}]\n",
        py_v1().display().to_string(),
        server_script("hostile.py").display().to_string()
    );
    write_file(dir, "config.toml", &cfg).display().to_string()
}

const DOWN: &str = "\x1b[B";
const END: &str = "\x1b[F";
const LEFT: &str = "\x1b[D";
const CTRL_S: &str = "\x13";
const CTRL_D: &str = "\x04";

/// A little more than the pause after a request appears during which
/// keys are dropped (`app::guard::GUARD`).
const GUARD: Duration = Duration::from_millis(500);

/// Once server-everything shows connected: open echo from the tools pane,
/// type `text` between the quotes of its `{"message": ""}` skeleton, and
/// send it.
fn echo_on_everything(t: &mut Tui, text: &str) {
    t.wait_for("2025-11-25", 30);
    t.keys("\t");
    t.wait_for("echo", 10);
    t.keys("\r");
    t.wait_for("Arguments · echo on everything", 10);
    t.keys(DOWN);
    t.keys(END);
    t.keys(LEFT);
    t.keys(text);
    t.wait_for("valid against the inputSchema", 10);
    t.keys(CTRL_S);
}

#[test]
fn call_echo_on_server_everything_with_edited_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        everything_js().display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let mut t = Tui::start(&path);
    echo_on_everything(&mut t, "hello from a pty");
    let s = t.wait_for("Echo: hello from a pty", 30);
    assert!(s.contains("Result · echo on everything"), "{s}");
    t.quit();
}

#[test]
fn disabling_a_server_writes_the_config_and_keeps_its_comments() {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::mcpdeck_bin().display().to_string();
    let original = format!(
        "# my servers, carefully commented\n\n[servers.first]   # the first one\ncommand = {exe:?}\nargs = [\"demo-server\"]  # built in\n\n# keep this\n[servers.second]\ncommand = {exe:?}\nargs = [\"demo-server\", \"--era\", \"initialize\"]\n"
    );
    let path = write_file(dir.path(), "config.toml", &original);
    let mut t = Tui::start(&path.display().to_string());
    t.wait_for("second 2025-11-25", 30);
    // Space disables the selected (first) server.
    t.keys(" ");
    t.wait_for("disabled first; saved", 10);
    t.wait_for("first disabled", 10);
    let deadline = Instant::now() + limit(10);
    let text = loop {
        let text = std::fs::read_to_string(&path).unwrap();
        if text.contains("enabled = false") {
            break text;
        }
        assert!(
            Instant::now() < deadline,
            "the config was not written:\n{text}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let expected = original.replace(
        "args = [\"demo-server\"]  # built in\n",
        "args = [\"demo-server\"]  # built in\nenabled = false\n",
    );
    assert_eq!(
        text, expected,
        "only one line was added; comments and layout kept"
    );
    t.quit();
}

#[test]
fn a_crashing_server_shows_as_failed_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::mcpdeck_bin().display().to_string();
    let cfg = format!(
        "[servers.crashy]\ncommand = \"sh\"\nargs = [\"-c\", \"echo 'boom: the config is missing' >&2; exit 4\"]\n\n[servers.fine]\ncommand = {exe:?}\nargs = [\"demo-server\"]\n"
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let t = Tui::start(&path);
    let s = t.wait_for("boom: the config is missing", 30);
    assert!(s.contains("crashy failed"), "{s}");
    // The reason wraps in the pane; its end is on one line either way.
    assert!(s.contains("status 4"), "{s}");
    t.wait_for("fine 2026-07-28", 30);
    t.quit();
}

#[test]
fn escape_sequences_from_a_server_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("escapes");
    let path = hostile_config(dir.path(), "evil", &mark, "escapes");
    let mut t = Tui::start(&path);
    t.wait_for("evil 2025-11-25", 30);
    t.keys("\t");
    t.keys(END);
    let s = t.wait_for("Shouts", 10);
    // The description is shown, its escapes as visible placeholders.
    assert!(s.contains("␛[2J") && s.contains("␛]0;pwned-title␇"), "{s}");
    t.keys("\r");
    t.wait_for("Arguments · shout", 10);
    t.keys(CTRL_S);
    let s = t.wait_for("done", 20);
    assert!(s.contains("␛[31mRED␛[0m"), "{s}");
    // The terminal was not touched: no title, no clipboard, no bell, and
    // the screen was not cleared.
    assert_eq!(t.side_effects(), (vec![], 0, 0));
    assert!(s.contains("Servers (1)"), "{s}");
    t.quit();
    assert_no_leak(&mark);
}

#[test]
fn long_arguments_can_be_edited_in_the_users_editor() {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::mcpdeck_bin().display().to_string();
    let cfg = format!("[servers.demo]\ncommand = {exe:?}\nargs = [\"demo-server\"]\n");
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    // An "editor" that replaces the file's contents, as a person would.
    let editor = write_file(
        dir.path(),
        "editor.sh",
        "#!/bin/sh\nprintf '{\\n  \"message\": \"written in the editor\"\\n}\\n' > \"$1\"\n",
    );
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut t = Tui::start_with(&path, &[("VISUAL", editor.to_str().unwrap())]);
    t.wait_for("demo 2026-07-28", 30);
    t.keys("\t");
    t.keys("\r");
    t.wait_for("Arguments · echo on demo", 10);
    t.keys("\x05"); // Ctrl-E
    t.wait_for("written in the editor", 10);
    t.keys(CTRL_S);
    t.wait_for("echo: written in the editor", 20);
    t.quit();
}

#[test]
fn a_bad_key_binding_is_refused_before_the_screen_opens() {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::mcpdeck_bin().display().to_string();
    let cfg = format!(
        "[keys]\nqiut = \"x\"\n\n[servers.demo]\ncommand = {exe:?}\nargs = [\"demo-server\"]\n"
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let mut t = Tui::start(&path);
    let s = t.wait_for("did you mean `quit`", 15);
    assert!(s.contains("config.toml") && s.contains("[keys]"), "{s}");
    let deadline = Instant::now() + limit(10);
    let status = loop {
        if let Ok(Some(status)) = t.child.try_wait() {
            break status;
        }
        assert!(Instant::now() < deadline, "mcpdeck did not exit");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.exit_code(), 2);
}

#[test]
fn sigterm_restores_the_terminal_and_stops_the_servers() {
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("sigterm");
    let path = hostile_config(dir.path(), "demo", &mark, "normal");
    let mut t = Tui::start(&path);
    t.wait_for("demo 2025-11-25", 30);
    assert_eq!(
        t.modes(),
        (true, true),
        "the TUI runs on the alternate screen with the mouse on"
    );
    let pid = t.pid().unwrap();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let deadline = Instant::now() + limit(15);
    let status = loop {
        if let Ok(Some(status)) = t.child.try_wait() {
            break status;
        }
        assert!(Instant::now() < deadline, "mcpdeck did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.exit_code(), 143);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        t.modes(),
        (false, false),
        "the terminal was left in the TUI's modes"
    );
    assert_no_leak(&mark);
}

#[test]
fn an_elicitation_form_is_filled_in_and_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        everything_js().display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let mut t = Tui::start(&path);
    t.wait_for("2025-11-25", 30);
    // The TUI declares elicitation: the demo tool is listed. Find it.
    t.keys("\t");
    t.keys("/");
    t.keys("trigger-elicitation-request");
    t.keys("\r");
    t.wait_for("Tools · everything (1)", 10);
    t.keys("\r");
    t.wait_for("Arguments · trigger-elicitation-request on everything", 10);
    t.keys(CTRL_S);
    // The form, prefilled with the schema's defaults. (Keys typed within
    // 0.3 s of a request appearing were meant for the screen before it:
    // a person reads it first.)
    let s = t.wait_for("everything asks for input", 30);
    std::thread::sleep(GUARD);
    assert!(
        s.contains("Please provide inputs for the following fields"),
        "{s}"
    );
    assert!(s.contains("It was a dark and stormy night."), "{s}");
    assert!(s.contains("✗ required"), "the name is required: {s}");
    // Name; the terms (Space); then the email, two fields on.
    t.keys("Grace Hopper");
    t.keys("\t");
    t.keys(" ");
    t.keys("\t");
    t.keys("\t");
    t.keys("grace@navy");
    t.wait_for("✗ not an email address", 10);
    // Not valid: Ctrl-S does not send.
    t.keys(CTRL_S);
    t.wait_for("not sent: 1 field needs attention", 10);
    t.keys(".mil");
    // The integer, three fields on: 42 becomes 7.
    t.keys(DOWN);
    t.keys(DOWN);
    t.keys(DOWN);
    t.keys("\x7f\x7f7");
    t.wait_for("✓ ready to send", 10);
    t.keys(CTRL_S);
    let s = t.wait_for("User provided the requested information", 30);
    for want in [
        "- Name: Grace Hopper",
        "- Agreed to terms: true",
        "- Email: grace@navy.mil",
        "- Favorite Integer: 7",
    ] {
        assert!(s.contains(want), "{want:?} not on screen:\n{s}");
    }
    assert!(!s.contains("asks for input"), "the form is gone: {s}");
    t.quit();
}

#[test]
fn letters_never_decline_an_elicitation_and_ctrl_d_asks_first() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        everything_js().display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let mut t = Tui::start(&path);
    t.wait_for("2025-11-25", 30);
    t.keys("\t");
    t.keys("/");
    t.keys("trigger-elicitation-request");
    t.keys("\r");
    t.wait_for("Tools · everything (1)", 10);
    t.keys("\r");
    t.wait_for("Arguments · trigger-elicitation-request on everything", 10);
    t.keys(CTRL_S);
    t.wait_for("everything asks for input", 30);
    std::thread::sleep(GUARD);
    // The integer's default 42 is selected: 7 replaces it (not 427).
    for _ in 0..6 {
        t.keys("\t");
    }
    t.wait_for("▸ Integer", 10);
    t.keys("7");
    let s = t.wait_for("field 7 of", 10);
    let row = s.lines().find(|l| l.contains("▸ Integer")).unwrap_or("");
    assert!(row.contains(" 7 ") && !row.contains("427"), "{row}\n{s}");
    // The focused field's description is whole (it is cut elsewhere).
    assert!(s.contains("whole number, 1 to 100"), "{s}");
    // On a choice, the issue's keys: every choice shows; `d` is no
    // decline and `a` opens nothing; letters pick choices.
    t.keys("\t");
    t.keys("\t");
    let s = t.wait_for("Monica   Rachel", 10);
    assert!(s.contains("▸ Untitled Single"), "{s}");
    t.keys("dave@example.org");
    std::thread::sleep(GUARD);
    let s = t.screen();
    assert!(s.contains("everything asks for input"), "{s}");
    assert!(!s.contains("Add a server"), "{s}");
    // Ctrl-D asks before throwing what was typed away; n goes back.
    t.keys(CTRL_D);
    t.wait_for("decline and throw away what you typed?", 10);
    t.keys("n");
    t.wait_for("kept: the form is as you left it", 10);
    t.keys(CTRL_D);
    t.wait_for("decline and throw away what you typed?", 10);
    // `y` declines; the `a` typed in the same burst never reaches the
    // main screen (where it would open "Add a server").
    t.keys("ya");
    let s = t.wait_for("User declined to provide the requested information", 30);
    assert!(!s.contains("asks for input"), "the form is gone: {s}");
    let s = t.wait_for("typed as the request closed was not used", 10);
    assert!(!s.contains("Add a server"), "{s}");
    t.quit();
}

#[test]
fn a_prompt_is_filled_in_and_got_and_a_resource_read() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        everything_js().display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let mut t = Tui::start(&path);
    t.wait_for("2025-11-25", 30);
    // The prompts view: args-prompt is the second; its form asks for the city.
    t.keys("P");
    t.wait_for("args-prompt", 10);
    t.keys(DOWN);
    t.keys("\r");
    let s = t.wait_for("Prompt · args-prompt", 10);
    assert!(s.contains("city*") && s.contains("✗ required"), "{s}");
    t.keys("Lisbon");
    t.wait_for("✓ ready", 10);
    t.keys(CTRL_S);
    let s = t.wait_for("What's weather in Lisbon?", 30);
    assert!(s.contains("user:"), "{s}");
    // The resources view: the first document, read.
    t.keys("e");
    t.wait_for("architecture.md", 10);
    t.keys("\r");
    let s = t.wait_for("Everything Server – Architecture", 30);
    assert!(
        s.contains("Contents · demo://resource/static/document/architecture.md"),
        "{s}"
    );
    // Esc leaves the view; the tools are where they were.
    t.keys("\x1b");
    t.wait_for("Tools · everything", 10);
    t.quit();
}

/// The TS SDK's OAuth example (an MCP server and its authorization server,
/// which logs in by itself and redirects with a code) on random ports.
fn sdk_oauth_server() -> (common::HttpServer, String) {
    let port = common::free_port();
    let auth_port = common::free_port();
    let mut cmd = std::process::Command::new("node");
    cmd.arg("--require")
        .arg(server_script("loopback.cjs"))
        .arg(
            common::node_modules()
                .join("@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js"),
        )
        .arg("--oauth")
        .env("MCP_PORT", port.to_string())
        .env("MCP_AUTH_PORT", auth_port.to_string());
    let server = common::HttpServer::start(cmd, port, "/mcp");
    // Its resource metadata names localhost: the URL must match.
    (server, format!("http://localhost:{port}/mcp"))
}

#[test]
fn the_login_screen_shows_the_trace_and_the_url_and_logs_in() {
    let (_server, url) = sdk_oauth_server();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    // A browser that waits for the test's go-ahead, then follows the URL
    // (the example's authorization server redirects to the callback).
    let go = dir.path().join("go");
    let browser = write_file(
        dir.path(),
        "browser.sh",
        &format!(
            "#!/bin/sh\nwhile [ ! -e {go:?} ]; do sleep 0.1; done\nexec curl -fsSL -o /dev/null \"$1\"\n"
        ),
    );
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&browser, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let cfg = format!(
        "[settings]\nbrowser = {:?}\ncredentials = \"file\"\n\n[servers.sdk]\nurl = {url:?}\n",
        browser.display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let home_s = home.display().to_string();
    let data = home.join("data");
    let data_s = data.display().to_string();
    let mut t = Tui::start_with(&path, &[("HOME", &home_s), ("XDG_DATA_HOME", &data_s)]);
    // Without a token the server waits for a login, and says how.
    let s = t.wait_for("needs auth", 30);
    assert!(s.contains("press o to log in"), "{s}");

    // The login screen: the discovery trace, the URL, the wait; Esc cancels.
    t.keys("o");
    let s = t.wait_for("waiting for the browser", 30);
    assert!(s.contains("Log in · sdk"), "{s}");
    assert!(s.contains("oauth-protected-resource"), "{s}");
    assert!(s.contains("Open this URL to log in:"), "{s}");
    assert!(s.contains("code_challenge_method=S256"), "{s}");
    t.keys("\x1b");
    t.wait_for("login cancelled", 10);

    // Again, and this time the browser comes back.
    t.keys("o");
    t.wait_for("waiting for the browser", 30);
    std::fs::write(&go, "").unwrap();
    t.wait_for("logged in", 30);
    // The server connects with the token and shows its tools and login.
    t.wait_for("greet", 30);
    let s = t.wait_for("oauth issuer:", 30);
    assert!(s.contains("oauth scopes: mcp:tools"), "{s}");
    let stored = std::fs::read_to_string(data.join("mcpdeck/credentials.json")).unwrap();
    assert!(stored.contains("access_token"), "{stored}");
    // No token ever reaches the screen.
    let token =
        serde_json::from_str::<serde_json::Value>(&stored).unwrap()["tokens"][0]["access_token"]
            .as_str()
            .unwrap_or_default()
            .to_string();
    assert!(!token.is_empty() && !t.screen().contains(&token));

    // Log out: the token is forgotten and the server needs a login again.
    t.keys("O");
    t.wait_for("logged out", 15);
    t.wait_for("needs auth", 30);
    let stored = std::fs::read_to_string(data.join("mcpdeck/credentials.json")).unwrap();
    assert!(!stored.contains(&token), "{stored}");
    t.quit();
}

#[test]
fn the_end_of_a_5000_character_result_line_is_reached() {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::mcpdeck_bin().display().to_string();
    let cfg = format!("[servers.demo]\ncommand = {exe:?}\nargs = [\"demo-server\"]\n");
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    // The editor writes a 5,000-character message that ends THE-END.
    let message = format!("{}THE-END", "abcdefghij".repeat(499));
    assert_eq!(message.len(), 4997);
    let editor = write_file(
        dir.path(),
        "editor.sh",
        &format!("#!/bin/sh\nprintf '{{\"message\": \"{message}\"}}' > \"$1\"\n"),
    );
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut t = Tui::start_with(&path, &[("VISUAL", editor.to_str().unwrap())]);
    t.wait_for("demo 2026-07-28", 30);
    t.keys("\t");
    t.keys("\r");
    t.wait_for("echo on demo", 10);
    t.keys("\x05"); // Ctrl-E
    t.wait_for("abcdefghij", 10);
    t.keys(CTRL_S);
    let s = t.wait_for("Result · echo", 20);
    // Wrapped at the pane's width, the end is below: not on screen yet.
    assert!(!s.contains("THE-END"), "{s}");
    t.keys(END);
    let s = t.wait_for("THE-END", 10);
    assert!(s.contains("abcdefghij"), "{s}");
    t.quit();
}

/// Ctrl-C quits at once and exits 130 (128 + SIGINT), as terminal programs
/// do; `q` exits 0.
#[test]
fn ctrl_c_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    let exe = common::mcpdeck_bin().display().to_string();
    let cfg = format!("[servers.demo]\ncommand = {exe:?}\nargs = [\"demo-server\"]\n");
    let path = write_file(dir.path(), "config.toml", &cfg);
    let mut t = Tui::start(&path.display().to_string());
    t.wait_for("Tools · demo (", 30);
    t.keys("\x03");
    let status = t.wait_exit();
    assert_eq!(status.exit_code(), 130, "{status:?}");
}

/// The workbench on a real server (the reference everything server): a
/// 3,000-line result searched until line 2,500 is in view, zoomed, saved
/// and read back from `[settings] save_dir`.
#[test]
fn a_long_result_is_searched_zoomed_and_saved() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results");
    let cfg = format!(
        "[settings]\nsave_dir = {:?}\n\n[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        out.display().to_string(),
        everything_js().display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    // The editor writes a message of 3,000 lines: `row 1 end` … `row 3000 end`.
    let message: String = (1..=3000)
        .map(|i| format!("row {i} end"))
        .collect::<Vec<_>>()
        .join("\\n");
    let editor = write_file(
        dir.path(),
        "editor.sh",
        &format!("#!/bin/sh\nprintf '%s' '{{\"message\": \"{message}\"}}' > \"$1\"\n"),
    );
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut t = Tui::start_with(&path, &[("VISUAL", editor.to_str().unwrap())]);
    t.wait_for("2025-11-25", 30);
    t.keys("\t");
    t.wait_for("echo", 10);
    t.keys("\r");
    t.wait_for("Arguments · echo on everything", 10);
    t.keys("\x05"); // Ctrl-E
    t.wait_for("row 3000 end", 10);
    t.keys(CTRL_S);
    let s = t.wait_for("Result · echo", 30);
    assert!(s.contains("Echo: row 1 end"), "{s}");
    assert!(!s.contains("row 2500 end"), "{s}");
    // `/` searches the result; the match comes into view.
    t.keys("/row 2500 end");
    let s = t.wait_for("match 1 of 1", 10);
    assert!(
        s.contains("row 2500 end\n") || s.contains("row 2500 end "),
        "{s}"
    );
    assert!(!s.contains("Echo: row 1 end"), "{s}");
    t.keys("\r");
    // `n` wraps around to the same match: not the network view.
    t.keys("n");
    let s = t.wait_for("match 1 of 1", 10);
    assert!(!s.contains("Network"), "{s}");
    // Zoom: the result alone, then back.
    t.keys("z");
    let s = t.wait_until(|s| !s.contains("Servers"), 10);
    assert!(s.contains("row 2500 end"), "{s}");
    t.keys("z");
    t.wait_for("Servers", 10);
    // Save: the text, into save_dir, named on the status bar.
    t.keys("s");
    t.wait_for("mcpdeck-echo.txt", 10);
    let saved = std::fs::read_to_string(out.join("mcpdeck-echo.txt")).unwrap();
    assert!(
        saved.starts_with("Echo: row 1 end\nrow 2 end\n"),
        "{saved:.80}"
    );
    assert!(
        saved.ends_with("row 3000 end\n"),
        "{}",
        &saved[saved.len() - 40..]
    );
    assert_eq!(saved.lines().count(), 3000);
    t.quit();
}

/// `f` on a real server's resource links (the reference everything
/// server's `get-resource-links`): the links are listed, one is read in
/// the resources view, and Esc comes back to the result.
#[test]
fn a_resource_link_in_a_result_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        everything_js().display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let mut t = Tui::start(&path);
    t.wait_for("2025-11-25", 30);
    t.keys("\t");
    t.wait_for("get-resource-links", 10);
    t.keys("/get-resource-links\r");
    t.keys("\r");
    t.wait_for("Arguments · get-resource-links on everything", 10);
    t.keys(CTRL_S);
    t.wait_for("Result · get-resource-links", 30);
    t.keys("f");
    let s = t.wait_for("Links in the result", 10);
    assert!(s.contains("demo://resource/"), "{s}");
    t.keys("\r");
    // Read in place: the resources view shows what the server returned.
    let s = t.wait_for("Contents · demo://resource/dynamic/blob/1", 20);
    let s = if s.contains("Resource 1: This is a base64 blob") {
        s
    } else {
        t.wait_for("Resource 1: This is a base64 blob", 20)
    };
    assert!(!s.contains("Links in the result"), "{s}");
    t.keys("\x1b");
    let s = t.wait_for("Result · get-resource-links", 10);
    assert!(s.contains("Servers"), "back in the panes: {s}");
    t.quit();
}

/// The history outlives mcpdeck: a call made in one run is run again from
/// `H` in the next (the reference everything server), and the file is
/// private (0600).
#[test]
fn a_call_is_run_again_from_the_history_after_a_restart() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let state_dir = tempfile::tempdir().unwrap();
    let history = state_dir.path().join("state/history.jsonl");
    let history_s = history.display().to_string();
    let cfg = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        everything_js().display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let env = [("MCPDECK_HISTORY", history_s.as_str())];
    let mut t = Tui::start_with(&path, &env);
    echo_on_everything(&mut t, "kept across runs");
    t.wait_for("Echo: kept across runs", 30);
    t.quit();
    let text = std::fs::read_to_string(&history).unwrap();
    assert!(text.contains("kept across runs"), "{text}");
    let mode = std::fs::metadata(&history).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);

    let mut t = Tui::start_with(&path, &env);
    t.wait_for("2025-11-25", 30);
    t.keys("H");
    let s = t.wait_for("History (1)", 10);
    assert!(s.contains("message=\"kept across runs\""), "{s}");
    t.keys("r");
    let s = t.wait_for("Echo: kept across runs", 30);
    assert!(s.contains("Result · echo on everything"), "{s}");
    // Both runs' calls are kept now; `q` closes the history, as it closes
    // the other views, and quits from the panes.
    t.keys("H");
    t.wait_for("History (2)", 10);
    t.keys("q");
    t.wait_for("Servers", 10);
    t.quit();
    let text = std::fs::read_to_string(&history).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
}

#[test]
fn calls_run_side_by_side_and_a_request_can_wait() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n",
        everything_js().display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let mut t = Tui::start(&path);
    t.wait_for("2025-11-25", 30);
    // A long operation: 60 s in 60 steps.
    let open = |t: &mut Tui, tool: &str| {
        t.keys("/");
        t.keys(tool);
        t.keys("\r");
        t.wait_for("Tools · everything (1)", 10);
        t.keys("\r");
        t.wait_for(&format!("Arguments · {tool} on everything"), 10);
    };
    t.keys("\t");
    open(&mut t, "trigger-long-running-operation");
    for field in ["\x7f60", "\t\x7f60"] {
        t.keys(field);
    }
    t.wait_for("▸ steps     60", 10);
    t.wait_for("✓ valid against the inputSchema", 10);
    t.keys(CTRL_S);
    t.wait_for("running trigger-long-running-operation", 10);
    // Meanwhile an echo: Tab twice (servers, tools), never Esc, which
    // would cancel the running call shown.
    t.keys("\t");
    t.keys("\t");
    open(&mut t, "echo");
    t.keys(DOWN);
    t.keys(END);
    t.keys(LEFT);
    t.keys("side by side");
    t.wait_for("valid against the inputSchema", 10);
    t.keys(CTRL_S);
    let s = t.wait_for("Echo: side by side", 30);
    assert!(s.contains("2/2"), "the strip lists both calls: {s}");
    assert!(
        s.contains("│ 2 ✓ echo") && s.contains(" 1 ") && s.contains("trigger-lon…"),
        "the long call is still listed, its name shortened to fit: {s}"
    );
    // An elicitation while the long call runs: put aside, it holds
    // nothing; the long call is seen making progress.
    t.keys("\t");
    t.keys("\t");
    open(&mut t, "trigger-elicitation-request");
    t.keys(CTRL_S);
    t.wait_for("everything asks for input", 30);
    std::thread::sleep(GUARD);
    t.keys("Ada");
    t.keys("\x0c"); // Ctrl-L: later
    t.wait_for("⚑ 1 request (I)", 10);
    t.keys("[");
    t.keys("[");
    let s = t.wait_for("Result · running trigger-long-running-operation", 10);
    assert!(!s.contains("asks for input"), "{s}");
    t.wait_for("/60 (", 20);
    // Back to the request, as it was left; cancel it.
    t.keys("I");
    let s = t.wait_for("everything asks for input", 10);
    assert!(s.contains("Ada"), "{s}");
    // (A screen that comes back drops the keys of its first moments, as
    // one that comes on its own does.) Esc, and Esc again to throw away
    // what was typed.
    std::thread::sleep(GUARD);
    t.keys("\x1b");
    t.wait_for("throw away", 10);
    t.keys("\x1b");
    // It ended while the long call was shown: the screen stays there,
    // the status bar says so, and `]` (twice: past the echo) shows it.
    let s = t.wait_for("(trigger-elicitation-request on everything) ended", 30);
    assert!(!s.contains("⚑"), "{s}");
    t.keys("]");
    t.keys("]");
    t.wait_for("Result · trigger-elicitation-request on everything", 10);
    // The long call, still running: shown, and cancelled alone.
    t.keys("[");
    t.keys("[");
    t.wait_for("Result · running trigger-long-running-operation", 10);
    t.keys("\x1b");
    let s = t.wait_for("⊘ trigger-lon", 30);
    assert!(s.contains("1/3"), "{s}");
    t.keys("]");
    t.wait_for("Echo: side by side", 10);
    // Every one is in the history; two marked show their diff.
    t.keys("H");
    let s = t.wait_for("History (3)", 10);
    assert!(s.contains("cancelled"), "{s}");
    t.keys("m");
    t.keys(DOWN);
    t.keys("d");
    let s = t.wait_for("Diff · A", 10);
    // The cancelled long call and the elicitation's.
    assert!(s.contains("Arguments: 2 fields differ"), "{s}");
    assert!(s.contains("tools/call was cancelled"), "{s}");
    assert!(s.contains("User cancelled the elicitation dialog"), "{s}");
    t.keys("\x1b");
    t.wait_for("1 marked", 10);
    t.keys("q");
    t.wait_for("Servers", 10);
    t.quit();
}

#[test]
fn a_json_result_folds_and_unfolds() {
    let dir = tempfile::tempdir().unwrap();
    let tree = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tree.path()).unwrap();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::write(root.join("a/b/c.txt"), "c").unwrap();
    std::fs::write(root.join("a/d.txt"), "d").unwrap();
    std::fs::write(root.join("e.txt"), "e").unwrap();
    let fs_js = common::node_modules()
        .join("@modelcontextprotocol/server-filesystem/dist/index.js")
        .display()
        .to_string();
    let cfg = format!(
        "[servers.fs]\ncommand = \"node\"\nargs = [{fs_js:?}, {:?}]\n",
        root.display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let mut t = Tui::start(&path);
    t.wait_for("● fs", 30);
    t.keys("\t");
    t.keys("/");
    t.keys("directory_tree");
    t.keys("\r");
    t.wait_for("Tools · fs (1)", 10);
    t.keys("\r");
    t.wait_for("Arguments · directory_tree on fs", 10);
    t.keys(&root.display().to_string());
    t.keys(CTRL_S);
    let s = t.wait_for("\"children\": [", 30);
    assert!(s.contains("\"name\": \"b\""), "{s}");
    // C: each entry of the top-level array folded, with its size.
    t.keys("C");
    let s = t.wait_for("{…} 3 keys", 10);
    assert!(s.contains("{…} 2 keys"), "the file e.txt: {s}");
    assert!(!s.contains("\"name\": \"b\""), "{s}");
    // E: all of it again.
    t.keys("E");
    t.wait_for("\"name\": \"b\"", 10);
    // ←: the node at the cursor (the first row: the whole array).
    t.keys(LEFT);
    let s = t.wait_for("[…] 2 items", 10);
    assert!(!s.contains("\"children\""), "{s}");
    // →: open again.
    t.keys("\x1b[C");
    t.wait_for("\"children\": [", 10);
    t.quit();
}

#[test]
fn a_servers_roots_are_edited_saved_and_announced_without_a_reconnect() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    for d in ["one", "two", "three"] {
        std::fs::create_dir_all(base.join(d)).unwrap();
    }
    let one = base.join("one").display().to_string();
    let cfg = format!(
        "# my servers\n[servers.everything]\n# the reference server\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\nroots = [{one:?}]\n",
        everything_js().display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg);
    let mut t = Tui::start(&path.display().to_string());
    t.wait_for("2025-11-25", 30);
    // D on the selected server: its roots, one line.
    t.keys("D");
    let s = t.wait_for("Roots of everything", 10);
    assert!(s.contains("/one"), "{s}");
    t.keys("\x15"); // Ctrl-U: clear
    let two = base.join("two").display().to_string();
    let three = base.join("three").display().to_string();
    t.keys(&format!("{two} {three}"));
    t.keys("\r");
    t.wait_for("(a connected server is told);", 10);
    // Saved, comments kept.
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("# my servers") && text.contains("# the reference server"),
        "{text}"
    );
    assert!(
        text.contains(&format!("roots = [{two:?}, {three:?}]")),
        "{text}"
    );
    // The server asked again and has the new roots: no reconnect needed.
    t.keys("\t");
    t.keys("/");
    t.keys("get-roots-list");
    t.keys("\r");
    t.wait_for("Tools · everything (1)", 10);
    t.keys("\r");
    t.wait_for("Arguments · get-roots-list on everything", 10);
    t.keys(CTRL_S);
    let s = t.wait_for("URI: file://", 30);
    assert!(s.contains("/two/") && s.contains("/three/"), "{s}");
    assert!(!s.contains("/one/"), "{s}");
    t.quit();
}

#[test]
fn calls_run_at_once_on_two_servers() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\"]\n\n[servers.py]\ncommand = {:?}\nargs = [{:?}]\n",
        everything_js().display().to_string(),
        py_v1().display().to_string(),
        server_script("py_v1_server.py").display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    let mut t = Tui::start(&path);
    t.wait_for("● py", 30);
    t.wait_for("● everything", 30);
    // The long operation on everything (10 s by default).
    t.keys("\t");
    t.keys("/");
    t.keys("trigger-long-running-operation");
    t.keys("\r");
    t.wait_for("Tools · everything (1)", 10);
    t.keys("\r");
    t.wait_for(
        "Arguments · trigger-long-running-operation on everything",
        10,
    );
    t.keys(CTRL_S);
    t.wait_for("running trigger-long-running-operation", 10);
    // Meanwhile, on the other server: its servers pane row, its tools.
    t.keys("\t"); // the servers pane
    t.keys(DOWN);
    t.keys("\t");
    t.keys("/");
    t.keys("slow");
    t.keys("\r");
    t.wait_for("Tools · py (1)", 10);
    t.keys("\r");
    t.wait_for("Arguments · slow on py", 10);
    t.keys(CTRL_S);
    let s = t.wait_for("done after 3 steps", 30);
    assert!(s.contains("Result · slow on py"), "{s}");
    assert!(s.contains("2/2"), "{s}");
    // The first still runs, on the other server.
    t.keys("[");
    t.wait_for(
        "Result · running trigger-long-running-operation on everything",
        10,
    );
    t.keys("\x1b");
    t.wait_for("⊘ trigger-lon", 30);
    t.quit();
}

#[test]
fn a_call_saved_as_a_test_step_runs_in_the_cli_and_in_the_tui() {
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("pty-suite");
    let cfg = format!(
        "[servers.everything]\ncommand = \"node\"\nargs = [{:?}, \"stdio\", {mark:?}]\n",
        everything_js().display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
    // Started in the folder, with the config named relative to it (the
    // suite run by X must still find both).
    let mut t = Tui::spawn(&["--config", "config.toml"], Some(dir.path()), &[]);
    echo_on_everything(&mut t, "kept as a test");
    t.wait_for("Echo: kept as a test", 30);
    // T: the picker offers a new file beside the config; Enter saves.
    t.keys("T");
    let s = t.wait_for("Add echo on everything to a test suite", 10);
    assert!(s.contains("tests/everything.mcpdeck.toml"), "{s}");
    assert!(s.contains("no suites found here yet"), "{s}");
    t.keys("\r");
    t.wait_for("made a suite with step", 10);
    let suite = dir.path().join("tests/everything.mcpdeck.toml");
    let text = std::fs::read_to_string(&suite).unwrap();
    assert!(text.contains("server = \"everything\""), "{text}");
    assert!(
        text.contains("args = { message = \"kept as a test\" }"),
        "{text}"
    );
    let snap = dir
        .path()
        .join("tests/__snapshots__/everything/echo-kept-as-a-test.json");
    assert!(
        std::fs::read_to_string(&snap)
            .unwrap()
            .contains("Echo: kept as a test"),
        "{}",
        snap.display()
    );

    // The CLI runs the saved step, with the config the TUI used.
    let run = common::mcpdeck(
        &[
            "--config",
            &path,
            "test",
            "--json",
            &suite.display().to_string(),
        ],
        limit(60),
    );
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["passed"], 1, "{doc}");
    assert_eq!(doc["suites"][0]["steps"][0]["name"], "echo kept as a test");

    // X runs it in the TUI; a changed snapshot shows as a failure, and
    // Enter opens its diff.
    let stored = std::fs::read_to_string(&snap).unwrap();
    std::fs::write(
        &snap,
        stored.replace("Echo: kept as a test", "Echo: changed"),
    )
    .unwrap();
    t.keys("X");
    t.wait_for("Run a test suite", 10);
    t.keys("\r");
    let s = t.wait_for("0 passed, 1 failed", 60);
    assert!(s.contains("✗ echo kept as a test"), "{s}");
    t.keys("\r");
    let s = t.wait_for("+       \"text\": \"Echo: kept as a test\"", 10);
    assert!(s.contains("-       \"text\": \"Echo: changed\""), "{s}");
    t.keys("\x1b");
    t.wait_for("Enter open a step", 10);
    t.keys("\x1b");
    t.wait_for("Servers", 10);
    t.quit();
    assert_no_leak(&mark);
}
