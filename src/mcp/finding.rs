//! Findings: what was wrong with what a server sent, kept for the user.

use std::time::SystemTime;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Worth knowing; the exchange went on as normal.
    Info,
    /// Off-spec, but mcpdeck kept what it could.
    Warning,
    /// Something was lost or a request could not complete.
    Error,
}

impl Severity {
    pub fn label(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// The most of a raw frame a finding keeps (the frame log keeps more).
pub const FINDING_RAW_LIMIT: usize = 64 * 1024;

/// One finding: severity, what was wrong, and the raw frame it was about.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub severity: Severity,
    pub message: String,
    /// The raw frame (cut to [`FINDING_RAW_LIMIT`] bytes), when there was one.
    pub raw: Option<String>,
    /// The raw frame's full length in bytes.
    pub raw_len: usize,
    pub at: SystemTime,
}

impl Finding {
    pub fn new(severity: Severity, message: impl Into<String>) -> Self {
        Finding {
            severity,
            message: message.into(),
            raw: None,
            raw_len: 0,
            at: SystemTime::now(),
        }
    }

    /// A finding about a frame, keeping (a bounded copy of) the frame.
    pub fn frame(severity: Severity, message: impl Into<String>, raw: &str) -> Self {
        Finding {
            severity,
            message: message.into(),
            raw: Some(truncate(raw, FINDING_RAW_LIMIT).to_string()),
            raw_len: raw.len(),
            at: SystemTime::now(),
        }
    }
}

/// Cut `s` to at most `max` bytes on a char boundary.
pub fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
