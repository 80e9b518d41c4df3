//! A real pseudo-terminal running the mcpdeck binary, with a vt100 parser
//! keeping the screen: shared by the end-to-end tests and the TUI bench.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// What the program asked the terminal to do besides drawing.
#[derive(Default)]
pub struct Watch {
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

pub struct Tui {
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    parser: Arc<Mutex<vt100::Parser<Watch>>>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

impl Tui {
    pub fn start(config: &str) -> Tui {
        Tui::start_with(config, &[])
    }

    pub fn start_with(config: &str, env: &[(&str, &str)]) -> Tui {
        Tui::spawn(&["--config", config], None, env)
    }

    /// mcpdeck with any arguments, in `cwd` (default: the test's own).
    pub fn spawn(args: &[&str], cwd: Option<&std::path::Path>, env: &[(&str, &str)]) -> Tui {
        Tui::spawn_bin(&super::mcpdeck_bin(), args, cwd, env)
    }

    /// The mcpdeck binary `bin` (another build of it) with any arguments.
    pub fn spawn_bin(
        bin: &std::path::Path,
        args: &[&str],
        cwd: Option<&std::path::Path>,
        env: &[(&str, &str)],
    ) -> Tui {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 100,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pty");
        let mut cmd = CommandBuilder::new(bin);
        cmd.args(args);
        if let Some(dir) = cwd {
            cmd.cwd(dir);
        }
        cmd.env("TERM", "xterm-256color");
        // Every run probes (tests/era_memory.rs turns the memory on).
        cmd.env("MCPDECK_ERA_MEMORY", "off");
        // No call goes into the machine's history (a test names a file).
        cmd.env("MCPDECK_HISTORY", "off");
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

    pub fn screen(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// Titles set, clipboard writes and bells, as the terminal saw them.
    pub fn side_effects(&self) -> (Vec<String>, usize, usize) {
        let p = self.parser.lock().unwrap();
        let w = p.callbacks();
        (w.titles.clone(), w.clipboard_writes, w.bells)
    }

    /// Wait until the screen shows `needle`; the screen at that time.
    /// Wait until the screen satisfies `ok`; return it.
    #[allow(dead_code)]
    pub fn wait_until(&self, ok: impl Fn(&str) -> bool, secs: u64) -> String {
        let deadline = Instant::now() + super::limit(secs);
        loop {
            let s = self.screen();
            if ok(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "the screen never changed as awaited:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn wait_for(&self, needle: &str, secs: u64) -> String {
        let deadline = Instant::now() + super::limit(secs);
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

    pub fn keys(&mut self, bytes: &str) {
        self.writer.write_all(bytes.as_bytes()).unwrap();
        self.writer.flush().unwrap();
        // Let the TUI read each burst separately (Esc must not merge with what follows).
        std::thread::sleep(Duration::from_millis(120));
    }

    /// Quit with `q` and wait for the process to end.
    pub fn quit(mut self) {
        self.keys("q");
        let status = self.wait_exit();
        assert!(status.success(), "mcpdeck exited with {status:?}");
    }

    /// Wait (within the test's limit) for the process to end; its status.
    pub fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + super::limit(15);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status;
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

impl Tui {
    /// Whether the program is on the alternate screen, and in mouse mode.
    pub fn modes(&self) -> (bool, bool) {
        let p = self.parser.lock().unwrap();
        let screen = p.screen();
        (
            screen.alternate_screen(),
            screen.mouse_protocol_mode() != vt100::MouseProtocolMode::None,
        )
    }

    /// The process id of mcpdeck in the pty.
    pub fn pid(&self) -> Option<u32> {
        self.child.process_id()
    }
}
