//! What the TUI keeps about each server, pane and view: plain data.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use ratatui_textarea::TextArea;
use serde_json::Value;

use crate::config::{HttpTransportKind, ServerConfig, TransportConfig};
use crate::mcp::manager::{CallError, ServerStatus};
use crate::mcp::session::{Lists, Negotiated};
use crate::mcp::types::CallResult;

/// Lines of stderr and notifications kept per server in the UI.
pub(super) const KEEP_LINES: usize = 300;

/// One server as the UI shows it.
#[derive(Debug, Clone)]
pub struct ServerView {
    pub name: String,
    pub enabled: bool,
    pub status: ServerStatus,
    pub negotiated: Option<Negotiated>,
    pub lists: Arc<Lists>,
    pub deny: Vec<String>,
    /// The server's `allow_tools` (empty: every tool not denied).
    pub allow: Vec<String>,
    /// Latency of the last call, for the servers pane.
    pub last_latency: Option<Duration>,
    /// The last ping's round trip.
    pub ping: Option<Duration>,
    /// The log level asked of the server, once set.
    pub log_level: Option<String>,
    pub stderr: VecDeque<String>,
    pub notices: VecDeque<String>,
    /// Findings of the current session (a previous session's are counted
    /// in `previous_findings`).
    pub findings: usize,
    pub previous_findings: usize,
    /// The session the findings counted in `findings` came from.
    pub findings_session: Option<u64>,
    /// What a storm made the manager drop (notifications, stderr lines,
    /// findings), in total.
    pub dropped: crate::mcp::manager::DropCounts,
    /// For an HTTP server: its settings as they may be shown.
    pub http: Option<HttpView>,
    /// Its resource subscriptions (they end with its session).
    pub subs: crate::tui::browse::Subs,
    /// Its OAuth login as it may be shown (never the token), once known.
    pub auth: Option<crate::mcp::auth::TokenInfo>,
    /// Lint findings and changes since pinned.
    pub trust: super::trust::Trust,
    /// When the server last asked for its roots, and how many it was given.
    pub roots_asked: Option<(std::time::SystemTime, usize)>,
    /// While pending: since when (the driver's clock), and the last step
    /// the frames show (`initialize sent`).
    pub pending_since: Option<std::time::Instant>,
    pub connect_step: Option<String>,
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
    pub fn from_config(config: &TransportConfig) -> Option<HttpView> {
        use crate::mcp::netlog::{shown_header, shown_url};
        match config {
            TransportConfig::Http {
                url,
                headers,
                transport,
                ca_file,
                insecure,
                ..
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
            allow: config.allow_tools.clone(),
            last_latency: None,
            ping: None,
            log_level: None,
            stderr: VecDeque::new(),
            notices: VecDeque::new(),
            findings: 0,
            previous_findings: 0,
            findings_session: None,
            dropped: crate::mcp::manager::DropCounts::default(),
            http: HttpView::from_config(&config.transport),
            subs: crate::tui::browse::Subs::default(),
            auth: None,
            trust: super::trust::Trust::new(config),
            roots_asked: None,
            pending_since: None,
            connect_step: None,
        }
    }

    /// Whether the server's policy refuses `tool` (a `deny_tools` name or
    /// pattern, or not in a non-empty `allow_tools`).
    pub fn denied(&self, tool: &str) -> bool {
        crate::config::tool_refusal(&self.deny, &self.allow, tool).is_some()
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
    pub(super) const ORDER: [Pane; 4] = [Pane::Servers, Pane::Tools, Pane::Detail, Pane::Result];

    pub(super) fn step(self, forward: bool) -> Pane {
        let i = Pane::ORDER.iter().position(|p| *p == self).unwrap_or(0);
        let n = Pane::ORDER.len();
        Pane::ORDER[if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        }]
    }
}

/// Enter pressed on a server that is still connecting: the keys typed
/// since, for the editor that opens once its tools come.
#[derive(Debug, Clone)]
pub struct PendingOpen {
    pub server: String,
    pub keys: Vec<crossterm::event::KeyEvent>,
}

/// What the focused pane has selected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focused {
    Server,
    Tool,
    Nothing,
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
    /// The selected server's skills (the MCP Skills extension), full
    /// screen.
    Skills,
    /// A login to a server (OAuth): the discovery, the URL, the wait.
    Login,
    /// The import screen: servers found in other clients' files.
    Import,
    /// The running `mcpdeck serve` processes.
    Serves,
    /// Attached to a running serve: its servers, tools and calls.
    Attached,
    /// The result's links, to pick the one to follow (`f`).
    Links,
    /// The history of calls (`H`).
    History,
    /// Editing a server's roots (`D`).
    Roots,
    /// Picking a test suite file (`T` to add a step, `X` to run one).
    SuitePick,
    /// A test suite's run and its steps (`X`).
    Tests,
    /// The MCP Registry browser (`F`): search, an entry's detail, the
    /// form to try or add it.
    Registry,
}

/// Where a login stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginPhase {
    /// Finding the authorization server and the client identity.
    Discovering,
    /// The URL is open (or to be opened); waiting for the browser.
    Waiting,
    /// The browser came back: exchanging the code for a token.
    Exchanging,
    /// Logged in (the server reconnects).
    Done,
    /// It failed, or was cancelled: why, in one line.
    Failed(String),
}

/// The login screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginView {
    pub server: String,
    /// Extra scopes asked for (a step-up), empty for the defaults.
    pub scopes: Vec<String>,
    /// The discovery trace: each URL tried, its status, the conclusion.
    pub trace: Vec<String>,
    /// The authorization URL (it holds no secret).
    pub url: Option<String>,
    /// How the browser was opened, or that it must be opened by hand.
    pub browser: Option<String>,
    pub phase: LoginPhase,
    /// The first trace line shown (the trace scrolls).
    pub scroll: usize,
}

impl LoginView {
    pub fn new(server: &str, scopes: Vec<String>) -> LoginView {
        LoginView {
            server: server.to_string(),
            scopes,
            trace: Vec::new(),
            url: None,
            browser: None,
            phase: LoginPhase::Discovering,
            scroll: 0,
        }
    }

    /// Whether the login is still running (then Esc cancels it).
    pub fn running(&self) -> bool {
        matches!(
            self.phase,
            LoginPhase::Discovering | LoginPhase::Waiting | LoginPhase::Exchanging
        )
    }
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
    /// The keys scroll the frame pane rather than move the selection.
    pub frame_focus: bool,
    /// The first row of the selected frame shown (rows as wrapped).
    pub frame_scroll: usize,
    /// The frame has the whole screen (`z`); the moves still go through
    /// the list.
    pub zoom: bool,
    /// The search in the selected frame (`/` with the frame focused).
    pub frame_search: crate::tui::result::Search,
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

/// The argument editor on one tool: a form made from its `inputSchema`,
/// or the raw JSON; one key switches, and each is made from the other.
pub struct Editor {
    pub server: String,
    pub tool: String,
    /// The raw JSON (the JSON view's text; made from the form when the
    /// view switches to it).
    pub text: TextArea<'static>,
    /// Problems with the arguments as they stand, in the view shown:
    /// fields that cannot be read, JSON syntax, or schema violations by
    /// path.
    pub problems: Vec<String>,
    /// The form, or why the schema has none.
    pub form: Result<crate::tui::argform::ArgForm, String>,
    /// The form is shown (else the raw JSON).
    pub in_form: bool,
    /// Why the raw JSON is shown rather than the form.
    pub note: Option<String>,
    /// The tool's `inputSchema` as the editor opened on it.
    pub schema: Option<Value>,
    /// The reset key's round so far: the last step taken, and the draft
    /// it started from (any edit ends the round).
    pub reset: Option<(usize, crate::tui::argform::Draft)>,
    /// The status bar holds the editor's own message (the next edit
    /// clears it).
    pub said: bool,
}

/// A call in flight (one of [`State::running`]).
#[derive(Debug, Clone)]
pub struct InFlight {
    pub tag: u64,
    pub server: String,
    pub tool: String,
    /// The arguments it was sent with (JSON text).
    pub args: String,
    /// When it started, as far as the clock said (`Msg::Clock`).
    pub started: Option<std::time::Instant>,
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
    /// The call it is for, when known (its tag).
    pub call: Option<u64>,
    /// The server's own id for it (its `notifications/cancelled` names it).
    pub request_id: Option<Value>,
}

/// A call's progress as the server reported it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressView {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
    /// Units per second since the first notification.
    pub rate: Option<f64>,
    /// When the first notification came (as far as the clock said), and
    /// its progress value.
    pub first: (Option<std::time::Instant>, f64),
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

/// A finished call's outcome (or a result shown from the log or the
/// history): the one the result pane shows is [`State::outcome`], the
/// others of this session wait in [`State::done`].
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Its entry among the calls (the call's tag).
    pub tag: u64,
    /// The first screen line shown, kept while another entry is shown.
    pub scroll: usize,
    /// When it became an entry (a stamp that only grows): the entries kept
    /// are bounded by it, the first ended going first.
    pub ended: u64,
    pub server: String,
    pub tool: String,
    pub result: Result<CallResult, CallError>,
    pub elapsed: Duration,
    pub output_schema: Option<Value>,
    /// The arguments the call was sent with (JSON), when known.
    pub args: Option<String>,
    /// The outcome prepared for display (sanitized, long lines chunked);
    /// with JSON folded, the folded view of it.
    pub lines: crate::tui::result::Prepared,
    /// While JSON is folded: the whole outcome and what is folded.
    pub folding: Option<Box<super::fold::Folding>>,
    /// A result with JSON that folds: the row ← and → act on.
    pub cursor: usize,
}

pub(super) fn push_bounded(q: &mut VecDeque<String>, line: String) {
    if q.len() == KEEP_LINES {
        q.pop_front();
    }
    q.push_back(line);
}

/// `value` moved by `by`, within `0..len`.
pub fn step(value: usize, by: isize, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let v = value as isize + by;
    v.clamp(0, len as isize - 1) as usize
}

/// One server found in another client's file, on the import screen.
#[derive(Debug, Clone)]
pub struct ImportRow {
    pub item: crate::config::import::Imported,
    /// Ticked: it is imported on confirm.
    pub checked: bool,
    /// The config has it already (same definition): nothing to import.
    pub already: bool,
}

/// The import screen.
#[derive(Debug, Clone, Default)]
pub struct ImportView {
    /// Still looking (the files are being read).
    pub loading: bool,
    /// What was found, grouped by client in the order found.
    pub rows: Vec<ImportRow>,
    /// Files or entries that could not be read, as lines.
    pub errors: Vec<String>,
    /// How many files were read.
    pub files: usize,
    pub sel: usize,
    /// The first line of the preview shown.
    pub preview_scroll: usize,
}

impl ImportView {
    /// The ticked servers.
    pub fn chosen(&self) -> Vec<crate::config::import::Imported> {
        self.rows
            .iter()
            .filter(|r| r.checked && !r.already)
            .map(|r| r.item.clone())
            .collect()
    }
}

/// What the driver found for the import screen.
#[derive(Debug, Clone, Default)]
pub struct ImportFound {
    pub rows: Vec<ImportRow>,
    pub errors: Vec<String>,
    pub files: usize,
}
