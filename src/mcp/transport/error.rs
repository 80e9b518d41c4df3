//! How a transport fails: an HTTP exchange that brought no answer, or a
//! connection that can no longer send.

/// Why an HTTP exchange did not bring an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpFailure {
    /// The HTTP status, when the server answered at all.
    pub status: Option<u16>,
    /// A message for a person, naming the URL.
    pub message: String,
    /// The body (bounded), when there was one.
    pub body: Option<String>,
    /// The session id the server no longer knows (404 with a session).
    pub session_expired: Option<String>,
    pub www_authenticate: Option<String>,
    /// A 2xx JSON body that was not the response to the request.
    pub not_a_response: bool,
}

impl HttpFailure {
    pub fn new(status: Option<u16>, message: String) -> Self {
        HttpFailure {
            status,
            message,
            body: None,
            session_expired: None,
            www_authenticate: None,
            not_a_response: false,
        }
    }

    /// 401 or 403: the server wants credentials.
    pub fn needs_auth(&self) -> bool {
        matches!(self.status, Some(401 | 403))
    }

    /// The answer of an endpoint that does not speak this era or transport
    /// (400/404/405 with no usable JSON-RPC error, or a body that is no
    /// response).
    pub fn refused(&self) -> bool {
        self.session_expired.is_none()
            && (matches!(self.status, Some(400 | 404 | 405)) || self.not_a_response)
    }
}

/// The transport can no longer send.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct TransportClosed(pub String);
