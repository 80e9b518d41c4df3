//! The session's public data: what to connect to ([`SessionSpec`]), what
//! was negotiated, the events a session emits, and why requests fail.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::mcp::finding::Finding;
use crate::mcp::jsonrpc::RpcError;
use crate::mcp::transport::http::HttpSpec;
use crate::mcp::transport::{HttpFailure, StdioSpec};
use crate::mcp::types::{Era, ServerInfo, Tool};
use crate::text::fmt_duration;

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

/// Why a request did not produce a result.
#[derive(Debug, Clone, thiserror::Error)]
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
    Http(HttpFailure),
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
}

/// Why a session could not be opened.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ConnectError {
    pub message: String,
    pub stderr_tail: Vec<String>,
    /// The server answered 401 or 403: it needs credentials.
    pub needs_auth: bool,
}

impl ConnectError {
    pub fn new(message: impl Into<String>) -> Self {
        ConnectError {
            message: message.into(),
            stderr_tail: Vec::new(),
            needs_auth: false,
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

/// All list results of a server, gated by its declared capabilities.
#[derive(Debug, Clone, Default)]
pub struct Lists {
    pub tools: Vec<Tool>,
    pub resources: Vec<Value>,
    pub templates: Vec<Value>,
    pub prompts: Vec<Value>,
}

/// The most input_required rounds one request may take.
pub const MAX_INPUT_ROUNDS: u32 = 16;
