//! The manager's interface: the commands it takes, the events it emits,
//! each server's status, and tool names qualified by server.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::oneshot;

use crate::config::ServerConfig;
use crate::mcp::error::ErrorKind;
use crate::mcp::finding::Finding;
use crate::mcp::session::ConnectError;
use crate::mcp::session::{Lists, Negotiated, RequestError};
use crate::mcp::types::{CallResult, Tool};

/// Separator of qualified tool names: `server__tool`.
pub const QUALIFIER: &str = "__";

/// A server's state.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerStatus {
    /// Connecting.
    Pending,
    Connected,
    /// It could not be connected, or it went away: why, with its stderr.
    Failed(ConnectError),
    /// The server answered 401 or 403: it needs credentials. The error
    /// carries the HTTP answer ([`ConnectError::http`]).
    NeedsAuth(ConnectError),
    Disabled,
    /// Enabled but not connected (after a disconnect command).
    Disconnected,
}

impl ServerStatus {
    pub fn label(&self) -> &'static str {
        match self {
            ServerStatus::Pending => "pending",
            ServerStatus::Connected => "connected",
            ServerStatus::Failed(_) => "failed",
            ServerStatus::NeedsAuth(_) => "needs auth",
            ServerStatus::Disabled => "disabled",
            ServerStatus::Disconnected => "disconnected",
        }
    }

    /// Whether this state is final until someone acts.
    pub fn settled(&self) -> bool {
        !matches!(self, ServerStatus::Pending)
    }
}

/// Commands to the manager.
#[derive(Debug)]
pub enum Command {
    /// Diff a new server list against the current one.
    SetServers(Vec<ServerConfig>),
    Connect(String),
    Disconnect(String),
    Reconnect(String),
    SetEnabled(String, bool),
    SetDenyList(String, Vec<String>),
    /// List tools, resources and prompts again.
    Refresh(String),
    /// Ping the server now.
    Ping(String),
    /// The roots offered to servers changed (the config's `roots`; empty
    /// offers none, never the current directory): servers without roots of
    /// their own are told with `notifications/roots/list_changed`.
    SetRoots(Vec<std::path::PathBuf>),
    /// Any request (`resources/read`, `prompts/get`, `completion/complete`,
    /// …) to a connected server; answered with [`Event::Response`] `tag`.
    /// The stateless era's envelope and input_required rounds are handled.
    Request {
        tag: u64,
        server: String,
        method: String,
        params: Value,
    },
    /// Subscribe to a resource's updates (server, uri).
    Subscribe(String, String),
    /// End a resource subscription (server, uri).
    Unsubscribe(String, String),
    /// Ask the server for log messages at this level and above.
    SetLogLevel(String, String),
    /// The person's answer to [`Event::ServerRequest`] `id`: a result
    /// (`{"action": "accept", "content": …}`, a sampling result) or an error.
    AnswerServerRequest {
        id: u64,
        result: Result<Value, crate::mcp::jsonrpc::RpcError>,
    },
    Call {
        tag: u64,
        server: String,
        tool: String,
        arguments: Value,
    },
    /// [`Command::Call`] whose request carries `meta` in its `params._meta`
    /// (`mcpdeck serve` passes on an agent's: a W3C `traceparent`, its own
    /// keys). The session adds its own keys beside them (`progressToken`,
    /// the stateless era's `io.modelcontextprotocol/…`), which win.
    CallWithMeta {
        tag: u64,
        server: String,
        tool: String,
        arguments: Value,
        meta: serde_json::Map<String, Value>,
    },
    Cancel {
        tag: u64,
    },
    /// Log in to an HTTP server (OAuth), asking for these scopes over what
    /// it already has (a step-up); events come as [`Event::Login`], the end
    /// as [`Event::LoginFinished`], and success reconnects the server.
    Login {
        server: String,
        scopes: Vec<String>,
    },
    /// Stop a login that waits for the browser.
    CancelLogin(String),
    /// Revoke and forget the server's token ([`Event::LoggedOut`]).
    Logout(String),
    Snapshot(oneshot::Sender<Vec<ServerSnapshot>>),
    Shutdown(oneshot::Sender<()>),
}

/// How the manager's sessions answer the servers' own requests (sampling,
/// elicitation, roots).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answers {
    /// Declare only `roots` (the configured ones; an empty list when there
    /// are none), no sampling or elicitation (the headless commands).
    Nothing,
    /// The safe automatic policies of `mcpdeck smoke`: the configured
    /// roots, elicitation accepted with the requested defaults (URL mode
    /// declined), sampling declined.
    Automatically,
    /// A person answers: sampling and elicitation requests become
    /// [`Event::ServerRequest`], answered with
    /// [`Command::AnswerServerRequest`]; roots come from the settings (the
    /// TUI).
    Person,
}

/// Why a call did not produce a result.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CallError {
    #[error("there is no server named {0:?} in the configuration")]
    UnknownServer(String),
    #[error("server {server:?} is {status}; connect it first")]
    NotConnected { server: String, status: String },
    #[error(
        "tool {tool:?} is refused on server {server:?} by its {rule} in the config; change that list to call it"
    )]
    Denied {
        server: String,
        tool: String,
        /// The rule that refuses it.
        rule: crate::config::ToolRefusal,
    },
    #[error(transparent)]
    Request(#[from] RequestError),
}

impl CallError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            CallError::UnknownServer(_) | CallError::Denied { .. } => ErrorKind::Usage,
            CallError::NotConnected { .. } => ErrorKind::Connect,
            CallError::Request(e) => e.kind(),
        }
    }

    /// The server's last stderr lines, when it went away.
    pub fn stderr_tail(&self) -> &[String] {
        match self {
            CallError::Request(e) => e.stderr_tail(),
            _ => &[],
        }
    }

    /// The login failure behind this error (a 401 that could not be
    /// answered, a step-up that needs a person), if that is what it is.
    pub fn auth(&self) -> Option<&crate::mcp::bearer::AuthError> {
        match self {
            CallError::Request(e) => e.http().and_then(|f| f.auth.as_deref()),
            _ => None,
        }
    }
}

/// Events from the manager.
#[derive(Debug, Clone)]
pub enum Event {
    /// The set or order of servers changed.
    Servers(Vec<String>),
    Status {
        server: String,
        status: ServerStatus,
        negotiated: Option<Box<Negotiated>>,
    },
    Lists {
        server: String,
        lists: Arc<Lists>,
    },
    DenyList {
        server: String,
        tools: Vec<String>,
    },
    CallStarted {
        tag: u64,
        server: String,
        tool: String,
        request_id: i64,
    },
    CallFinished {
        tag: u64,
        server: String,
        tool: String,
        result: Result<CallResult, CallError>,
        elapsed: Duration,
    },
    /// A finding about a server: `session` is the id of the session it
    /// came from ([`crate::mcp::session::Session::id`]); `previous`: that
    /// session was replaced or closed (a reconnect, a config change) and is
    /// not the server's current one.
    Finding {
        server: String,
        session: u64,
        previous: bool,
        finding: Finding,
    },
    Stderr {
        server: String,
        line: String,
    },
    /// The server asked for its roots and was given `offered` of them.
    RootsAsked {
        server: String,
        offered: usize,
        /// When (the manager's clock).
        at: std::time::SystemTime,
    },
    Notification {
        server: String,
        method: String,
        params: Option<Value>,
    },
    /// The answer to [`Command::Ping`] (`requested`), or the ping made
    /// right after connecting: the round trip, or why it failed.
    Ping {
        server: String,
        result: Result<Duration, CallError>,
        requested: bool,
    },
    /// The answer to [`Command::Request`] `tag`.
    Response {
        tag: u64,
        server: String,
        method: String,
        result: Result<Value, CallError>,
    },
    /// The answer to [`Command::Subscribe`] / [`Command::Unsubscribe`].
    Subscription {
        server: String,
        uri: String,
        subscribed: bool,
        result: Result<(), CallError>,
    },
    /// A call that runs as a task changed state.
    TaskStatus {
        tag: u64,
        server: String,
        status: crate::mcp::session::TaskStatus,
    },
    /// The server asks the person (sampling, elicitation): answer with
    /// [`Command::AnswerServerRequest`].
    ServerRequest {
        id: u64,
        server: String,
        method: String,
        params: Value,
        /// The call it belongs to (its request id), when the protocol
        /// says: see [`crate::mcp::session::ServerRequest::related`].
        related: Option<i64>,
        /// The server's own id for it: see
        /// [`crate::mcp::session::ServerRequest::request_id`].
        request_id: Option<Value>,
    },
    /// A login's progress (discovery trace, URL, browser, waiting).
    Login {
        server: String,
        event: crate::mcp::auth::LoginEvent,
    },
    /// A login ended.
    LoginFinished {
        server: String,
        result: Result<crate::mcp::auth::TokenInfo, crate::mcp::bearer::AuthError>,
    },
    /// A log-out ended: what was revoked and forgotten.
    LoggedOut {
        server: String,
        result: Result<Vec<String>, crate::mcp::bearer::AuthError>,
    },
    /// What may be shown about a server's login (issuer, scopes, expiry);
    /// `None`: not logged in.
    AuthInfo {
        server: String,
        info: Option<crate::mcp::auth::TokenInfo>,
    },
    /// The answer to [`Command::SetLogLevel`].
    LogLevel {
        server: String,
        level: String,
        result: Result<(), CallError>,
    },
    /// A server sent more notifications, stderr lines or findings than
    /// could be queued: how many were dropped since the last such event
    /// (progress and list changes are coalesced, never counted here).
    Dropped {
        server: String,
        notifications: usize,
        stderr: usize,
        findings: usize,
    },
}

/// Every progress notification is kept ([`keep_every_progress`]).
static EVERY_PROGRESS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Keep every progress notification instead of only the latest of a
/// token that is still queued: for `serve`, which passes each one on to
/// its agent (the TUI and the CLI show the latest). Past the queue's
/// bound the latest of a token still replaces the one queued, so that a
/// flood of progress never pushes out other notifications.
pub fn keep_every_progress(keep: bool) {
    EVERY_PROGRESS.store(keep, std::sync::atomic::Ordering::Release);
}

/// Whether a notification of `method` is coalesced only past the bound.
pub(super) fn lazy_coalesce(method: &str) -> bool {
    method == "notifications/progress" && EVERY_PROGRESS.load(std::sync::atomic::Ordering::Acquire)
}

impl Event {
    /// The coalescing key of a notification: a progress token, a list
    /// kind, a resource's URI.
    pub(super) fn coalesce_key(method: &str, params: Option<&Value>) -> Option<String> {
        let param = |name: &str| params.and_then(|p| p.get(name));
        match method {
            "notifications/progress" => param("progressToken").map(|t| format!("progress {t}")),
            "notifications/tools/list_changed"
            | "notifications/resources/list_changed"
            | "notifications/prompts/list_changed" => Some(method.to_string()),
            "notifications/resources/updated" => param("uri").map(|u| format!("updated {u}")),
            _ => None,
        }
    }
}

impl super::queue::Queued for Event {
    fn class(&self) -> super::queue::Class<'_> {
        use super::queue::{Class, Kind};
        match self {
            Event::Notification {
                server,
                method,
                params,
            } => Class::Droppable {
                server,
                kind: Kind::Notification,
                coalesce: Event::coalesce_key(method, params.as_ref()),
                lazy: lazy_coalesce(method),
            },
            Event::Stderr { server, .. } => Class::Droppable {
                server,
                kind: Kind::Stderr,
                coalesce: None,
                lazy: false,
            },
            Event::Finding { server, .. } => Class::Droppable {
                server,
                kind: Kind::Finding,
                coalesce: None,
                lazy: false,
            },
            _ => Class::Critical,
        }
    }

    fn dropped(server: String, counts: super::queue::DropCounts) -> Self {
        Event::Dropped {
            server,
            notifications: counts.notifications,
            stderr: counts.stderr,
            findings: counts.findings,
        }
    }
}

/// A server as the manager sees it now.
#[derive(Debug, Clone)]
pub struct ServerSnapshot {
    pub config: ServerConfig,
    pub status: ServerStatus,
    pub negotiated: Option<Negotiated>,
    pub lists: Arc<Lists>,
    /// The process id of a connected stdio server (`/proc` statistics).
    pub pid: Option<u32>,
}

/// A tool in the aggregate list.
#[derive(Debug, Clone)]
pub struct QualifiedTool {
    /// `server__tool`
    pub qualified: String,
    pub server: String,
    pub tool: Tool,
}

/// The aggregate tool list of all connected servers, qualified as
/// `server__tool`, with denied tools left out.
pub fn aggregate_tools(servers: &[ServerSnapshot]) -> Vec<QualifiedTool> {
    servers
        .iter()
        .filter(|s| s.status == ServerStatus::Connected)
        .flat_map(|s| {
            s.lists
                .tools
                .iter()
                .filter(|t| !s.config.is_tool_denied(&t.name))
                .map(|t| QualifiedTool {
                    qualified: format!("{}{QUALIFIER}{}", s.config.name, t.name),
                    server: s.config.name.clone(),
                    tool: t.clone(),
                })
        })
        .collect()
}

/// Split `server__tool` at the first separator (server names cannot hold it).
pub fn split_qualified(name: &str) -> Option<(&str, &str)> {
    name.split_once(QUALIFIER)
        .filter(|(s, t)| !s.is_empty() && !t.is_empty())
}
