//! The TUI's state and its transitions. `update` is a pure function of the
//! state and one message; it returns whether a redraw is needed and pushes
//! effects (commands to the manager, config writes, quit) for the driver
//! to carry out. No IO, no awaits: every transition is unit-testable.

mod calls;
mod curl;
mod editor;
mod event;
mod find;
mod fold;
pub mod guard;
mod history_diff;
mod history_view;
mod import;
mod keys;
mod latency;
mod links;
mod login;
mod media;
mod model;
mod mouse;
mod roots;
mod state;
pub mod suites;
pub mod trust;
mod views;

use crossterm::event::{KeyEvent, MouseEvent};

use crate::config::ServerConfig;
use crate::mcp::manager::{Command, Event};

pub use calls::{EntryView, KEEP as KEEP_CALLS, Mark};
pub use curl::{CurlBase, CurlCall, Seg, script_for};
pub use editor::{last_sent, problems};
use event::on_event;
pub use event::tool_diff;
pub use history_diff::HistoryDiff;
pub use history_view::shown as history_shown;
pub(crate) use keys::edit_line;
use keys::on_key;
pub use keys::waiting_note;
pub use media::copy_effect;
pub use model::*;
use mouse::on_mouse;
pub use roots::{RootsEdit, raw_roots};
pub use state::{Follow, State};
pub use suites::{PickFor, SuitePick, TestRow, TestsView};
use views::net_poll;
pub use views::{frame_lines, frame_prepared, log_areas, net_areas};

/// What the driver must do after an update.
#[derive(Debug)]
pub enum Effect {
    Manager(Command),
    /// Make the curl script of a call (the server's URL and headers read
    /// from the config file as written) and copy it (`Msg::CopyText`).
    CopyCurl(Box<curl::CurlCall>),
    /// Read a server's `roots` as written in the config file, for the
    /// roots dialog (`Msg::RootsRead`).
    ReadRoots(String),
    /// Write a server's `roots` (`None`: remove the key, so it takes the
    /// global ones), then apply the config as read back.
    WriteRoots {
        server: String,
        roots: Option<Vec<String>>,
    },
    /// Persist a server's enabled flag to the config file.
    WriteEnabled {
        server: String,
        enabled: bool,
        /// What the write does, in words ("disabled everything").
        note: String,
    },
    /// Persist a server's deny list to the config file.
    WriteDeny {
        server: String,
        tools: Vec<String>,
        /// The list before, to go back to if the write fails.
        previous: Vec<String>,
        /// What the write does, in words ("denied echo on everything").
        note: String,
    },
    /// Put text on the clipboard (OSC 52).
    Copy(String),
    /// Keep this call in the history file.
    History(Box<crate::tui::history::Entry>),
    /// Write files (name, bytes) into the current directory.
    Save(Vec<(String, Vec<u8>)>),
    /// Recording on / off (`--record FILE`, or a new file in the current
    /// directory); answered with `Msg::Written`.
    Record,
    /// Save what the protocol log holds as a recording in the current
    /// directory; answered with `Msg::Written`.
    SaveLog,
    /// Read the config file again and hand the servers to the manager.
    Reload,
    /// Edit this text in $VISUAL / $EDITOR; answer with `Msg::EditorReturned`.
    ExternalEditor(String),
    /// Add this server to the config file, then reload.
    AddServer(ServerConfig),
    /// Look for servers in other clients' files (answered with
    /// `Msg::ImportsFound`).
    FindImports,
    /// Add these servers to the config file (each with a comment naming
    /// where it came from), then reload.
    Import(Vec<crate::config::import::Imported>),
    /// Open this http(s) URL with the system opener (never blocking;
    /// failures come back as `Msg::Note`).
    OpenUrl(String),
    /// Keep these pins in the pin file (read again, this server's entry
    /// replaced, written atomically); answered with `Msg::PinsWritten`.
    WritePins {
        pins: Box<crate::trust::pin::ServerPins>,
        /// What the write does, in words.
        note: String,
    },
    /// Look for running `mcpdeck serve` processes (answered with
    /// `Msg::Serves`).
    FindServes,
    /// Attach to a serve's control socket (its messages come as
    /// `Msg::Attach`).
    Attach {
        pid: u32,
        socket: std::path::PathBuf,
    },
    /// End the attach.
    Detach,
    /// Send an edit to the serve attached to (`{"op":"deny",…}`).
    ServeOp(serde_json::Value),
    Quit,
    /// Ctrl-C: quit at once, and exit 130.
    Interrupt,
    /// Look for test suite files (under the config's folder, else the
    /// current one) for the picker (`Msg::SuitesFound`).
    FindSuites(suites::PickFor),
    /// Append a step to a suite file and write its snapshot
    /// (`Msg::StepSaved`).
    SaveStep {
        file: std::path::PathBuf,
        draft: Box<crate::suite::append::Draft>,
    },
    /// Run `mcpdeck test --json FILE` (a child process; `Msg::SuiteRan`).
    RunSuite(std::path::PathBuf),
    /// The registry browser's work: a search, a server tried, an add
    /// (answered with `Msg::Registry`).
    Registry(crate::tui::registry::RegistryFx),
}

/// The most OSC 52 carries reliably (terminals cap it around here).
pub const COPY_LIMIT: usize = 100_000;

/// What a failed write takes back.
#[derive(Debug)]
pub enum Revert {
    Enabled { server: String, enabled: bool },
    Deny { server: String, tools: Vec<String> },
}

/// An input to `update`.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Manager(Event),
    /// The spinner ticks while something is pending.
    Tick,
    /// The time now: `update` reads no clock of its own (the progress rate
    /// needs it).
    Clock(std::time::Instant),
    /// The terminal's size (columns, rows).
    Resize(u16, u16),
    /// A write failed: the screen goes back to what the file says.
    Revert(Revert),
    /// The result of a config write (Err: a message for the status bar).
    Written(Result<String, String>),
    /// The external editor returned this text (Err: why not).
    EditorReturned(Result<String, String>),
    /// The config file was read again (Err: why not).
    Reloaded(Result<Vec<ServerConfig>, String>),
    /// The config's `[settings]` as read again (before its `Reloaded`).
    Settings(Box<crate::config::Settings>),
    /// A message for the status bar from the driver (an opener failed).
    Note(String),
    /// Text the driver made, to copy as the copy keys do (a curl script).
    CopyText(String),
    /// A server's roots as written in the config file (`None`: no `roots`
    /// key), for the roots dialog; or why they could not be read.
    RootsRead {
        server: String,
        roots: Result<Option<Vec<String>>, String>,
    },
    /// What the driver found in other clients' files (Err: why not).
    ImportsFound(Result<ImportFound, String>),
    /// Pins were written (the pins kept, and what the write did), or why
    /// not.
    PinsWritten(Result<Box<crate::trust::pin::ServerPins>, String>, String),
    /// The running serves found (Err: why not).
    Serves(Result<Vec<crate::tui::attach::Running>, String>),
    /// News of the serve attached to.
    Attach(crate::tui::attach::AttachMsg),
    /// The suite files found for the picker, under `base`.
    SuitesFound {
        purpose: suites::PickFor,
        base: std::path::PathBuf,
        found: Vec<std::path::PathBuf>,
    },
    /// A step was saved (or why not).
    StepSaved(Result<crate::suite::append::Saved, String>),
    /// A suite's run ended: the `--json` report, or why there is none.
    SuiteRan {
        file: std::path::PathBuf,
        result: Result<serde_json::Value, String>,
    },
    /// The registry browser's answers (results, the registry unreachable,
    /// an add written).
    Registry(crate::tui::registry::RegistryMsg),
}

/// How long a status message stays when nothing replaces it.
pub const STATUS_TTL: std::time::Duration = std::time::Duration::from_secs(8);

/// Apply one message. Returns true when the screen must be redrawn.
pub fn update(s: &mut State, msg: Msg, fx: &mut Vec<Effect>) -> bool {
    let before = s.status.clone();
    let screen = guard::screen_of(s);
    let by_key = matches!(msg, Msg::Key(_));
    let mut redraw = match &msg {
        // Typed as a request screen came or went: for the screen before.
        Msg::Key(k) if guard::swallow(s, k) => true,
        _ => {
            let redraw = apply(s, msg, fx);
            guard::watch(s, screen, by_key);
            redraw
        }
    };
    // The responses recorded meanwhile, into the latency statistics.
    redraw |= latency::feed(s);
    // The focus or the mode may have moved a zoomed pane.
    if redraw && s.zoom {
        s.relayout();
    }
    // A new message starts its time; an old one expires (on the next
    // message after its time: an idle screen does not wake for it).
    if s.status != before {
        s.status_since = s.clock;
    }
    redraw
}

fn apply(s: &mut State, msg: Msg, fx: &mut Vec<Effect>) -> bool {
    match msg {
        Msg::Tick => {
            // The registry's search, once the typing paused.
            crate::tui::registry::tick(s, fx);
            if s.mode == Mode::Net {
                let changed = net_poll(s);
                if !s.animating() {
                    return changed;
                }
            } else if s.in_log() && !s.animating() {
                // Only new frames need a redraw.
                let newest = s.frames.as_ref().and_then(|f| f.last_seq());
                let changed = newest != s.log.seen;
                s.log.seen = newest;
                return changed;
            }
            s.spinner = s.spinner.wrapping_add(1);
            true
        }
        Msg::Clock(now) => {
            s.clock = Some(now);
            let expired = s.status.is_some()
                && s.status_since
                    .is_some_and(|t| now.saturating_duration_since(t) >= STATUS_TTL);
            if expired {
                s.status = None;
            }
            expired
        }
        Msg::Resize(w, h) => {
            s.size = (w, h);
            s.relayout();
            true
        }
        Msg::Revert(Revert::Enabled { server, enabled }) => {
            if let Some(v) = s.servers.iter_mut().find(|v| v.name == server) {
                v.enabled = enabled;
            }
            true
        }
        Msg::Revert(Revert::Deny { server, tools }) => {
            if let Some(v) = s.servers.iter_mut().find(|v| v.name == server) {
                v.deny = tools;
            }
            true
        }
        Msg::Written(Ok(note)) => {
            s.status = Some(note);
            true
        }
        Msg::Written(Err(e)) => {
            s.status = Some(e);
            true
        }
        Msg::RootsRead { server, roots } => {
            roots::read(s, server, roots);
            true
        }
        Msg::CopyText(text) => {
            media::copy(s, text, fx);
            true
        }
        Msg::Note(note) => {
            s.status = Some(note);
            true
        }
        Msg::EditorReturned(Err(e)) => {
            s.status = Some(e);
            true
        }
        // Into the form when it can show the text, else the JSON.
        Msg::EditorReturned(Ok(text)) => editor::returned(s, text),
        Msg::Settings(settings) => {
            s.settings = *settings;
            true
        }
        Msg::Reloaded(Err(e)) => {
            s.status = Some(format!("not reloaded: {e}"));
            true
        }
        Msg::Reloaded(Ok(servers)) => {
            // Keep what is known of servers that stay (the manager keeps
            // unchanged ones connected); new ones start pending.
            let selected = s.selected_server().map(|v| v.name.clone());
            let tool = s.selected_names();
            let mut old: Vec<ServerView> = std::mem::take(&mut s.servers);
            s.servers = servers
                .iter()
                .map(|c| match old.iter().position(|v| v.name == c.name) {
                    Some(i) => {
                        let mut v = old.remove(i);
                        v.enabled = c.enabled;
                        v.deny = c.deny_tools.clone();
                        v.allow = c.allow_tools.clone();
                        v.http = HttpView::from_config(&c.transport);
                        v.trust.key = crate::trust::pin::key_for(c);
                        v.trust.source = Some(crate::trust::lint::source_key(&c.transport));
                        v.trust.config = Some(c.clone());
                        v
                    }
                    None => ServerView::new(c),
                })
                .collect();
            // The selection follows the server by name (indices shift
            // when servers come and go).
            s.server_sel = selected
                .and_then(|n| s.servers.iter().position(|v| v.name == n))
                .unwrap_or(s.server_sel)
                .min(s.servers.len().saturating_sub(1));
            s.refilter_to(tool);
            crate::tui::registry::reloaded(s, &servers);
            s.relayout();
            let names: Vec<&str> = s.servers.iter().map(|v| v.name.as_str()).collect();
            s.latency.retain_servers(|n| names.contains(&n));
            trust::refresh(s);
            let mut note = format!("config reloaded: {} servers", s.servers.len());
            // An editor on a server that is gone has nothing to send to.
            if let Some(e) = &s.editor
                && !s.servers.iter().any(|v| v.name == e.server)
            {
                note.push_str(&format!(
                    "; the editor on {} closed: the server was removed",
                    crate::sanitize::one_line(&e.server)
                ));
                s.editor = None;
                if s.mode == Mode::Editor {
                    s.mode = Mode::Normal;
                }
            }
            s.status = Some(note);
            true
        }
        Msg::ImportsFound(found) => import::found(s, found),
        Msg::SuitesFound {
            purpose,
            base,
            found,
        } => {
            suites::found(s, purpose, base, found);
            true
        }
        Msg::StepSaved(r) => {
            suites::saved(s, r);
            true
        }
        Msg::SuiteRan { file, result } => {
            suites::ran(s, file, result);
            true
        }
        Msg::Registry(m) => crate::tui::registry::on_msg(s, m, fx),
        Msg::Serves(found) => crate::tui::attach::found(s, found),
        Msg::Attach(m) => crate::tui::attach::on_msg(s, m),
        Msg::PinsWritten(result, note) => trust::written(s, result.map(|b| *b), note),
        Msg::Manager(ev) => on_event(s, ev, fx),
        Msg::Mouse(m) => on_mouse(s, m, fx),
        Msg::Key(k) => on_key(s, k, fx),
    }
}

/// A URL as it may be shown: masked (again: a no-op on a masked URL).
pub fn url_text(url: &str) -> String {
    crate::mcp::netlog::shown_url(url)
}

pub use crate::text::split_command;
