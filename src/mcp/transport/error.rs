//! How a transport fails: an HTTP exchange that brought no answer, or a
//! connection that can no longer send.

use crate::mcp::bearer::AuthError;
use crate::mcp::error::ErrorKind;

/// Why an HTTP exchange did not bring an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HttpFailure {
    /// The HTTP status, when the server answered at all.
    pub status: Option<u16>,
    /// A message for a person, naming the URL.
    pub message: String,
    /// The body (bounded), when there was one.
    pub body: Option<String>,
    /// The session id the server no longer knows (404 with a session).
    pub session_expired: Option<String>,
    /// Every `WWW-Authenticate` header of the answer, as sent.
    pub www_authenticate: Vec<String>,
    /// The URL the request went to (secrets intact: never shown; the
    /// message names the URL with secrets masked).
    pub url: Option<String>,
    /// A 2xx JSON body that was not the response to the request.
    pub not_a_response: bool,
    /// Why the OAuth engine could not authorize the request.
    pub auth: Option<Box<AuthError>>,
    /// The server could not be reached at all (the connection was refused
    /// or could not be made): a session's server is gone.
    pub unreachable: bool,
}

impl HttpFailure {
    pub fn new(status: Option<u16>, message: String) -> Self {
        HttpFailure {
            status,
            message,
            body: None,
            session_expired: None,
            www_authenticate: Vec::new(),
            url: None,
            not_a_response: false,
            auth: None,
            unreachable: false,
        }
    }

    /// A request the OAuth engine could not authorize.
    pub fn unauthorized(
        status: u16,
        url: &str,
        error: AuthError,
        www_authenticate: Vec<String>,
    ) -> Self {
        let mut f = HttpFailure::new(Some(status), error.message.clone());
        f.url = Some(url.to_string());
        f.www_authenticate = www_authenticate;
        f.auth = Some(Box::new(error));
        f
    }

    pub fn kind(&self) -> ErrorKind {
        if self.needs_auth() {
            ErrorKind::Auth
        } else {
            ErrorKind::Connect
        }
    }

    /// 401 or 403: the server wants credentials (or the login failed).
    pub fn needs_auth(&self) -> bool {
        matches!(self.status, Some(401 | 403)) || self.auth.is_some()
    }

    /// The answer of an endpoint that does not speak this era or transport
    /// (400/404/405 with no usable JSON-RPC error, or a body that is no
    /// response).
    pub fn refused(&self) -> bool {
        self.session_expired.is_none()
            && (matches!(self.status, Some(400 | 404 | 405)) || self.not_a_response)
    }
}

/// The transport can no longer send (the server went away).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct TransportClosed(pub String);

/// Why a transport could not be set up.
#[derive(Debug, Clone, thiserror::Error)]
pub enum OpenError {
    /// The server's settings cannot be used (a bad URL, an unreadable
    /// `ca_file`, a header HTTP refuses).
    #[error("{0}")]
    Config(String),
    /// The endpoint could not be reached, or did not answer as the
    /// transport needs.
    #[error("{}", .0.message)]
    Http(Box<HttpFailure>),
}

/// A body could not be read (it broke off, or is too large).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct BodyError(pub String);
