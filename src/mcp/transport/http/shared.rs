//! The state one HTTP connection's tasks share, and the small helpers they
//! all use: headers for a request, handing items up, failing a request.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use crate::mcp::bearer::{AuthError, AuthErrorKind, Authorize, BearerChallenge, Secret};
use crate::mcp::finding::{Finding, Severity};
use crate::mcp::netlog::{NetLog, shown_header};
use crate::mcp::transport::error::HttpFailure;
use crate::mcp::transport::inbound::Inbound;
use crate::mcp::types::Era;

use super::outgoing::*;

/// The most bytes of a JSON answer body read (as for a stdio line).
pub(super) const MAX_BODY: usize = crate::mcp::transport::stdio::MAX_LINE;

/// The most bytes of an error body read for its excerpt.
pub(super) const MAX_ERROR_BODY: usize = 64 * 1024;

/// Characters of an error body shown in a message.
pub(super) const EXCERPT: usize = 300;

/// Resumptions of one dropped stream without progress before giving up.
pub(super) const MAX_RESUMES: u32 = 5;

/// Reconnection delay when the server gave no `retry`.
pub(super) const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// Longest `retry` honoured.
pub(super) const MAX_RETRY: Duration = Duration::from_secs(60);

#[derive(Default)]
pub(super) struct State {
    pub(super) session_id: Option<String>,
    /// The negotiated era and version, once known.
    pub(super) protocol: Option<(Era, String)>,
    pub(super) listening: bool,
}

pub(super) struct Shared {
    pub(super) name: Arc<str>,
    pub(super) client: reqwest::Client,
    pub(super) url: reqwest::Url,
    pub(super) shown_url: String,
    pub(super) user_headers: HeaderMap,
    pub(super) state: Mutex<State>,
    /// tool name -> (property, header suffix)
    pub(super) tool_headers: RwLock<HashMap<String, Vec<(String, String)>>>,
    pub(super) tx: mpsc::Sender<Inbound>,
    pub(super) net: Arc<NetLog>,
    /// In-flight request tasks, by JSON-RPC id (aborted on cancel).
    pub(super) requests: Mutex<HashMap<i64, AbortHandle>>,
    /// Other background tasks (the GET stream).
    pub(super) background: Mutex<Vec<AbortHandle>>,
    pub(super) closed: AtomicBool,
    /// How long a notification or response POST may take.
    pub(super) notify_timeout: Duration,
    /// Whoever authorizes requests (the OAuth engine; absent when the
    /// config sets `Authorization`).
    pub(super) auth: Option<Arc<dyn Authorize>>,
}

pub(super) struct Pumped {
    pub(super) answered: bool,
    pub(super) error: Option<String>,
}

/// How often one request has been authorized again: after a 401 (a
/// refresh or a new token) and for step-up on 403 insufficient_scope.
#[derive(Debug, Default)]
pub(super) struct AuthRounds {
    unauthorized: u32,
    step_ups: u32,
    /// Sent again with a new DPoP nonce (RFC 9449 §9).
    nonces: u32,
}

impl Shared {
    /// The challenge of an answer the OAuth engine will answer: a 401, or
    /// a 403 insufficient_scope, when the server has an authorizer.
    pub(super) fn auth_challenge(
        &self,
        code: u16,
        www_authenticate: &[String],
    ) -> Option<BearerChallenge> {
        self.auth.as_ref()?;
        let challenge = BearerChallenge::from_headers(www_authenticate);
        (code == 401 || (code == 403 && challenge.insufficient_scope())).then_some(challenge)
    }

    /// Authorize a request again after `code` with `challenge` (from
    /// [`Shared::auth_challenge`]): `Ok` when it may be sent again with the
    /// new token, else why not. `what` names the request for messages.
    pub(super) async fn reauthorize(
        &self,
        code: u16,
        challenge: &BearerChallenge,
        sent_token: Option<&Secret>,
        rounds: &mut AuthRounds,
        what: &str,
    ) -> Result<(), AuthError> {
        let Some(auth) = &self.auth else {
            return Err(AuthError::new(
                AuthErrorKind::Config,
                format!("{what} needs authorization and the server has no OAuth login"),
            ));
        };
        // The token is fine, the proof lacked the nonce the answer carried
        // (already handed to the authorizer): send again, twice at most.
        if code == 401 && challenge.use_dpop_nonce && rounds.nonces < 2 {
            rounds.nonces += 1;
            return Ok(());
        }
        if code == 403 {
            let r = auth.insufficient_scope(challenge, rounds.step_ups).await;
            rounds.step_ups += 1;
            return r;
        }
        if rounds.unauthorized >= 2 {
            return Err(AuthError::new(
                AuthErrorKind::Token,
                format!(
                    "{what} still answers 401 with a new token; the server does not accept what its authorization server issues"
                ),
            ));
        }
        rounds.unauthorized += 1;
        auth.unauthorized(sent_token, challenge).await
    }

    /// The access token a request carries, as sent (Bearer or DPoP).
    pub(super) fn sent_token(headers: &HeaderMap) -> Option<Secret> {
        headers
            .get(reqwest::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("DPoP "))
            })
            .map(Secret::new)
    }

    /// Hand a `DPoP-Nonce` an answer carries to the authorizer (RFC 9449
    /// §9: on a 401 asking for it, and on any other answer).
    pub(super) fn note_dpop_nonce(&self, headers: &HeaderMap) {
        if let (Some(auth), Some(n)) = (
            &self.auth,
            headers.get("dpop-nonce").and_then(|v| v.to_str().ok()),
        ) {
            auth.dpop_nonce(n);
        }
    }

    /// Abort every request and background task, and mark their open
    /// exchanges as ended.
    pub(super) fn stop_tasks(&self) {
        for (_, h) in self
            .requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
        {
            h.abort();
        }
        for h in self
            .background
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
        {
            h.abort();
        }
        self.net.finish_open(&self.name, "closed");
    }

    /// The headers of a `method` request: the user's, the credentials,
    /// the session and version, and for `out` the standard headers.
    pub(super) fn base_headers(&self, method: &str, out: Option<&Outgoing>) -> HeaderMap {
        let mut h = self.user_headers.clone();
        if let Some(c) = self
            .auth
            .as_ref()
            .and_then(|a| a.credentials(method, self.url.as_str()))
            && let Ok(mut v) =
                HeaderValue::from_str(&format!("{} {}", c.scheme(), c.token.expose()))
        {
            v.set_sensitive(true);
            h.insert(reqwest::header::AUTHORIZATION, v);
            if let Some(proof) = c.proof
                && let Ok(mut p) = HeaderValue::from_str(proof.expose())
            {
                p.set_sensitive(true);
                h.insert("dpop", p);
            }
        }
        let st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(sid) = &st.session_id
            && let Ok(v) = HeaderValue::from_str(sid)
        {
            h.insert("mcp-session-id", v);
        }
        let stateless = out.and_then(|o| o.stateless_version.clone());
        let version = match (&stateless, &st.protocol) {
            (Some(v), _) => Some(v.clone()),
            (None, Some((_, v)))
                if out.is_none_or(|o| o.method.as_deref() != Some("initialize")) =>
            {
                Some(v.clone())
            }
            _ => None,
        };
        drop(st);
        if let Some(v) = version.and_then(|v| HeaderValue::from_str(&v).ok()) {
            h.insert("mcp-protocol-version", v);
        }
        if let (Some(o), Some(_)) = (out, &stateless) {
            if let Some(m) = o
                .method
                .as_deref()
                .and_then(|m| HeaderValue::from_str(m).ok())
            {
                h.insert("mcp-method", m);
            }
            let named = matches!(
                o.method.as_deref(),
                Some("tools/call" | "resources/read" | "prompts/get")
            );
            if named
                && let Some(n) = o
                    .name
                    .as_ref()
                    .and_then(|n| header_param(&Value::String(n.clone())))
                && let Ok(v) = HeaderValue::from_str(&n)
            {
                h.insert("mcp-name", v);
            }
            if o.method.as_deref() == Some("tools/call")
                && let (Some(tool), Some(Value::Object(args))) = (&o.name, &o.arguments)
            {
                let map = self.tool_headers.read().unwrap_or_else(|p| p.into_inner());
                for (prop, suffix) in map.get(tool).map(Vec::as_slice).unwrap_or_default() {
                    if let Some(val) = args.get(prop).and_then(header_param)
                        && let Ok(name) =
                            HeaderName::from_bytes(format!("mcp-param-{suffix}").as_bytes())
                        && let Ok(v) = HeaderValue::from_str(&val)
                    {
                        h.insert(name, v);
                    }
                }
            }
        }
        h
    }

    pub(super) fn shown_headers(h: &HeaderMap) -> Vec<(String, String)> {
        h.iter()
            .map(|(k, v)| shown_header(k.as_str(), &String::from_utf8_lossy(v.as_bytes())))
            .collect()
    }

    pub(super) async fn deliver(&self, item: Inbound) {
        let _ = self.tx.send(item).await;
    }

    pub(super) async fn finding(&self, severity: Severity, message: String, raw: Option<&str>) {
        let f = match raw {
            Some(r) => Finding::frame(severity, message, r),
            None => Finding::new(severity, message),
        };
        self.deliver(Inbound::Finding(f)).await;
    }

    pub(super) async fn fail(&self, id: Option<i64>, failure: HttpFailure) {
        match id {
            Some(id) => self.deliver(Inbound::Failed { id, failure }).await,
            None => {
                self.finding(Severity::Warning, failure.message, failure.body.as_deref())
                    .await
            }
        }
    }
}
