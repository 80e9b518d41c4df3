//! Transports: how frames reach a server and come back. Each transport
//! delivers what it receives as [`Inbound`] items on a channel.

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
    /// The connection is gone. Always the last item.
    Closed {
        description: String,
        requested: bool,
        stderr_tail: Vec<String>,
    },
}

/// The transport can no longer send.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct TransportClosed(pub String);

/// Any transport.
#[derive(Debug)]
pub enum Transport {
    Stdio(StdioTransport),
}

/// The receiving half of any transport.
#[derive(Debug)]
pub enum Reader {
    Stdio(StdioReader),
}

impl Reader {
    /// The next item; `None` after [`Inbound::Closed`].
    pub async fn next(&mut self) -> Option<Inbound> {
        match self {
            Reader::Stdio(r) => r.next().await,
        }
    }
}

impl Transport {
    /// Send one frame; `line` ends with `\n`.
    pub async fn send(&self, line: &str) -> Result<(), TransportClosed> {
        match self {
            Transport::Stdio(t) => t.send(line).await,
        }
    }

    pub async fn close(&self) {
        match self {
            Transport::Stdio(t) => t.close().await,
        }
    }

    pub fn stderr(&self) -> Option<&Arc<StderrBuffer>> {
        match self {
            Transport::Stdio(t) => Some(t.stderr()),
        }
    }
}
