//! What kind of failure an error is, across the core's error types
//! ([`ConnectError`](super::session::ConnectError),
//! [`RequestError`](super::session::RequestError),
//! [`HttpFailure`](super::transport::HttpFailure),
//! [`CallError`](super::manager::CallError), …). The CLI maps kinds to exit
//! codes in one place; the TUI picks badges and colours from them. Nobody
//! matches on message text.

/// The kind of a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Something on our side must change: an unknown server, a denied tool,
    /// settings that cannot be used (a bad URL, an unreadable `ca_file`).
    Usage,
    /// The server answered the request with a JSON-RPC error.
    Rpc,
    /// The server could not be started or reached, or HTTP failed.
    Connect,
    /// No answer in time.
    Timeout,
    /// The server's answers break the protocol, or no era or version could
    /// be agreed.
    Protocol,
    /// The server went away: it exited, or closed its output or connection.
    Closed,
    /// The request was cancelled.
    Cancelled,
    /// The server wants authorization (HTTP 401 or 403).
    Auth,
    /// mcpdeck itself failed (a bug: a panic caught in a background task).
    Internal,
}

impl ErrorKind {
    /// A short label: `usage`, `rpc`, `connect`, …
    pub fn label(self) -> &'static str {
        match self {
            ErrorKind::Usage => "usage",
            ErrorKind::Rpc => "rpc",
            ErrorKind::Connect => "connect",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Protocol => "protocol",
            ErrorKind::Closed => "closed",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::Auth => "auth",
            ErrorKind::Internal => "internal",
        }
    }
}
