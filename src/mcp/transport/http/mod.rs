//! Streamable HTTP (one endpoint; each message is a POST whose answer is a
//! JSON body or an SSE stream), for both protocol eras.
//!
//! - Initialize era: `Mcp-Session-Id` from the initialize answer goes on
//!   every later request, `MCP-Protocol-Version` once negotiated; an
//!   optional GET stream carries server-initiated messages (405 = not
//!   offered); a dropped stream is resumed with `Last-Event-ID` after the
//!   server's `retry`; the session is DELETEd on close.
//! - Stateless era: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
//!   `Mcp-Param-*` headers; no session, no GET, no DELETE.
//!
//! What the server sends is handed up as [`Inbound`] items; an HTTP-level
//! failure of a request becomes [`Inbound::Failed`] for that request's id.

mod client;
mod outgoing;
mod post;
mod shared;
mod spec;
mod stream;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use tokio::sync::mpsc;

use crate::mcp::finding::Severity;
use crate::mcp::netlog::{NetLog, shown_url};
use crate::mcp::transport::error::{OpenError, TransportClosed};
use crate::mcp::transport::inbound::Inbound;
use crate::mcp::types::Era;

pub use client::{
    client, content_type, describe_send_error, error_chain, excerpt, header_map, read_body,
    status_text, www_authenticate,
};
use outgoing::Outgoing;
pub use outgoing::{header_param, header_problem, param_headers};
use shared::{Shared, State};
pub use spec::{HttpKind, HttpSpec};

/// The sending half of a streamable HTTP connection.
pub struct HttpTransport {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for HttpTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpTransport")
            .field("url", &self.shared.shown_url)
            .finish()
    }
}

/// The receiving half of an HTTP transport (streamable or legacy).
#[derive(Debug)]
pub struct ChannelReader {
    rx: mpsc::Receiver<Inbound>,
    done: bool,
}

impl ChannelReader {
    pub fn new(rx: mpsc::Receiver<Inbound>) -> Self {
        ChannelReader { rx, done: false }
    }

    pub async fn next(&mut self) -> Option<Inbound> {
        if self.done {
            return None;
        }
        let item = self.rx.recv().await;
        match &item {
            Some(Inbound::Closed { .. }) => self.done = true,
            None => {
                self.done = true;
                return Some(Inbound::Closed {
                    description: "the connection closed".into(),
                    requested: true,
                    stderr_tail: Vec::new(),
                });
            }
            _ => {}
        }
        item
    }
}

impl Drop for HttpTransport {
    /// A session dropped without `close()` (an aborted connect) leaves no
    /// task behind: the GET stream and the requests stop.
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::Release);
        self.shared.stop_tasks();
    }
}

impl HttpTransport {
    pub fn open(
        spec: &HttpSpec,
        name: Arc<str>,
        net: Arc<NetLog>,
    ) -> Result<(HttpTransport, ChannelReader), OpenError> {
        let url = reqwest::Url::parse(&spec.url).map_err(|e| {
            OpenError::Config(format!(
                "`url` {:?} is not a valid URL: {e}",
                shown_url(&spec.url)
            ))
        })?;
        let client = client(spec)?;
        let user_headers = header_map(&spec.headers)?;
        let (tx, rx) = mpsc::channel(1024);
        let shared = Arc::new(Shared {
            name,
            client,
            shown_url: shown_url(url.as_str()),
            url,
            user_headers,
            state: Mutex::new(State::default()),
            tool_headers: RwLock::new(HashMap::new()),
            tx,
            net,
            requests: Mutex::new(HashMap::new()),
            background: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
            notify_timeout: spec.connect_timeout,
            auth: spec.auth.clone().filter(|_| {
                !spec
                    .headers
                    .iter()
                    .any(|(k, _)| k.eq_ignore_ascii_case("authorization"))
            }),
        });
        if let Some(a) = &shared.auth {
            a.attach(shared.net.clone());
        }
        Ok((HttpTransport { shared }, ChannelReader::new(rx)))
    }

    /// Send one frame (`line` may end with `\n`). Requests are posted in the
    /// background (their answers arrive on the reader); notifications and
    /// responses are posted before this returns, so order is kept.
    pub async fn send(&self, line: &str) -> Result<(), TransportClosed> {
        if self.shared.closed.load(Ordering::Acquire) {
            return Err(TransportClosed("the HTTP session was closed".into()));
        }
        let body = line.trim_end_matches('\n').to_string();
        let out = Outgoing::read(&body);
        match out.id {
            Some(id) => {
                let shared = self.shared.clone();
                // Held across the spawn, so the task's own removal comes
                // after the insertion even on a multi-thread runtime.
                let mut requests = self
                    .shared
                    .requests
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                let task = tokio::spawn(async move {
                    shared.post(body, out).await;
                    shared
                        .requests
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .remove(&id);
                });
                requests.insert(id, task.abort_handle());
            }
            None => {
                // Bounded: a server that never answers a notification must
                // not hold up the session (a re-initialize waits on this).
                let label = out.label();
                let limit = self.shared.notify_timeout;
                if tokio::time::timeout(limit, self.shared.post(body, out))
                    .await
                    .is_err()
                {
                    self.shared
                        .finding(
                            Severity::Warning,
                            format!(
                                "POST {}: no answer to {label} within {limit:?}; dropped",
                                self.shared.shown_url
                            ),
                            None,
                        )
                        .await;
                }
            }
        }
        Ok(())
    }

    /// The session learnt the era and version: later requests carry them.
    pub fn set_protocol(&self, era: Era, version: &str) {
        let mut st = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
        st.protocol = Some((era, version.to_string()));
    }

    /// The current `Mcp-Session-Id`, if any.
    pub fn session_id(&self) -> Option<String> {
        self.shared
            .state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .session_id
            .clone()
    }

    /// Forget an expired session id (if it is still the current one), so
    /// the next initialize starts a new session.
    pub fn reset_session(&self, expired: &str) -> bool {
        let mut st = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
        if st.session_id.as_deref() == Some(expired) {
            st.session_id = None;
            st.protocol = None;
            st.listening = false;
            drop(st);
            for h in self
                .shared
                .background
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .drain(..)
            {
                h.abort();
            }
            true
        } else {
            false
        }
    }

    /// Remember the `x-mcp-header` annotations of the tools.
    pub fn set_tool_headers(&self, tools: HashMap<String, Vec<(String, String)>>) {
        *self
            .shared
            .tool_headers
            .write()
            .unwrap_or_else(|p| p.into_inner()) = tools;
    }

    /// Stop waiting for a request: its POST (and stream) is dropped, which
    /// in the stateless era is how a request is cancelled.
    pub fn abort(&self, id: i64) {
        if let Some(h) = self
            .shared
            .requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id)
        {
            h.abort();
        }
    }

    /// Open the GET stream for server-initiated messages (initialize era;
    /// 405 means the server offers none, which is fine).
    pub fn listen(&self) {
        {
            let mut st = self.shared.state.lock().unwrap_or_else(|p| p.into_inner());
            if st.listening || !matches!(st.protocol, Some((Era::Initialize, _))) {
                return;
            }
            st.listening = true;
        }
        let shared = self.shared.clone();
        let task = tokio::spawn(async move { shared.get_stream_loop().await });
        self.shared
            .background
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(task.abort_handle());
    }

    /// Drop every stream, DELETE the session, and end the reader.
    pub async fn close(&self) {
        if self.shared.closed.swap(true, Ordering::AcqRel) {
            return;
        }
        self.shared.stop_tasks();
        let sid = self.session_id();
        if let Some(sid) = sid {
            self.shared.delete_session(&sid).await;
        }
        let _ = self
            .shared
            .tx
            .send(Inbound::Closed {
                description: format!("the HTTP session with {} was closed", self.shared.shown_url),
                requested: true,
                stderr_tail: Vec::new(),
            })
            .await;
    }
}

#[cfg(test)]
mod tests {
    use super::client::*;
    use super::outgoing::*;
    use serde_json::json;

    #[test]
    fn header_params_are_plain_or_base64() {
        assert_eq!(header_param(&json!("Oslo")).as_deref(), Some("Oslo"));
        assert_eq!(
            header_param(&json!("Zürich")).as_deref(),
            Some("=?base64?WsO8cmljaA==?=")
        );
        assert_eq!(
            header_param(&json!(" x")).as_deref(),
            Some("=?base64?IHg=?=")
        );
        assert_eq!(header_param(&json!(3)).as_deref(), Some("3"));
        assert_eq!(header_param(&json!(true)).as_deref(), Some("true"));
        assert_eq!(header_param(&json!({"a":1})), None);
    }

    #[test]
    fn x_mcp_header_annotations() {
        let schema = json!({"type":"object","properties":{
            "city":{"type":"string","x-mcp-header":"City"},
            "bad":{"type":"string","x-mcp-header":"no spaces allowed"},
            "plain":{"type":"string"}}});
        assert_eq!(param_headers(&schema), vec![("city".into(), "City".into())]);
        assert!(header_problem(&schema).is_some_and(|w| w.contains("`bad`")));
        let tool = |props: serde_json::Value| json!({"type": "object", "properties": props});
        let fine = tool(json!({
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            "query": {"type": "string"}}));
        assert_eq!(header_problem(&fine), None);
        for bad in [
            json!({"v": {"type": "string", "x-mcp-header": ""}}),
            json!({"v": {"type": "object", "x-mcp-header": "Data"}}),
            json!({"v": {"type": "array", "x-mcp-header": "Items"}}),
            json!({"v": {"type": "null", "x-mcp-header": "Nil"}}),
            json!({"v": {"type": "number", "x-mcp-header": "Score"}}),
            json!({"a": {"type": "string", "x-mcp-header": "Region"},
                   "b": {"type": "string", "x-mcp-header": "Region"}}),
            json!({"a": {"type": "string", "x-mcp-header": "MyField"},
                   "b": {"type": "string", "x-mcp-header": "myfield"}}),
            json!({"v": {"type": "string", "x-mcp-header": "My Region"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Region:Primary"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Région"}}),
            json!({"v": {"type": "string", "x-mcp-header": "Region\t1"}}),
            json!({"v": {"type": "string", "x-mcp-header": 7}}),
        ] {
            assert!(header_problem(&tool(bad.clone())).is_some(), "{bad}");
        }
    }

    #[test]
    fn answers_only_its_own_response() {
        assert!(answers_request(
            r#"{"jsonrpc":"2.0","id":3,"result":{}}"#,
            3
        ));
        assert!(answers_request(
            r#"{"jsonrpc":"2.0","id":"3","error":{"code":1,"message":"x"}}"#,
            3
        ));
        assert!(!answers_request(
            r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
            3
        ));
        assert!(!answers_request(
            r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
            3
        ));
        assert!(!answers_request("not json", 3));
    }

    #[test]
    fn excerpts_are_short_and_safe() {
        let e = excerpt(&format!("<html>\n\x1b[31m{}</html>", "x".repeat(1000)));
        assert!(e.chars().count() <= super::shared::EXCERPT + 1);
        assert!(!e.contains('\x1b'));
    }
}
