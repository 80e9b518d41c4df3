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

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use base64::Engine as _;
use futures_util::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::sse_parse::{SseItem, SseParser};
use super::{HttpFailure, Inbound, TransportClosed};
use crate::mcp::finding::{Finding, Severity};
use crate::mcp::netlog::{ExchangeHandle, NetLog, shown_header, shown_url};
use crate::mcp::types::Era;

/// The most bytes of a JSON answer body read (as for a stdio line).
const MAX_BODY: usize = super::stdio::MAX_LINE;
/// The most bytes of an error body read for its excerpt.
const MAX_ERROR_BODY: usize = 64 * 1024;
/// Characters of an error body shown in a message.
const EXCERPT: usize = 300;
/// Resumptions of one dropped stream without progress before giving up.
const MAX_RESUMES: u32 = 5;
/// Reconnection delay when the server gave no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_secs(1);
/// Longest `retry` honoured.
const MAX_RETRY: Duration = Duration::from_secs(60);

/// Which HTTP transport to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HttpKind {
    /// Streamable HTTP, falling back to legacy HTTP+SSE when the endpoint
    /// refuses both eras.
    #[default]
    Auto,
    StreamableHttp,
    Sse,
}

/// Everything needed to reach an HTTP server.
#[derive(Debug, Clone)]
pub struct HttpSpec {
    pub url: String,
    /// Extra headers from the config (values may be secrets).
    pub headers: Vec<(String, String)>,
    pub kind: HttpKind,
    /// A PEM file of extra trusted CA certificates.
    pub ca_file: Option<PathBuf>,
    /// Skip TLS certificate verification.
    pub insecure: bool,
    /// Time allowed to open a TCP + TLS connection.
    pub connect_timeout: Duration,
}

impl HttpSpec {
    pub fn new(url: impl Into<String>) -> Self {
        HttpSpec {
            url: url.into(),
            headers: Vec::new(),
            kind: HttpKind::Auto,
            ca_file: None,
            insecure: false,
            connect_timeout: Duration::from_secs(30),
        }
    }

    /// The URL as it may be shown (secrets masked).
    pub fn display(&self) -> String {
        shown_url(&self.url)
    }
}

/// Build the HTTP client for a spec. Errors name the config key to fix.
pub fn client(spec: &HttpSpec) -> Result<reqwest::Client, String> {
    // One crypto provider for rustls, process-wide; installing twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut b = reqwest::Client::builder()
        .user_agent(concat!("mcpdeck/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(spec.connect_timeout)
        .tcp_nodelay(true)
        // Below the common 5 s keep-alive of servers (uvicorn): a pooled
        // connection the server already closed would fail a POST, which is
        // not retried.
        .pool_idle_timeout(Duration::from_secs(4))
        .redirect(redirect_policy(&spec.headers));
    if let Some(path) = &spec.ca_file {
        let pem = std::fs::read(path)
            .map_err(|e| format!("cannot read ca_file {}: {e}", path.display()))?;
        let certs = reqwest::Certificate::from_pem_bundle(&pem).map_err(|e| {
            format!(
                "ca_file {} holds no usable PEM certificate: {e}",
                path.display()
            )
        })?;
        if certs.is_empty() {
            return Err(format!(
                "ca_file {} holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)",
                path.display()
            ));
        }
        for c in certs {
            b = b.add_root_certificate(c);
        }
    }
    if spec.insecure {
        b = b.danger_accept_invalid_certs(true);
    }
    b.build()
        .map_err(|e| format!("cannot set up the HTTP client: {}", error_chain(&e)))
}

/// Redirects are followed (307/308 keep the method and body), but when
/// secret headers are configured, not to another origin: reqwest strips only
/// Authorization and cookies there, not `X-API-Key` and the like.
fn redirect_policy(headers: &[(String, String)]) -> reqwest::redirect::Policy {
    let secrets = headers
        .iter()
        .any(|(k, _)| crate::mcp::netlog::is_secret_header(k));
    reqwest::redirect::Policy::custom(move |attempt| {
        if attempt.previous().len() >= 10 {
            return attempt.error("more than 10 redirects");
        }
        let same_origin = attempt
            .previous()
            .first()
            .is_none_or(|first| first.origin() == attempt.url().origin());
        if secrets && !same_origin {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

/// The user's headers, checked.
pub fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        let name = HeaderName::from_bytes(k.as_bytes())
            .map_err(|_| format!("header name {k:?} is not a valid HTTP header name"))?;
        let mut value = HeaderValue::from_str(v)
            .map_err(|_| format!("the value of header {k} is not a valid HTTP header value (control characters or non-ASCII)"))?;
        if crate::mcp::netlog::is_secret_header(k) {
            value.set_sensitive(true);
        }
        map.append(name, value);
    }
    Ok(map)
}

/// An error and its causes, joined: reqwest's own message says little
/// ("error sending request"); the cause says what happened.
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts: Vec<String> = vec![e.to_string()];
    let mut src = e.source();
    while let Some(s) = src {
        let m = s.to_string();
        if !parts.iter().any(|p| p.contains(&m)) {
            parts.push(m);
        }
        src = s.source();
    }
    parts.join(": ")
}

/// A failed HTTP exchange in words a person can act on.
pub fn describe_send_error(verb: &str, url: &str, e: &reqwest::Error) -> String {
    let chain = error_chain(e);
    let lower = chain.to_lowercase();
    let (what, hint) = if lower.contains("dns error")
        || lower.contains("failed to lookup address")
        || lower.contains("name or service not known")
        || lower.contains("no address associated")
    {
        (
            "could not resolve the host of",
            "check the host name in `url`",
        )
    } else if lower.contains("certificate")
        || lower.contains("tls")
        || lower.contains("handshake")
        || lower.contains("invalidcertificate")
    {
        (
            "TLS failed for",
            "for a private CA set `ca_file`; `insecure = true` skips verification, which is not recommended",
        )
    } else if lower.contains("connection refused") {
        (
            "connection refused by",
            "is the server running and listening on that port?",
        )
    } else if e.is_timeout() {
        ("timed out reaching", "is the host reachable?")
    } else if e.is_redirect() {
        ("too many redirects from", "check `url`")
    } else if e.is_connect() {
        ("could not connect to", "is the server running?")
    } else {
        ("the exchange failed with", "")
    };
    let cause = root_cause(e);
    let hint = if hint.is_empty() {
        String::new()
    } else {
        format!(" ({hint})")
    };
    format!(
        "{verb} {}: {what} the server: {cause}{hint}",
        shown_url(url)
    )
}

fn root_cause(e: &dyn std::error::Error) -> String {
    let mut last = e.to_string();
    let mut src = e.source();
    while let Some(s) = src {
        last = s.to_string();
        src = s.source();
    }
    last
}

/// A short, one-line, terminal-safe excerpt of a body.
pub fn excerpt(body: &str) -> String {
    let squeezed: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = squeezed.chars().take(EXCERPT).collect();
    let more = if squeezed.chars().count() > EXCERPT {
        "…"
    } else {
        ""
    };
    format!("{}{more}", crate::sanitize::one_line(&cut))
}

/// What a frame we send is, read from its text.
struct Outgoing {
    id: Option<i64>,
    method: Option<String>,
    /// `params.name` or `params.uri`.
    name: Option<String>,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`
    stateless_version: Option<String>,
    arguments: Option<Value>,
}

impl Outgoing {
    fn read(line: &str) -> Outgoing {
        let v: Value = serde_json::from_str(line).unwrap_or(Value::Null);
        let method = v.get("method").and_then(Value::as_str).map(str::to_string);
        let id = v.get("id").and_then(Value::as_i64);
        let params = v.get("params");
        let name = params
            .and_then(|p| p.get("name").or_else(|| p.get("uri")))
            .and_then(Value::as_str)
            .map(str::to_string);
        let stateless_version = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let arguments = params.and_then(|p| p.get("arguments")).cloned();
        Outgoing {
            id: if method.is_some() { id } else { None },
            method,
            name,
            stateless_version,
            arguments,
        }
    }

    fn label(&self) -> String {
        match (&self.method, self.id) {
            (Some(m), _) => m.clone(),
            (None, _) => "response".into(),
        }
    }
}

/// A header value for `Mcp-Param-*` / `Mcp-Name`: plain when it is
/// printable ASCII without edge spaces, else `=?base64?…?=`.
pub fn header_param(v: &Value) -> Option<String> {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => return None,
    };
    let plain = s.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !s.starts_with(' ')
        && !s.ends_with(' ')
        && !s.starts_with("=?");
    Some(if plain {
        s
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(s.as_bytes())
        )
    })
}

/// The `x-mcp-header` annotations of a tool's input schema:
/// `(property, header suffix)` pairs.
pub fn param_headers(input_schema: &Value) -> Vec<(String, String)> {
    let Some(props) = input_schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .filter_map(|(k, p)| {
            let h = p.get("x-mcp-header")?.as_str()?;
            let ok = !h.is_empty()
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            ok.then(|| (k.clone(), h.to_string()))
        })
        .collect()
}

#[derive(Default)]
struct State {
    session_id: Option<String>,
    /// The negotiated era and version, once known.
    protocol: Option<(Era, String)>,
    listening: bool,
}

struct Shared {
    name: Arc<str>,
    client: reqwest::Client,
    url: reqwest::Url,
    shown_url: String,
    user_headers: HeaderMap,
    state: Mutex<State>,
    /// tool name -> (property, header suffix)
    tool_headers: RwLock<HashMap<String, Vec<(String, String)>>>,
    tx: mpsc::Sender<Inbound>,
    net: Arc<NetLog>,
    /// In-flight request tasks, by JSON-RPC id (aborted on cancel).
    requests: Mutex<HashMap<i64, AbortHandle>>,
    /// Other background tasks (the GET stream).
    background: Mutex<Vec<AbortHandle>>,
    closed: AtomicBool,
    /// How long a notification or response POST may take.
    notify_timeout: Duration,
}

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
    ) -> Result<(HttpTransport, ChannelReader), String> {
        let url = reqwest::Url::parse(&spec.url)
            .map_err(|e| format!("`url` {:?} is not a valid URL: {e}", shown_url(&spec.url)))?;
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
        });
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

impl Shared {
    /// Abort every request and background task, and mark their open
    /// exchanges as ended.
    fn stop_tasks(&self) {
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

    fn base_headers(&self, out: Option<&Outgoing>) -> HeaderMap {
        let mut h = self.user_headers.clone();
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

    fn shown_headers(h: &HeaderMap) -> Vec<(String, String)> {
        h.iter()
            .map(|(k, v)| shown_header(k.as_str(), &String::from_utf8_lossy(v.as_bytes())))
            .collect()
    }

    async fn deliver(&self, item: Inbound) {
        let _ = self.tx.send(item).await;
    }

    async fn finding(&self, severity: Severity, message: String, raw: Option<&str>) {
        let f = match raw {
            Some(r) => Finding::frame(severity, message, r),
            None => Finding::new(severity, message),
        };
        self.deliver(Inbound::Finding(f)).await;
    }

    async fn fail(&self, id: Option<i64>, failure: HttpFailure) {
        match id {
            Some(id) => self.deliver(Inbound::Failed { id, failure }).await,
            None => {
                self.finding(Severity::Warning, failure.message, failure.body.as_deref())
                    .await
            }
        }
    }

    /// POST one message and hand up whatever comes back.
    async fn post(self: &Arc<Self>, body: String, out: Outgoing) {
        let mut headers = self.base_headers(Some(&out));
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
            .body(body)
            .send()
            .await;
        let resp = match resp {
            Ok(r) => r,
            Err(e) => {
                let message = describe_send_error("POST", self.url.as_str(), &e);
                ex.fail(message.clone());
                self.fail(out.id, HttpFailure::new(None, message)).await;
                return;
            }
        };
        let status = resp.status();
        ex.response(status.as_u16(), Self::shown_headers(resp.headers()));
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
            "application/json" => match read_body(resp, MAX_BODY, &ex).await {
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
                    ex.fail(m.clone());
                    self.fail(out.id, HttpFailure::new(Some(status.as_u16()), m))
                        .await;
                }
            },
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

    async fn adopt_session(&self, sid: &str, out: &Outgoing) {
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

    async fn error_status(
        &self,
        resp: reqwest::Response,
        out: &Outgoing,
        sent_session: Option<String>,
        ex: &ExchangeHandle,
    ) {
        let status = resp.status();
        let www = resp
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let text = read_body(resp, MAX_ERROR_BODY, ex)
            .await
            .unwrap_or_default();
        ex.finish();
        let code = status.as_u16();
        let session_expired = code == 404 && sent_session.is_some();
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
            message.push_str(
                "; the server needs authorization: add the credentials under `headers` (e.g. Authorization = \"Bearer ${TOKEN}\")",
            );
        }
        let mut f = HttpFailure::new(Some(code), message);
        f.session_expired = session_expired.then(|| sent_session.unwrap_or_default());
        f.body = (!text.is_empty()).then_some(text);
        f.www_authenticate = www;
        self.fail(out.id, f).await;
    }

    async fn deliver_json(&self, text: String) {
        self.deliver(Inbound::Line(text)).await;
    }

    /// Read an event stream; resume it with `Last-Event-ID` when it drops
    /// before the answer to `want` arrived.
    async fn read_stream(
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

    /// GET the endpoint as an event stream (`Last-Event-ID` when resuming).
    async fn get(
        &self,
        last_event_id: Option<&str>,
        label: &str,
    ) -> Result<(reqwest::Response, ExchangeHandle), HttpFailure> {
        let mut headers = self.base_headers(None);
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
        Ok((resp, ex))
    }

    /// The server-initiated stream: open, read, and reopen after `retry`
    /// when it drops (with `Last-Event-ID`), until closed or refused.
    async fn get_stream_loop(self: Arc<Self>) {
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

    /// Read one event stream to its end, delivering messages.
    async fn pump(
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
    async fn stream_item(&self, item: SseItem, want: Option<i64>) -> bool {
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
                self.deliver(Inbound::Line(data)).await;
                answers
            }
        }
    }

    async fn delete_session(&self, sid: &str) {
        let mut headers = self.base_headers(None);
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

struct Pumped {
    answered: bool,
    error: Option<String>,
}

/// Whether an SSE data payload is the response to request `id`.
fn answers_request(data: &str, id: i64) -> bool {
    #[derive(serde::Deserialize)]
    struct Head {
        id: Option<Value>,
        method: Option<serde::de::IgnoredAny>,
        result: Option<serde::de::IgnoredAny>,
        error: Option<serde::de::IgnoredAny>,
    }
    let Ok(h) = serde_json::from_str::<Head>(data) else {
        return false;
    };
    if h.method.is_some() || (h.result.is_none() && h.error.is_none()) {
        return false;
    }
    match h.id {
        Some(Value::Number(n)) => n.as_i64() == Some(id) || n.as_f64() == Some(id as f64),
        Some(Value::String(s)) => s.parse::<i64>().ok() == Some(id),
        _ => false,
    }
}

/// Whether a JSON array body holds the response to request `id`.
fn batch_answers(text: &str, id: i64) -> bool {
    if !text.trim_start().starts_with('[') {
        return false;
    }
    serde_json::from_str::<Vec<Value>>(text)
        .map(|items| {
            items.iter().any(|i| {
                i.get("method").is_none()
                    && (i.get("result").is_some() || i.get("error").is_some())
                    && i.get("id").and_then(Value::as_i64) == Some(id)
            })
        })
        .unwrap_or(false)
}

pub fn content_type(h: &HeaderMap) -> String {
    h.get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default()
}

pub fn status_text(s: reqwest::StatusCode) -> String {
    match s.canonical_reason() {
        Some(r) => format!("HTTP {} {r}", s.as_u16()),
        None => format!("HTTP {}", s.as_u16()),
    }
}

/// Read a body up to `max` bytes (an error past it), as text (invalid
/// UTF-8 replaced).
pub async fn read_body(
    resp: reqwest::Response,
    max: usize,
    ex: &ExchangeHandle,
) -> Result<String, String> {
    let mut body = resp.bytes_stream();
    let mut buf: Vec<u8> = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| format!("the body broke off: {}", root_cause(&e)))?;
        ex.add_bytes(chunk.len(), 0);
        if buf.len() + chunk.len() > max {
            if max == MAX_ERROR_BODY {
                buf.extend_from_slice(&chunk[..max - buf.len()]);
                break;
            }
            return Err(format!(
                "the body is larger than {} MiB",
                max / (1024 * 1024)
            ));
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(match String::from_utf8(buf) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
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
        assert!(e.chars().count() <= EXCERPT + 1);
        assert!(!e.contains('\x1b'));
    }
}
