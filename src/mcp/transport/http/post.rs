//! One POST per message: its JSON or SSE answer, the session id of a
//! successful initialize, and HTTP errors turned into clear failures.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use futures_util::StreamExt;
use reqwest::header::HeaderValue;
use serde_json::Value;

use crate::mcp::bearer::Secret;
use crate::mcp::finding::Severity;
use crate::mcp::netlog::{ExchangeHandle, shown_url};
use crate::mcp::transport::error::HttpFailure;
use crate::mcp::transport::inbound::Inbound;
use crate::mcp::transport::sse_parse::{SseItem, SseParser};
use crate::mcp::types::Era;

use super::client::*;
use super::outgoing::*;
use super::shared::*;

impl Shared {
    /// POST one message and hand up whatever comes back.
    pub(super) async fn post(self: &Arc<Self>, body: String, out: Outgoing) {
        let body = bytes::Bytes::from(body);
        // Authorizations for this request: after a 401 (refresh or a new
        // token) and for step-up on 403 insufficient_scope.
        let mut rounds = AuthRounds::default();
        let (resp, ex, sent_session) = loop {
            if let Some(auth) = &self.auth {
                auth.fresh().await;
            }
            let (resp, ex, sent_session, sent_token) = match self.send_post(&body, &out).await {
                Some(r) => r,
                None => return,
            };
            let code = resp.status().as_u16();
            self.note_dpop_nonce(resp.headers());
            let values = www_authenticate(resp.headers());
            let Some(challenge) = self.auth_challenge(code, &values) else {
                break (resp, ex, sent_session);
            };
            let _ = read_body(resp, MAX_ERROR_BODY, &ex).await;
            ex.finish();
            let what = format!("POST {} to {}", self.shown_url, out.label());
            match self
                .reauthorize(code, &challenge, sent_token.as_ref(), &mut rounds, &what)
                .await
            {
                Ok(()) => ex.note(format!("HTTP {code}: authorized, sent again")),
                Err(e) => {
                    ex.note(format!("HTTP {code}: {}", e.message));
                    let f = HttpFailure::unauthorized(code, self.url.as_str(), e, values);
                    self.fail(out.id, f).await;
                    return;
                }
            }
        };
        let status = resp.status();
        if resp.url() != &self.url {
            ex.note(format!("redirected to {}", shown_url(resp.url().as_str())));
        }
        // Only a successful initialize starts a session (some servers put a
        // fresh id even on their 400 answers).
        if status.is_success()
            && let Some(sid) = resp
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
        {
            self.adopt_session(sid, &out).await;
        }
        if !status.is_success() {
            self.error_status(resp, &out, sent_session, &ex).await;
            return;
        }
        let ctype = content_type(resp.headers());
        if out.id.is_none() {
            // A notification or a response: 202 (or any 2xx) is all we
            // need. A short JSON body is drained (so the connection can be
            // reused); an event stream is not read at all.
            if ctype != "text/event-stream" {
                let _ = tokio::time::timeout(
                    Duration::from_secs(5),
                    read_body(resp, MAX_ERROR_BODY, &ex),
                )
                .await;
            }
            ex.finish();
            return;
        }
        match ctype.as_str() {
            "text/event-stream" => {
                self.read_stream(resp, out.id, &ex).await;
            }
            "application/json" => self.read_json(resp, &out, status, &ex).await,
            _ => {
                let text = read_body(resp, MAX_ERROR_BODY, &ex)
                    .await
                    .unwrap_or_default();
                ex.finish();
                let m = if status.as_u16() == 202 || text.trim().is_empty() {
                    format!(
                        "POST {} answered {} with no response to {} (a request needs a JSON body or an event stream)",
                        self.shown_url,
                        status_text(status),
                        out.label()
                    )
                } else {
                    format!(
                        "POST {} answered {} with Content-Type {:?}, not application/json or text/event-stream: {}",
                        self.shown_url,
                        status_text(status),
                        ctype,
                        excerpt(&text)
                    )
                };
                let mut f = HttpFailure::new(Some(status.as_u16()), m);
                f.body = Some(text);
                self.fail(out.id, f).await;
            }
        }
    }

    /// One POST of `body`; `None` when it failed to send (reported).
    async fn send_post(
        self: &Arc<Self>,
        body: &bytes::Bytes,
        out: &Outgoing,
    ) -> Option<(
        reqwest::Response,
        ExchangeHandle,
        Option<String>,
        Option<Secret>,
    )> {
        let mut headers = self.base_headers("POST", Some(out));
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(
            reqwest::header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
        let sent_session = headers
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let sent_token = Self::sent_token(&headers);
        let ex = self.net.begin(
            &self.name,
            "POST",
            self.shown_url.clone(),
            out.label(),
            Self::shown_headers(&headers),
        );
        let resp = self
            .client
            .post(self.url.clone())
            .headers(headers)
            .body(body.clone())
            .send()
            .await;
        match resp {
            Ok(r) => {
                ex.response(r.status().as_u16(), Self::shown_headers(r.headers()));
                Some((r, ex, sent_session, sent_token))
            }
            Err(e) => {
                let message = describe_send_error("POST", self.url.as_str(), &e);
                ex.fail(message.clone());
                let mut failure = HttpFailure::new(None, message);
                // A connect error: the server is gone. Another failure
                // before any answer (a pooled connection the server closed
                // as it died, a reset) may be a dead server or a passing
                // fault: a fresh connection tells which.
                failure.unreachable =
                    e.is_connect() || (!e.is_timeout() && self.cannot_reach().await);
                self.fail(out.id, failure).await;
                None
            }
        }
    }

    /// Whether the server cannot be reached on a fresh connection: a `HEAD`
    /// of the endpoint, without credentials, for at most 5 s. Any HTTP answer
    /// (a 405, a 401) means the server is there; a timeout says nothing; no
    /// connection, or one closed with no answer (a dying server's listener
    /// can still take a connection it then resets), means it is not. Shown
    /// in the network view.
    async fn cannot_reach(self: &Arc<Self>) -> bool {
        let ex = self.net.begin(
            &self.name,
            "HEAD",
            self.shown_url.clone(),
            "reachability check".to_string(),
            Vec::new(),
        );
        let resp = self
            .client
            .head(self.url.clone())
            .timeout(Duration::from_secs(5))
            .send()
            .await;
        match resp {
            Ok(r) => {
                ex.response(r.status().as_u16(), Self::shown_headers(r.headers()));
                ex.finish();
                false
            }
            Err(e) => {
                ex.fail(describe_send_error("HEAD", self.url.as_str(), &e));
                e.is_connect() || !(e.is_timeout() || e.is_redirect() || e.is_builder())
            }
        }
    }

    pub(super) async fn adopt_session(&self, sid: &str, out: &Outgoing) {
        let differs = {
            let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
            if out.method.as_deref() == Some("initialize") {
                st.session_id = Some(sid.to_string());
                None
            } else {
                match &st.session_id {
                    Some(old) if old != sid => Some(old.clone()),
                    _ => None,
                }
            }
        };
        if let Some(old) = differs {
            self.finding(
                Severity::Warning,
                format!(
                    "the server answered {} with a different Mcp-Session-Id ({sid:?}; the session is {old:?}); kept the session",
                    out.label()
                ),
                None,
            )
            .await;
        }
    }

    pub(super) async fn error_status(
        &self,
        resp: reqwest::Response,
        out: &Outgoing,
        sent_session: Option<String>,
        ex: &ExchangeHandle,
    ) {
        let status = resp.status();
        let challenges = www_authenticate(resp.headers());
        let www = (!challenges.is_empty()).then(|| challenges.join(", "));
        let text = read_body(resp, MAX_ERROR_BODY, ex)
            .await
            .unwrap_or_default();
        ex.finish();
        let code = status.as_u16();
        // 404 is the spec's answer to a session the server no longer
        // knows; some servers (the TypeScript SDK's examples) answer 400
        // "No valid session ID" instead: the same loss.
        // A 400 whose JSON-RPC error answers this very request is that
        // request's answer, whatever its words.
        let answers_this = out.id.is_some_and(|id| {
            serde_json::from_str::<Value>(&text).is_ok_and(|v| {
                v.get("id").and_then(Value::as_i64) == Some(id) && v.get("error").is_some()
            })
        });
        let session_expired = sent_session.is_some()
            && (code == 404 || (code == 400 && !answers_this && lost_session_text(&text)));
        // A JSON-RPC error that answers this very request is a real answer
        // (stateless servers send modern errors with HTTP 4xx), except a
        // 404 to a session, which always means a new session is needed.
        if let Some(id) = out.id
            && !session_expired
            && let Ok(v) = serde_json::from_str::<Value>(&text)
            && v.get("id").and_then(Value::as_i64) == Some(id)
            && v.get("error").is_some()
        {
            self.deliver(Inbound::Line(text)).await;
            return;
        }
        let mut message = format!(
            "POST {} answered {} to {}",
            self.shown_url,
            status_text(status),
            out.label()
        );
        if session_expired {
            message.push_str(" (the server no longer knows the session)");
        }
        if let Some(w) = &www {
            message.push_str(&format!(
                "; WWW-Authenticate: {}",
                crate::sanitize::one_line(w)
            ));
        }
        if !text.trim().is_empty() {
            message.push_str(&format!(": {}", excerpt(&text)));
        }
        if status.is_redirection() {
            message.push_str(
                "; the redirect leads to another origin and was not followed, so that the configured secret headers stay with the server they are meant for: point `url` at the new location",
            );
        }
        if matches!(code, 401 | 403) {
            let oauth = self.auth.as_ref().is_some_and(|a| a.bearer().is_some());
            message.push_str(if code == 403 && oauth {
                // Not insufficient_scope (that is handled above): the token
                // is good, the account may not do this.
                "; the server refuses this with the OAuth token it was sent (not a scope problem it names): the account may lack access, or `mcpdeck auth logout` then `auth login` as another account"
            } else if self.auth.is_some() {
                "; the server needs authorization: log in (`mcpdeck auth login SERVER`, or the login key in the TUI), or put credentials under `headers`"
            } else {
                "; the server needs authorization: add the credentials under `headers` (e.g. Authorization = \"Bearer ${TOKEN}\")"
            });
        }
        let mut f = HttpFailure::new(Some(code), message);
        f.session_expired = session_expired.then(|| sent_session.unwrap_or_default());
        f.body = (!text.is_empty()).then_some(text);
        f.www_authenticate = challenges;
        f.url = Some(self.url.to_string());
        self.fail(out.id, f).await;
    }

    /// An `application/json` answer: one message, read whole. A server
    /// that writes several messages a line each (newline-delimited, as on
    /// stdio: some stream a `subscriptions/listen` or a call this way) has
    /// each delivered as its line comes, and is told of.
    async fn read_json(
        &self,
        resp: reqwest::Response,
        out: &Outgoing,
        status: reqwest::StatusCode,
        ex: &ExchangeHandle,
    ) {
        let id = out.id.unwrap_or_default();
        let mut body = resp.bytes_stream();
        let mut buf: Vec<u8> = Vec::new();
        // Whether the first line is a message of its own (then the body is
        // newline-delimited); `None` until the first line ends.
        let mut by_lines: Option<bool> = None;
        let (mut delivered, mut answered) = (0usize, false);
        let mut broke = None;
        // How much of `buf` holds no newline (searched once only: a large
        // body of one line costs one pass, not one per chunk).
        let mut scanned = 0usize;
        while let Some(chunk) = body.next().await {
            let chunk = match chunk {
                Ok(c) => c,
                Err(e) => {
                    broke = Some(format!("the body broke off: {}", root_cause(&e)));
                    break;
                }
            };
            ex.add_bytes(chunk.len(), 0);
            if buf.len() + chunk.len() > MAX_BODY {
                broke = Some(format!(
                    "the body is larger than {} MiB",
                    MAX_BODY / (1024 * 1024)
                ));
                break;
            }
            buf.extend_from_slice(&chunk);
            if by_lines == Some(false) {
                continue;
            }
            while let Some(nl) = memchr::memchr(b'\n', &buf[scanned..]).map(|i| scanned + i) {
                scanned = 0;
                let line: Vec<u8> = buf.drain(..=nl).collect();
                let line = String::from_utf8_lossy(&line).trim().to_string();
                if by_lines.is_none() {
                    let alone = serde_json::from_str::<Value>(&line).is_ok_and(|v| v.is_object());
                    if !alone {
                        // One message over several lines: read it whole.
                        let mut rest = line.into_bytes();
                        rest.push(b'\n');
                        rest.append(&mut buf);
                        buf = rest;
                        by_lines = Some(false);
                        break;
                    }
                    by_lines = Some(true);
                }
                if line.is_empty() {
                    continue;
                }
                self.json_line(line, id, &mut delivered, &mut answered, out, status)
                    .await;
            }
            scanned = buf.len();
        }
        if by_lines == Some(true) {
            let rest = String::from_utf8_lossy(&buf).trim().to_string();
            if !rest.is_empty() && broke.is_none() {
                self.json_line(rest, id, &mut delivered, &mut answered, out, status)
                    .await;
            }
            match broke {
                Some(m) if !answered => {
                    ex.fail(m.clone());
                    self.fail(out.id, HttpFailure::new(Some(status.as_u16()), m))
                        .await;
                }
                _ => {
                    ex.finish();
                    if !answered {
                        let m = format!(
                            "POST {} answered {} to request {id} ({}) with JSON lines, none of them its response",
                            self.shown_url,
                            status_text(status),
                            out.label(),
                        );
                        let mut f = HttpFailure::new(Some(status.as_u16()), m);
                        f.not_a_response = true;
                        self.fail(out.id, f).await;
                    }
                }
            }
            return;
        }
        let text: Result<String, crate::mcp::transport::BodyError> = match broke {
            Some(m) => Err(crate::mcp::transport::BodyError(m)),
            None => Ok(match String::from_utf8(buf) {
                Ok(s) => s,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            }),
        };
        match text {
            Ok(text) => {
                ex.finish();
                let id = out.id.unwrap_or_default();
                let answers = answers_request(&text, id) || batch_answers(&text, id);
                if !answers {
                    let m = format!(
                        "POST {} answered {} to request {id} ({}) with a JSON body that is not its response: {}",
                        self.shown_url,
                        status_text(status),
                        out.label(),
                        excerpt(&text)
                    );
                    let mut f = HttpFailure::new(Some(status.as_u16()), m);
                    f.not_a_response = true;
                    f.body = Some(text);
                    self.fail(out.id, f).await;
                } else {
                    self.deliver_json(text).await;
                }
            }
            Err(m) => {
                ex.fail(m.to_string());
                self.fail(out.id, HttpFailure::new(Some(status.as_u16()), m.0))
                    .await;
            }
        }
    }

    /// One line of a newline-delimited JSON body: delivered if it is a
    /// message (the second one makes the finding), else a finding.
    async fn json_line(
        &self,
        line: String,
        id: i64,
        delivered: &mut usize,
        answered: &mut bool,
        out: &Outgoing,
        status: reqwest::StatusCode,
    ) {
        if !serde_json::from_str::<Value>(&line).is_ok_and(|v| v.is_object()) {
            self.finding(
                Severity::Warning,
                format!(
                    "POST {} answered {} ({}) with a line that is not a JSON message in its newline-delimited application/json body; skipped",
                    self.shown_url,
                    out.label(),
                    status_text(status)
                ),
                Some(&line),
            )
            .await;
            return;
        }
        *delivered += 1;
        if *delivered == 2 {
            self.finding(
                Severity::Warning,
                format!(
                    "POST {} answered {} ({}) with several JSON messages, a line each, in one application/json body; a JSON body holds the one response (send the others as an event stream, text/event-stream)",
                    self.shown_url,
                    out.label(),
                    status_text(status)
                ),
                None,
            )
            .await;
        }
        *answered |= answers_request(&line, id);
        self.deliver_json(line).await;
    }

    pub(super) async fn deliver_json(&self, text: String) {
        self.deliver(Inbound::Line(text)).await;
    }

    /// Read an event stream; resume it with `Last-Event-ID` when it drops
    /// before the answer to `want` arrived.
    pub(super) async fn read_stream(
        self: &Arc<Self>,
        resp: reqwest::Response,
        want: Option<i64>,
        ex: &ExchangeHandle,
    ) {
        let mut parser = SseParser::new();
        let mut got = self.pump(resp, &mut parser, want, ex).await;
        let mut resumes = 0;
        while let (Some(id), false) = (want, got.answered) {
            if self.closed.load(Ordering::Acquire) {
                return;
            }
            let (stateful, session) = {
                let st = self.state.lock().unwrap_or_else(|p| p.into_inner());
                // The stateless era has no resumption.
                (
                    !matches!(st.protocol, Some((Era::Stateless, _))),
                    st.session_id.clone(),
                )
            };
            let Some(last) = parser.last_event_id().map(str::to_string) else {
                let m = format!(
                    "the event stream of {} ended before the response to request {id}{} and gave no event id to resume from",
                    self.shown_url,
                    got.error
                        .as_deref()
                        .map(|e| format!(" ({e})"))
                        .unwrap_or_default()
                );
                self.fail(Some(id), HttpFailure::new(None, m)).await;
                return;
            };
            resumes += 1;
            if resumes > MAX_RESUMES || !stateful {
                let m = format!(
                    "the event stream of {} ended before the response to request {id}; {}",
                    self.shown_url,
                    if stateful {
                        format!("gave up after {MAX_RESUMES} resumptions")
                    } else {
                        "the stateless era has no resumption".to_string()
                    }
                );
                self.fail(Some(id), HttpFailure::new(None, m)).await;
                return;
            }
            let wait = parser.retry().unwrap_or(DEFAULT_RETRY).min(MAX_RETRY);
            tokio::time::sleep(wait).await;
            let (resp, gex) = match self.get(Some(&last), "resume").await {
                Ok(r) => r,
                Err(mut f) => {
                    if f.status == Some(404) && session.is_some() {
                        f.session_expired = session;
                    }
                    self.fail(Some(id), f).await;
                    return;
                }
            };
            gex.note(format!("resumes request {id} with Last-Event-ID {last:?}"));
            parser.new_connection();
            let before = parser.events();
            got = self.pump(resp, &mut parser, want, &gex).await;
            if parser.events() > before {
                resumes = 0;
            }
        }
    }

    /// Read one event stream to its end, delivering messages.
    pub(super) async fn pump(
        &self,
        resp: reqwest::Response,
        parser: &mut SseParser,
        want: Option<i64>,
        ex: &ExchangeHandle,
    ) -> Pumped {
        let mut body = resp.bytes_stream();
        let mut items = Vec::new();
        let mut answered = false;
        let mut error = None;
        loop {
            let chunk = match body.next().await {
                Some(Ok(c)) => c,
                Some(Err(e)) => {
                    error = Some(root_cause(&e));
                    break;
                }
                None => break,
            };
            let before = parser.events();
            parser.feed(&chunk, &mut items);
            ex.add_bytes(chunk.len(), parser.events() - before);
            for item in items.drain(..) {
                answered |= self.stream_item(item, want).await;
            }
            if answered {
                // Our answer is in: the server should end the stream now.
                // Stop reading (a stream left open costs nothing to drop).
                break;
            }
        }
        if !answered {
            parser.finish(&mut items);
            for item in items.drain(..) {
                answered |= self.stream_item(item, want).await;
            }
        }
        match &error {
            Some(e) => ex.fail(format!("the stream broke: {e}")),
            None => ex.finish(),
        }
        Pumped { answered, error }
    }

    /// Deliver one SSE item; true when it is the answer to `want`.
    pub(super) async fn stream_item(&self, item: SseItem, want: Option<i64>) -> bool {
        match item {
            SseItem::Oddity(m) => {
                self.finding(Severity::Warning, format!("{}: {m}", self.shown_url), None)
                    .await;
                false
            }
            SseItem::Event { event, data, .. } => {
                if data.trim().is_empty() {
                    // A priming event (`id:` and `retry:` with empty data).
                    return false;
                }
                if event != "message" {
                    self.finding(
                        Severity::Warning,
                        format!(
                            "{}: an event of type {:?} (MCP sends `message` events); its data was read as a message",
                            self.shown_url,
                            crate::sanitize::one_line(&event)
                        ),
                        Some(&data),
                    )
                    .await;
                }
                let answers = want.is_some_and(|id| answers_request(&data, id));
                // On a request's stream: what the server sends there
                // belongs to that request (its elicitation, its sampling).
                match want {
                    Some(request) => {
                        self.deliver(Inbound::Related {
                            line: data,
                            request,
                        })
                        .await
                    }
                    None => self.deliver(Inbound::Line(data)).await,
                }
                answers
            }
        }
    }
}

/// A 400 body that says the session is not known (the TypeScript SDK's
/// "Bad Request: No valid session ID provided", and the like).
fn lost_session_text(body: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    lower.contains("session")
        && [
            "no valid",
            "invalid",
            "not found",
            "unknown",
            "expired",
            "missing",
        ]
        .iter()
        .any(|w| lower.contains(w))
}

#[cfg(test)]
mod lost_session_tests {
    use super::lost_session_text;

    #[test]
    fn a_400_that_names_a_lost_session() {
        assert!(lost_session_text(
            r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#
        ));
        assert!(lost_session_text("Session not found"));
        assert!(!lost_session_text(r#"{"error":"invalid params"}"#));
        assert!(!lost_session_text("Bad Request"));
    }
}
