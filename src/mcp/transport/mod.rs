//! Transports: how frames reach a server and come back. Each transport
//! delivers what it receives as [`Inbound`] items on a channel.
//!
//! The transports sit below the session and below the OAuth engine
//! ([`crate::mcp::auth`]): the streamable HTTP transport holds a
//! [`crate::mcp::bearer::Authorize`] for its tokens and 401s and names
//! nothing in `auth`, while the engine uses the HTTP helpers here
//! ([`http::error_chain`], [`http::describe_send_error`], …).

mod error;
pub mod http;
mod inbound;
pub mod legacy;
pub mod sse_parse;
pub mod stdio;

use std::sync::Arc;

pub use error::{BodyError, HttpFailure, OpenError, TransportClosed};
pub use inbound::Inbound;

pub use stdio::{StderrBuffer, StdioReader, StdioSpec, StdioTransport};

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
    /// Send one message (no trailing newline: stdio adds its own).
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

    /// The process id of a stdio server (the process mcpdeck started).
    pub fn pid(&self) -> Option<u32> {
        match self {
            Transport::Stdio(t) => t.pid(),
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
