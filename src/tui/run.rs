//! The TUI's event loop, generic over the ratatui backend and the terminal
//! host, so tests drive the real loop on a `TestBackend`.
//!
//! Nothing is drawn unless something changed; bursts of events become one
//! frame; the spinner ticks only while something is pending; the protocol
//! log and the network view are woken by new frames and exchanges, never
//! polled. So an idle mcpdeck uses no CPU. Effects are carried out here (config writes,
//! files, commands to the manager); everything they change comes back to
//! `update` as a message.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crossterm::event;
use ratatui::Terminal;
use ratatui::backend::Backend;

use super::app::{self, Effect, Follow, Msg, Revert, State};
use super::ui;
use crate::config::{Config, ConfigEditor};
use crate::mcp::manager::{Command, EventReceiver, Manager};

/// What the loop needs from the terminal besides drawing.
#[allow(async_fn_in_trait)]
pub trait Host {
    /// The terminal this host draws on.
    type Backend: Backend;
    /// The next terminal event, or a note for the status bar from work the
    /// host started (an opener that failed); `None` when the input has
    /// ended.
    async fn next_input(&mut self) -> Option<Input>;
    /// Hand the terminal to `$EDITOR` on `text`; the edited text, or why
    /// not. `Err` only when the terminal cannot be taken back.
    async fn edit_externally(&mut self, text: &str) -> std::io::Result<Result<String, String>>;
    /// The terminal was someone else's: make the next frame draw it all.
    fn redraw_all(&mut self, terminal: &mut Terminal<Self::Backend>) -> std::io::Result<()>;
    /// Put text on the clipboard.
    fn copy(&mut self, text: &str);
    /// Open an http(s) URL without waiting for it.
    fn open_url(&mut self, url: String);
}

/// What the host hands the loop.
#[derive(Debug)]
pub enum Input {
    Terminal(std::io::Result<event::Event>),
    Note(String),
}

/// Where the loop's commands go: the manager, or a recorder in tests.
pub trait Core {
    fn send(&self, cmd: Command);
}

impl Core for Manager {
    fn send(&self, cmd: Command) {
        Manager::send(self, cmd);
    }
}

/// The most manager events taken in one frame. A server flooding
/// notifications cannot starve keys or drawing: after this many the frame
/// is drawn and keys come first; the rest is taken on the next turns of
/// the loop, which come at once (the channel is still ready).
pub const MAX_EVENTS_PER_FRAME: usize = 2048;

/// The spinner's tick, and the fastest the logs are refreshed.
const TICK: Duration = Duration::from_millis(100);

/// The next change of a log (never, without one). Cancel-safe: a change
/// is taken only when this completes.
async fn changed(log: &mut Option<crate::mcp::framelog::ChangeWatcher>) -> Result<(), ()> {
    match log {
        Some(rx) => rx.changed().await.map_err(|_| ()),
        None => std::future::pending().await,
    }
}

fn other(e: impl std::fmt::Display) -> std::io::Error {
    std::io::Error::other(e.to_string())
}

/// How the TUI ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Quit (`q`), or the input ended.
    Quit,
    /// Ctrl-C: the process exits 130, as terminal programs do.
    Interrupted,
}

/// Run the loop until the user quits (or the input ends).
pub async fn run_loop<H: Host, C: Core>(
    terminal: &mut Terminal<H::Backend>,
    host: &mut H,
    core: &C,
    mut config: Config,
    mut state: State,
    mut events: EventReceiver,
) -> std::io::Result<Ended> {
    let mut effects = Vec::new();
    let mut ended = Ended::Quit;
    if let Ok(size) = terminal.size() {
        app::update(
            &mut state,
            Msg::Resize(size.width, size.height),
            &mut effects,
        );
    }
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // The logs wake the views that follow them; nothing polls.
    let mut frames_changed = state.frames.as_ref().map(|f| f.subscribe());
    let mut net_changed = state.frames.as_ref().map(|f| f.net().subscribe());
    // A change was seen and is shown at `refresh_at` (at most one refresh
    // a tick, however fast frames come).
    let mut refresh_pending = false;
    let mut refresh_at = tokio::time::Instant::now();
    let mut editor: Option<ConfigEditor> = None;
    // The import screen's look through other clients' files runs on a
    // blocking thread; its answer comes back here.
    let (found_tx, mut found_rx) = tokio::sync::mpsc::unbounded_channel();
    // The running serves found, and the news of the one attached to.
    let (serve_tx, mut serve_rx) = tokio::sync::mpsc::unbounded_channel::<Msg>();
    // The history as kept on disk; each call is added on a blocking thread
    // (the file is written whole, atomically), one at a time. The runtime
    // waits for such a write when mcpdeck quits.
    let history_store = std::sync::Arc::new(std::sync::Mutex::new(state.history.clone()));
    let mut attached: Option<crate::tui::attach::conn::Handle> = None;
    // The registry browser's search under way (a newer one aborts it).
    let mut registry_search: Option<tokio::task::JoinHandle<()>> = None;
    // The config file is watched (as serve watches it): an edit made
    // elsewhere (`mcpdeck deny`, an editor) applies at once.
    let mut watch = config.path.clone().map(|p| {
        let waker = crate::config::watch::Waker::new(&[p.as_path()]);
        (crate::config::watch::Watched::new(p), waker)
    });
    let mut dirty = true;
    loop {
        let settling = watch.as_ref().is_some_and(|(w, _)| w.settling());
        // While the spinner ticks, its ticks refresh the logs too.
        let follows = state.follows().filter(|_| !state.busy());
        if follows.is_none() {
            refresh_pending = false;
        }
        if dirty {
            terminal.draw(|f| ui::render(&state, f)).map_err(other)?;
            dirty = false;
        }
        let msg = tokio::select! {
            // Keys first: a flood of events must not hold them up.
            biased;
            ev = host.next_input() => match ev {
                Some(Input::Terminal(Ok(event::Event::Key(k)))) if k.kind != event::KeyEventKind::Release => Msg::Key(k),
                Some(Input::Terminal(Ok(event::Event::Mouse(m)))) => Msg::Mouse(m),
                Some(Input::Terminal(Ok(event::Event::Resize(w, h)))) => Msg::Resize(w, h),
                Some(Input::Terminal(Ok(_))) => continue,
                Some(Input::Terminal(Err(e))) => return Err(e),
                Some(Input::Note(note)) => Msg::Note(note),
                None => break,
            },
            Some(ev) = events.recv() => Msg::Manager(ev),
            Some(found) = found_rx.recv() => Msg::ImportsFound(found),
            Some(msg) = serve_rx.recv() => msg,
            _ = tick.tick(), if state.busy() => Msg::Tick,
            _ = wait_config(&mut watch, settling), if watch.is_some() => {
                let changed = watch.as_mut().is_some_and(|(w, _)| w.changed());
                if !changed {
                    continue;
                }
                match reload_changed(&mut config, core, &mut editor, &state.registry.tried) {
                    Some(msgs) => {
                        for m in msgs {
                            dirty |= app::update(&mut state, m, &mut effects);
                        }
                        Msg::Tick
                    }
                    None => continue,
                }
            }
            Ok(()) = changed(&mut frames_changed), if follows == Some(Follow::Frames) && !refresh_pending => {
                refresh_pending = true;
                continue;
            }
            Ok(()) = changed(&mut net_changed), if follows == Some(Follow::Net) && !refresh_pending => {
                refresh_pending = true;
                continue;
            }
            _ = tokio::time::sleep_until(refresh_at), if refresh_pending => {
                refresh_pending = false;
                refresh_at = tokio::time::Instant::now() + TICK;
                Msg::Tick
            }
        };
        dirty |= app::update(&mut state, Msg::Clock(Instant::now()), &mut effects);
        dirty |= app::update(&mut state, msg, &mut effects);
        // A burst of manager events becomes one frame, up to a limit.
        for _ in 0..MAX_EVENTS_PER_FRAME {
            let Ok(ev) = events.try_recv() else { break };
            dirty |= app::update(&mut state, Msg::Manager(ev), &mut effects);
        }
        // Effects, and the effects of the messages they bring back.
        let mut queue: VecDeque<Effect> = effects.drain(..).collect();
        let mut quit = false;
        while let Some(e) = queue.pop_front() {
            let mut back = Vec::new();
            match e {
                Effect::Quit => quit = true,
                Effect::Interrupt => {
                    quit = true;
                    ended = Ended::Interrupted;
                }
                Effect::ExternalEditor(text) => {
                    let result = host.edit_externally(&text).await?;
                    // The terminal was someone else's: draw it all again, at
                    // its size now.
                    host.redraw_all(terminal)?;
                    dirty = true;
                    if let Ok(size) = terminal.size() {
                        back.push(Msg::Resize(size.width, size.height));
                    }
                    back.push(Msg::EditorReturned(result));
                }
                Effect::AddServer(server) => {
                    let name = server.name.clone();
                    let r = write(&config, &mut editor, |ed| ed.add_server(&server));
                    match r.and_then(|()| {
                        reload(&mut config, core, &mut editor, &state.registry.tried)
                    }) {
                        Ok(servers) => {
                            back.push(Msg::Settings(Box::new(config.settings.clone())));
                            back.push(Msg::Reloaded(Ok(servers)));
                            back.push(Msg::Written(Ok(format!("{name} added to the config"))));
                        }
                        Err(e) => back.push(Msg::Written(Err(e))),
                    }
                }
                Effect::CopyCurl(call) => {
                    // As written in the file: the loaded config has its
                    // `${VAR}`s filled in (secrets among them).
                    match config_text(&config).and_then(|t| app::script_for(&call, &t)) {
                        Ok(script) => back.push(Msg::CopyText(script)),
                        Err(e) => back.push(Msg::Note(format!("not copied: {e}"))),
                    }
                }
                Effect::ReadRoots(server) => {
                    let roots = config_text(&config).and_then(|t| app::raw_roots(&t, &server));
                    back.push(Msg::RootsRead { server, roots });
                }
                Effect::WriteRoots { server, roots } => {
                    let r = write(&config, &mut editor, |ed| {
                        ed.set_roots(&server, roots.as_deref())
                    });
                    match r {
                        Ok(()) => {
                            // Read back as the loader takes it (relative
                            // directories, `${VAR}`): the manager applies
                            // the roots in place and tells the server.
                            let r = reload(&mut config, core, &mut editor, &state.registry.tried);
                            let note = match (&r, &roots) {
                                (Ok(_), Some(d)) if d.is_empty() => {
                                    format!("{server}: no roots offered now")
                                }
                                (Ok(_), Some(d)) => format!(
                                    "{server}: roots {} now (a connected server is told)",
                                    d.join(" ")
                                ),
                                (Ok(_), None) => {
                                    format!("{server}: takes the global roots now")
                                }
                                (Err(_), _) => format!("{server}: roots written"),
                            };
                            if r.is_ok() {
                                back.push(Msg::Settings(Box::new(config.settings.clone())));
                            }
                            back.push(Msg::Reloaded(r));
                            back.push(Msg::Written(Ok(saved(&config, &note))));
                        }
                        Err(e) => back.push(Msg::Written(Err(e))),
                    }
                }
                Effect::Reload => {
                    let r = reload(&mut config, core, &mut editor, &state.registry.tried);
                    if r.is_ok() {
                        back.push(Msg::Settings(Box::new(config.settings.clone())));
                    }
                    back.push(Msg::Reloaded(r));
                }
                Effect::FindImports => {
                    // Reading files (up to 10 MB each) never holds up a frame.
                    let (path, tx) = (config.path.clone(), found_tx.clone());
                    tokio::task::spawn_blocking(move || {
                        let _ = tx.send(find_imports(path.as_deref()));
                    });
                }
                Effect::Import(items) => {
                    let n = items.len();
                    let path = config.path.clone();
                    let r = write(&config, &mut editor, |ed| import_into(ed, items));
                    match r.and_then(|()| {
                        reload(&mut config, core, &mut editor, &state.registry.tried)
                    }) {
                        Ok(servers) => {
                            back.push(Msg::Settings(Box::new(config.settings.clone())));
                            back.push(Msg::Reloaded(Ok(servers)));
                            back.push(Msg::Written(Ok(format!(
                                "imported {n} server{} into {}; saved",
                                if n == 1 { "" } else { "s" },
                                path.map(|p| p.display().to_string()).unwrap_or_default()
                            ))));
                        }
                        Err(e) => back.push(Msg::Written(Err(e))),
                    }
                }
                Effect::Copy(text) => host.copy(&text),
                Effect::Save(files) => back.push(Msg::Written(save_all(
                    state.settings.save_dir.as_deref(),
                    files,
                ))),
                Effect::Record => back.push(Msg::Written(toggle_record(&config))),
                Effect::History(entry) => {
                    if let Some(path) = state.history_path.clone() {
                        let store = history_store.clone();
                        let tx = serve_tx.clone();
                        tokio::task::spawn_blocking(move || {
                            let mut all = store.lock().unwrap_or_else(|p| p.into_inner());
                            if let Err(e) = crate::tui::history::append(&path, &mut all, *entry) {
                                let _ = tx.send(Msg::Note(format!(
                                    "the call was not kept in the history ({}): {e}",
                                    crate::sanitize::one_line(&path.display().to_string())
                                )));
                            }
                        });
                    }
                }
                Effect::SaveLog => {
                    let r = match &state.frames {
                        Some(log) => {
                            let bytes = crate::record::recording_bytes(
                                &log.snapshot(),
                                &log.net().snapshot(),
                                &config.servers,
                            );
                            save_all(
                                state.settings.save_dir.as_deref(),
                                vec![(record_name("log"), bytes)],
                            )
                        }
                        None => Err("no protocol log to save".into()),
                    };
                    back.push(Msg::Written(r));
                }
                Effect::Manager(cmd) => core.send(cmd),
                Effect::FindSuites(purpose) => {
                    let base = suite_base(&config);
                    let tx = serve_tx.clone();
                    tokio::task::spawn_blocking(move || {
                        let found = crate::suite::find(&base, 200);
                        let _ = tx.send(Msg::SuitesFound {
                            purpose,
                            base,
                            found,
                        });
                    });
                }
                Effect::SaveStep { file, mut draft } => {
                    draft.when =
                        crate::text::fmt_utc(crate::text::unix_secs(std::time::SystemTime::now()));
                    let tx = serve_tx.clone();
                    tokio::task::spawn_blocking(move || {
                        let _ = tx.send(Msg::StepSaved(crate::suite::append::save(&file, &draft)));
                    });
                }
                Effect::RunSuite(file) => {
                    let tx = serve_tx.clone();
                    let (config_path, base) = (config.path.clone(), suite_base(&config));
                    tokio::spawn(async move {
                        let result = run_suite(config_path, &base, &file).await;
                        let _ = tx.send(Msg::SuiteRan { file, result });
                    });
                }
                Effect::FindServes => {
                    let tx = serve_tx.clone();
                    tokio::spawn(async move {
                        let found =
                            crate::serve::control::running(crate::serve::control::ASK_TIMEOUT)
                                .await
                                .map(|f| {
                                    f.iter()
                                        .map(crate::tui::attach::Running::from_found)
                                        .collect()
                                });
                        let _ = tx.send(Msg::Serves(found));
                    });
                }
                Effect::Attach { pid, socket } => {
                    let tx = serve_tx.clone();
                    attached = Some(crate::tui::attach::conn::start(
                        pid,
                        socket,
                        state.frames.clone(),
                        move |m| {
                            let _ = tx.send(Msg::Attach(m));
                        },
                    ));
                }
                Effect::Detach => attached = None,
                Effect::ServeOp(op) => {
                    if !attached.as_ref().is_some_and(|h| h.send(op)) {
                        back.push(Msg::Note("not attached to a serve".into()));
                    }
                }
                Effect::OpenUrl(url) => host.open_url(url),
                Effect::Registry(fx) => {
                    use crate::tui::registry::{RegistryFx, RegistryMsg, fetch};
                    match fx {
                        RegistryFx::Search { base, query, seq } => {
                            // A newer search replaces one under way.
                            if let Some(t) = registry_search.take() {
                                t.abort();
                            }
                            let tx = serve_tx.clone();
                            registry_search =
                                Some(tokio::spawn(fetch::search(base, query, seq, move |m| {
                                    let _ = tx.send(m);
                                })));
                        }
                        RegistryFx::Try(_) => {
                            core.send(Command::SetServers(crate::tui::registry::with_tried(
                                &config.servers,
                                &state.registry.tried,
                            )))
                        }
                        RegistryFx::Add(add) => {
                            // The credential store may be the OS keyring:
                            // never on the loop's thread.
                            let (path, store) = (config.path.clone(), config.settings.credentials);
                            let tx = serve_tx.clone();
                            tokio::task::spawn_blocking(move || {
                                let result = fetch::write_add(path.as_deref(), store, &add);
                                let _ = tx.send(Msg::Registry(RegistryMsg::Added {
                                    local: add.local.clone(),
                                    result,
                                }));
                            });
                        }
                        RegistryFx::Reload { note } => {
                            match reload(&mut config, core, &mut editor, &state.registry.tried) {
                                Ok(servers) => {
                                    back.push(Msg::Settings(Box::new(config.settings.clone())));
                                    back.push(Msg::Reloaded(Ok(servers)));
                                    back.push(Msg::Written(Ok(note)));
                                }
                                Err(e) => back.push(Msg::Written(Err(format!(
                                    "{note}, but the config was not read again: {e}"
                                )))),
                            }
                        }
                    }
                }
                Effect::WritePins { pins, note } => {
                    back.push(Msg::PinsWritten(write_pins(&state.pins, *pins), note));
                }
                Effect::WriteEnabled {
                    server,
                    enabled,
                    note,
                } => {
                    let r = write(&config, &mut editor, |ed| {
                        // Added by another run (the CLI): back at the
                        // default, the key goes, as this run's own would.
                        if enabled && ed.looks_added(&server, "enabled") {
                            ed.assume_added(&server, "enabled");
                        }
                        ed.set_enabled(&server, enabled)
                    });
                    if r.is_ok()
                        && let Some(c) = config.servers.iter_mut().find(|c| c.name == server)
                    {
                        c.enabled = enabled;
                    }
                    if r.is_ok() || config.path.is_none() {
                        // The file first: the manager follows once it is written.
                        core.send(Command::SetEnabled(server.clone(), enabled));
                    } else {
                        // Not written: the screen goes back to what the file says.
                        back.push(Msg::Revert(Revert::Enabled {
                            server: server.clone(),
                            enabled: !enabled,
                        }));
                    }
                    back.push(Msg::Written(r.map(|()| saved(&config, &note))));
                }
                Effect::WriteDeny {
                    server,
                    tools,
                    previous,
                    note,
                } => {
                    let r = write(&config, &mut editor, |ed| {
                        if tools.is_empty() && ed.looks_added(&server, "deny_tools") {
                            ed.assume_added(&server, "deny_tools");
                        }
                        ed.set_deny_tools(&server, &tools)
                    });
                    if r.is_ok()
                        && let Some(c) = config.servers.iter_mut().find(|c| c.name == server)
                    {
                        c.deny_tools = tools.clone();
                    }
                    if r.is_ok() || config.path.is_none() {
                        core.send(Command::SetDenyList(server.clone(), tools.clone()));
                    } else {
                        back.push(Msg::Revert(Revert::Deny {
                            server: server.clone(),
                            tools: previous,
                        }));
                    }
                    back.push(Msg::Written(r.map(|()| saved(&config, &note))));
                }
            }
            for msg in back {
                let mut more = Vec::new();
                dirty |= app::update(&mut state, msg, &mut more);
                queue.extend(more);
            }
        }
        if quit {
            break;
        }
    }
    Ok(ended)
}

/// Keep `pins` in the pin file: read again (pins another run saved
/// meanwhile are kept), this server's entry replaced, written atomically.
fn write_pins(
    pins_now: &crate::tui::app::trust::Pins,
    pins: crate::trust::pin::ServerPins,
) -> Result<Box<crate::trust::pin::ServerPins>, String> {
    use crate::trust::pin::PinStore;
    let path = match pins_now {
        Ok(store) => store.path().to_path_buf(),
        Err(e) => return Err(e.clone()),
    };
    let mut store = PinStore::load(&path).map_err(|e| e.to_string())?;
    store.set(pins.clone());
    store.save().map_err(|e| e.to_string())?;
    Ok(Box::new(pins))
}

/// What a config write did: `denied echo on everything; saved`.
fn saved(config: &Config, note: &str) -> String {
    if config.path.is_some() {
        format!("{note}; saved")
    } else {
        format!("{note} (for this session: the demo has no config file)")
    }
}

/// Save files into the current directory; what was saved, or why not.
/// `mcpdeck-KIND-YYYYMMDD-HHMMSS.jsonl`.
fn record_name(kind: &str) -> String {
    let t = crate::trust::pin::rfc3339(std::time::SystemTime::now());
    let stamp: String = t.chars().filter(char::is_ascii_digit).collect();
    format!(
        "mcpdeck-{kind}-{}-{}.jsonl",
        &stamp[..8.min(stamp.len())],
        &stamp[8.min(stamp.len())..]
    )
}

/// Recording on or off: `--record FILE` if it was given, else a new file
/// in the current directory.
fn toggle_record(config: &crate::config::Config) -> Result<String, String> {
    let rec = crate::record::Recorder::global();
    if rec.is_active() {
        rec.set_active(false);
        let path = rec
            .path()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        return Ok(format!("recording paused ({path})"));
    }
    let path = match rec.path() {
        Some(p) => p,
        None => std::path::PathBuf::from(record_name("rec")),
    };
    if rec.path().is_some() {
        rec.set_active(true);
    } else {
        rec.open(&path)?;
    }
    rec.attach(&config.servers);
    Ok(format!("● recording every frame to {}", path.display()))
}

/// Write `files` into `dir` (`[settings] save_dir`, made if missing), or
/// the current directory.
fn save_all(
    dir: Option<&std::path::Path>,
    files: Vec<(String, Vec<u8>)>,
) -> Result<String, String> {
    let dir = dir.unwrap_or(std::path::Path::new("."));
    if let Err(e) = std::fs::create_dir_all(dir) {
        return Err(format!(
            "could not make the save folder {} ([settings] save_dir): {e}",
            crate::sanitize::one_line(&dir.display().to_string())
        ));
    }
    let mut saved = Vec::new();
    let mut failed = None;
    for (name, bytes) in files {
        match save_new(dir, &name, &bytes) {
            Ok(path) => {
                let shown = if dir == std::path::Path::new(".") {
                    path
                } else {
                    dir.join(path).display().to_string()
                };
                saved.push(format!(
                    "{} ({} bytes)",
                    crate::sanitize::one_line(&shown),
                    bytes.len()
                ))
            }
            Err(e) => failed = Some(format!("could not write {name}: {e}")),
        }
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(format!("saved {}", saved.join(", "))),
    }
}

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

/// The next change to the watched config file (never, without one).
async fn wait_config(
    watch: &mut Option<(crate::config::watch::Watched, crate::config::watch::Waker)>,
    settling: bool,
) {
    match watch {
        Some((_, waker)) => waker.wait(settling).await,
        None => std::future::pending().await,
    }
}

/// The config file changed on disk: what it now says is applied (the
/// servers, their deny lists, the roots), as `R` would, and said on the
/// status bar. Nothing when it says what this run already has (its own
/// write). A file that does not load keeps what runs, with a message that
/// says why.
fn reload_changed(
    config: &mut Config,
    core: &impl Core,
    editor: &mut Option<ConfigEditor>,
    tried: &[crate::config::ServerConfig],
) -> Option<Vec<Msg>> {
    let path = config.path.clone()?;
    let fresh = match crate::config::load(&path) {
        Ok(fresh) => fresh,
        Err(e) => {
            return Some(vec![Msg::Note(format!(
                "the config file changed but was not applied (what runs stays): {}",
                e.summary()
            ))]);
        }
    };
    // Edits from now on start from the file as it is.
    if let Some(ed) = editor.as_mut() {
        let _ = ed.reload();
    }
    if fresh.servers == config.servers && fresh.settings == config.settings {
        return None;
    }
    // The servers tried from the registry stay beside the config's.
    let all = crate::tui::registry::with_tried(&fresh.servers, tried);
    core.send(Command::SetServers(all.clone()));
    core.send(Command::SetRoots(fresh.settings.roots.clone()));
    config.servers = fresh.servers.clone();
    config.settings = fresh.settings.clone();
    Some(vec![
        Msg::Settings(Box::new(fresh.settings)),
        Msg::Reloaded(Ok(all)),
        Msg::Note(format!(
            "the config file changed on disk: applied ({})",
            path.display()
        )),
    ])
}

/// The config file's text as written (with its `${VAR}`s), or why not.
/// The folder test suites are looked for in, and relative suite paths
/// taken from: the config file's, else the current one (the demo).
fn suite_base(config: &Config) -> std::path::PathBuf {
    let base = config
        .path
        .as_deref()
        .and_then(std::path::Path::parent)
        .filter(|p| !p.as_os_str().is_empty())
        .map(std::path::Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| ".".into());
    std::path::absolute(&base).unwrap_or(base)
}

/// SIGTERM to a child that has not ended when this is dropped (the TUI
/// quit while a suite ran): the child stops its servers as a Ctrl-C would.
struct TermOnDrop(Option<u32>);

impl Drop for TermOnDrop {
    fn drop(&mut self) {
        if let Some(pid) = self.0.and_then(|p| libc::pid_t::try_from(p).ok())
            && pid > 0
        {
            // SAFETY: kill(2) on one positive pid, our own child's.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
    }
}

/// `mcpdeck [--config FILE | --demo] test --json FILE`, run in `base`:
/// its report, or what it said instead.
async fn run_suite(
    config: Option<std::path::PathBuf>,
    base: &std::path::Path,
    file: &std::path::Path,
) -> Result<serde_json::Value, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find mcpdeck's own program to run the suite: {e}"))?;
    // Both paths whole: the child runs in `base`, and `--config
    // conf/x.toml` given to the TUI is relative to where it started.
    let whole = |p: &std::path::Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut cmd = tokio::process::Command::new(exe);
    match config {
        Some(p) => cmd.arg("--config").arg(whole(&p)),
        None => cmd.arg("--demo"),
    };
    cmd.arg("test")
        .arg("--json")
        .arg(whole(file))
        .current_dir(base)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot run `mcpdeck test`: {e}"))?;
    let mut guard = TermOnDrop(child.id());
    let out = child
        .wait_with_output()
        .await
        .map_err(|e| format!("`mcpdeck test` failed: {e}"))?;
    guard.0 = None;
    let doc: Option<serde_json::Value> = serde_json::from_slice(&out.stdout).ok();
    match doc {
        Some(d) if d.get("suites").is_some() => Ok(d),
        Some(d) if d.pointer("/error/message").is_some() => Err(d
            .pointer("/error/message")
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_string()),
        _ => {
            let err = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = err.lines().rev().take(6).collect();
            Err(format!(
                "`mcpdeck test` ended ({}) without a report: {}",
                out.status,
                tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
            ))
        }
    }
}

fn config_text(config: &Config) -> Result<String, String> {
    let path = config
        .path
        .as_deref()
        .ok_or("this session has no config file")?;
    std::fs::read_to_string(path).map_err(|e| format!("the config file could not be read: {e}"))
}

/// Read the config file again and hand its servers to the manager.
fn reload(
    config: &mut Config,
    core: &impl Core,
    editor: &mut Option<ConfigEditor>,
    tried: &[crate::config::ServerConfig],
) -> Result<Vec<crate::config::ServerConfig>, String> {
    let Some(path) = config.path.as_deref() else {
        return Err("no config file".into());
    };
    let fresh = crate::config::load(path).map_err(|e| e.summary())?;
    config.servers = fresh.servers.clone();
    config.settings = fresh.settings.clone();
    // The servers tried from the registry stay beside the config's.
    let all = crate::tui::registry::with_tried(&fresh.servers, tried);
    core.send(Command::SetServers(all.clone()));
    // A change of roots is announced to the servers (roots list_changed).
    core.send(Command::SetRoots(fresh.settings.roots.clone()));
    // Edits from now on start from the file as it is.
    if let Some(ed) = editor.as_mut() {
        let _ = ed.reload();
    }
    Ok(all)
}

/// Read every known client's files (and the current directory's project
/// files) for the import screen; mark what the config has already.
fn find_imports(config_path: Option<&std::path::Path>) -> Result<app::ImportFound, String> {
    use crate::config::import::{self, Client, Locations, OnConflict};
    let at = Locations::from_env()
        .ok_or("no home directory (HOME is not set): nothing to look through")?;
    let cwd = std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?;
    let files = import::discover(&Client::ALL, &at, &cwd);
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for (client, path) in &files {
        let r = import::read_file(path, Some(*client), &cwd);
        found.extend(r.servers);
        errors.extend(
            r.errors
                .into_iter()
                .map(|e| format!("{} {}: {}", e.client, e.path.display(), e.message)),
        );
    }
    let existing = match config_path {
        Some(path) if path.exists() => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            import::existing_servers(&text, path).map_err(|e| e.summary())?
        }
        _ => Vec::new(),
    };
    let plan = import::plan(&existing, found, OnConflict::Rename);
    let rows = plan
        .add
        .into_iter()
        .map(|item| app::ImportRow {
            item,
            checked: true,
            already: false,
        })
        .chain(plan.unchanged.into_iter().map(|item| app::ImportRow {
            item,
            checked: false,
            already: true,
        }))
        .collect();
    Ok(app::ImportFound {
        rows,
        errors,
        files: files.len(),
    })
}

/// Add imported servers (names settled again against the file as it is
/// now), each with a comment naming where it came from: one atomic write.
fn import_into(
    ed: &mut ConfigEditor,
    items: Vec<crate::config::import::Imported>,
) -> Result<(), crate::config::ConfigError> {
    use crate::config::import::{self, OnConflict};
    let existing = import::existing_servers(ed.baseline(), ed.path())?;
    let plan = import::plan(&existing, items, OnConflict::Rename);
    let servers: Vec<crate::config::NewServer> = plan
        .add
        .iter()
        .map(|item| crate::config::NewServer {
            server: item.server.clone(),
            comment: Some(format!(
                "imported from {}: {}",
                item.client.label(),
                item.path.display()
            )),
        })
        .collect();
    ed.import_servers(&plan.replace, &servers)
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
