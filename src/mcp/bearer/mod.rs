//! Bearer authorization of HTTP requests: what the transports and the
//! OAuth engine share, in a module below both.
//!
//! The layers, lowest first: this module; the transports
//! ([`crate::mcp::transport`]), whose HTTP layer sends a bearer token when
//! it has one and, when the server answers 401 or 403
//! `insufficient_scope`, asks whoever authorizes its requests to do
//! something about it; then the OAuth engine ([`crate::mcp::auth`]), which
//! does it (discovery, registration, token requests, refresh, logins) with
//! the transport's HTTP helpers. The transport names no part of the
//! engine: it holds an [`Authorize`], which the engine's `Authorizer`
//! implements, and the manager hands one to it.
//!
//! - [`Authorize`]: what the HTTP transport asks of an authorizer;
//! - [`challenge`]: `WWW-Authenticate` parsing ([`BearerChallenge`]);
//! - [`secret`]: a string that never shows ([`Secret`]);
//! - [`error`]: why authorizing failed ([`AuthError`]), with the trace of
//!   what was tried; it travels up inside the transport's `HttpFailure`.

pub mod challenge;
pub mod error;
pub mod secret;

use std::sync::Arc;

use futures_util::future::BoxFuture;

use crate::mcp::netlog::NetLog;

pub use challenge::BearerChallenge;
pub use error::{AuthError, AuthErrorKind, Trace, TraceStep};
pub use secret::Secret;

/// What authorizes one request: `Authorization: Bearer TOKEN`, or for a
/// DPoP-bound token `Authorization: DPoP TOKEN` with a fresh `DPoP` proof.
#[derive(Debug, Clone)]
pub struct Credentials {
    pub token: Secret,
    /// The DPoP proof for this request (RFC 9449 §7.1); `None`: Bearer.
    pub proof: Option<Secret>,
}

impl Credentials {
    /// The `Authorization` scheme.
    pub fn scheme(&self) -> &'static str {
        if self.proof.is_some() {
            "DPoP"
        } else {
            "Bearer"
        }
    }
}

/// Whoever authorizes one server's HTTP requests (the OAuth engine's
/// `Authorizer`). The transport calls it before a request, for the token
/// to send, and after an answer that asks for authorization; `Ok` from
/// either of the latter means: send the request again with the (new)
/// [`Authorize::bearer`].
pub trait Authorize: Send + Sync + std::fmt::Debug {
    /// The access token to send, if there is one.
    fn bearer(&self) -> Option<Secret>;

    /// What authorizes a `method` request to `url`: the token, and a DPoP
    /// proof made for this request when the token is bound to a key.
    fn credentials(&self, method: &str, url: &str) -> Option<Credentials> {
        let _ = (method, url);
        self.bearer()
            .map(|token| Credentials { token, proof: None })
    }

    /// The MCP server handed out a DPoP nonce (a `DPoP-Nonce` header): the
    /// next proofs carry it.
    fn dpop_nonce(&self, nonce: &str) {
        let _ = nonce;
    }

    /// Before a request: renew a token that is about to expire (failures
    /// are the next answer's to show).
    fn fresh(&self) -> BoxFuture<'_, ()>;

    /// A request that carried `sent` was answered 401 with `challenge`.
    fn unauthorized<'a>(
        &'a self,
        sent: Option<&'a Secret>,
        challenge: &'a BearerChallenge,
    ) -> BoxFuture<'a, Result<(), AuthError>>;

    /// A request was answered 403 `insufficient_scope`; `round` counts the
    /// authorizations already made for it.
    fn insufficient_scope<'a>(
        &'a self,
        challenge: &'a BearerChallenge,
        round: u32,
    ) -> BoxFuture<'a, Result<(), AuthError>>;

    /// Log the authorizer's own HTTP exchanges in this network log (the
    /// transport's), beside the requests they authorize.
    fn attach(&self, net: Arc<NetLog>);
}
