//! The real terminal: raw mode and the alternate screen (restored on
//! return, on a signal that drops the future, and on a panic that ends the
//! TUI — not on one the manager or tokio catches), crossterm's input
//! stream, `$EDITOR` on a private temporary file, the clipboard through
//! OSC 52, and the system's URL opener. The event loop itself
//! ([`super::run`]) knows none of this.

use std::io::Write;

use crossterm::event::{self, EventStream};
use crossterm::{execute, terminal};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use super::keymap::Keymap;
use super::run::{Host, Input, run_loop};
use crate::config::Config;
use crate::mcp::manager::{EventReceiver, Manager};

/// Restores the terminal when dropped: on return, on error, and when the
/// future running the TUI is dropped (a signal). A panic that ends the TUI
/// restores it first (see [`PanicHook`]).
struct TerminalGuard {
    _hook: PanicHook,
}

impl TerminalGuard {
    fn enter() -> std::io::Result<TerminalGuard> {
        terminal::enable_raw_mode()?;
        let mut out = std::io::stdout();
        execute!(
            out,
            terminal::EnterAlternateScreen,
            event::EnableMouseCapture
        )?;
        Ok(TerminalGuard {
            _hook: PanicHook::install(restore),
        })
    }
}

type Hook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

thread_local! {
    /// Whether the TUI's own future is being polled on this thread.
    static IN_TUI: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a panic here and now ends the TUI: it happens while the TUI's
/// future is polled ([`OnTuiThread`]) and nothing on the way catches it.
/// Panics in the manager's tasks (tokio catches those, and the manager's
/// own `catch_unwind` turns them into errors) and on other threads leave
/// the TUI running, so they must leave the terminal alone.
fn panic_ends_the_tui() -> bool {
    IN_TUI.with(std::cell::Cell::get) && !crate::mcp::manager::panic_is_caught()
}

/// The panic hook while the TUI runs: a panic that ends the TUI restores
/// the terminal before the previous hook prints the message (so it is
/// seen). Dropping it puts the previous hook back.
struct PanicHook {
    previous: Option<std::sync::Arc<Hook>>,
}

impl PanicHook {
    fn install(restore: fn()) -> PanicHook {
        let previous = std::sync::Arc::new(std::panic::take_hook());
        let chained = previous.clone();
        std::panic::set_hook(Box::new(move |info| {
            if panic_ends_the_tui() {
                restore();
            }
            chained(info);
        }));
        PanicHook {
            previous: Some(previous),
        }
    }
}

impl Drop for PanicHook {
    fn drop(&mut self) {
        // Hooks cannot be changed while this thread unwinds; the program
        // is ending then anyway.
        if std::thread::panicking() {
            return;
        }
        // Ours goes, and with it its share of the previous hook.
        drop(std::panic::take_hook());
        if let Some(previous) = self.previous.take() {
            match std::sync::Arc::try_unwrap(previous) {
                Ok(hook) => std::panic::set_hook(hook),
                Err(shared) => std::panic::set_hook(Box::new(move |info| shared(info))),
            }
        }
    }
}

/// Polls the TUI's future with [`IN_TUI`] set.
struct OnTuiThread<F>(std::pin::Pin<Box<F>>);

impl<F: std::future::Future> std::future::Future for OnTuiThread<F> {
    type Output = F::Output;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        struct Reset(bool);
        impl Drop for Reset {
            fn drop(&mut self) {
                IN_TUI.with(|f| f.set(self.0));
            }
        }
        let _reset = Reset(IN_TUI.with(|f| f.replace(true)));
        self.0.as_mut().poll(cx)
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
    edit_with(&editor, text).await
}

/// Edit `text` with `editor` (a program and its arguments, split at
/// spaces) on a new file of the temporary directory: created exclusively
/// under a random name (no one can have put a symlink there first),
/// readable only by the user (0600), named `.json` so editors highlight it,
/// and removed afterwards.
async fn edit_with(editor: &str, text: &str) -> Result<String, String> {
    let mut words = editor.split_whitespace();
    let program = words.next().unwrap_or("vi").to_string();
    let mut builder = tempfile::Builder::new();
    builder.prefix("mcpdeck-args-").suffix(".json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o600));
    }
    let dir = std::env::temp_dir();
    let mut file = builder
        .tempfile_in(&dir)
        .map_err(|e| format!("could not create a file in {}: {e}", dir.display()))?;
    let path = file.path().to_path_buf();
    file.write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| format!("could not write {}: {e}", path.display()))?;
    let status = tokio::process::Command::new(&program)
        .args(words)
        .arg(&path)
        .status()
        .await;
    // The editor may have replaced the file (written a new one and renamed
    // it over): read it by its name.
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
    // Removes whatever is at the path now.
    drop(file);
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
    events: EventReceiver,
) -> std::io::Result<super::run::Ended> {
    run_with(config, keymap, theme, manager, events, None).await
}

/// [`run`], starting in the protocol log with `opened` on the status bar
/// when a recording is shown (`mcpdeck open`).
pub async fn run_with(
    config: Config,
    keymap: Keymap,
    theme: super::theme::Theme,
    manager: Manager,
    events: EventReceiver,
    opened: Option<String>,
) -> std::io::Result<super::run::Ended> {
    let mut state = super::app::State::new(&config.servers, keymap, config.path.clone());
    if let Some(note) = opened {
        // The recorded servers are listed; none runs.
        for v in &mut state.servers {
            v.status = crate::mcp::manager::ServerStatus::Disconnected;
        }
        state.mode = super::app::Mode::Log;
        state.status = Some(note);
    }
    state.frames = Some(manager.frames().clone());
    state.theme = theme;
    state.settings = config.settings.clone();
    state.home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(std::path::PathBuf::from);
    state.roots_flag = crate::config::roots_flag_set();
    // The calls of earlier sessions (`H`).
    state.history_path = crate::tui::history::path();
    if let Some(path) = &state.history_path {
        let (kept, bad) = crate::tui::history::load(path);
        state.history = kept;
        if bad > 0 && state.status.is_none() {
            state.status = Some(format!(
                "{bad} lines of the history ({}) could not be read and were left out",
                crate::sanitize::one_line(&path.display().to_string())
            ));
        }
    }
    state.pins = crate::trust::pin::PinStore::load_default().map_err(|e| e.to_string());
    let _guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    let (notes_tx, notes) = tokio::sync::mpsc::unbounded_channel::<String>();
    let mut host = CrosstermHost {
        input: None,
        notes_tx,
        notes,
    };
    OnTuiThread(Box::pin(run_loop(
        &mut terminal,
        &mut host,
        &manager,
        config,
        state,
        events,
    )))
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::future::Future;
    use std::panic::AssertUnwindSafe;

    thread_local! {
        static RESTORED: Cell<usize> = const { Cell::new(0) };
        static EARLIER_HOOK: Cell<usize> = const { Cell::new(0) };
    }

    fn count_restore() {
        RESTORED.with(|c| c.set(c.get() + 1));
    }

    fn restored() -> usize {
        RESTORED.with(Cell::get)
    }

    fn earlier_hook() -> usize {
        EARLIER_HOOK.with(Cell::get)
    }

    /// Poll `f` once as the TUI's future, catching its panic.
    fn poll_as_tui(f: impl Future<Output = ()>) -> bool {
        let mut tui = OnTuiThread(Box::pin(f));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            let _ = std::pin::Pin::new(&mut tui).poll(&mut cx);
        }))
        .is_err()
    }

    #[cfg(unix)]
    #[tokio::test(flavor = "current_thread")]
    async fn the_editor_gets_a_private_unique_json_file_that_is_removed_after() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("log");
        let editor = dir.path().join("editor.sh");
        // Records the file it was given and its mode, then edits it.
        std::fs::write(
            &editor,
            format!(
                "#!/bin/sh\nprintf '%s %s\\n' \"$1\" \"$(stat -c %a \"$1\")\" >> '{}'\nprintf '{{\"edited\": true}}' > \"$1\"\n",
                log.display()
            ),
        )
        .expect("write the editor");
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o700)).expect("chmod");
        let editor = editor.display().to_string();
        let first = edit_with(&editor, "{}").await;
        let second = edit_with(&editor, "{}").await;
        assert_eq!(first.as_deref(), Ok("{\"edited\": true}"));
        assert_eq!(second.as_deref(), Ok("{\"edited\": true}"));
        let seen = std::fs::read_to_string(&log).expect("the editor ran");
        let seen: Vec<(&str, &str)> = seen.lines().filter_map(|l| l.rsplit_once(' ')).collect();
        assert_eq!(seen.len(), 2, "{seen:?}");
        let predictable = std::env::temp_dir()
            .join(format!("mcpdeck-args-{}.json", std::process::id()))
            .display()
            .to_string();
        for (path, mode) in &seen {
            let name = std::path::Path::new(path)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("");
            assert!(
                name.starts_with("mcpdeck-args-") && name.ends_with(".json"),
                "{path}"
            );
            assert_ne!(*path, predictable);
            assert_eq!(*mode, "600", "{path}");
            assert!(!std::path::Path::new(path).exists(), "{path} was left");
        }
        assert_ne!(seen[0].0, seen[1].0);

        // A failing editor: the file goes too, and the text stays as it was.
        let failed = edit_with("false", "{}").await;
        assert!(
            failed
                .as_ref()
                .is_err_and(|e| e.contains("the arguments were left as they were")),
            "{failed:?}"
        );
    }

    /// One test for everything about the hook: hooks are global.
    #[test]
    fn the_panic_hook_restores_only_for_panics_that_end_the_tui_and_goes_away_after() {
        // A hook from before the TUI (counting on this thread only,
        // otherwise the default one, so other tests' panics still print).
        let default = std::sync::Arc::new(std::panic::take_hook());
        let shared = default.clone();
        std::panic::set_hook(Box::new(move |info| {
            EARLIER_HOOK.with(|c| c.set(c.get() + 1));
            shared(info);
        }));

        let hook = PanicHook::install(count_restore);

        // A panic while the TUI's future is polled ends the TUI: the
        // terminal is restored, then the earlier hook prints.
        assert!(poll_as_tui(async { panic!("a bug in the TUI") }));
        assert_eq!((restored(), earlier_hook()), (1, 1));

        // A panic on another thread leaves the terminal alone.
        let other = std::thread::spawn(|| {
            let panicked = std::panic::catch_unwind(|| panic!("elsewhere")).is_err();
            (panicked, restored())
        })
        .join()
        .expect("the thread ends");
        assert_eq!(other, (true, 0));
        assert_eq!(restored(), 1);

        // A panic outside the TUI's future on this thread (a manager task
        // that tokio catches) leaves it alone too, even while the TUI's
        // future waits for that task.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let joined = runtime.block_on(OnTuiThread(Box::pin(async {
            tokio::spawn(async { panic!("a server handler failed") }).await
        })));
        assert!(joined.is_err_and(|e| e.is_panic()));
        assert_eq!((restored(), earlier_hook()), (1, 2));

        // When the TUI ends its hook goes: the earlier one is back.
        drop(hook);
        assert!(poll_as_tui(async { panic!("after the TUI") }));
        assert_eq!((restored(), earlier_hook()), (1, 3));

        drop(std::panic::take_hook());
        match std::sync::Arc::try_unwrap(default) {
            Ok(hook) => std::panic::set_hook(hook),
            Err(shared) => std::panic::set_hook(Box::new(move |info| shared(info))),
        }
    }
}
