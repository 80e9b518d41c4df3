//! The session's public data: what to connect to ([`SessionSpec`]), what
//! was negotiated, the events a session emits, and why requests fail.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::mcp::error::ErrorKind;
use crate::mcp::finding::Finding;
use crate::mcp::jsonrpc::RpcError;
use crate::mcp::transport::http::HttpSpec;
use crate::mcp::transport::{HttpFailure, StdioSpec};
use crate::mcp::types::{Era, ServerInfo, Tool};
use crate::text::fmt_duration;

use super::memory::EraMemory;
use super::policy::*;

/// Which era and version to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pin {
    /// Probe with `server/discover`, fall back to `initialize`.
    Auto,
    /// Only the stateless era.
    Stateless,
    /// Only the initialize era, newest version first.
    Initialize,
    /// Exactly this version (its era follows from it).
    Version(String),
    /// `initialize` first (serve, for an agent of that era); a server
    /// that refuses it with an error is probed as with [`Pin::Auto`].
    InitializeFirst,
}

/// How to reach a server.
#[derive(Debug, Clone)]
pub enum TransportSpec {
    Stdio(StdioSpec),
    Http(HttpSpec),
}

impl TransportSpec {
    /// The command line or URL, as it may be shown.
    pub fn display(&self) -> String {
        match self {
            TransportSpec::Stdio(s) => format!("`{}`", s.display()),
            TransportSpec::Http(h) => h.display(),
        }
    }
}

/// Everything needed to open a session.
#[derive(Debug, Clone)]
pub struct SessionSpec {
    pub name: Arc<str>,
    pub transport: TransportSpec,
    pub client: ClientPolicy,
    pub pin: Pin,
    /// Where a stdio server's era is remembered between runs, if anywhere
    /// (`settings.remember_era`): consulted with [`Pin::Auto`] only.
    pub era_memory: Option<Arc<EraMemory>>,
    pub request_timeout: Duration,
    pub connect_timeout: Duration,
    pub probe_timeout: Duration,
}

/// What a session tells its owner, besides answers to requests.
#[derive(Debug, Clone)]
pub enum SessionEvent {
    Notification {
        method: String,
        params: Option<Value>,
    },
    Finding(Finding),
    Stderr(String),
    /// The server asked for the roots (`roots/list`, or a stateless
    /// request's `input_required`) and was answered with `offered` roots.
    RootsAsked {
        offered: usize,
    },
    /// The connection is gone (the server exited, or we closed it).
    Closed {
        description: String,
        requested: bool,
        stderr_tail: Vec<String>,
    },
}

/// A session event, tagged with the session it came from.
#[derive(Debug, Clone)]
pub struct Tagged {
    pub session: u64,
    pub server: Arc<str>,
    pub event: SessionEvent,
}

/// Where a session's events go (called from the session's tasks; must not block).
pub type EventSink = Arc<dyn Fn(Tagged) + Send + Sync>;

/// The id the next session opened will get: ids only grow, so every
/// session opened before this call has a smaller one (the manager tells a
/// replaced session's late events from its successor's this way).
pub fn next_session_id() -> u64 {
    SESSION_IDS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Where session ids come from (a session takes the next when it opens).
pub(super) static SESSION_IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Why a request did not produce a result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    #[error("the server answered {method} with error {error}")]
    Rpc {
        method: String,
        error: Box<RpcError>,
    },
    #[error("no answer to {method} within {}", fmt_duration(*after))]
    Timeout { method: String, after: Duration },
    #[error("{method} was cancelled")]
    Cancelled { method: String },
    #[error("{description}")]
    Closed {
        description: String,
        stderr_tail: Vec<String>,
    },
    #[error("{0}")]
    Protocol(String),
    #[error("{}", .0.message)]
    Http(Box<HttpFailure>),
}

impl RequestError {
    pub fn rpc(&self) -> Option<&RpcError> {
        match self {
            RequestError::Rpc { error, .. } => Some(error),
            _ => None,
        }
    }

    pub fn http(&self) -> Option<&HttpFailure> {
        match self {
            RequestError::Http(f) => Some(f),
            _ => None,
        }
    }

    pub fn stderr_tail(&self) -> &[String] {
        match self {
            RequestError::Closed { stderr_tail, .. } => stderr_tail,
            _ => &[],
        }
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            RequestError::Rpc { .. } => ErrorKind::Rpc,
            RequestError::Timeout { .. } => ErrorKind::Timeout,
            RequestError::Cancelled { .. } => ErrorKind::Cancelled,
            RequestError::Closed { .. } => ErrorKind::Closed,
            RequestError::Protocol(_) => ErrorKind::Protocol,
            RequestError::Http(f) => f.kind(),
        }
    }
}

/// Why a session could not be opened, or was lost. `Display` says what
/// happened and, where there is one, what to do about it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConnectError {
    /// The server's settings cannot be used as they are (a URL that does
    /// not parse, an unreadable `ca_file`, a header HTTP refuses, a pinned
    /// era the transport lacks).
    #[error("{0}")]
    Config(String),
    /// The server's program could not be started.
    #[error("{message}")]
    Spawn { message: String },
    /// The transport could not be opened (the legacy SSE stream: its
    /// status, or no `endpoint` event).
    #[error("{}", .0.message)]
    Open(Box<HttpFailure>),
    /// No handshake within `connect_timeout`.
    #[error("{message}")]
    Timeout {
        message: String,
        stderr_tail: Vec<String>,
    },
    /// The handshake failed: no era or version both sides speak, or the
    /// server's answers made no sense.
    #[error("{message}")]
    Handshake {
        message: String,
        stderr_tail: Vec<String>,
    },
    /// A request of the handshake failed (`context` says what was being
    /// tried, e.g. a pinned era).
    #[error("{}{error}", context.as_deref().unwrap_or(""))]
    Request {
        error: RequestError,
        stderr_tail: Vec<String>,
        context: Option<String>,
    },
    /// The connected server went away (it exited, or closed its output).
    #[error("{description}")]
    Lost {
        description: String,
        stderr_tail: Vec<String>,
    },
    /// mcpdeck failed while connecting (a panic, caught).
    #[error("{0}")]
    Internal(String),
}

impl ConnectError {
    /// A handshake failure without a stderr tail.
    pub fn handshake(message: impl Into<String>) -> Self {
        ConnectError::Handshake {
            message: message.into(),
            stderr_tail: Vec::new(),
        }
    }

    pub fn kind(&self) -> ErrorKind {
        match self {
            ConnectError::Config(_) => ErrorKind::Usage,
            ConnectError::Spawn { .. } => ErrorKind::Connect,
            ConnectError::Open(f) => f.kind(),
            ConnectError::Timeout { .. } => ErrorKind::Timeout,
            ConnectError::Handshake { .. } => ErrorKind::Protocol,
            ConnectError::Request { error, .. } => error.kind(),
            ConnectError::Lost { .. } => ErrorKind::Closed,
            ConnectError::Internal(_) => ErrorKind::Internal,
        }
    }

    /// The last lines the server wrote to stderr, when they say why.
    pub fn stderr_tail(&self) -> &[String] {
        match self {
            ConnectError::Timeout { stderr_tail, .. }
            | ConnectError::Handshake { stderr_tail, .. }
            | ConnectError::Request { stderr_tail, .. }
            | ConnectError::Lost { stderr_tail, .. } => stderr_tail,
            _ => &[],
        }
    }

    /// The server answered 401 or 403: it needs credentials.
    pub fn needs_auth(&self) -> bool {
        self.kind() == ErrorKind::Auth
    }

    /// Why the OAuth engine could not authorize the connection, if it tried.
    pub fn auth(&self) -> Option<&crate::mcp::bearer::AuthError> {
        self.http().and_then(|f| f.auth.as_deref())
    }

    /// The HTTP answer behind this error, if there was one: its status,
    /// URL and `WWW-Authenticate` challenges (what a login starts from).
    pub fn http(&self) -> Option<&HttpFailure> {
        match self {
            ConnectError::Open(f) => Some(f),
            ConnectError::Request { error, .. } => error.http(),
            _ => None,
        }
    }
}

/// What was negotiated, and how.
#[derive(Debug, Clone)]
pub struct Negotiated {
    pub era: Era,
    pub version: String,
    /// How the era was found, in words (the probe's answer).
    pub detection: String,
    pub server_info: ServerInfo,
    pub capabilities: Value,
    pub instructions: Option<String>,
    /// From `server/discover` (stateless era only).
    pub supported_versions: Vec<String>,
    /// Spawn to ready.
    pub connect_time: Duration,
    /// `stdio`, `http` (streamable) or `sse` (legacy HTTP+SSE).
    pub transport: &'static str,
}

impl Negotiated {
    pub fn has_capability(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(|c| !c.is_null())
    }
}

/// Which lists a connect (and a re-list) asks for. The TUI wants them all;
/// a one-shot command only what it prints (`tools` the tools, `info`
/// none), so a server is not asked for lists nobody reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListSet {
    pub tools: bool,
    pub resources: bool,
    pub templates: bool,
    pub prompts: bool,
}

impl ListSet {
    pub const ALL: ListSet = ListSet {
        tools: true,
        resources: true,
        templates: true,
        prompts: true,
    };
    pub const NONE: ListSet = ListSet {
        tools: false,
        resources: false,
        templates: false,
        prompts: false,
    };
    pub const TOOLS: ListSet = ListSet {
        tools: true,
        ..ListSet::NONE
    };
}

impl Default for ListSet {
    fn default() -> Self {
        ListSet::ALL
    }
}

/// All list results of a server, gated by its declared capabilities.
#[derive(Debug, Clone, Default)]
pub struct Lists {
    pub tools: Vec<Tool>,
    pub resources: Vec<Value>,
    pub templates: Vec<Value>,
    pub prompts: Vec<Value>,
    /// The lists that did not come (shown empty): the method, and why.
    pub errors: Vec<(&'static str, RequestError)>,
    /// SEP-2549: the caching hints each list came with (and
    /// `server/discover`'s), by method; a method without hints is absent.
    pub hints: Vec<(&'static str, CacheHint)>,
}

/// SEP-2549: how long a result may be reused (`ttlMs`) and by whom
/// (`cacheScope`), as the server said, and when it came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheHint {
    pub ttl_ms: Option<u64>,
    pub scope: Option<String>,
    pub at: std::time::SystemTime,
}

impl CacheHint {
    /// The hints of one result (`None` when it has neither field).
    pub fn of(result: &Value) -> Option<CacheHint> {
        let ttl_ms = result.get("ttlMs").and_then(|t| {
            t.as_u64()
                .or_else(|| t.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
        });
        let scope = result
            .get("cacheScope")
            .and_then(Value::as_str)
            .map(str::to_string);
        (ttl_ms.is_some() || scope.is_some()).then(|| CacheHint {
            ttl_ms,
            scope,
            at: std::time::SystemTime::now(),
        })
    }

    /// Joined over the pages of one list: the shortest TTL, and `private`
    /// when any page says so.
    pub fn join(a: Option<CacheHint>, b: Option<CacheHint>) -> Option<CacheHint> {
        match (a, b) {
            (None, b) => b,
            (a, None) => a,
            (Some(a), Some(b)) => Some(CacheHint {
                ttl_ms: match (a.ttl_ms, b.ttl_ms) {
                    (Some(x), Some(y)) => Some(x.min(y)),
                    (x, y) => x.or(y),
                },
                scope: if a.scope.as_deref() == Some("private")
                    || b.scope.as_deref() == Some("private")
                {
                    Some("private".into())
                } else {
                    a.scope.or(b.scope)
                },
                at: a.at.min(b.at),
            }),
        }
    }

    /// Whether the result may still be reused now.
    pub fn fresh(&self) -> bool {
        match self.ttl_ms {
            Some(ms) if ms > 0 => self
                .at
                .elapsed()
                .is_ok_and(|e| e < std::time::Duration::from_millis(ms)),
            _ => false,
        }
    }

    /// What the server said, in words: `fresh for 1 min, public`, `not to
    /// be reused (ttlMs 0), private`, `no ttlMs, public`.
    pub fn declared(&self) -> String {
        let scope = self
            .scope
            .as_deref()
            .map(|s| format!(", {}", crate::sanitize::one_line(s)))
            .unwrap_or_default();
        match self.ttl_ms {
            None => format!("no ttlMs{scope}"),
            Some(0) => format!("not to be reused (ttlMs 0){scope}"),
            Some(ms) => format!(
                "fresh for {}{scope}",
                crate::text::fmt_duration(std::time::Duration::from_millis(ms))
            ),
        }
    }

    /// [`CacheHint::declared`] and, for a positive TTL, the time left now:
    /// `fresh for 1 min, public; 42 s left`.
    pub fn describe(&self) -> String {
        let scope = self
            .scope
            .as_deref()
            .map(|s| format!(", {}", crate::sanitize::one_line(s)))
            .unwrap_or_default();
        match self.ttl_ms {
            None => format!("no ttlMs{scope}"),
            Some(0) => format!("not to be reused (ttlMs 0){scope}"),
            Some(ms) => {
                let ttl = std::time::Duration::from_millis(ms);
                let age = self.at.elapsed().unwrap_or_default();
                let left = if age < ttl {
                    format!("{} left", crate::text::fmt_duration(ttl - age))
                } else {
                    "stale now".to_string()
                };
                format!(
                    "fresh for {}{scope}; {left}",
                    crate::text::fmt_duration(ttl)
                )
            }
        }
    }
}

impl Lists {
    /// The caching hints `method`'s result came with.
    pub fn hint(&self, method: &str) -> Option<&CacheHint> {
        self.hints
            .iter()
            .find(|(m, _)| *m == method)
            .map(|(_, h)| h)
    }

    /// Why the list of `method` did not come, if it did not.
    pub fn error(&self, method: &str) -> Option<&RequestError> {
        self.errors
            .iter()
            .find(|(m, _)| *m == method)
            .map(|(_, e)| e)
    }
}

/// The most input_required rounds one request may take.
pub const MAX_INPUT_ROUNDS: u32 = 16;

#[cfg(test)]
mod cache_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hints_are_read_and_joined_over_pages() {
        assert_eq!(CacheHint::of(&json!({"tools": []})), None);
        let a = CacheHint::of(&json!({"ttlMs": 60000, "cacheScope": "public"}));
        let b = CacheHint::of(&json!({"ttlMs": 5000, "cacheScope": "private"}));
        let j = CacheHint::join(a.clone(), b).expect("joined");
        assert_eq!(j.ttl_ms, Some(5000));
        assert_eq!(j.scope.as_deref(), Some("private"));
        let a = a.expect("hint");
        assert!(a.fresh());
        assert_eq!(a.declared(), "fresh for 60 s, public");
        let zero = CacheHint::of(&json!({"ttlMs": 0})).expect("hint");
        assert!(!zero.fresh());
        assert_eq!(zero.declared(), "not to be reused (ttlMs 0)");
        let none = CacheHint::of(&json!({"cacheScope": "public"})).expect("hint");
        assert_eq!(none.declared(), "no ttlMs, public");
        let old = CacheHint {
            at: std::time::SystemTime::now() - std::time::Duration::from_secs(120),
            ..a
        };
        assert!(!old.fresh());
        assert!(old.describe().ends_with("stale now"), "{}", old.describe());
    }
}
