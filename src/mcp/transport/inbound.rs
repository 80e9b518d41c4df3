//! What every transport hands up to the session.

use crate::mcp::finding::Finding;

use super::error::HttpFailure;

/// What a transport hands up to the session.
#[derive(Debug)]
pub enum Inbound {
    /// One frame of text.
    Line(String),
    /// One frame that came on the HTTP stream of request `request` (a
    /// server request there belongs to that request).
    Related { line: String, request: i64 },
    /// A frame that needed repair (e.g. invalid UTF-8), with the finding.
    LineWithFinding(String, Finding),
    /// A transport-level finding with no frame to deliver.
    Finding(Finding),
    /// A message longer than the limit, dropped: its start and its end, to
    /// read the id of the request it answers.
    Oversize {
        len: usize,
        limit: usize,
        head: String,
        tail: String,
    },
    /// An HTTP exchange for request `id` failed (status, network, body).
    Failed { id: i64, failure: HttpFailure },
    /// The connection is gone. Always the last item.
    Closed {
        description: String,
        requested: bool,
        stderr_tail: Vec<String>,
    },
}
