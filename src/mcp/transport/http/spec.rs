//! What to connect to: the URL, headers, TLS, and which HTTP transport.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::mcp::bearer::Authorize;
use crate::mcp::netlog::shown_url;

/// Which HTTP transport to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HttpKind {
    /// Streamable HTTP, falling back to legacy HTTP+SSE when the endpoint
    /// refuses both eras.
    #[default]
    Auto,
    StreamableHttp,
    Sse,
}

/// Everything needed to reach an HTTP server.
#[derive(Debug, Clone)]
pub struct HttpSpec {
    pub url: String,
    /// Extra headers from the config (values may be secrets).
    pub headers: Vec<(String, String)>,
    pub kind: HttpKind,
    /// A PEM file of extra trusted CA certificates.
    pub ca_file: Option<PathBuf>,
    /// Skip TLS certificate verification.
    pub insecure: bool,
    /// Time allowed to open a TCP + TLS connection.
    pub connect_timeout: Duration,
    /// Whoever authorizes the requests: the OAuth engine's authorizer,
    /// when the server may need a login (a 401 starts it); `None` when
    /// `headers` carry an `Authorization` of their own.
    pub auth: Option<Arc<dyn Authorize>>,
}

impl HttpSpec {
    pub fn new(url: impl Into<String>) -> Self {
        HttpSpec {
            url: url.into(),
            headers: Vec::new(),
            kind: HttpKind::Auto,
            ca_file: None,
            insecure: false,
            connect_timeout: Duration::from_secs(30),
            auth: None,
        }
    }

    /// The URL as it may be shown (secrets masked).
    pub fn display(&self) -> String {
        shown_url(&self.url)
    }
}
