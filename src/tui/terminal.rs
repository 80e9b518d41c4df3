//! The real terminal: raw mode and the alternate screen (restored on
//! return, on a signal that drops the future, and on a panic), crossterm's
//! input stream, `$EDITOR`, the clipboard through OSC 52, and the system's
//! URL opener. The event loop itself ([`super::run`]) knows none of this.

use std::io::Write;

use crossterm::event::{self, EventStream};
use crossterm::{execute, terminal};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use super::keymap::Keymap;
use super::run::{Host, Input, run_loop};
use crate::config::Config;
use crate::mcp::manager::{Event, Manager};

/// Restores the terminal when dropped: on return, on error, and when the
/// future running the TUI is dropped (a signal). A panic hook does the same.
struct TerminalGuard;

impl TerminalGuard {
    fn enter() -> std::io::Result<TerminalGuard> {
        terminal::enable_raw_mode()?;
        let mut out = std::io::stdout();
        execute!(
            out,
            terminal::EnterAlternateScreen,
            event::EnableMouseCapture
        )?;
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
        Ok(TerminalGuard)
    }
}

impl TerminalGuard {
    fn reenter() -> std::io::Result<()> {
        terminal::enable_raw_mode()?;
        execute!(
            std::io::stdout(),
            terminal::EnterAlternateScreen,
            event::EnableMouseCapture
        )
    }
}

/// Edit `text` in $VISUAL, else $EDITOR, else vi; the edited text.
async fn external_editor(text: &str) -> Result<String, String> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".into());
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi").to_string();
    let path = std::env::temp_dir().join(format!("mcpdeck-args-{}.json", std::process::id()));
    std::fs::write(&path, text).map_err(|e| format!("could not write {}: {e}", path.display()))?;
    let status = tokio::process::Command::new(&program)
        .args(words)
        .arg(&path)
        .status()
        .await;
    let result = match status {
        Ok(s) if s.success() => std::fs::read_to_string(&path)
            .map_err(|e| format!("could not read {}: {e}", path.display())),
        Ok(s) => Err(format!(
            "{program} exited with {s}; the arguments were left as they were"
        )),
        Err(e) => Err(format!(
            "could not start {program} ($VISUAL / $EDITOR): {e}"
        )),
    };
    let _ = std::fs::remove_file(&path);
    result
}

/// The system's URL opener.
fn opener() -> &'static str {
    if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    }
}

/// Open `url` with the system opener without waiting for it: it runs on
/// its own with no terminal (its output would tear the screen), and a
/// failure to start or a failing exit comes back on `notes`.
fn open_url(url: String, notes: tokio::sync::mpsc::UnboundedSender<String>) {
    let program = opener();
    let child = tokio::process::Command::new(program)
        .arg(&url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match child {
        Err(e) => {
            let _ = notes.send(format!(
                "could not start {program} to open the URL: {e}; y copies it"
            ));
        }
        Ok(mut child) => {
            tokio::spawn(async move {
                let note = match child.wait().await {
                    Ok(st) if st.success() => {
                        format!("opened {}", crate::sanitize::one_line(&url))
                    }
                    Ok(st) => format!("{program} failed ({st}); y copies the URL"),
                    Err(e) => format!("{program}: {e}"),
                };
                let _ = notes.send(note);
            });
        }
    }
}

fn restore() {
    let _ = terminal::disable_raw_mode();
    let mut out = std::io::stdout();
    let _ = execute!(
        out,
        event::DisableMouseCapture,
        terminal::LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = out.flush();
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// The host of the real terminal.
struct CrosstermHost {
    input: Option<EventStream>,
    notes_tx: tokio::sync::mpsc::UnboundedSender<String>,
    notes: tokio::sync::mpsc::UnboundedReceiver<String>,
}

impl Host for CrosstermHost {
    type Backend = CrosstermBackend<std::io::Stdout>;

    fn redraw_all(&mut self, terminal: &mut Terminal<Self::Backend>) -> std::io::Result<()> {
        // A new terminal has no previous frame, so everything is drawn.
        *terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
        Ok(())
    }

    async fn next_input(&mut self) -> Option<Input> {
        let input = self.input.get_or_insert_with(EventStream::new);
        tokio::select! {
            ev = input.next() => ev.map(Input::Terminal),
            Some(note) = self.notes.recv() => Some(Input::Note(note)),
        }
    }

    async fn edit_externally(&mut self, text: &str) -> std::io::Result<Result<String, String>> {
        // Hand the terminal over: stop reading keys, leave the alternate
        // screen, and take it back afterwards.
        self.input = None;
        restore();
        let result = external_editor(text).await;
        TerminalGuard::reenter()?;
        Ok(result)
    }

    fn copy(&mut self, text: &str) {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
        let mut out = std::io::stdout();
        // OSC 52: the terminal puts it on the system clipboard.
        let _ = write!(out, "\x1b]52;c;{b64}\x07");
        let _ = out.flush();
    }

    fn open_url(&mut self, url: String) {
        open_url(url, self.notes_tx.clone());
    }
}

/// Run the TUI on these servers until the user quits.
pub async fn run(
    config: Config,
    keymap: Keymap,
    theme: super::theme::Theme,
    manager: Manager,
    events: tokio::sync::mpsc::UnboundedReceiver<Event>,
) -> std::io::Result<()> {
    let mut state = super::app::State::new(&config.servers, keymap, config.path.clone());
    state.frames = Some(manager.frames().clone());
    state.theme = theme;
    let _guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    let (notes_tx, notes) = tokio::sync::mpsc::unbounded_channel::<String>();
    let mut host = CrosstermHost {
        input: None,
        notes_tx,
        notes,
    };
    run_loop(&mut terminal, &mut host, &manager, config, state, events).await
}
