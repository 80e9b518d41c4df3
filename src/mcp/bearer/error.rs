//! How a login fails, and the trace of what was tried on the way.

use std::fmt;

/// One step of discovery or login: a URL tried, its answer, what was
/// concluded. Shown when a login fails (and on the TUI's login screen).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceStep {
    /// `GET`, `POST`, or `-` for a conclusion without a request.
    pub method: &'static str,
    /// The URL as it may be shown (secrets masked).
    pub url: String,
    /// The HTTP status, when there was an answer.
    pub status: Option<u16>,
    /// What was concluded, in words.
    pub note: String,
}

impl fmt::Display for TraceStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let status = match self.status {
            Some(s) => s.to_string(),
            None => "---".into(),
        };
        if self.method == "-" {
            write!(f, "  {}", self.note)
        } else {
            write!(
                f,
                "  {} {} -> {status}: {}",
                self.method, self.url, self.note
            )
        }
    }
}

/// The steps of one discovery or login, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trace {
    pub steps: Vec<TraceStep>,
}

impl Trace {
    pub fn push(
        &mut self,
        method: &'static str,
        url: &str,
        status: Option<u16>,
        note: impl Into<String>,
    ) {
        self.steps.push(TraceStep {
            method,
            url: crate::mcp::netlog::shown_url(url),
            status,
            note: crate::sanitize::one_line(&note.into()),
        });
    }

    /// A conclusion without a request.
    pub fn note(&mut self, note: impl Into<String>) {
        self.steps.push(TraceStep {
            method: "-",
            url: String::new(),
            status: None,
            note: crate::sanitize::one_line(&note.into()),
        });
    }

    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
}

impl fmt::Display for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.steps.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{s}")?;
        }
        Ok(())
    }
}

/// What kind of login failure this is (the CLI maps them to exit codes,
/// the TUI to what it offers next).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthErrorKind {
    /// The metadata could not be found or read.
    Discovery,
    /// The protected resource metadata names another resource.
    ResourceMismatch,
    /// No client identity: registration failed or is not offered.
    Registration,
    /// The person (or the server) refused: `error=access_denied`.
    Denied,
    /// The callback did not come in time.
    Timeout,
    /// The login was cancelled.
    Cancelled,
    /// The token endpoint refused or failed.
    Token,
    /// A login is needed and no person may be asked here.
    NeedsLogin,
    /// The server keeps asking for more scope.
    StepUpLimit,
    /// The settings cannot be used (a bad URL, an unreadable key file).
    Config,
    /// The credential store failed.
    Store,
}

/// A login failure: a one-line message that says what to do, and the trace
/// of what was tried. Never holds a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthError {
    pub kind: AuthErrorKind,
    pub message: String,
    pub trace: Trace,
    /// For [`AuthErrorKind::NeedsLogin`] after a step-up challenge: the
    /// scopes a login should ask for (what the token has, and what the
    /// server asked for); empty when the defaults will do.
    pub scopes: Vec<String>,
}

impl AuthError {
    pub fn new(kind: AuthErrorKind, message: impl Into<String>) -> Self {
        AuthError {
            kind,
            message: crate::sanitize::one_line(&message.into()),
            trace: Trace::default(),
            scopes: Vec::new(),
        }
    }

    /// With the scopes a login should ask for.
    pub fn with_scopes(mut self, scopes: &[String]) -> Self {
        self.scopes = scopes.to_vec();
        self
    }

    pub fn with_trace(mut self, trace: &Trace) -> Self {
        self.trace = trace.clone();
        self
    }

    /// Whether the login found any OAuth metadata (the resource's, or an
    /// authorization server's) answered with success: the server offers
    /// OAuth, and the error says why the login failed.
    pub fn found_oauth_metadata(&self) -> bool {
        self.trace.steps.iter().any(|step| {
            [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-authorization-server",
                "/.well-known/openid-configuration",
            ]
            .iter()
            .any(|w| step.url.contains(w))
                && step.status.is_some_and(|c| (200..300).contains(&c))
        })
    }

    /// The status of the login's unauthenticated probe of the server (a
    /// POST answered without a challenge), when there was one.
    pub fn unchallenged_probe(&self) -> Option<u16> {
        self.trace
            .steps
            .iter()
            .find(|step| step.method == "POST" && step.note == "no challenge")
            .and_then(|step| step.status)
    }

    /// The message followed by the trace, for a terminal.
    pub fn report(&self) -> String {
        if self.trace.is_empty() {
            self.message.clone()
        } else {
            format!("{}\ndiscovery trace:\n{}", self.message, self.trace)
        }
    }
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for AuthError {}
