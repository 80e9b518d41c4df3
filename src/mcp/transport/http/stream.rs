//! The initialize era's GET stream for server-initiated messages, resumed
//! with `Last-Event-ID` after the server's `retry`; DELETE on close.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use reqwest::header::HeaderValue;

use crate::mcp::finding::Severity;
use crate::mcp::netlog::ExchangeHandle;
use crate::mcp::transport::error::HttpFailure;
use crate::mcp::transport::sse_parse::SseParser;

use super::client::*;
use super::shared::*;

impl Shared {
    /// GET the endpoint as an event stream (`Last-Event-ID` when resuming).
    pub(super) async fn get(
        &self,
        last_event_id: Option<&str>,
        label: &str,
    ) -> Result<(reqwest::Response, ExchangeHandle), HttpFailure> {
        let mut rounds = AuthRounds::default();
        loop {
            let mut headers = self.base_headers("GET", None);
            let sent_token = Self::sent_token(&headers);
            headers.insert(
                reqwest::header::ACCEPT,
                HeaderValue::from_static("text/event-stream"),
            );
            if let Some(last) = last_event_id.and_then(|l| HeaderValue::from_str(l).ok()) {
                headers.insert("last-event-id", last);
            }
            let ex = self.net.begin(
                &self.name,
                "GET",
                self.shown_url.clone(),
                label.to_string(),
                Self::shown_headers(&headers),
            );
            let resp = match self
                .client
                .get(self.url.clone())
                .headers(headers)
                .send()
                .await
            {
                Ok(r) => r,
                Err(e) => {
                    let m = describe_send_error("GET", self.url.as_str(), &e);
                    ex.fail(m.clone());
                    return Err(HttpFailure::new(None, m));
                }
            };
            let status = resp.status();
            ex.response(status.as_u16(), Self::shown_headers(resp.headers()));
            self.note_dpop_nonce(resp.headers());
            let values = www_authenticate(resp.headers());
            if let Some(challenge) = self.auth_challenge(status.as_u16(), &values) {
                let _ = read_body(resp, MAX_ERROR_BODY, &ex).await;
                ex.finish();
                let what = format!("GET {}", self.shown_url);
                let code = status.as_u16();
                match self
                    .reauthorize(code, &challenge, sent_token.as_ref(), &mut rounds, &what)
                    .await
                {
                    Ok(()) => continue,
                    Err(e) => {
                        return Err(HttpFailure::unauthorized(
                            code,
                            self.url.as_str(),
                            e,
                            values,
                        ));
                    }
                }
            }
            if !status.is_success() {
                let text = read_body(resp, MAX_ERROR_BODY, &ex)
                    .await
                    .unwrap_or_default();
                ex.finish();
                let mut m = format!("GET {} answered {}", self.shown_url, status_text(status));
                if !text.trim().is_empty() {
                    m.push_str(&format!(": {}", excerpt(&text)));
                }
                return Err(HttpFailure::new(Some(status.as_u16()), m));
            }
            let ctype = content_type(resp.headers());
            if ctype != "text/event-stream" {
                ex.finish();
                return Err(HttpFailure::new(
                    Some(status.as_u16()),
                    format!(
                        "GET {} answered with Content-Type {ctype:?}, not text/event-stream",
                        self.shown_url
                    ),
                ));
            }
            return Ok((resp, ex));
        }
    }

    /// The server-initiated stream: open, read, and reopen after `retry`
    /// when it drops (with `Last-Event-ID`), until closed or refused.
    pub(super) async fn get_stream_loop(self: Arc<Self>) {
        let mut parser = SseParser::new();
        let mut quick_failures = 0u32;
        loop {
            if self.closed.load(Ordering::Acquire) {
                return;
            }
            let last = parser.last_event_id().map(str::to_string);
            let label = if last.is_some() {
                "GET stream (resumed)"
            } else {
                "GET stream"
            };
            let (resp, ex) = match self.get(last.as_deref(), label).await {
                Ok(r) => r,
                Err(f) => {
                    match f.status {
                        Some(405) => {} // not offered: fine
                        _ => {
                            self.finding(
                                Severity::Info,
                                format!("no stream for server-initiated messages: {}", f.message),
                                None,
                            )
                            .await
                        }
                    }
                    return;
                }
            };
            parser.new_connection();
            let before = parser.events();
            let started = tokio::time::Instant::now();
            let got = self.pump(resp, &mut parser, None, &ex).await;
            if self.closed.load(Ordering::Acquire) {
                return;
            }
            let progressed =
                parser.events() > before || started.elapsed() > Duration::from_secs(10);
            quick_failures = if progressed { 0 } else { quick_failures + 1 };
            if quick_failures > MAX_RESUMES {
                self.finding(
                    Severity::Warning,
                    format!(
                        "the server's GET stream at {} kept closing at once{}; stopped reopening it",
                        self.shown_url,
                        got.error.map(|e| format!(" ({e})")).unwrap_or_default()
                    ),
                    None,
                )
                .await;
                return;
            }
            let base = parser.retry().unwrap_or(DEFAULT_RETRY).min(MAX_RETRY);
            let backoff = base
                .saturating_mul(1 << quick_failures.min(5))
                .min(MAX_RETRY);
            tokio::time::sleep(if quick_failures == 0 { base } else { backoff }).await;
        }
    }

    pub(super) async fn delete_session(&self, sid: &str) {
        let mut headers = self.base_headers("DELETE", None);
        if let Ok(v) = HeaderValue::from_str(sid) {
            headers.insert("mcp-session-id", v);
        }
        let ex = self.net.begin(
            &self.name,
            "DELETE",
            self.shown_url.clone(),
            "end session".into(),
            Self::shown_headers(&headers),
        );
        let r = tokio::time::timeout(
            Duration::from_secs(2),
            self.client.delete(self.url.clone()).headers(headers).send(),
        )
        .await;
        match r {
            Ok(Ok(resp)) => {
                ex.response(resp.status().as_u16(), Self::shown_headers(resp.headers()));
                ex.finish();
            }
            Ok(Err(e)) => ex.fail(describe_send_error("DELETE", self.url.as_str(), &e)),
            Err(_) => ex.fail("no answer within 2 s".into()),
        }
    }
}
