//! The README's screenshots, taken from the real TUI.
//!
//! `cargo run --example screenshots -- --bin target/debug/mcpdeck --out assets/screenshots`
//! (or `bash scripts/screenshots.sh`, which builds mcpdeck first) starts
//! mcpdeck in a pseudo-terminal of 120x40 on the three built-in demo
//! servers, types keys as a person would, waits for the screen to settle,
//! and writes what a vt100 terminal shows as SVG: colours, bold, reverse
//! video and the cursor included.
//!
//! The pictures are what the terminal showed, timings included: a server's
//! latency, a call's time and the protocol log's times and latencies differ
//! from run to run, so a rerun rewrites a few digits of each file even when
//! the TUI did not change (they are not masked: masking would show numbers
//! mcpdeck never drew, and a digit's count changes the layout around it).

mod svg;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const ROWS: u16 = 40;
const COLS: u16 = 120;

const TAB: &str = "\t";
const ENTER: &str = "\r";
const ESC: &str = "\x1b";
const DOWN: &str = "\x1b[B";
const END: &str = "\x1b[F";
const LEFT: &str = "\x1b[D";
const CTRL_S: &str = "\x13";

fn main() -> Result<()> {
    let mut bin = None;
    let mut out = PathBuf::from("assets/screenshots");
    let mut print = false;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bin" => bin = args.next().map(PathBuf::from),
            "--out" => {
                out = args
                    .next()
                    .map(PathBuf::from)
                    .context("--out needs a folder")?
            }
            "--print" => print = true,
            "--only" => only = args.next(),
            "-h" | "--help" => {
                println!(
                    "usage: screenshots --bin PATH/TO/mcpdeck [--out FOLDER] [--only NAME] [--print]\n\
                     Writes the README's screenshots (SVG) of the TUI on the demo servers\n\
                     (main, result, request, protocol-log, light, high-contrast; --only one\n\
                     of them); --print also prints each screen's text."
                );
                return Ok(());
            }
            other => bail!("unknown argument {other:?}; try --help"),
        }
    }
    let bin = bin.context(
        "--bin PATH/TO/mcpdeck is needed (scripts/screenshots.sh builds it and passes it)",
    )?;
    let bin = std::fs::canonicalize(&bin)
        .with_context(|| format!("{}: no mcpdeck binary there; build it first", bin.display()))?;
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;

    let home = tempfile::tempdir().context("cannot make a temporary folder")?;
    type Drive = fn(&mut Term) -> Result<()>;
    // (file, theme, keys, title, terminal)
    let shots: [(&str, &str, Drive, &str, &svg::Palette); 6] = [
        (
            "main",
            "default",
            main_screen,
            "mcpdeck: servers, tools and a tool's detail",
            &svg::DARK,
        ),
        (
            "result",
            "default",
            result,
            "mcpdeck: the result of get_weather",
            &svg::DARK,
        ),
        (
            "request",
            "default",
            request,
            "mcpdeck: the arguments of a call",
            &svg::DARK,
        ),
        (
            "protocol-log",
            "default",
            protocol_log,
            "mcpdeck: the protocol log",
            &svg::DARK,
        ),
        (
            "light",
            "light",
            result,
            "mcpdeck with the light theme, on a light terminal",
            &svg::LIGHT,
        ),
        (
            "high-contrast",
            "high-contrast",
            main_screen,
            "mcpdeck with the high-contrast theme",
            &svg::DARK,
        ),
    ];
    if let Some(only) = &only
        && !shots.iter().any(|s| s.0 == only)
    {
        let names: Vec<&str> = shots.iter().map(|s| s.0).collect();
        bail!(
            "--only {only}: there is no such screenshot; the screenshots are {}",
            names.join(", ")
        );
    }
    for (name, theme, drive, title, palette) in shots {
        if only.as_ref().is_some_and(|o| o != name) {
            continue;
        }
        let config = write_config(home.path(), &bin, theme)?;
        let mut term = Term::start(&bin, &config, home.path())?;
        drive(&mut term).with_context(|| format!("while taking the {name} screenshot"))?;
        let screen = term.settled()?;
        term.quit();
        if print {
            println!("── {name} ──\n{}", screen.contents());
        }
        let file = out.join(format!("{name}.svg"));
        std::fs::write(&file, svg::render(&screen, palette, title))
            .with_context(|| format!("cannot write {}", file.display()))?;
        eprintln!("wrote {}", file.display());
    }
    Ok(())
}

/// The built-in demo's three servers (`mcpdeck --demo` adds the test
/// servers when a checkout has them, which would change the pictures).
fn write_config(dir: &Path, bin: &Path, theme: &str) -> Result<PathBuf> {
    let exe = bin.display().to_string();
    let server = |name: &str, extra: &str| {
        format!(
            "[servers.{name}]\ncommand = {exe:?}\nargs = [\"demo-server\", \"--name\", {name:?}{extra}]\n\n"
        )
    };
    let text = format!(
        "[theme]\nname = {theme:?}\n\n{}{}{}",
        server("demo", ""),
        server("demo-legacy", r#", "--era", "initialize", "--no-prompts""#),
        server(
            "demo-stateless",
            r#", "--era", "stateless", "--no-resources""#
        ),
    );
    let path = dir.join("config.toml");
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// The servers, the demo's tools and get_weather's detail.
fn main_screen(t: &mut Term) -> Result<()> {
    connected(t)?;
    t.keys(TAB)?;
    t.wait_for("get_weather")?;
    select_tool(t, "get_weather")
}

/// get_weather called for a city: its structured content.
fn result(t: &mut Term) -> Result<()> {
    connected(t)?;
    t.keys(TAB)?;
    t.wait_for("get_weather")?;
    select_tool(t, "get_weather")?;
    t.keys(ENTER)?;
    t.wait_for("get_weather on demo")?;
    let screen = t.settled()?.contents();
    if screen.contains("\"city\": \"\"") {
        // The JSON editor: the skeleton's first line is `"city": "",`.
        t.keys(DOWN)?;
        t.keys(END)?;
        t.keys(LEFT)?;
        t.keys(LEFT)?;
    }
    // A form has the city, the first field, focused.
    t.keys("Lisbon")?;
    t.wait_for("Lisbon")?;
    t.keys(CTRL_S)?;
    t.wait_for("temperature")?;
    Ok(())
}

/// What Enter on get_weather opens: the arguments, prefilled.
fn request(t: &mut Term) -> Result<()> {
    connected(t)?;
    t.keys(TAB)?;
    t.wait_for("get_weather")?;
    select_tool(t, "get_weather")?;
    t.keys(ENTER)?;
    t.wait_for("get_weather on demo")?;
    Ok(())
}

/// The protocol log after a call, the call's response selected.
fn protocol_log(t: &mut Term) -> Result<()> {
    result(t)?;
    t.keys(ESC)?;
    t.settled()?;
    t.keys("L")?;
    t.wait_for("tools/call")?;
    // The selected server's frames only: its handshake, lists and the call.
    t.keys("t")?;
    t.wait_for("Protocol log · demo")?;
    Ok(())
}

/// Wait until the three demo servers are up.
fn connected(t: &mut Term) -> Result<()> {
    t.wait_for("demo-stateless")?;
    t.wait_until("every server connected", |s| {
        ["demo ", "demo-legacy ", "demo-stateless "]
            .iter()
            .all(|name| s.lines().any(|l| l.contains(name) && l.contains("20")))
    })?;
    Ok(())
}

/// Move down the tools pane until `name` is the tool in the detail pane.
fn select_tool(t: &mut Term, name: &str) -> Result<()> {
    let title = format!("Tool · {name}");
    for _ in 0..40 {
        if t.settled()?.contents().contains(&title) {
            return Ok(());
        }
        t.keys(DOWN)?;
    }
    bail!(
        "{name} never became the selected tool; the screen:\n{}",
        t.text()
    )
}

/// mcpdeck in a pseudo-terminal, its output parsed by vt100.
struct Term {
    child: Box<dyn portable_pty::Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    parser: Arc<Mutex<(vt100::Parser, Instant)>>,
    _master: Box<dyn portable_pty::MasterPty + Send>,
}

/// How long to wait for something to show (`MCPDECK_SCREENSHOT_TIMEOUT`
/// seconds, default 30).
fn limit() -> Duration {
    let secs = std::env::var("MCPDECK_SCREENSHOT_TIMEOUT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    Duration::from_secs(secs)
}

impl Term {
    fn start(bin: &Path, config: &Path, home: &Path) -> Result<Term> {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(|e| anyhow::anyhow!("cannot open a pseudo-terminal: {e}"))?;
        let mut cmd = CommandBuilder::new(bin);
        cmd.args(["--config".as_ref(), config.as_os_str()]);
        cmd.cwd(home);
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("NO_COLOR");
        // Nothing of the person's own: state, logs and credentials go to the
        // temporary folder.
        for var in [
            "HOME",
            "XDG_CONFIG_HOME",
            "XDG_STATE_HOME",
            "XDG_DATA_HOME",
            "XDG_CACHE_HOME",
        ] {
            cmd.env(var, home);
        }
        let child = pty
            .slave
            .spawn_command(cmd)
            .map_err(|e| anyhow::anyhow!("cannot start {}: {e}", bin.display()))?;
        drop(pty.slave);
        let n = |v: u16| std::num::NonZeroU16::new(v).context("the terminal has no size");
        let parser = Arc::new(Mutex::new((
            vt100::Parser::new(n(ROWS)?, n(COLS)?, 0),
            Instant::now(),
        )));
        let mut reader = pty
            .master
            .try_clone_reader()
            .map_err(|e| anyhow::anyhow!("cannot read the pseudo-terminal: {e}"))?;
        let p = parser.clone();
        // Drain the pty on a thread: the program never blocks on output.
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let Ok(mut p) = p.lock() else { break };
                        p.0.process(&buf[..n]);
                        p.1 = Instant::now();
                    }
                }
            }
        });
        let writer = pty
            .master
            .take_writer()
            .map_err(|e| anyhow::anyhow!("cannot write to the pseudo-terminal: {e}"))?;
        Ok(Term {
            child,
            writer,
            parser,
            _master: pty.master,
        })
    }

    /// The screen and when it last changed.
    fn screen(&self) -> (vt100::Screen, Instant) {
        let p = match self.parser.lock() {
            Ok(p) => p,
            Err(poisoned) => poisoned.into_inner(),
        };
        (p.0.screen().clone(), p.1)
    }

    fn text(&self) -> String {
        self.screen().0.contents()
    }

    fn wait_until(&mut self, what: &str, ok: impl Fn(&str) -> bool) -> Result<String> {
        let deadline = Instant::now() + limit();
        loop {
            let s = self.text();
            if ok(&s) {
                return Ok(s);
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                bail!("mcpdeck exited ({status:?}) before {what}; the screen:\n{s}");
            }
            if Instant::now() > deadline {
                bail!("{what} never happened; the screen:\n{s}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_for(&mut self, needle: &str) -> Result<String> {
        self.wait_until(&format!("{needle:?} showing"), |s| s.contains(needle))
    }

    /// The screen once nothing has been drawn for half a second.
    fn settled(&self) -> Result<vt100::Screen> {
        let deadline = Instant::now() + limit();
        loop {
            let (screen, changed) = self.screen();
            if changed.elapsed() >= Duration::from_millis(500) {
                return Ok(screen);
            }
            if Instant::now() > deadline {
                bail!("the screen never settled:\n{}", screen.contents());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn keys(&mut self, keys: &str) -> Result<()> {
        self.writer
            .write_all(keys.as_bytes())
            .and_then(|()| self.writer.flush())
            .context("cannot type into the pseudo-terminal")?;
        // Each burst is read on its own (an Esc must not merge with what follows).
        std::thread::sleep(Duration::from_millis(150));
        Ok(())
    }

    /// Quit with `q`, then make sure the process is gone and reaped.
    fn quit(mut self) {
        let _ = self.keys("q");
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Term {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
