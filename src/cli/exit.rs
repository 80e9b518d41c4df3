//! Exit codes, and failures that carry one. The core's error kinds become
//! exit codes here and nowhere else ([`Exit::for_kind`]), and every
//! failure of a `--json` command becomes the one error envelope here
//! ([`Failure::envelope`]).

use serde_json::{Map, Value, json};

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

/// What kind of failure, as the `--json` error envelope names it
/// (`{"error": {"kind": …}}`, documented in docs/cli.md, "JSON errors").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The command line: an unknown server, tool or prompt, a bad value.
    Usage,
    /// The arguments do not match the tool's inputSchema (or the prompt's
    /// arguments).
    InvalidArguments,
    /// The config file cannot be read, is invalid, or cannot be written.
    Config,
    /// The server could not be started or reached, or HTTP failed.
    Connect,
    /// The server wants authorization, or the login failed.
    Auth,
    /// No answer in time.
    Timeout,
    /// The server's answers break the protocol.
    Protocol,
    /// The server answered with a JSON-RPC error (`code`, `data`).
    Jsonrpc,
    /// The server went away: it exited, or closed its output or connection.
    ServerExited,
    /// The request was cancelled.
    Cancelled,
    /// mcpdeck itself failed (a bug).
    Internal,
    /// Anything else that ends a command with exit 1.
    Failed,
}

impl Kind {
    /// The word in the envelope.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Usage => "usage",
            Kind::InvalidArguments => "invalid_arguments",
            Kind::Config => "config",
            Kind::Connect => "connect",
            Kind::Auth => "auth",
            Kind::Timeout => "timeout",
            Kind::Protocol => "protocol",
            Kind::Jsonrpc => "jsonrpc",
            Kind::ServerExited => "server_exited",
            Kind::Cancelled => "cancelled",
            Kind::Internal => "internal",
            Kind::Failed => "failed",
        }
    }

    /// The envelope's kind of a core error kind.
    pub fn of(kind: ErrorKind) -> Kind {
        match kind {
            ErrorKind::Usage => Kind::Usage,
            ErrorKind::Rpc => Kind::Jsonrpc,
            ErrorKind::Connect => Kind::Connect,
            ErrorKind::Timeout => Kind::Timeout,
            ErrorKind::Protocol => Kind::Protocol,
            ErrorKind::Closed => Kind::ServerExited,
            ErrorKind::Cancelled => Kind::Cancelled,
            ErrorKind::Auth => Kind::Auth,
            ErrorKind::Internal => Kind::Internal,
        }
    }

    /// The kind of a failure that names none, by its exit code.
    fn for_exit(code: Exit) -> Kind {
        match code {
            Exit::Usage => Kind::Usage,
            Exit::Connect => Kind::Connect,
            Exit::Auth => Kind::Auth,
            Exit::Ok | Exit::ToolError | Exit::Interrupted => Kind::Failed,
        }
    }
}

/// A failure with its exit code and message, and what the `--json` error
/// envelope says of it.
#[derive(Debug)]
pub struct Failure {
    pub code: Exit,
    /// For people, on stderr (with the server's last stderr lines, if any).
    pub message: String,
    kind: Option<Kind>,
    /// The command's JSON answer is already on stdout, and says it.
    answered: bool,
    /// What else the envelope says (boxed: a `Result` carries it).
    extra: Option<Box<Extra>>,
}

/// The envelope's fields besides `kind` and `message`.
#[derive(Debug, Default)]
struct Extra {
    /// The message without the stderr lines, for the envelope.
    short: Option<String>,
    rpc_code: Option<i64>,
    data: Option<Value>,
    stderr_tail: Vec<String>,
}

impl Failure {
    pub fn new(code: Exit, message: impl Into<String>) -> Self {
        Failure {
            code,
            message: message.into(),
            kind: None,
            answered: false,
            extra: None,
        }
    }

    fn extra(&mut self) -> &mut Extra {
        self.extra.get_or_insert_with(Box::default)
    }

    /// The command printed its JSON answer, which tells of this failure:
    /// no error envelope after it.
    pub fn answered(mut self) -> Self {
        self.answered = true;
        self
    }

    /// Whether the error envelope is to be printed (in JSON mode).
    pub fn wants_envelope(&self) -> bool {
        !self.answered
    }

    /// Name the envelope's kind (by default it follows the exit code).
    pub fn kind(mut self, kind: Kind) -> Self {
        self.kind = Some(kind);
        self
    }

    /// Add `hint` to the message (for people and for the envelope).
    pub fn hint(mut self, hint: &str) -> Self {
        match self.extra.as_deref_mut() {
            // Before the server's stderr lines.
            Some(Extra {
                short: Some(short),
                stderr_tail,
                ..
            }) => {
                short.push_str(hint);
                self.message = format!("{short}{}", tail_text(stderr_tail));
            }
            _ => self.message.push_str(hint),
        }
        self
    }

    /// The kind the envelope gives.
    pub fn json_kind(&self) -> Kind {
        self.kind.unwrap_or(Kind::for_exit(self.code))
    }

    /// A JSON-RPC error's code and data.
    pub fn rpc(mut self, error: &crate::mcp::jsonrpc::RpcError) -> Self {
        self.kind = Some(Kind::Jsonrpc);
        let extra = self.extra();
        // The server's own words; `message` (stderr) says which request.
        extra.short = Some(error.message.clone());
        extra.rpc_code = Some(error.code);
        extra.data = error.data.clone();
        self
    }

    /// The server's last stderr lines (already in `message`).
    fn tail(mut self, short: String, tail: &[String]) -> Self {
        if !tail.is_empty() {
            let extra = self.extra();
            extra.short = Some(short);
            extra.stderr_tail = tail.to_vec();
        }
        self
    }

    /// The one error envelope of every `--json` command:
    /// `{"error": {"kind", "code", "message", "data", "stderrTail"}}`, the
    /// fields that have nothing to say left out.
    pub fn envelope(&self) -> Value {
        let none = Extra::default();
        let extra = self.extra.as_deref().unwrap_or(&none);
        let mut e = Map::new();
        e.insert("kind".into(), json!(self.json_kind().label()));
        if let Some(code) = extra.rpc_code {
            e.insert("code".into(), json!(code));
        }
        let message = extra.short.as_deref().unwrap_or(&self.message);
        e.insert("message".into(), json!(message));
        if let Some(data) = &extra.data {
            e.insert("data".into(), data.clone());
        }
        if !extra.stderr_tail.is_empty() {
            e.insert("stderrTail".into(), json!(extra.stderr_tail));
        }
        json!({ "error": e })
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
        let short = format!(
            "could not connect to {name}: {}",
            sanitize::strip(&e.to_string())
        );
        let message = format!("{short}{}", tail_text(e.stderr_tail()));
        return Failure::new(Exit::for_kind(e.kind()), message)
            .kind(Kind::of(e.kind()))
            .tail(short, e.stderr_tail());
    };
    Failure::new(Exit::for_kind(e.kind()), message).kind(Kind::of(e.kind()))
}

/// A failed request or call, with the exit code of its kind and the
/// server's last stderr lines when it went away.
pub fn call_failure(e: &crate::mcp::manager::CallError) -> Failure {
    let short = sanitize::strip(&e.to_string()).into_owned();
    let f = Failure::new(
        Exit::for_kind(e.kind()),
        format!("{short}{}", tail_text(e.stderr_tail())),
    )
    .kind(Kind::of(e.kind()))
    .tail(short, e.stderr_tail());
    match e {
        crate::mcp::manager::CallError::Request(r) => match r.rpc() {
            Some(rpc) => f.rpc(rpc),
            None => f,
        },
        _ => f,
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::jsonrpc::RpcError;

    #[test]
    fn the_envelope_leaves_out_what_it_has_not() {
        let f = Failure::new(Exit::Usage, "no server named \"x\"");
        assert_eq!(
            f.envelope(),
            json!({"error": {"kind": "usage", "message": "no server named \"x\""}})
        );
        let rpc = RpcError {
            code: -32602,
            message: "bad uri".into(),
            data: Some(json!({"uri": "x"})),
        };
        let f = Failure::new(
            Exit::ToolError,
            "the server answered resources/read with error",
        )
        .rpc(&rpc);
        assert_eq!(
            f.envelope(),
            json!({"error": {"kind": "jsonrpc", "code": -32602, "message": "bad uri", "data": {"uri": "x"}}})
        );
        // The tail is its own field; the hint reaches both messages, before the tail.
        let f = Failure::new(
            Exit::Connect,
            "gone\nthe server's last stderr lines:\n    boom",
        )
        .kind(Kind::Timeout)
        .tail("gone".into(), &["boom".to_string()])
        .hint("; raise --timeout");
        assert_eq!(
            f.envelope(),
            json!({"error": {"kind": "timeout", "message": "gone; raise --timeout", "stderrTail": ["boom"]}})
        );
        assert!(
            f.message.starts_with("gone; raise --timeout\n"),
            "{}",
            f.message
        );
        assert!(f.message.ends_with("    boom"), "{}", f.message);
        // By exit code when no kind is named; none after an answer.
        assert_eq!(Failure::new(Exit::Connect, "x").json_kind(), Kind::Connect);
        assert!(!Failure::new(Exit::Connect, "x").answered().wants_envelope());
    }
}
