//! Exit codes, and failures that carry one. The core's error kinds become
//! exit codes here and nowhere else ([`Exit::for_kind`]).

use crate::mcp::error::ErrorKind;
use crate::sanitize;

/// Exit codes (documented in docs/cli.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    /// The tool returned `isError`, or the server answered with a JSON-RPC error.
    ToolError = 1,
    /// Usage or configuration error.
    Usage = 2,
    /// Could not connect, or the protocol failed.
    Connect = 3,
    /// Authorization needed or failed.
    Auth = 4,
    /// Stopped by Ctrl-C (SIGINT) after reporting what was done (`bench`).
    Interrupted = 130,
}

impl Exit {
    /// The exit code for a kind of failure.
    pub fn for_kind(kind: ErrorKind) -> Exit {
        match kind {
            ErrorKind::Usage => Exit::Usage,
            ErrorKind::Rpc => Exit::ToolError,
            ErrorKind::Auth => Exit::Auth,
            ErrorKind::Connect
            | ErrorKind::Timeout
            | ErrorKind::Protocol
            | ErrorKind::Closed
            | ErrorKind::Cancelled
            | ErrorKind::Internal => Exit::Connect,
        }
    }
}

/// A failure with its exit code and message.
#[derive(Debug)]
pub struct Failure {
    pub code: Exit,
    pub message: String,
}

impl Failure {
    pub fn new(code: Exit, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
        }
    }
}

/// What a command ends with.
pub type Outcome = Result<Exit, Failure>;

/// A server that could not be connected, as the CLI reports it.
pub fn connect_failure(name: &str, e: &crate::mcp::ConnectError) -> Failure {
    connect_failure_as(name, name, e)
}

/// [`connect_failure`], naming `login_as` in the login hint (the URL when
/// the server was given as one rather than by its name in the config).
pub fn connect_failure_as(name: &str, login_as: &str, e: &crate::mcp::ConnectError) -> Failure {
    let message = if let Some(a) = e.auth() {
        let hint = match a.kind {
            crate::mcp::auth::AuthErrorKind::NeedsLogin => {
                format!("; log in with `mcpdeck auth login {login_as}`")
            }
            _ => String::new(),
        };
        // The message and what to do first, then the trace.
        let status = e
            .http()
            .and_then(|f| f.status)
            .map(|c| format!(" (HTTP {c})"))
            .unwrap_or_default();
        let message = sanitize::strip(&a.message);
        let message = message
            .strip_prefix(&format!("{name} "))
            .unwrap_or(&message);
        let head = format!("{name} needs authorization{status}: {message}");
        if a.trace.is_empty() {
            format!("{head}{hint}")
        } else {
            format!(
                "{head}{hint}\ndiscovery trace:\n{}",
                sanitize::strip(&a.trace.to_string())
            )
        }
    } else if e.needs_auth() {
        format!(
            "{name} needs authorization: {}",
            sanitize::strip(&e.to_string())
        )
    } else {
        format!(
            "could not connect to {name}: {}{}",
            sanitize::strip(&e.to_string()),
            tail_text(e.stderr_tail())
        )
    };
    Failure::new(Exit::for_kind(e.kind()), message)
}

/// A failed request or call, with the exit code of its kind and the
/// server's last stderr lines when it went away.
pub fn call_failure(e: &crate::mcp::manager::CallError) -> Failure {
    Failure::new(
        Exit::for_kind(e.kind()),
        format!(
            "{}{}",
            sanitize::strip(&e.to_string()),
            tail_text(e.stderr_tail())
        ),
    )
}

/// The server's last stderr lines, indented under a heading.
pub fn tail_text(tail: &[String]) -> String {
    if tail.is_empty() {
        return String::new();
    }
    let lines: Vec<String> = tail
        .iter()
        .map(|l| format!("    {}", sanitize::strip(l)))
        .collect();
    format!("\nthe server's last stderr lines:\n{}", lines.join("\n"))
}

/// `; did you mean "x"?` for the name in `names` closest to `wanted`, if
/// one is close.
pub fn did_you_mean(names: &[&str], wanted: &str) -> Option<String> {
    names
        .iter()
        .map(|n| (strsim::jaro_winkler(n, wanted), n))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| format!("; did you mean {:?}?", sanitize::one_line(n)))
}
