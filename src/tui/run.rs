//! The TUI driver: terminal setup and restore, the event loop, effects.
//!
//! Nothing is drawn unless something changed; bursts of events become one
//! frame; the spinner ticks only while something is pending. So an idle
//! mcpdeck uses no CPU.

use std::io::Write;
use std::time::Duration;

use crossterm::event::{self, EventStream};
use crossterm::{execute, terminal};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use super::app::{self, Effect, Msg, State};
use super::keymap::Keymap;
use super::ui;
use crate::config::{Config, ConfigEditor};
use crate::mcp::manager::{Command, Manager};

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

/// Run the TUI on these servers until the user quits.
pub async fn run(
    mut config: Config,
    keymap: Keymap,
    theme: super::theme::Theme,
    manager: Manager,
    mut events: tokio::sync::mpsc::UnboundedReceiver<crate::mcp::manager::Event>,
) -> std::io::Result<()> {
    let mut state = State::new(&config.servers, keymap, config.path.clone());
    state.frames = Some(manager.frames().clone());
    state.theme = theme;
    let _guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
    if let Ok(size) = terminal.size() {
        state.size = (size.width, size.height);
    }
    let mut input = EventStream::new();
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut editor: Option<ConfigEditor> = None;
    let (notes_tx, mut notes) = tokio::sync::mpsc::unbounded_channel::<String>();
    let mut effects = Vec::new();
    let mut dirty = true;
    loop {
        if dirty {
            terminal.draw(|f| ui::render(&state, f))?;
            dirty = false;
        }
        let msg = tokio::select! {
            ev = input.next() => match ev {
                Some(Ok(event::Event::Key(k))) if k.kind != event::KeyEventKind::Release => Msg::Key(k),
                Some(Ok(event::Event::Mouse(m))) => Msg::Mouse(m),
                Some(Ok(event::Event::Resize(w, h))) => Msg::Resize(w, h),
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(e),
                None => break,
            },
            Some(ev) = events.recv() => Msg::Manager(ev),
            Some(note) = notes.recv() => Msg::Note(note),
            _ = tick.tick(), if state.busy() => Msg::Tick,
        };
        dirty |= app::update(&mut state, msg, &mut effects);
        // A burst of manager events becomes one frame.
        while let Ok(ev) = events.try_recv() {
            dirty |= app::update(&mut state, Msg::Manager(ev), &mut effects);
        }
        let mut quit = false;
        for e in effects.drain(..) {
            match e {
                Effect::Quit => quit = true,
                Effect::ExternalEditor(text) => {
                    // Hand the terminal over: stop reading keys, leave the
                    // alternate screen, and take it back afterwards.
                    drop(input);
                    restore();
                    let result = external_editor(&text).await;
                    TerminalGuard::reenter()?;
                    terminal = Terminal::new(CrosstermBackend::new(std::io::stdout()))?;
                    input = EventStream::new();
                    // The terminal may have been resized meanwhile.
                    if let Ok(size) = terminal.size() {
                        state.size = (size.width, size.height);
                    }
                    dirty = true;
                    dirty |= app::update(&mut state, Msg::EditorReturned(result), &mut Vec::new());
                }
                Effect::AddServer(server) => {
                    let name = server.name.clone();
                    let r = write(&config, &mut editor, |ed| ed.add_server(&server));
                    let msg = match r.and_then(|()| reload(&config, &manager, &mut editor)) {
                        Ok(servers) => {
                            config.servers = servers.clone();
                            dirty |= app::update(
                                &mut state,
                                Msg::Reloaded(Ok(servers)),
                                &mut Vec::new(),
                            );
                            Msg::Written(Ok(format!("{name} added to the config")))
                        }
                        Err(e) => Msg::Written(Err(e)),
                    };
                    dirty |= app::update(&mut state, msg, &mut Vec::new());
                }
                Effect::Reload => {
                    let msg = Msg::Reloaded(reload(&config, &manager, &mut editor));
                    dirty |= app::update(&mut state, msg, &mut Vec::new());
                }
                Effect::Copy(text) => {
                    use base64::Engine;
                    let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
                    let mut out = std::io::stdout();
                    // OSC 52: the terminal puts it on the system clipboard.
                    let _ = write!(out, "\x1b]52;c;{b64}\x07");
                    let _ = out.flush();
                }
                Effect::Save(files) => {
                    let mut saved = Vec::new();
                    let mut failed = None;
                    for (name, bytes) in files {
                        match save_new(std::path::Path::new("."), &name, &bytes) {
                            Ok(path) => saved.push(format!("{path} ({} bytes)", bytes.len())),
                            Err(e) => failed = Some(format!("could not write {name}: {e}")),
                        }
                    }
                    let r = match failed {
                        Some(e) => Err(e),
                        None => Ok(format!("saved {}", saved.join(", "))),
                    };
                    pending_writes(&mut state, r, &mut dirty);
                }
                Effect::Manager(cmd) => manager.send(cmd),
                Effect::OpenUrl(url) => open_url(url, notes_tx.clone()),
                Effect::WriteEnabled { server, enabled } => {
                    let r = write(&config, &mut editor, |ed| ed.set_enabled(&server, enabled));
                    if r.is_ok() || config.path.is_none() {
                        // The file first: the manager follows once it is written.
                        manager.send(Command::SetEnabled(server.clone(), enabled));
                    } else if let Some(v) = state.servers.iter_mut().find(|v| v.name == server) {
                        // Not written: the screen goes back to what the file says.
                        v.enabled = !enabled;
                    }
                    let r = r.map(|()| {
                        format!(
                            "{server} {} (saved)",
                            if enabled { "enabled" } else { "disabled" }
                        )
                    });
                    pending_writes(&mut state, r, &mut dirty);
                }
                Effect::WriteDeny {
                    server,
                    tools,
                    previous,
                } => {
                    let r = write(&config, &mut editor, |ed| {
                        ed.set_deny_tools(&server, &tools)
                    });
                    if r.is_ok() || config.path.is_none() {
                        manager.send(Command::SetDenyList(server.clone(), tools.clone()));
                    } else if let Some(v) = state.servers.iter_mut().find(|v| v.name == server) {
                        v.deny = previous;
                    }
                    let r = r.map(|()| format!("deny list of {server} saved"));
                    pending_writes(&mut state, r, &mut dirty);
                }
            }
        }
        if quit {
            break;
        }
    }
    Ok(())
}

fn pending_writes(state: &mut State, r: Result<String, String>, dirty: &mut bool) {
    let mut sink = Vec::new();
    *dirty |= app::update(state, Msg::Written(r), &mut sink);
}

/// Read the config file again and hand its servers to the manager.
/// Write `bytes` to a new file named `name` in the current directory, or
/// `name-2`, `name-3`… when it exists: never over an existing file, never
/// through a symlink (names may come from a server).
fn save_new(dir: &std::path::Path, name: &str, bytes: &[u8]) -> std::io::Result<String> {
    use std::io::Write as _;
    let path = std::path::Path::new(name);
    let (stem, ext) = match (path.file_stem(), path.extension()) {
        (Some(s), Some(e)) => (
            s.to_string_lossy().into_owned(),
            format!(".{}", e.to_string_lossy()),
        ),
        _ => (name.to_string(), String::new()),
    };
    for n in 1..1000 {
        let candidate = if n == 1 {
            name.to_string()
        } else {
            format!("{stem}-{n}{ext}")
        };
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dir.join(&candidate))
        {
            Ok(mut f) => {
                f.write_all(bytes)?;
                return Ok(candidate);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(
        "999 files of that name exist already",
    ))
}

fn reload(
    config: &Config,
    manager: &Manager,
    editor: &mut Option<ConfigEditor>,
) -> Result<Vec<crate::config::ServerConfig>, String> {
    let Some(path) = config.path.as_deref() else {
        return Err("no config file".into());
    };
    let fresh = crate::config::load(path).map_err(|e| e.summary())?;
    manager.send(Command::SetServers(fresh.servers.clone()));
    // A change of roots is announced to the servers (roots list_changed).
    manager.send(Command::SetRoots(fresh.settings.roots.clone()));
    // Edits from now on start from the file as it is.
    if let Some(ed) = editor.as_mut() {
        let _ = ed.reload();
    }
    Ok(fresh.servers)
}

/// Persist one edit through the comment-keeping, atomic config editor.
fn write(
    config: &Config,
    editor: &mut Option<ConfigEditor>,
    edit: impl FnOnce(&mut ConfigEditor) -> Result<(), crate::config::ConfigError>,
) -> Result<(), String> {
    let Some(path) = &config.path else {
        return Err("not saved: this session has no config file (demo)".into());
    };
    if editor.is_none() {
        *editor = Some(ConfigEditor::open(path).map_err(|e| e.summary())?);
    }
    let Some(ed) = editor.as_mut() else {
        return Err("not saved".into());
    };
    edit(ed).map_err(|e| format!("not saved: {}", e.summary()))
}

#[cfg(test)]
mod save_tests {
    use super::save_new;

    #[test]
    fn saving_never_overwrites_nor_follows_a_symlink() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("precious");
        std::fs::write(&target, b"keep").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join("logo.png")).unwrap();
        assert_eq!(
            save_new(dir.path(), "logo.png", b"new").unwrap(),
            "logo-2.png"
        );
        assert_eq!(
            save_new(dir.path(), "logo.png", b"newer").unwrap(),
            "logo-3.png"
        );
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert_eq!(
            std::fs::read(dir.path().join("logo-2.png")).unwrap(),
            b"new"
        );
        assert_eq!(save_new(dir.path(), "blob", b"x").unwrap(), "blob");
        assert_eq!(save_new(dir.path(), "blob", b"y").unwrap(), "blob-2");
    }
}
