//! The TUI's state and its transitions. `update` is a pure function of the
//! state and one message; it returns whether a redraw is needed and pushes
//! effects (commands to the manager, config writes, quit) for the driver
//! to carry out. No IO, no awaits: every transition is unit-testable.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use ratatui_textarea::TextArea;
use serde_json::Value;

use super::keymap::{Action, Keymap};
use crate::config::{HttpTransportKind, ServerConfig, TransportConfig};
use crate::mcp::manager::{CallError, Command, Event, ServerStatus};
use crate::mcp::netlog::Exchange;
use crate::mcp::session::{Lists, Negotiated};
use crate::mcp::types::{CallResult, Tool};

/// Lines of stderr and notifications kept per server in the UI.
const KEEP_LINES: usize = 300;

/// One server as the UI shows it.
#[derive(Debug, Clone)]
pub struct ServerView {
    pub name: String,
    pub enabled: bool,
    pub status: ServerStatus,
    pub negotiated: Option<Negotiated>,
    pub lists: Arc<Lists>,
    pub deny: Vec<String>,
    /// Latency of the last call, for the servers pane.
    pub last_latency: Option<Duration>,
    /// The last ping's round trip.
    pub ping: Option<Duration>,
    /// The log level asked of the server, once set.
    pub log_level: Option<String>,
    pub stderr: VecDeque<String>,
    pub notices: VecDeque<String>,
    pub findings: usize,
    /// For an HTTP server: its settings as they may be shown.
    pub http: Option<HttpView>,
    /// Its resource subscriptions (they end with its session).
    pub subs: super::browse::Subs,
}

/// An HTTP server's settings as the UI may show them. Secrets are masked
/// when the view is built, so the state never holds them.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpView {
    /// The URL, secret query values and user info masked.
    pub url: String,
    pub kind: HttpTransportKind,
    /// The configured headers, secret values masked.
    pub headers: Vec<(String, String)>,
    pub ca_file: Option<String>,
    /// TLS certificates are not verified (`insecure = true`).
    pub insecure: bool,
}

impl HttpView {
    pub fn from_config(transport: &TransportConfig) -> Option<HttpView> {
        use crate::mcp::netlog::{shown_header, shown_url};
        match transport {
            TransportConfig::Http {
                url,
                headers,
                transport,
                ca_file,
                insecure,
            } => Some(HttpView {
                url: shown_url(url),
                kind: *transport,
                headers: headers.iter().map(|(n, v)| shown_header(n, v)).collect(),
                ca_file: ca_file
                    .as_ref()
                    .map(|p| crate::sanitize::one_line(&p.display().to_string())),
                insecure: *insecure,
            }),
            TransportConfig::Stdio { .. } => None,
        }
    }

    /// The transport in words.
    pub fn kind_label(&self) -> &'static str {
        match self.kind {
            HttpTransportKind::Auto => "HTTP, auto (streamable HTTP, else legacy HTTP+SSE)",
            HttpTransportKind::StreamableHttp => "streamable HTTP",
            HttpTransportKind::Sse => "legacy HTTP+SSE",
        }
    }
}

impl ServerView {
    pub fn new(config: &ServerConfig) -> Self {
        ServerView {
            name: config.name.clone(),
            enabled: config.enabled,
            status: if config.enabled {
                ServerStatus::Pending
            } else {
                ServerStatus::Disabled
            },
            negotiated: None,
            lists: Arc::new(Lists::default()),
            deny: config.deny_tools.clone(),
            last_latency: None,
            ping: None,
            log_level: None,
            stderr: VecDeque::new(),
            notices: VecDeque::new(),
            findings: 0,
            http: HttpView::from_config(&config.transport),
            subs: super::browse::Subs::default(),
        }
    }

    pub fn denied(&self, tool: &str) -> bool {
        self.deny.iter().any(|d| d == tool)
    }
}

/// Which pane has the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Servers,
    Tools,
    Detail,
    Result,
}

impl Pane {
    const ORDER: [Pane; 4] = [Pane::Servers, Pane::Tools, Pane::Detail, Pane::Result];

    fn step(self, forward: bool) -> Pane {
        let i = Pane::ORDER.iter().position(|p| *p == self).unwrap_or(0);
        let n = Pane::ORDER.len();
        Pane::ORDER[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }
}

/// What the keyboard is talking to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Normal,
    /// Typing the tool filter.
    Filter,
    /// Editing a call's arguments.
    Editor,
    Help,
    /// Quit asked while a call is in flight.
    ConfirmQuit,
    /// The protocol log, full screen.
    Log,
    /// Typing the protocol log's method filter.
    LogFilter,
    /// The add-server form.
    AddServer,
    /// The network view: HTTP exchanges, full screen.
    Net,
    /// The selected server's resources and templates, full screen.
    Resources,
    /// The selected server's prompts, full screen.
    Prompts,
}

/// The add-server form: a name and a command line.
#[derive(Debug, Clone, Default)]
pub struct AddForm {
    pub name: String,
    pub command: String,
    /// Which field has the cursor: 0 name, 1 command.
    pub field: usize,
    pub error: Option<String>,
}

/// The protocol log view.
#[derive(Debug, Clone, Default)]
pub struct LogView {
    /// Index into the filtered frames; `None` follows the newest.
    pub sel: Option<usize>,
    /// Only the selected server's frames.
    pub only_server: bool,
    /// Only frames whose method contains this.
    pub method: String,
    /// The newest frame drawn, to redraw only when frames arrive.
    pub seen: Option<u64>,
}

/// The network view.
#[derive(Debug, Clone, Default)]
pub struct NetView {
    /// The selected exchange by sequence number (stable while the ring
    /// drops old entries); `None` follows the newest.
    pub sel: Option<u64>,
    /// Only the selected server's exchanges.
    pub only_server: bool,
    /// What the screen shows, to redraw only when it changes: the log's
    /// next sequence number and a fingerprint of the visible exchanges.
    pub seen: Option<(u64, u64)>,
    /// Whether a visible exchange was still open at the last look (then
    /// it may progress without a new one starting).
    pub open: bool,
    /// The keys scroll the details rather than move the selection.
    pub detail_focus: bool,
    pub detail_scroll: usize,
}

/// The argument editor on one tool.
pub struct Editor {
    pub server: String,
    pub tool: String,
    pub text: TextArea<'static>,
    /// Problems with the arguments as they stand: JSON syntax, or schema
    /// violations by path.
    pub problems: Vec<String>,
}

/// A call in flight.
#[derive(Debug, Clone)]
pub struct InFlight {
    pub tag: u64,
    pub server: String,
    pub tool: String,
    /// The request id (also its progressToken), once sent.
    pub request_id: Option<i64>,
    /// The last progress notification, if any.
    pub progress: Option<ProgressView>,
    /// For a call that runs as a task: its id, status and message.
    pub task: Option<String>,
}

/// A server request waiting for the person (sampling, elicitation).
#[derive(Debug, Clone, PartialEq)]
pub struct AskView {
    /// The manager's id, for `Command::AnswerServerRequest`.
    pub id: u64,
    pub server: String,
    pub method: String,
    pub params: Value,
}

/// A call's progress as the server reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressView {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
    /// Units per second since the first notification.
    pub rate: Option<f64>,
    /// When the first notification came, and its progress value.
    pub first: (std::time::Instant, f64),
}

impl ProgressView {
    /// `3/10 (30%) · step 3 · 2.0/s`
    pub fn text(&self) -> String {
        let mut t =
            crate::mcp::types::progress_text(self.progress, self.total, self.message.as_deref());
        if let Some(r) = self.rate {
            t.push_str(&format!(" · {r:.1}/s"));
        }
        t
    }

    /// The fraction done, when the total is known.
    pub fn ratio(&self) -> Option<f64> {
        self.total
            .filter(|t| *t > 0.0)
            .map(|t| (self.progress / t).clamp(0.0, 1.0))
    }
}

/// The last call's outcome.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub server: String,
    pub tool: String,
    pub result: Result<CallResult, CallError>,
    pub elapsed: Duration,
    pub output_schema: Option<Value>,
    /// The outcome prepared for display (sanitized, long lines chunked).
    pub lines: super::result::Prepared,
}

/// Everything the UI shows. Plain data.
pub struct State {
    pub servers: Vec<ServerView>,
    pub server_sel: usize,
    /// Tools of every server rather than the selected one.
    pub all_tools: bool,
    pub filter: String,
    /// Indices (server, tool) of the tools shown, after scope and filter.
    pub visible: Vec<(usize, usize)>,
    pub tool_sel: usize,
    pub focus: Pane,
    pub mode: Mode,
    pub editor: Option<Editor>,
    /// Each tool's last arguments, for this session.
    pub last_args: HashMap<(String, String), String>,
    pub inflight: Option<InFlight>,
    /// Server requests waiting for an answer, oldest first.
    pub asks: VecDeque<AskView>,
    /// The screen of the oldest request (its id, its screen): shown over
    /// everything, and every key goes to it.
    pub ask: Option<(u64, super::ask::AskScreen)>,
    pub outcome: Option<Outcome>,
    pub result_scroll: usize,
    pub detail_scroll: usize,
    pub keymap: Keymap,
    /// A one-line message for the status bar (errors of writes, hints).
    pub status: Option<String>,
    pub spinner: usize,
    pub config_path: Option<PathBuf>,
    /// The raw frames (shared with the sessions; read-only here).
    pub frames: Option<Arc<crate::mcp::framelog::FrameLog>>,
    pub log: LogView,
    pub net: NetView,
    /// The colours (`[theme]`, `NO_COLOR`).
    pub theme: super::theme::Theme,
    /// The terminal's size, for mapping mouse clicks to panes.
    pub size: (u16, u16),
    pub add: AddForm,
    /// The resources view.
    pub resources: super::browse::Browse,
    /// The prompts view.
    pub prompts: super::browse::Browse,
    /// Where closing the help goes back to (a view), if not the panes.
    pub help_back: Option<Mode>,
    next_tag: u64,
}

/// What the driver must do after an update.
#[derive(Debug)]
pub enum Effect {
    Manager(Command),
    /// Persist a server's enabled flag to the config file.
    WriteEnabled {
        server: String,
        enabled: bool,
    },
    /// Persist a server's deny list to the config file.
    WriteDeny {
        server: String,
        tools: Vec<String>,
        /// The list before, to go back to if the write fails.
        previous: Vec<String>,
    },
    /// Put text on the clipboard (OSC 52).
    Copy(String),
    /// Write files (name, bytes) into the current directory.
    Save(Vec<(String, Vec<u8>)>),
    /// Read the config file again and hand the servers to the manager.
    Reload,
    /// Edit this text in $VISUAL / $EDITOR; answer with `Msg::EditorReturned`.
    ExternalEditor(String),
    /// Add this server to the config file, then reload.
    AddServer(ServerConfig),
    /// Open this http(s) URL with the system opener (never blocking;
    /// failures come back as `Msg::Note`).
    OpenUrl(String),
    Quit,
}

/// The most OSC 52 carries reliably (terminals cap it around here).
pub const COPY_LIMIT: usize = 100_000;

/// An input to `update`.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Manager(Event),
    /// The spinner ticks while something is pending.
    Tick,
    /// The terminal's size (columns, rows).
    Resize(u16, u16),
    /// The result of a config write (Err: a message for the status bar).
    Written(Result<String, String>),
    /// The external editor returned this text (Err: why not).
    EditorReturned(Result<String, String>),
    /// The config file was read again (Err: why not).
    Reloaded(Result<Vec<ServerConfig>, String>),
    /// A message for the status bar from the driver (an opener failed).
    Note(String),
}

impl State {
    pub fn new(servers: &[ServerConfig], keymap: Keymap, config_path: Option<PathBuf>) -> State {
        let mut s = State {
            servers: servers.iter().map(ServerView::new).collect(),
            server_sel: 0,
            all_tools: false,
            filter: String::new(),
            visible: Vec::new(),
            tool_sel: 0,
            focus: Pane::Servers,
            mode: Mode::Normal,
            editor: None,
            last_args: HashMap::new(),
            inflight: None,
            asks: VecDeque::new(),
            ask: None,
            outcome: None,
            result_scroll: 0,
            detail_scroll: 0,
            keymap,
            status: None,
            spinner: 0,
            config_path,
            frames: None,
            log: LogView::default(),
            net: NetView::default(),
            theme: super::theme::Theme::from_config(
                &[],
                std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
            )
            .unwrap_or_default(),
            size: (80, 24),
            add: AddForm::default(),
            resources: super::browse::Browse::default(),
            prompts: super::browse::Browse::default(),
            help_back: None,
            next_tag: 1,
        };
        s.refilter();
        s
    }

    /// Whether anything animates (the spinner runs only then).
    pub fn busy(&self) -> bool {
        self.animating() || self.in_log() || self.mode == Mode::Net
    }

    /// Whether the spinner has something to show.
    fn animating(&self) -> bool {
        self.inflight.is_some()
            || self.resources.pending.is_some()
            || self.prompts.pending.is_some()
            || self
                .servers
                .iter()
                .any(|s| s.status == ServerStatus::Pending)
    }

    fn in_log(&self) -> bool {
        matches!(self.mode, Mode::Log | Mode::LogFilter)
    }

    /// The frames the log shows, after its filters.
    pub fn log_frames(&self) -> Vec<Arc<crate::mcp::framelog::Frame>> {
        let Some(frames) = &self.frames else {
            return Vec::new();
        };
        let server = self
            .selected_server()
            .map(|v| v.name.as_str())
            .unwrap_or("");
        let method = self.log.method.to_lowercase();
        frames
            .snapshot()
            .into_iter()
            .filter(|f| !self.log.only_server || &*f.server == server)
            .filter(|f| {
                method.is_empty()
                    || f.method
                        .as_deref()
                        .is_some_and(|m| m.to_lowercase().contains(&method))
            })
            .collect()
    }

    /// The HTTP exchanges the network view shows, oldest first.
    pub fn net_exchanges(&self) -> Vec<Exchange> {
        let Some(frames) = &self.frames else {
            return Vec::new();
        };
        let mut all = frames.net().snapshot();
        if self.net.only_server {
            let server = self
                .selected_server()
                .map(|v| v.name.as_str())
                .unwrap_or("");
            all.retain(|e| &*e.server == server);
        }
        all
    }

    /// The index of the selected exchange in `list` (the newest when
    /// following, the next one when the selected one is gone).
    pub fn net_index(&self, list: &[Exchange]) -> Option<usize> {
        if list.is_empty() {
            return None;
        }
        let last = list.len() - 1;
        Some(match self.net.sel {
            None => last,
            Some(seq) => list.iter().position(|e| e.seq >= seq).unwrap_or(last),
        })
    }

    pub fn selected_server(&self) -> Option<&ServerView> {
        self.servers.get(self.server_sel)
    }

    /// The selected tool and its server.
    pub fn selected_tool(&self) -> Option<(&ServerView, &Tool)> {
        let (si, ti) = *self.visible.get(self.tool_sel)?;
        let server = self.servers.get(si)?;
        Some((server, server.lists.tools.get(ti)?))
    }

    /// The selected tool as (server name, tool name).
    pub fn selected_names(&self) -> Option<(String, String)> {
        let (v, t) = self.selected_tool()?;
        Some((v.name.clone(), t.name.clone()))
    }

    /// Recompute the visible tools after a change of scope or filter.
    pub fn refilter(&mut self) {
        let previous = self.selected_names();
        self.refilter_to(previous);
    }

    /// Recompute the visible tools, keeping `previous` selected by name
    /// (indices shift when lists change; names do not).
    pub fn refilter_to(&mut self, previous: Option<(String, String)>) {
        let needle = self.filter.to_lowercase();
        let keep = |t: &Tool| {
            needle.is_empty()
                || t.name.to_lowercase().contains(&needle)
                || t.title
                    .as_deref()
                    .is_some_and(|x| x.to_lowercase().contains(&needle))
                || t.description
                    .as_deref()
                    .is_some_and(|d| d.to_lowercase().contains(&needle))
        };
        self.visible.clear();
        for (si, s) in self.servers.iter().enumerate() {
            if !self.all_tools && si != self.server_sel {
                continue;
            }
            for (ti, t) in s.lists.tools.iter().enumerate() {
                if keep(t) {
                    self.visible.push((si, ti));
                }
            }
        }
        let servers = &self.servers;
        self.tool_sel = previous
            .and_then(|(sn, tn)| {
                self.visible.iter().position(|&(si, ti)| {
                    servers[si].name == sn
                        && servers[si]
                            .lists
                            .tools
                            .get(ti)
                            .is_some_and(|t| t.name == tn)
                })
            })
            .unwrap_or(0)
            .min(self.visible.len().saturating_sub(1));
    }

    pub(crate) fn next_tag(&mut self) -> u64 {
        let t = self.next_tag;
        self.next_tag += 1;
        t
    }
}

/// Apply one message. Returns true when the screen must be redrawn.
pub fn update(s: &mut State, msg: Msg, fx: &mut Vec<Effect>) -> bool {
    match msg {
        Msg::Tick => {
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
        Msg::Resize(w, h) => {
            s.size = (w, h);
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
        Msg::Note(note) => {
            s.status = Some(note);
            true
        }
        Msg::EditorReturned(Err(e)) => {
            s.status = Some(e);
            true
        }
        Msg::EditorReturned(Ok(text)) => {
            let schema = s.editor.as_ref().and_then(|e| {
                s.servers
                    .iter()
                    .find(|v| v.name == e.server)
                    .and_then(|v| v.lists.tools.iter().find(|t| t.name == e.tool))
                    .and_then(|t| t.input_schema.clone())
            });
            if let Some(e) = s.editor.as_mut() {
                let text = text.trim_end().to_string();
                e.problems = problems(&text, schema.as_ref());
                e.text = TextArea::new(text.lines().map(str::to_string).collect());
                e.text.set_tab_length(2);
            }
            true
        }
        Msg::Reloaded(Err(e)) => {
            s.status = Some(format!("not reloaded: {e}"));
            true
        }
        Msg::Reloaded(Ok(servers)) => {
            // Keep what is known of servers that stay (the manager keeps
            // unchanged ones connected); new ones start pending.
            let mut old: Vec<ServerView> = std::mem::take(&mut s.servers);
            s.servers = servers
                .iter()
                .map(|c| match old.iter().position(|v| v.name == c.name) {
                    Some(i) => {
                        let mut v = old.remove(i);
                        v.enabled = c.enabled;
                        v.deny = c.deny_tools.clone();
                        v.http = HttpView::from_config(&c.transport);
                        v
                    }
                    None => ServerView::new(c),
                })
                .collect();
            s.server_sel = s.server_sel.min(s.servers.len().saturating_sub(1));
            s.refilter();
            s.status = Some(format!("config reloaded: {} servers", s.servers.len()));
            true
        }
        Msg::Manager(ev) => on_event(s, ev, fx),
        Msg::Mouse(m) => on_mouse(s, m),
        Msg::Key(k) => on_key(s, k, fx),
    }
}

fn push_bounded(q: &mut VecDeque<String>, line: String) {
    if q.len() == KEEP_LINES {
        q.pop_front();
    }
    q.push_back(line);
}

fn on_event(s: &mut State, ev: Event, fx: &mut Vec<Effect>) -> bool {
    let find = |s: &mut State, name: &str| s.servers.iter().position(|v| v.name == name);
    match ev {
        Event::Servers(_) => false,
        Event::Status {
            server,
            status,
            negotiated,
        } => {
            if let Some(i) = find(s, &server) {
                let v = &mut s.servers[i];
                v.status = status;
                if let Some(n) = negotiated {
                    v.negotiated = Some(*n);
                }
                // Only a connected server's tools can be called.
                let gone = v.status != ServerStatus::Connected;
                if gone && !v.lists.tools.is_empty() {
                    v.lists = Arc::new(Lists::default());
                    s.refilter();
                }
                // Its requests and subscriptions died with its session.
                if gone {
                    super::ask::drop_server(s, &server, fx);
                    super::browse::server_gone(s, &server);
                }
            }
            true
        }
        Event::Lists { server, lists } => {
            let previous = s.selected_names();
            if let Some(i) = find(s, &server) {
                let old = std::mem::replace(&mut s.servers[i].lists, lists);
                // A changed list (list_changed, refresh) is shown as a diff.
                if s.servers[i].status == ServerStatus::Connected && !old.tools.is_empty() {
                    let diff = tool_diff(&old.tools, &s.servers[i].lists.tools);
                    if !diff.is_empty() {
                        let line = format!("tools changed: {diff}");
                        s.status = Some(format!("{}: {line}", server));
                        push_bounded(&mut s.servers[i].notices, line);
                    }
                }
                s.refilter_to(previous);
            }
            true
        }
        Event::DenyList { server, tools } => {
            if let Some(i) = find(s, &server) {
                s.servers[i].deny = tools;
            }
            true
        }
        Event::CallStarted {
            tag, request_id, ..
        } => {
            if let Some(c) = s.inflight.as_mut().filter(|c| c.tag == tag) {
                c.request_id = Some(request_id);
            }
            false
        }
        Event::ServerRequest {
            id,
            server,
            method,
            params,
        } => {
            // The first is shown at once (its screen says who asks, and
            // older messages would hide the keys); a later one waits.
            s.status = (!s.asks.is_empty())
                .then(|| format!("{server} asks too ({method}): {} waiting", s.asks.len() + 1));
            s.asks.push_back(AskView {
                id,
                server,
                method,
                params,
            });
            super::ask::sync(s);
            true
        }
        Event::TaskStatus {
            tag,
            status,
            server: _,
        } => {
            let Some(c) = s.inflight.as_mut().filter(|c| c.tag == tag) else {
                return false;
            };
            let mut text = format!("task {}: {}", status.task_id, status.status);
            if let Some(m) = &status.message {
                text.push_str(&format!(" · {m}"));
            }
            c.task = Some(crate::sanitize::one_line(&text));
            true
        }
        Event::Subscription {
            server,
            uri,
            subscribed,
            result,
        } => {
            super::browse::on_subscription(s, &server, &uri, subscribed, result.is_ok());
            let what = if subscribed {
                "subscribed to"
            } else {
                "unsubscribed from"
            };
            s.status = Some(match result {
                Ok(()) => format!("{server}: {what} {}", crate::sanitize::one_line(&uri)),
                Err(e) => format!(
                    "{server}: not {what} {}: {e}",
                    crate::sanitize::one_line(&uri)
                ),
            });
            true
        }
        // Answers to requests of the resources and prompts views.
        Event::Response { tag, result, .. } => super::browse::on_response(s, tag, result),
        Event::Ping {
            server,
            result,
            requested,
        } => {
            match result {
                Ok(d) => {
                    if let Some(i) = find(s, &server) {
                        s.servers[i].ping = Some(d);
                    }
                    if requested {
                        s.status = Some(format!("{server}: ping {}", crate::text::fmt_duration(d)));
                    }
                }
                // The automatic ping of a server that does not answer pings
                // is no news; the one asked for is.
                Err(e) if requested => s.status = Some(format!("{server}: ping failed: {e}")),
                Err(_) => {}
            }
            true
        }
        Event::LogLevel {
            server,
            level,
            result,
        } => {
            match result {
                Ok(()) => {
                    if let Some(i) = find(s, &server) {
                        s.servers[i].log_level = Some(level.clone());
                    }
                    s.status = Some(format!("{server}: log level {level}"));
                }
                Err(e) => s.status = Some(format!("{server}: log level not set: {e}")),
            }
            true
        }
        Event::CallFinished {
            tag,
            server,
            tool,
            result,
            elapsed,
        } => {
            if s.inflight.as_ref().map(|c| c.tag) != Some(tag) {
                return false;
            }
            s.inflight = None;
            let output_schema = s
                .servers
                .iter()
                .find(|v| v.name == server)
                .and_then(|v| v.lists.tools.iter().find(|t| t.name == tool))
                .and_then(|t| t.output_schema.clone());
            if let Some(i) = find(s, &server) {
                s.servers[i].last_latency = Some(elapsed);
            }
            let lines = super::result::lines(&result, output_schema.as_ref());
            s.outcome = Some(Outcome {
                server,
                tool,
                result,
                elapsed,
                output_schema,
                lines,
            });
            s.result_scroll = 0;
            if s.mode == Mode::ConfirmQuit {
                s.mode = Mode::Normal;
            }
            s.focus = Pane::Result;
            true
        }
        Event::Finding { server, finding } => {
            if let Some(i) = find(s, &server) {
                s.servers[i].findings += 1;
                let line = format!("{}: {}", finding.severity.label(), finding.message);
                push_bounded(&mut s.servers[i].notices, line);
            }
            true
        }
        Event::Stderr { server, line } => {
            if let Some(i) = find(s, &server) {
                push_bounded(&mut s.servers[i].stderr, line);
            }
            // Only the failed server's pane shows stderr; redraw is cheap.
            true
        }
        Event::Notification {
            server,
            method,
            params,
        } => {
            if method == "notifications/progress" {
                let p = params.clone().unwrap_or_default();
                let token = p.get("progressToken").and_then(|t| {
                    t.as_i64()
                        .or_else(|| t.as_str().and_then(|s| s.parse().ok()))
                });
                if let Some(c) = s.inflight.as_mut()
                    && c.server == server
                    && token.is_some()
                    && c.request_id == token
                {
                    let progress = p.get("progress").and_then(Value::as_f64).unwrap_or(0.0);
                    let now = std::time::Instant::now();
                    let first = c.progress.as_ref().map_or((now, progress), |v| v.first);
                    let secs = now.duration_since(first.0).as_secs_f64();
                    c.progress = Some(ProgressView {
                        progress,
                        total: p.get("total").and_then(Value::as_f64),
                        message: p
                            .get("message")
                            .and_then(Value::as_str)
                            .map(crate::sanitize::one_line),
                        rate: (secs > 0.05).then(|| (progress - first.1) / secs),
                        first,
                    });
                    return true;
                }
            }
            if method == "notifications/resources/updated" {
                super::browse::on_updated(s, &server, params.as_ref(), fx);
            }
            if let Some(i) = find(s, &server) {
                let line = match (method.as_str(), &params) {
                    ("notifications/message", Some(p)) => crate::mcp::types::log_line(p),
                    _ => method,
                };
                push_bounded(&mut s.servers[i].notices, line);
            }
            true
        }
    }
}

/// What changed between two tool lists: `+added -removed ~changed`.
pub fn tool_diff(old: &[Tool], new: &[Tool]) -> String {
    let mut parts = Vec::new();
    for t in new {
        match old.iter().find(|o| o.name == t.name) {
            None => parts.push(format!("+{}", t.name)),
            Some(o) if o.raw != t.raw => parts.push(format!("~{}", t.name)),
            Some(_) => {}
        }
    }
    for o in old {
        if !new.iter().any(|t| t.name == o.name) {
            parts.push(format!("-{}", o.name));
        }
    }
    crate::sanitize::one_line(&parts.join(" "))
}

fn on_mouse(s: &mut State, m: MouseEvent) -> bool {
    use ratatui::layout::{Position, Rect};
    if s.mode != Mode::Normal || s.ask.is_some() {
        return false;
    }
    let screen = Rect::new(0, 0, s.size.0, s.size.1);
    let a = super::ui::layout(screen, s.servers.len());
    let at = Position::new(m.column, m.row);
    let pane = [
        (a.servers, Pane::Servers),
        (a.tools, Pane::Tools),
        (a.detail, Pane::Detail),
        (a.result, Pane::Result),
    ]
    .into_iter()
    .find(|(r, _)| r.contains(at));
    match m.kind {
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            if let Some((_, p)) = pane {
                s.focus = p;
            }
            move_by(
                s,
                if m.kind == MouseEventKind::ScrollDown {
                    3
                } else {
                    -3
                },
            )
        }
        MouseEventKind::Down(crossterm::event::MouseButton::Left) => {
            let Some((rect, p)) = pane else { return false };
            s.focus = p;
            // The row under the pointer, inside the border.
            let row = m.row.saturating_sub(rect.y + 1) as usize;
            let height = rect.height.saturating_sub(2) as usize;
            if m.row > rect.y && row < height {
                match p {
                    Pane::Servers if !s.servers.is_empty() => {
                        let target = super::ui::list_offset(s.server_sel, height) + row;
                        if target < s.servers.len() && target != s.server_sel {
                            let by = target as isize - s.server_sel as isize;
                            move_by(s, by);
                        }
                    }
                    Pane::Tools if !s.visible.is_empty() => {
                        let target = super::ui::list_offset(s.tool_sel, height) + row;
                        if target < s.visible.len() {
                            s.tool_sel = target;
                            s.detail_scroll = 0;
                        }
                    }
                    _ => {}
                }
            }
            true
        }
        _ => false,
    }
}

fn on_key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let action = s.keymap.action(&k);
    if action == Some(Action::ForceQuit) {
        fx.push(Effect::Quit);
        return true;
    }
    // A server's request is answered before anything else.
    if s.ask.is_some() {
        return super::ask::key(s, k, fx);
    }
    match s.mode {
        Mode::Help => {
            // Any key closes the help.
            s.mode = s.help_back.take().unwrap_or(Mode::Normal);
            true
        }
        Mode::ConfirmQuit => {
            if matches!(k.code, KeyCode::Char('y') | KeyCode::Char('Y'))
                || action == Some(Action::Quit)
            {
                fx.push(Effect::Quit);
            } else {
                s.mode = Mode::Normal;
            }
            true
        }
        Mode::Filter => filter_key(s, k, action),
        Mode::Log => log_key(s, action, fx),
        Mode::Net => net_key(s, action, fx),
        Mode::Resources => super::browse::key(s, super::browse::Kind::Resources, k, action, fx),
        Mode::Prompts => super::browse::key(s, super::browse::Kind::Prompts, k, action, fx),
        Mode::AddServer => add_key(s, k, fx),
        Mode::LogFilter => {
            match k.code {
                KeyCode::Esc => {
                    s.log.method.clear();
                    s.mode = Mode::Log;
                }
                KeyCode::Enter => s.mode = Mode::Log,
                KeyCode::Backspace => {
                    s.log.method.pop();
                }
                KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
                    s.log.method.push(c)
                }
                _ => return false,
            }
            s.log.sel = None;
            true
        }
        Mode::Editor => editor_key(s, k, action, fx),
        Mode::Normal => match action {
            Some(a) => normal_action(s, a, fx),
            None => false,
        },
    }
}

fn filter_key(s: &mut State, k: KeyEvent, action: Option<Action>) -> bool {
    match k.code {
        KeyCode::Esc => {
            s.filter.clear();
            s.mode = Mode::Normal;
        }
        KeyCode::Enter => s.mode = Mode::Normal,
        KeyCode::Backspace => {
            s.filter.pop();
        }
        KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => s.filter.push(c),
        KeyCode::Up | KeyCode::Down | KeyCode::PageUp | KeyCode::PageDown => {
            if let Some(a) = action {
                return move_action(s, a);
            }
        }
        _ => return false,
    }
    s.refilter();
    true
}

fn editor_key(s: &mut State, k: KeyEvent, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    match action {
        Some(Action::Send) => {
            send_call(s, fx);
            return true;
        }
        Some(Action::ExternalEditor) => {
            if let Some(e) = &s.editor {
                fx.push(Effect::ExternalEditor(e.text.lines().join("\n")));
            }
            return true;
        }
        Some(Action::Back) => {
            // Keep what was typed for next time.
            if let Some(e) = s.editor.take() {
                s.last_args
                    .insert((e.server, e.tool), e.text.lines().join("\n"));
            }
            s.mode = Mode::Normal;
            return true;
        }
        _ => {}
    }
    let Some(editor) = s.editor.as_mut() else {
        s.mode = Mode::Normal;
        return true;
    };
    if editor.text.input(k) {
        let schema = s
            .servers
            .iter()
            .find(|v| v.name == editor.server)
            .and_then(|v| v.lists.tools.iter().find(|t| t.name == editor.tool))
            .and_then(|t| t.input_schema.clone());
        editor.problems = problems(&editor.text.lines().join("\n"), schema.as_ref());
    }
    true
}

pub(crate) fn copy(s: &mut State, text: String, fx: &mut Vec<Effect>) {
    if text.len() > COPY_LIMIT {
        s.status = Some(format!(
            "too large to copy ({} bytes; terminals take about {COPY_LIMIT} through OSC 52)",
            text.len()
        ));
        return;
    }
    s.status = Some(format!("copied {} bytes (OSC 52)", text.len()));
    fx.push(Effect::Copy(text));
}

/// Save the result's images, audio and blobs to files.
fn save_media(s: &mut State, fx: &mut Vec<Effect>) {
    use crate::mcp::types::Content;
    use base64::Engine;
    let Some(Outcome {
        tool,
        result: Ok(r),
        ..
    }) = &s.outcome
    else {
        s.status = Some("no result with media to save".into());
        return;
    };
    let ext = |mime: &str| match mime {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        "application/json" => "json",
        "application/pdf" => "pdf",
        _ => "bin",
    };
    let safe: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut files = Vec::new();
    let mut bad = 0;
    for (i, block) in r.content.iter().enumerate() {
        let (mime, data) = match block {
            Content::Image { mime, data } | Content::Audio { mime, data } => (mime.as_str(), data),
            Content::Resource {
                mime,
                blob: Some(b),
                ..
            } => (mime.as_deref().unwrap_or(""), b),
            _ => continue,
        };
        match base64::engine::general_purpose::STANDARD.decode(data.trim()) {
            Ok(bytes) => files.push((format!("mcpdeck-{safe}-{}.{}", i + 1, ext(mime)), bytes)),
            Err(_) => bad += 1,
        }
    }
    if files.is_empty() {
        s.status = Some(if bad > 0 {
            "the media is not valid base64; nothing saved".into()
        } else {
            "this result has no image, audio or blob".into()
        });
        return;
    }
    fx.push(Effect::Save(files));
}

/// Split a command line into words: spaces separate, quotes group, and a
/// backslash escapes the next character.
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (q, '\\') if q != Some('\'') => match chars.next() {
                Some(n) => {
                    word.push(n);
                    in_word = true;
                }
                None => return Err("the command ends with a lone backslash".into()),
            },
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (_, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err("a quote is not closed".into());
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

fn add_key(s: &mut State, k: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    let form = &mut s.add;
    let field = if form.field == 0 {
        &mut form.name
    } else {
        &mut form.command
    };
    match k.code {
        KeyCode::Esc => {
            s.mode = Mode::Normal;
            return true;
        }
        KeyCode::Tab | KeyCode::BackTab | KeyCode::Up | KeyCode::Down => {
            form.field = 1 - form.field
        }
        KeyCode::Backspace => {
            field.pop();
        }
        KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => field.push(c),
        KeyCode::Enter if form.field == 0 => form.field = 1,
        KeyCode::Enter => {
            let name = form.name.trim().to_string();
            let words = match split_command(&form.command) {
                Ok(w) if !w.is_empty() => w,
                Ok(_) => {
                    form.error = Some("type the command that starts the server".into());
                    return true;
                }
                Err(e) => {
                    form.error = Some(e);
                    return true;
                }
            };
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
                || name.contains("__")
            {
                form.error =
                    Some("the name may use letters, digits, `_`, `.` and `-` (not `__`)".into());
                form.field = 0;
                return true;
            }
            if s.servers.iter().any(|v| v.name == name) {
                form.error = Some(format!("there is already a server named {name:?}"));
                form.field = 0;
                return true;
            }
            let is_url = |w: &str| {
                let w = w.to_ascii_lowercase();
                w.starts_with("http://") || w.starts_with("https://")
            };
            let server = if words.len() == 1 && is_url(&words[0]) {
                // A URL: an HTTP server (the transport is detected).
                ServerConfig::http(name, words[0].clone())
            } else {
                let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
                ServerConfig::stdio(name, words[0].clone(), &args)
            };
            fx.push(Effect::AddServer(server));
            s.mode = Mode::Normal;
        }
        _ => return false,
    }
    s.add.error = None;
    true
}

fn log_key(s: &mut State, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some(a) = action else { return false };
    let n = s.log_frames().len();
    let current = s.log.sel.unwrap_or(n.saturating_sub(1));
    let by = |d: isize| Some(step(current, d, n));
    s.log.sel = match a {
        Action::Back | Action::ProtocolLog | Action::Quit => {
            s.mode = Mode::Normal;
            return true;
        }
        Action::Network => {
            open_net(s);
            return true;
        }
        Action::Help => {
            s.mode = Mode::Help;
            return true;
        }
        Action::Filter => {
            s.mode = Mode::LogFilter;
            return true;
        }
        Action::Copy => {
            let frames = s.log_frames();
            let sel = s.log.sel.unwrap_or(frames.len().saturating_sub(1));
            if let Some(f) = frames.get(sel) {
                let text = f.text.to_string();
                copy(s, text, fx);
            }
            return true;
        }
        Action::AllTools => {
            s.log.only_server = !s.log.only_server;
            None
        }
        Action::Up => by(-1),
        Action::Down => by(1),
        Action::PageUp => by(-10),
        Action::PageDown => by(10),
        Action::Home => Some(0),
        // End follows the newest frames again.
        Action::End => None,
        _ => return false,
    };
    if s.log.sel == Some(n.saturating_sub(1)) && matches!(a, Action::Down | Action::PageDown) {
        s.log.sel = None;
    }
    true
}

/// Open the network view, following the newest exchange.
fn open_net(s: &mut State) {
    s.mode = Mode::Net;
    s.net.sel = None;
    s.net.seen = None;
    s.net.detail_focus = false;
    s.net.detail_scroll = 0;
    net_poll(s);
}

/// Look at the net log: true when what the view shows has changed since
/// the last look. Cheap when nothing is open and nothing began.
fn net_poll(s: &mut State) -> bool {
    let Some((next, version)) = s
        .frames
        .as_ref()
        .map(|f| (f.net().next_seq(), f.net().version()))
    else {
        return false;
    };
    if s.net.seen.is_some_and(|(_, v)| v == version) {
        return false;
    }
    if s.net.sel.is_none() && s.net.seen.is_some_and(|(n, _)| n != next) {
        // Following: a new exchange is shown from its top.
        s.net.detail_scroll = 0;
    }
    s.net.open = s.net_exchanges().iter().any(|e| !e.done());
    s.net.seen = Some((next, version));
    true
}

fn net_key(s: &mut State, action: Option<Action>, fx: &mut Vec<Effect>) -> bool {
    let Some(a) = action else { return false };
    let list = s.net_exchanges();
    let n = list.len();
    let current = s.net_index(&list).unwrap_or(0);
    if s.net.detail_focus {
        // The details are a few dozen lines at most: a rough bound will do.
        let rows = list.get(current).map_or(0, |e| {
            8 + e.request_headers.len() + e.response_headers.len()
        });
        let scroll = &mut s.net.detail_scroll;
        match a {
            Action::Up => *scroll = step(*scroll, -1, rows),
            Action::Down => *scroll = step(*scroll, 1, rows),
            Action::PageUp => *scroll = step(*scroll, -10, rows),
            Action::PageDown => *scroll = step(*scroll, 10, rows),
            Action::Home => *scroll = 0,
            Action::End => *scroll = rows.saturating_sub(1),
            _ => {}
        }
        if matches!(
            a,
            Action::Up
                | Action::Down
                | Action::PageUp
                | Action::PageDown
                | Action::Home
                | Action::End
        ) {
            return true;
        }
    }
    let to = |i: usize| list.get(i).map(|e| e.seq);
    let by = |d: isize| to(step(current, d, n));
    s.net.sel = match a {
        Action::Back | Action::Network | Action::Quit => {
            s.mode = Mode::Normal;
            return true;
        }
        Action::ProtocolLog => {
            s.mode = Mode::Log;
            s.log.seen = s.frames.as_ref().and_then(|f| f.last_seq());
            return true;
        }
        Action::Help => {
            s.mode = Mode::Help;
            return true;
        }
        Action::Copy => {
            match list.get(current) {
                Some(e) => copy(s, exchange_text(e), fx),
                None => s.status = Some("no exchange to copy".into()),
            }
            return true;
        }
        Action::AllTools => {
            s.net.only_server = !s.net.only_server;
            s.net.sel = None;
            s.net.detail_scroll = 0;
            net_poll(s);
            return true;
        }
        Action::NextPane | Action::PrevPane | Action::Left | Action::Right => {
            s.net.detail_focus = match a {
                Action::Left => false,
                Action::Right => true,
                _ => !s.net.detail_focus,
            };
            return true;
        }
        Action::Up => by(-1),
        Action::Down => by(1),
        Action::PageUp => by(-10),
        Action::PageDown => by(10),
        Action::Home => to(0),
        // End follows the newest exchanges again.
        Action::End => None,
        _ => return false,
    };
    // Moving down past the newest follows again.
    if n > 0 && s.net.sel == to(n - 1) && matches!(a, Action::Down | Action::PageDown) {
        s.net.sel = None;
    }
    s.net.detail_scroll = 0;
    true
}

/// A URL as it may be shown: masked (again: a no-op on a masked URL).
pub fn url_text(url: &str) -> String {
    crate::mcp::netlog::shown_url(url)
}

/// An exchange as text, for the clipboard: secrets stay masked.
pub fn exchange_text(e: &Exchange) -> String {
    use crate::mcp::netlog::shown_header;
    use std::fmt::Write;
    let mut t = String::new();
    let _ = writeln!(t, "{} {}", e.http_method, url_text(&e.url));
    let _ = writeln!(t, "# {} · {}", e.server, e.summary());
    if let Some(n) = &e.note {
        let _ = writeln!(t, "# note: {n}");
    }
    if let Some(err) = &e.error {
        let _ = writeln!(t, "# error: {err}");
    }
    for (name, value) in &e.request_headers {
        let (name, value) = shown_header(name, value);
        let _ = writeln!(t, "{name}: {value}");
    }
    t.push('\n');
    if let Some(status) = e.status {
        let _ = writeln!(t, "HTTP {status}");
    }
    for (name, value) in &e.response_headers {
        let (name, value) = shown_header(name, value);
        let _ = writeln!(t, "{name}: {value}");
    }
    crate::sanitize::strip(&t).into_owned()
}

/// What is wrong with the arguments text: JSON syntax, then the schema.
pub fn problems(text: &str, schema: Option<&Value>) -> Vec<String> {
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return vec![format!("not valid JSON: {e}")],
    };
    if !value.is_object() {
        return vec!["the arguments must be a JSON object".into()];
    }
    match schema {
        None => Vec::new(),
        Some(schema) => match crate::schema::check(schema, &value) {
            Ok(v) => v.into_iter().map(|v| v.to_string()).collect(),
            Err(e) => vec![format!("(not validated: {e})")],
        },
    }
}

fn send_call(s: &mut State, fx: &mut Vec<Effect>) {
    let Some(editor) = s.editor.as_ref() else {
        return;
    };
    if s.inflight.is_some() {
        s.status = Some("a call is already in flight; Esc cancels it".into());
        return;
    }
    let text = editor.text.lines().join("\n");
    let arguments: Value = match serde_json::from_str(&text) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            s.status = Some("fix the JSON before sending".into());
            return;
        }
    };
    let (server, tool) = (editor.server.clone(), editor.tool.clone());
    s.last_args.insert((server.clone(), tool.clone()), text);
    let tag = s.next_tag();
    s.inflight = Some(InFlight {
        tag,
        server: server.clone(),
        tool: tool.clone(),
        request_id: None,
        progress: None,
        task: None,
    });
    s.editor = None;
    s.mode = Mode::Normal;
    s.focus = Pane::Result;
    fx.push(Effect::Manager(Command::Call {
        tag,
        server,
        tool,
        arguments,
    }));
}

fn normal_action(s: &mut State, a: Action, fx: &mut Vec<Effect>) -> bool {
    match a {
        Action::Up
        | Action::Down
        | Action::PageUp
        | Action::PageDown
        | Action::Home
        | Action::End => move_action(s, a),
        Action::Left => {
            s.focus = Pane::Servers;
            true
        }
        Action::Right => {
            s.focus = match s.focus {
                Pane::Servers => Pane::Tools,
                Pane::Tools => Pane::Detail,
                other => other,
            };
            true
        }
        Action::NextPane | Action::PrevPane => {
            s.focus = s.focus.step(a == Action::NextPane);
            true
        }
        Action::Help => {
            s.mode = Mode::Help;
            true
        }
        Action::Quit => {
            if s.inflight.is_some() {
                s.mode = Mode::ConfirmQuit;
            } else {
                fx.push(Effect::Quit);
            }
            true
        }
        Action::Filter => {
            s.mode = Mode::Filter;
            s.focus = Pane::Tools;
            true
        }
        Action::AllTools => {
            s.all_tools = !s.all_tools;
            s.tool_sel = 0;
            s.refilter();
            true
        }
        Action::Back => {
            if let Some(c) = &s.inflight {
                fx.push(Effect::Manager(Command::Cancel { tag: c.tag }));
                s.status = Some(format!("cancelling {} on {}…", c.tool, c.server));
            } else if !s.filter.is_empty() {
                s.filter.clear();
                s.refilter();
            } else {
                s.focus = Pane::Servers;
            }
            true
        }
        Action::Open => open_editor(s),
        Action::ToggleServer => {
            let Some(v) = s.servers.get_mut(s.server_sel) else {
                return false;
            };
            v.enabled = !v.enabled;
            let (server, enabled) = (v.name.clone(), v.enabled);
            fx.push(Effect::WriteEnabled { server, enabled });
            true
        }
        Action::ToggleDeny => {
            let Some((si, ti)) = s.visible.get(s.tool_sel).copied() else {
                return false;
            };
            let v = &mut s.servers[si];
            let Some(tool) = v.lists.tools.get(ti).map(|t| t.name.clone()) else {
                return false;
            };
            let previous = v.deny.clone();
            if v.denied(&tool) {
                v.deny.retain(|d| *d != tool);
            } else {
                v.deny.push(tool);
            }
            let (server, tools) = (v.name.clone(), v.deny.clone());
            fx.push(Effect::WriteDeny {
                server,
                tools,
                previous,
            });
            true
        }
        Action::Reconnect => {
            let Some(v) = s.servers.get(s.server_sel) else {
                return false;
            };
            fx.push(Effect::Manager(Command::Reconnect(v.name.clone())));
            true
        }
        Action::Ping => {
            let Some(v) = s.servers.get(s.server_sel) else {
                return false;
            };
            fx.push(Effect::Manager(Command::Ping(v.name.clone())));
            s.status = Some(format!("{}: ping…", v.name));
            true
        }
        Action::LogLevel => {
            let Some(v) = s.servers.get(s.server_sel) else {
                return false;
            };
            use crate::mcp::session::LOG_LEVELS;
            let next = match v.log_level.as_deref() {
                Some(l) => LOG_LEVELS
                    .iter()
                    .position(|x| *x == l)
                    .map_or(0, |i| (i + 1) % LOG_LEVELS.len()),
                None => 0,
            };
            fx.push(Effect::Manager(Command::SetLogLevel(
                v.name.clone(),
                LOG_LEVELS[next].to_string(),
            )));
            true
        }
        Action::Copy => {
            let text = match &s.outcome {
                Some(o) => match &o.result {
                    Ok(r) => serde_json::to_string_pretty(&r.raw).unwrap_or_default(),
                    Err(e) => e.to_string(),
                },
                None => {
                    s.status = Some("nothing to copy yet".into());
                    return true;
                }
            };
            copy(s, text, fx);
            true
        }
        Action::Save => {
            save_media(s, fx);
            true
        }
        Action::ProtocolLog => {
            s.mode = Mode::Log;
            s.log.seen = s.frames.as_ref().and_then(|f| f.last_seq());
            true
        }
        Action::Network => {
            open_net(s);
            true
        }
        Action::Resources => {
            super::browse::open(s, super::browse::Kind::Resources);
            true
        }
        Action::Prompts => {
            super::browse::open(s, super::browse::Kind::Prompts);
            true
        }
        Action::Subscribe => {
            let key = s.keymap.key_label(Action::Resources).unwrap_or_default();
            s.status = Some(format!(
                "subscriptions are made in the resources view ({key})"
            ));
            true
        }
        Action::Reload => {
            if s.config_path.is_none() {
                s.status = Some("nothing to reload: this session has no config file (demo)".into());
            } else {
                fx.push(Effect::Reload);
            }
            true
        }
        Action::AddServer => {
            s.add = AddForm::default();
            s.mode = Mode::AddServer;
            true
        }
        // Send and the external editor belong to the editor.
        _ => {
            s.status = Some(format!("`{}` is not available yet", a.name()));
            true
        }
    }
}

fn open_editor(s: &mut State) -> bool {
    let Some((server, tool)) = s.selected_tool() else {
        return false;
    };
    if server.denied(&tool.name) {
        s.status = Some(format!(
            "{} is denied on {}; d allows it",
            tool.name, server.name
        ));
        return true;
    }
    let key = (server.name.clone(), tool.name.clone());
    let text = s.last_args.get(&key).cloned().unwrap_or_else(|| {
        let skeleton = tool
            .input_schema
            .as_ref()
            .map(crate::schema::skeleton)
            .unwrap_or_else(|| serde_json::json!({}));
        serde_json::to_string_pretty(&skeleton).unwrap_or_else(|_| "{}".into())
    });
    let problems = problems(&text, tool.input_schema.as_ref());
    let mut area = TextArea::new(text.lines().map(str::to_string).collect());
    area.set_tab_length(2);
    s.editor = Some(Editor {
        server: key.0,
        tool: key.1,
        text: area,
        problems,
    });
    s.mode = Mode::Editor;
    s.focus = Pane::Detail;
    true
}

fn move_action(s: &mut State, a: Action) -> bool {
    let page = 10;
    match a {
        Action::Up => move_by(s, -1),
        Action::Down => move_by(s, 1),
        Action::PageUp => move_by(s, -page),
        Action::PageDown => move_by(s, page),
        Action::Home => move_by(s, isize::MIN / 2),
        Action::End => move_by(s, isize::MAX / 2),
        _ => false,
    }
}

fn step(value: usize, by: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let v = value as isize + by;
    v.clamp(0, len as isize - 1) as usize
}

fn move_by(s: &mut State, by: isize) -> bool {
    match s.focus {
        Pane::Servers => {
            let new = step(s.server_sel, by, s.servers.len());
            if new == s.server_sel {
                return false;
            }
            s.server_sel = new;
            s.detail_scroll = 0;
            if !s.all_tools {
                s.tool_sel = 0;
                s.refilter();
            }
        }
        Pane::Tools => {
            let new = step(s.tool_sel, by, s.visible.len());
            if new == s.tool_sel {
                return false;
            }
            s.tool_sel = new;
            s.detail_scroll = 0;
        }
        Pane::Detail => s.detail_scroll = step(s.detail_scroll, by, usize::MAX / 4),
        Pane::Result => {
            // The last page, not the last line alone, is as far as it goes.
            let screen = ratatui::layout::Rect::new(0, 0, s.size.0, s.size.1);
            let height = super::ui::layout(screen, s.servers.len())
                .result
                .height
                .saturating_sub(2) as usize;
            let n = s.outcome.as_ref().map(|o| o.lines.len()).unwrap_or(0);
            let last = n.saturating_sub(height.max(1)) + 1;
            s.result_scroll = step(s.result_scroll, by, last);
        }
    }
    true
}
