//! Transports: how frames reach a server and come back. Each transport
//! delivers what it receives as [`Inbound`] items on a channel.

pub mod http;
pub mod legacy;
pub mod sse_parse;
pub mod stdio;

use crate::mcp::finding::Finding;
use std::sync::Arc;

pub use stdio::{StderrBuffer, StdioReader, StdioSpec, StdioTransport};

/// What a transport hands up to the session.
#[derive(Debug)]
pub enum Inbound {
    /// One frame of text.
    Line(String),
    /// A frame that needed repair (e.g. invalid UTF-8), with the finding.
    LineWithFinding(String, Finding),
    /// A transport-level finding with no frame to deliver.
    Finding(Finding),
    /// An HTTP exchange for request `id` failed (status, network, body).
    Failed { id: i64, failure: HttpFailure },
    /// The connection is gone. Always the last item.
    Closed {
        description: String,
        requested: bool,
        stderr_tail: Vec<String>,
    },
}

/// Why an HTTP exchange did not bring an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpFailure {
    /// The HTTP status, when the server answered at all.
    pub status: Option<u16>,
    /// A message for a person, naming the URL.
    pub message: String,
    /// The body (bounded), when there was one.
    pub body: Option<String>,
    /// The session id the server no longer knows (404 with a session).
    pub session_expired: Option<String>,
    pub www_authenticate: Option<String>,
    /// A 2xx JSON body that was not the response to the request.
    pub not_a_response: bool,
}

impl HttpFailure {
    pub fn new(status: Option<u16>, message: String) -> Self {
        HttpFailure {
            status,
            message,
            body: None,
            session_expired: None,
            www_authenticate: None,
            not_a_response: false,
        }
    }

    /// 401 or 403: the server wants credentials.
    pub fn needs_auth(&self) -> bool {
        matches!(self.status, Some(401 | 403))
    }

    /// The answer of an endpoint that does not speak this era or transport
    /// (400/404/405 with no usable JSON-RPC error, or a body that is no
    /// response).
    pub fn refused(&self) -> bool {
        self.session_expired.is_none()
            && (matches!(self.status, Some(400 | 404 | 405)) || self.not_a_response)
    }
}

/// The transport can no longer send.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct TransportClosed(pub String);

/// Any transport.
#[derive(Debug)]
pub enum Transport {
    Stdio(StdioTransport),
    Http(http::HttpTransport),
    LegacySse(legacy::LegacySseTransport),
}

/// The receiving half of any transport.
#[derive(Debug)]
pub enum Reader {
    Stdio(StdioReader),
    Channel(http::ChannelReader),
}

impl Reader {
    /// The next item; `None` after [`Inbound::Closed`].
    pub async fn next(&mut self) -> Option<Inbound> {
        match self {
            Reader::Stdio(r) => r.next().await,
            Reader::Channel(r) => r.next().await,
        }
    }
}

impl Transport {
    /// Send one frame; `line` ends with `\n`.
    pub async fn send(&self, line: &str) -> Result<(), TransportClosed> {
        match self {
            Transport::Stdio(t) => t.send(line).await,
            Transport::Http(t) => t.send(line).await,
            Transport::LegacySse(t) => t.send(line).await,
        }
    }

    pub async fn close(&self) {
        match self {
            Transport::Stdio(t) => t.close().await,
            Transport::Http(t) => t.close().await,
            Transport::LegacySse(t) => t.close().await,
        }
    }

    pub fn stderr(&self) -> Option<&Arc<StderrBuffer>> {
        match self {
            Transport::Stdio(t) => Some(t.stderr()),
            _ => None,
        }
    }

    /// The streamable HTTP transport, if this is one.
    pub fn http(&self) -> Option<&http::HttpTransport> {
        match self {
            Transport::Http(t) => Some(t),
            _ => None,
        }
    }

    /// A short name: `stdio`, `http`, `sse`.
    pub fn kind(&self) -> &'static str {
        match self {
            Transport::Stdio(_) => "stdio",
            Transport::Http(_) => "http",
            Transport::LegacySse(_) => "sse",
        }
    }
}
