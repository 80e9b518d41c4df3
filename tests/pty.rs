//! End to end in a real pseudo-terminal: the mcpdeck binary runs the TUI in
//! a pty, a vt100 parser keeps the screen, and the test types keys and
//! reads the screen as a person would.

mod common;

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{assert_no_leak, everything_js, limit, marker, py_v1, server_script, write_file};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// What the program asked the terminal to do besides drawing.
#[derive(Default)]
struct Watch {
    titles: Vec<String>,
    clipboard_writes: usize,
    bells: usize,
}

impl vt100::Callbacks for Watch {
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        self.titles
            .push(String::from_utf8_lossy(title).into_owned());
    }
    fn set_window_icon_name(&mut self, _: &mut vt100::Screen, name: &[u8]) {
        self.titles.push(String::from_utf8_lossy(name).into_owned());
    }
    fn copy_to_clipboard(&mut self, _: &mut vt100::Screen, _ty: &[u8], _data: &[u8]) {
        self.clipboard_writes += 1;
    }
    fn audible_bell(&mut self, _: &mut vt100::Screen) {
        self.bells += 1;
    }
}

struct Tui {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    parser: Arc<Mutex<vt100::Parser<Watch>>>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Tui {
    fn start(config: &str) -> Tui {
        Tui::start_with(config, &[])
    }

    fn start_with(config: &str, env: &[(&str, &str)]) -> Tui {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 100,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pty");
        let mut cmd = CommandBuilder::new(common::mcpdeck_bin());
        cmd.args(["--config", config]);
        cmd.env("TERM", "xterm-256color");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pty
            .slave
            .spawn_command(cmd)
            .expect("spawn mcpdeck in the pty");
        drop(pty.slave);
        let size = |n: u16| std::num::NonZeroU16::new(n).expect("non-zero");
        let parser = Arc::new(Mutex::new(vt100::Parser::new_with_callbacks(
            size(24),
            size(100),
            0,
            Watch::default(),
        )));
        let mut reader = pty.master.try_clone_reader().expect("pty reader");
        let p = parser.clone();
        // Drain the pty on a thread: the program never blocks on output.
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => p.lock().unwrap().process(&buf[..n]),
                }
            }
        });
        let writer = pty.master.take_writer().expect("pty writer");
        Tui {
            child,
            writer,
            parser,
            _master: pty.master,
        }
    }

    fn screen(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// Titles set, clipboard writes and bells, as the terminal saw them.
    fn side_effects(&self) -> (Vec<String>, usize, usize) {
        let p = self.parser.lock().unwrap();
        let w = p.callbacks();
        (w.titles.clone(), w.clipboard_writes, w.bells)
    }

    /// Wait until the screen shows `needle`; the screen at that time.
    fn wait_for(&self, needle: &str, secs: u64) -> String {
        let deadline = Instant::now() + limit(secs);
        loop {
            let s = self.screen();
            if s.contains(needle) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "{needle:?} never appeared; the screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn keys(&mut self, bytes: &str) {
        self.writer.write_all(bytes.as_bytes()).unwrap();
        self.writer.flush().unwrap();
        // Let the TUI read each burst separately (Esc must not merge with what follows).
        std::thread::sleep(Duration::from_millis(120));
    }

    /// Quit with `q` and wait for the process to end.
    fn quit(mut self) {
        self.keys("q");
        let deadline = Instant::now() + limit(15);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(status.success(), "mcpdeck exited with {status:?}");
                return;
            }
            assert!(
                Instant::now() < deadline,
                "mcpdeck did not quit; the screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tui {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

const DOWN: &str = "\x1b[B";
const END: &str = "\x1b[F";
const LEFT: &str = "\x1b[D";
const CTRL_S: &str = "\x13";

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
    t.wait_for("2025-11-25", 30);
    // Tools pane, the first tool is echo; open the editor.
    t.keys("\t");
    t.wait_for("echo", 10);
    t.keys("\r");
    t.wait_for("Arguments · echo on everything", 10);
    // The skeleton is {"message": ""}: type between the quotes.
    t.keys(DOWN);
    t.keys(END);
    t.keys(LEFT);
    t.keys("hello from a pty");
    t.wait_for("valid against the inputSchema", 10);
    t.keys(CTRL_S);
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
    assert!(s.contains("exited with status 4"), "{s}");
    t.wait_for("fine 2026-07-28", 30);
    t.quit();
}

#[test]
fn escape_sequences_from_a_server_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mark = marker("escapes");
    let cfg = format!(
        "[servers.evil]\ncommand = {:?}\nargs = [\"-X\", {mark:?}, {:?}, \"--mode\", \"escapes\"]\n",
        py_v1().display().to_string(),
        server_script("hostile.py").display().to_string()
    );
    let path = write_file(dir.path(), "config.toml", &cfg)
        .display()
        .to_string();
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
