//! One server connection: era detection and handshake, requests with
//! timeouts and cancellation, pagination, answers to the server's requests,
//! and the raw frame tap.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use tokio::sync::{Notify, mpsc, oneshot};

use super::finding::{Finding, Severity};
use super::framelog::{Direction, FrameLog, FrameMeta};
use super::jsonrpc::{self, Id, Message, RpcError, codes};
use super::transport::http::{HttpKind, HttpSpec, HttpTransport};
use super::transport::legacy::LegacySseTransport;
use super::transport::{
    HttpFailure, Inbound, Reader, StderrBuffer, StdioSpec, StdioTransport, Transport,
};
use super::types::{
    CallResult, Era, INITIALIZE_VERSIONS, STATELESS_VERSION, ServerInfo, Tool, client_info,
};
use crate::text::fmt_duration;

/// Which era and version to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pin {
    /// Probe with `server/discover`, fall back to `initialize`.
    Auto,
    /// Only the stateless era.
    Stateless,
    /// Only the initialize era, newest version first.
    Initialize,
    /// Exactly this version (its era follows from it).
    Version(String),
}

/// How to reach a server.
#[derive(Debug, Clone)]
pub enum TransportSpec {
    Stdio(StdioSpec),
    Http(HttpSpec),
}

impl TransportSpec {
    /// The command line or URL, as it may be shown.
    pub fn display(&self) -> String {
        match self {
            TransportSpec::Stdio(s) => format!("`{}`", s.display()),
            TransportSpec::Http(h) => h.display(),
        }
    }
}

/// The roots offered to servers (`roots/list`), shared by every session of
/// a manager so that a change reaches them all.
#[derive(Clone, Debug)]
pub struct SharedRoots(Arc<RwLock<Vec<Value>>>);

impl PartialEq for SharedRoots {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl SharedRoots {
    /// Roots from directories; none means the current directory.
    pub fn new(dirs: &[std::path::PathBuf]) -> Self {
        SharedRoots(Arc::new(RwLock::new(roots_of(dirs))))
    }

    pub fn get(&self) -> Vec<Value> {
        self.0.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Replace the roots; true when they changed.
    pub fn set(&self, dirs: &[std::path::PathBuf]) -> bool {
        let new = roots_of(dirs);
        let mut cur = self.0.write().unwrap_or_else(|p| p.into_inner());
        if *cur == new {
            return false;
        }
        *cur = new;
        true
    }
}

/// `{"uri": "file:///…/", "name": …}` for each directory (the current
/// directory when there are none).
fn roots_of(dirs: &[std::path::PathBuf]) -> Vec<Value> {
    let cwd;
    let dirs: Vec<&std::path::Path> = if dirs.is_empty() {
        cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("/"));
        vec![cwd.as_path()]
    } else {
        dirs.iter().map(|d| d.as_path()).collect()
    };
    dirs.iter()
        .map(|d| {
            let uri = url::Url::from_directory_path(d)
                .map(|u| u.to_string())
                .unwrap_or_else(|_| format!("file://{}", d.display()));
            let name = d
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "/".into());
            json!({"uri": uri, "name": name})
        })
        .collect()
}

/// A request from the server that a person answers (sampling, elicitation).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerRequest {
    pub server: Arc<str>,
    /// `sampling/createMessage` or `elicitation/create`.
    pub method: String,
    pub params: Value,
}

/// Hands a server request to whoever answers it (the UI, through the
/// manager); the answer comes back on the receiver. A dropped sender is a
/// refusal.
#[derive(Clone)]
pub struct Asker(
    pub Arc<dyn Fn(ServerRequest) -> oneshot::Receiver<Result<Value, RpcError>> + Send + Sync>,
);

impl std::fmt::Debug for Asker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Asker")
    }
}

impl PartialEq for Asker {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// How mcpdeck answers the server's own requests, and which client
/// capabilities it declares for that. The default offers nothing: every
/// server request but `ping` is refused.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientPolicy {
    /// Ask a person: sampling and elicitation (form and URL mode) are
    /// declared and every such request goes to the asker.
    pub ask: Option<Asker>,
    /// Offer `roots` and answer `roots/list` with these roots (shared: the
    /// manager changes them when the config's roots change)
    /// (`{"uri": "file://…", "name": …}`).
    pub roots: Option<SharedRoots>,
    /// Offer form elicitation and accept every request with the requested
    /// schema's defaults (required fields without one get a value of their
    /// type). URL-mode elicitation is declined.
    pub elicitation_defaults: bool,
}

impl ClientPolicy {
    /// The automatic policies of `mcpdeck smoke`: roots is the current
    /// directory, elicitation is accepted with defaults, sampling is declined.
    pub fn automatic() -> Self {
        ClientPolicy {
            ask: None,
            roots: Some(SharedRoots::new(&[])),
            elicitation_defaults: true,
        }
    }

    /// The `capabilities` object to declare.
    pub fn capabilities(&self) -> Value {
        let mut caps = Map::new();
        if self.roots.is_some() {
            caps.insert("roots".into(), json!({"listChanged": true}));
        }
        if self.ask.is_some() {
            caps.insert("sampling".into(), json!({}));
            caps.insert("elicitation".into(), json!({"form": {}, "url": {}}));
        } else if self.elicitation_defaults {
            caps.insert("elicitation".into(), json!({"form": {}}));
        }
        Value::Object(caps)
    }

    /// Whether `method` goes to the person (through [`ClientPolicy::ask`]).
    pub fn asks(&self, method: &str) -> bool {
        self.ask.is_some() && matches!(method, "sampling/createMessage" | "elicitation/create")
    }

    /// The answer to a server request (other than ping).
    pub fn answer(&self, method: &str, params: Option<&Value>) -> Result<Value, RpcError> {
        match method {
            "roots/list" => match &self.roots {
                Some(roots) => Ok(json!({"roots": roots.get()})),
                None => Err(RpcError::new(
                    codes::METHOD_NOT_FOUND,
                    "mcpdeck did not declare the roots capability for this server",
                )),
            },
            "elicitation/create" if self.elicitation_defaults => {
                let mode = params
                    .and_then(|p| p.get("mode"))
                    .and_then(Value::as_str)
                    .unwrap_or("form");
                if mode != "form" {
                    return Ok(json!({"action": "decline"}));
                }
                let schema = params
                    .and_then(|p| p.get("requestedSchema"))
                    .cloned()
                    .unwrap_or_else(|| json!({"type": "object"}));
                let content = crate::schema::skeleton(&schema);
                let content = if content.is_object() {
                    content
                } else {
                    json!({})
                };
                Ok(json!({"action": "accept", "content": content}))
            }
            "elicitation/create" => Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                "mcpdeck did not declare the elicitation capability for this server",
            )),
            "sampling/createMessage" => Err(RpcError::new(
                -1,
                "sampling declined: mcpdeck does not offer sampling here",
            )),
            _ => Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                format!("mcpdeck does not support {method}"),
            )),
        }
    }
}

/// Everything needed to open a session.
#[derive(Debug, Clone)]
pub struct SessionSpec {
    pub name: Arc<str>,
    pub transport: TransportSpec,
    pub client: ClientPolicy,
    pub pin: Pin,
    pub request_timeout: Duration,
    pub connect_timeout: Duration,
    pub probe_timeout: Duration,
}

/// What a session tells its owner, besides answers to requests.
#[derive(Debug, Clone)]
pub enum SessionEvent {
    Notification {
        method: String,
        params: Option<Value>,
    },
    Finding(Finding),
    Stderr(String),
    /// The connection is gone (the server exited, or we closed it).
    Closed {
        description: String,
        requested: bool,
        stderr_tail: Vec<String>,
    },
}

/// A session event, tagged with the session it came from.
#[derive(Debug, Clone)]
pub struct Tagged {
    pub session: u64,
    pub server: Arc<str>,
    pub event: SessionEvent,
}

/// Where a session's events go (called from the session's tasks; must not block).
pub type EventSink = Arc<dyn Fn(Tagged) + Send + Sync>;

/// Why a request did not produce a result.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RequestError {
    #[error("the server answered {method} with error {error}")]
    Rpc {
        method: String,
        error: Box<RpcError>,
    },
    #[error("no answer to {method} within {}", fmt_duration(*after))]
    Timeout { method: String, after: Duration },
    #[error("{method} was cancelled")]
    Cancelled { method: String },
    #[error("{description}")]
    Closed {
        description: String,
        stderr_tail: Vec<String>,
    },
    #[error("{0}")]
    Protocol(String),
    #[error("{}", .0.message)]
    Http(HttpFailure),
}

impl RequestError {
    pub fn rpc(&self) -> Option<&RpcError> {
        match self {
            RequestError::Rpc { error, .. } => Some(error),
            _ => None,
        }
    }

    pub fn http(&self) -> Option<&HttpFailure> {
        match self {
            RequestError::Http(f) => Some(f),
            _ => None,
        }
    }

    pub fn stderr_tail(&self) -> &[String] {
        match self {
            RequestError::Closed { stderr_tail, .. } => stderr_tail,
            _ => &[],
        }
    }
}

/// Why a session could not be opened.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct ConnectError {
    pub message: String,
    pub stderr_tail: Vec<String>,
    /// The server answered 401 or 403: it needs credentials.
    pub needs_auth: bool,
}

impl ConnectError {
    pub fn new(message: impl Into<String>) -> Self {
        ConnectError {
            message: message.into(),
            stderr_tail: Vec::new(),
            needs_auth: false,
        }
    }
}

/// What was negotiated, and how.
#[derive(Debug, Clone)]
pub struct Negotiated {
    pub era: Era,
    pub version: String,
    /// How the era was found, in words (the probe's answer).
    pub detection: String,
    pub server_info: ServerInfo,
    pub capabilities: Value,
    pub instructions: Option<String>,
    /// From `server/discover` (stateless era only).
    pub supported_versions: Vec<String>,
    /// Spawn to ready.
    pub connect_time: Duration,
    /// `stdio`, `http` (streamable) or `sse` (legacy HTTP+SSE).
    pub transport: &'static str,
}

impl Negotiated {
    pub fn has_capability(&self, name: &str) -> bool {
        self.capabilities.get(name).is_some_and(|c| !c.is_null())
    }
}

/// All list results of a server, gated by its declared capabilities.
#[derive(Debug, Clone, Default)]
pub struct Lists {
    pub tools: Vec<Tool>,
    pub resources: Vec<Value>,
    pub templates: Vec<Value>,
    pub prompts: Vec<Value>,
}

struct PendingEntry {
    tx: oneshot::Sender<Result<Value, RequestError>>,
    method: String,
    sent: Instant,
    progress: Arc<Notify>,
    /// Whether the request carried a progressToken.
    wants_progress: bool,
}

/// The most findings a session keeps.
const MAX_FINDINGS: usize = 1000;
/// The most pages a list may have before we stop following cursors.
const MAX_PAGES: usize = 10_000;

static SESSION_IDS: AtomicU64 = AtomicU64::new(1);

struct Inner {
    id: u64,
    name: Arc<str>,
    transport: Transport,
    pending: Mutex<HashMap<i64, PendingEntry>>,
    next_id: AtomicI64,
    negotiated: RwLock<Option<Negotiated>>,
    /// The era requests are framed for (`_meta` envelope or not).
    wire: RwLock<Option<(Era, String)>>,
    frames: Arc<FrameLog>,
    findings: Mutex<Vec<Finding>>,
    events: EventSink,
    closed: Mutex<Option<(String, Vec<String>)>>,
    /// Flips to true once `closed` is set.
    closed_signal: tokio::sync::watch::Sender<bool>,
    request_timeout: Duration,
    /// How server requests are answered.
    client: ClientPolicy,
    /// Streamable HTTP with the transport not forced: an endpoint that
    /// refuses initialize may be legacy HTTP+SSE.
    legacy_fallback: bool,
    /// One re-initialization at a time (after the server expired the session).
    reinit: tokio::sync::Mutex<()>,
    /// The stateless era's per-request log level (`_meta`), once set.
    log_level: RwLock<Option<String>>,
    /// Server requests a person is answering now: while any is open, the
    /// session's request deadlines wait.
    open_asks: std::sync::atomic::AtomicUsize,
    /// One `subscriptions/listen` change at a time.
    listen_lock: tokio::sync::Mutex<()>,
    /// Resource subscriptions, and the stateless era's open
    /// `subscriptions/listen` request (its id).
    subscriptions: Mutex<(std::collections::BTreeSet<String>, Option<i64>)>,
}

/// A live session. Cheap to clone. Call [`Session::close`] when done; if
/// every handle is dropped, the server is shut down too.
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("name", &self.inner.name)
            .field("id", &self.inner.id)
            .finish()
    }
}

/// A request on its way: its id (for cancellation) and its answer.
pub struct PendingRequest {
    pub id: i64,
    method: String,
    rx: oneshot::Receiver<Result<Value, RequestError>>,
    progress: Arc<Notify>,
    /// What was asked, kept to ask again once after the server expired
    /// the HTTP session.
    params: Option<Value>,
    with_progress: bool,
    retried: bool,
    /// input_required rounds so far (stateless era).
    input_rounds: u32,
    /// The id of the request in flight now (it changes with each retry),
    /// for whoever cancels it.
    current: Arc<AtomicI64>,
}

impl Session {
    /// Start (or reach) the server and negotiate the era.
    pub async fn connect(
        spec: &SessionSpec,
        frames: Arc<FrameLog>,
        events: EventSink,
    ) -> Result<Session, ConnectError> {
        let started = Instant::now();
        let deadline = started
            .checked_add(spec.connect_timeout)
            .unwrap_or_else(|| started + Duration::from_secs(100 * 365 * 24 * 3600));
        let legacy_first =
            matches!(&spec.transport, TransportSpec::Http(h) if h.kind == HttpKind::Sse);
        let session =
            Session::open(spec, frames.clone(), events.clone(), legacy_first, deadline).await?;
        let outcome =
            tokio::time::timeout_at(deadline.into(), session.negotiate(spec, started)).await;
        let (legacy, detection) = match outcome {
            Ok(Ok(n)) => {
                session.set_negotiated(n);
                return Ok(session);
            }
            // The server exited on the probe: start it again, straight into initialize.
            Ok(Err(Restart(detection))) => (false, detection),
            // The endpoint refused streamable HTTP: try legacy HTTP+SSE.
            Ok(Err(Legacy(detection))) => (true, detection),
            Ok(Err(Fail(mut e))) => {
                session.close().await;
                if e.stderr_tail.is_empty() {
                    e.stderr_tail = session.stderr_tail(20);
                }
                return Err(e);
            }
            Err(_) => {
                let e = session.timeout_error(spec, "the handshake");
                session.close().await;
                return Err(e);
            }
        };
        session.close().await;
        let fresh = Session::open(spec, frames, events, legacy, deadline).await?;
        let r =
            tokio::time::timeout_at(deadline.into(), fresh.initialize(None, detection, started))
                .await;
        match r {
            Ok(Ok(n)) => {
                fresh.set_negotiated(n);
                Ok(fresh)
            }
            Ok(Err(e)) => {
                fresh.close().await;
                Err(fresh.connect_error(e))
            }
            Err(_) => {
                let e = fresh.timeout_error(spec, "initialize");
                fresh.close().await;
                Err(e)
            }
        }
    }

    /// Start the process, or set up the HTTP client (for legacy HTTP+SSE:
    /// open the stream and wait for its endpoint).
    async fn open(
        spec: &SessionSpec,
        frames: Arc<FrameLog>,
        events: EventSink,
        legacy: bool,
        deadline: Instant,
    ) -> Result<Session, ConnectError> {
        let mut err_rx = None;
        let mut legacy_fallback = false;
        let (transport, reader) = match &spec.transport {
            TransportSpec::Stdio(stdio) => {
                let (err_tx, rx) = mpsc::channel::<String>(1024);
                err_rx = Some(rx);
                let (t, r) = StdioTransport::spawn(stdio, Some(err_tx)).map_err(|e| {
                    let hint = if e.kind() == std::io::ErrorKind::NotFound {
                        "; check `command` in the config, or that it is on PATH"
                    } else {
                        ""
                    };
                    ConnectError::new(format!("could not start `{}`: {e}{hint}", stdio.display()))
                })?;
                (Transport::Stdio(t), Reader::Stdio(r))
            }
            TransportSpec::Http(http) if legacy => {
                let wait = deadline.saturating_duration_since(Instant::now());
                let (t, r) =
                    LegacySseTransport::open(http, spec.name.clone(), frames.net().clone(), wait)
                        .await
                        .map_err(|m| {
                            let mut e = ConnectError::new(m);
                            e.needs_auth =
                                e.message.contains("HTTP 401") || e.message.contains("HTTP 403");
                            e
                        })?;
                (Transport::LegacySse(t), Reader::Channel(r))
            }
            TransportSpec::Http(http) => {
                legacy_fallback = http.kind == HttpKind::Auto;
                let (t, r) = HttpTransport::open(http, spec.name.clone(), frames.net().clone())
                    .map_err(ConnectError::new)?;
                (Transport::Http(t), Reader::Channel(r))
            }
        };
        let inner = Arc::new(Inner {
            id: SESSION_IDS.fetch_add(1, Ordering::Relaxed),
            name: spec.name.clone(),
            transport,
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(1),
            negotiated: RwLock::new(None),
            wire: RwLock::new(None),
            frames,
            findings: Mutex::new(Vec::new()),
            events,
            closed: Mutex::new(None),
            closed_signal: tokio::sync::watch::Sender::new(false),
            request_timeout: spec.request_timeout,
            client: spec.client.clone(),
            legacy_fallback,
            reinit: tokio::sync::Mutex::new(()),
            log_level: RwLock::new(None),
            subscriptions: Mutex::new((std::collections::BTreeSet::new(), None)),
            open_asks: std::sync::atomic::AtomicUsize::new(0),
            listen_lock: tokio::sync::Mutex::new(()),
        });
        // stderr lines become events.
        if let Some(mut err_rx) = err_rx {
            let tag = (inner.id, inner.name.clone(), inner.events.clone());
            tokio::spawn(async move {
                while let Some(line) = err_rx.recv().await {
                    (tag.2)(Tagged {
                        session: tag.0,
                        server: tag.1.clone(),
                        event: SessionEvent::Stderr(line),
                    });
                }
            });
        }
        // The reader holds only a weak handle, so dropping every Session
        // handle shuts the server down.
        let weak: Weak<Inner> = Arc::downgrade(&inner);
        let mut inbound = reader;
        tokio::spawn(async move {
            while let Some(item) = inbound.next().await {
                let Some(inner) = weak.upgrade() else { break };
                let last = matches!(item, Inbound::Closed { .. });
                inner.handle_inbound(item).await;
                if last {
                    break;
                }
            }
        });
        Ok(Session { inner })
    }

    /// The transport in use: `stdio`, `http` or `sse`.
    pub fn transport_kind(&self) -> &'static str {
        self.inner.transport.kind()
    }

    /// The HTTP session id (initialize era over streamable HTTP).
    pub fn http_session_id(&self) -> Option<String> {
        self.inner
            .transport
            .http()
            .and_then(HttpTransport::session_id)
    }

    /// An initialize that failed: over streamable HTTP with the transport
    /// not forced, an endpoint that refuses it may speak legacy HTTP+SSE.
    fn init_failed(&self, e: RequestError) -> Negotiation {
        if self.inner.legacy_fallback
            && let RequestError::Http(f) = &e
            && f.refused()
        {
            return Legacy(format!(
                "streamable HTTP refused ({}); trying the legacy HTTP+SSE transport",
                f.message
            ));
        }
        Fail(self.connect_error(e))
    }

    fn set_negotiated(&self, n: Negotiated) {
        *self.inner.wire.write().unwrap_or_else(|p| p.into_inner()) =
            Some((n.era, n.version.clone()));
        *self
            .inner
            .negotiated
            .write()
            .unwrap_or_else(|p| p.into_inner()) = Some(n);
    }

    fn timeout_error(&self, spec: &SessionSpec, what: &str) -> ConnectError {
        let kind = match &spec.transport {
            TransportSpec::Stdio(_) => "an MCP server on stdio",
            TransportSpec::Http(_) => "an MCP endpoint",
        };
        ConnectError {
            message: format!(
                "{} did not complete {what} within {} (connect_timeout); is it {kind}?",
                spec.transport.display(),
                fmt_duration(spec.connect_timeout)
            ),
            stderr_tail: self.stderr_tail(20),
            needs_auth: false,
        }
    }

    fn connect_error(&self, e: RequestError) -> ConnectError {
        let tail = if e.stderr_tail().is_empty() {
            self.stderr_tail(20)
        } else {
            e.stderr_tail().to_vec()
        };
        ConnectError {
            needs_auth: e.http().is_some_and(HttpFailure::needs_auth),
            message: e.to_string(),
            stderr_tail: tail,
        }
    }

    async fn negotiate(
        &self,
        spec: &SessionSpec,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        if matches!(self.inner.transport, Transport::LegacySse(_)) {
            // The legacy transport predates the stateless era.
            return match &spec.pin {
                Pin::Stateless => Err(Fail(ConnectError::new(
                    "the stateless era is pinned, but transport = \"sse\" is the legacy HTTP+SSE transport, which has no stateless era; use transport = \"http\"",
                ))),
                Pin::Version(v) if INITIALIZE_VERSIONS.contains(&v.as_str()) => self
                    .initialize(
                        Some(v.clone()),
                        format!("version {v} pinned; legacy HTTP+SSE transport"),
                        started,
                    )
                    .await
                    .map_err(|e| Fail(self.connect_error(e))),
                _ => self
                    .initialize(
                        None,
                        "legacy HTTP+SSE transport (transport = \"sse\")".into(),
                        started,
                    )
                    .await
                    .map_err(|e| Fail(self.connect_error(e))),
            };
        }
        match &spec.pin {
            Pin::Initialize => self
                .initialize(None, "initialize era pinned in the config".into(), started)
                .await
                .map_err(|e| self.init_failed(e)),
            Pin::Version(v) if INITIALIZE_VERSIONS.contains(&v.as_str()) => self
                .initialize(
                    Some(v.clone()),
                    format!("version {v} pinned in the config"),
                    started,
                )
                .await
                .map_err(|e| self.init_failed(e)),
            Pin::Version(v) if v != STATELESS_VERSION => Err(Fail(ConnectError::new(format!(
                "protocol version {v} is not one mcpdeck speaks ({STATELESS_VERSION}, {})",
                INITIALIZE_VERSIONS.join(", ")
            )))),
            Pin::Stateless | Pin::Version(_) => {
                let probe = self
                    .start_request_enveloped("server/discover", None)
                    .await
                    .map_err(|e| Fail(self.connect_error(e)))?;
                let v = probe.wait(self, None).await.map_err(|e| {
                    Fail(ConnectError {
                        needs_auth: e.http().is_some_and(HttpFailure::needs_auth),
                        message: format!("the stateless era ({STATELESS_VERSION}) is pinned in the config, but {e}"),
                        stderr_tail: if e.stderr_tail().is_empty() { self.stderr_tail(20) } else { e.stderr_tail().to_vec() },
                    })
                })?;
                self.discovered(&v, "stateless era pinned in the config".into(), started)
                    .map_err(Fail)
            }
            Pin::Auto => self.detect(spec, started).await,
        }
    }

    /// The dual-era probe. `server/discover` first; its answer decides. On
    /// silence past the probe timeout, `initialize` is sent on the same
    /// connection and whichever succeeds first wins, so a slow server costs
    /// no more than the probe timeout and is never misjudged.
    async fn detect(
        &self,
        spec: &SessionSpec,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        let mut probe = self
            .start_request_enveloped("server/discover", None)
            .await
            .map_err(|e| Fail(self.connect_error(e)))?;
        let first = tokio::time::timeout(spec.probe_timeout, &mut probe.rx).await;
        let answer = match first {
            Ok(r) => r.unwrap_or_else(|_| Err(self.closed_error())),
            Err(_) => return self.race(probe, spec, started).await,
        };
        match answer {
            Ok(v) => self.discovered_or_fallback(&v, started).await,
            Err(RequestError::Rpc { error, .. }) => self.after_probe_error(*error, started).await,
            Err(RequestError::Closed { description, .. }) => Err(Restart(format!(
                "the server exited on the server/discover probe ({description}); restarted straight into initialize"
            ))),
            Err(RequestError::Http(f)) if f.refused() => self
                .initialize(
                    None,
                    format!("server/discover: {}; fell back to initialize", f.message),
                    started,
                )
                .await
                .map_err(|e| self.init_failed(e)),
            Err(e) => Err(Fail(self.connect_error(e))),
        }
    }

    async fn discovered_or_fallback(
        &self,
        v: &Value,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        let versions = supported_versions(v);
        if versions.iter().any(|s| s == STATELESS_VERSION) {
            return self
                .discovered(
                    v,
                    format!("server/discover answered; supportedVersions {versions:?}"),
                    started,
                )
                .map_err(Fail);
        }
        if versions.is_empty() {
            // Not a DiscoverResult (some servers answer anything with `{}`).
            self.inner.finding(Finding::frame(
                Severity::Warning,
                "server/discover answered without `supportedVersions`; treated as an initialize-era server",
                &v.to_string(),
            ));
            return self
                .initialize(
                    None,
                    "server/discover answered without supportedVersions; fell back to initialize"
                        .into(),
                    started,
                )
                .await
                .map_err(|e| self.init_failed(e));
        }
        if versions
            .iter()
            .any(|s| INITIALIZE_VERSIONS.contains(&s.as_str()))
        {
            return self
                .initialize(
                    None,
                    format!("server/discover offered only {versions:?}; fell back to initialize"),
                    started,
                )
                .await
                .map_err(|e| self.init_failed(e));
        }
        Err(Fail(ConnectError::new(format!(
            "the server supports protocol versions {versions:?}; mcpdeck speaks {STATELESS_VERSION} and {}",
            INITIALIZE_VERSIONS.join(", ")
        ))))
    }

    async fn after_probe_error(
        &self,
        error: RpcError,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        match error.code {
            codes::UNSUPPORTED_VERSION => {
                let supported = strings(error.data.as_ref().and_then(|d| d.get("supported")));
                if supported
                    .iter()
                    .any(|s| INITIALIZE_VERSIONS.contains(&s.as_str()))
                {
                    return self
                        .initialize(None, format!("server/discover answered -32022, supported {supported:?}; fell back to initialize"), started)
                        .await
                        .map_err(|e| self.init_failed(e));
                }
                Err(Fail(ConnectError::new(format!(
                    "the server does not support protocol version {STATELESS_VERSION} (it supports {supported:?}), and no version mcpdeck speaks"
                ))))
            }
            codes::MISSING_CLIENT_CAPABILITY => {
                let needed = error
                    .data
                    .as_ref()
                    .and_then(|d| d.get("requiredCapabilities"))
                    .map(|v| v.to_string())
                    .unwrap_or_default();
                Err(Fail(ConnectError::new(format!(
                    "the server speaks the stateless era but requires client capabilities mcpdeck does not offer yet: {needed} ({error})"
                ))))
            }
            codes::HEADER_MISMATCH => Err(Fail(ConnectError::new(format!(
                "the server speaks the stateless era but rejected the request headers: {error}"
            )))),
            _ => self
                .initialize(
                    None,
                    format!(
                        "server/discover answered error {}; fell back to initialize",
                        error
                    ),
                    started,
                )
                .await
                .map_err(|e| self.init_failed(e)),
        }
    }

    /// The probe was silent: send initialize too, and take whichever succeeds.
    async fn race(
        &self,
        mut probe: PendingRequest,
        spec: &SessionSpec,
        started: Instant,
    ) -> Result<Negotiated, Negotiation> {
        let silent = format!(
            "no answer to server/discover within {}",
            fmt_duration(spec.probe_timeout)
        );
        let offer = INITIALIZE_VERSIONS[0].to_string();
        let mut init = match self
            .start_request(
                "initialize",
                Some(initialize_params(&offer, &self.inner.client)),
                false,
            )
            .await
        {
            Ok(init) => init,
            // It exited on the probe just as the probe timed out.
            Err(e @ RequestError::Closed { .. }) => {
                return Err(Restart(format!(
                    "{silent}, and the server exited ({e}); restarted straight into initialize"
                )));
            }
            Err(e) => return Err(Fail(self.connect_error(e))),
        };
        let mut probe_err: Option<RequestError> = None;
        let mut init_err: Option<RequestError> = None;
        loop {
            tokio::select! {
                // The probe first: when both answers are in, the one sent
                // first (discover) decides.
                biased;
                r = &mut probe.rx, if probe_err.is_none() => {
                    match r.unwrap_or_else(|_| Err(self.closed_error())) {
                        Ok(v) if supported_versions(&v).iter().any(|s| s == STATELESS_VERSION) => {
                            return self.discovered(&v, format!("server/discover answered after {}", fmt_duration(started.elapsed())), started).map_err(Fail);
                        }
                        Ok(_) => probe_err = Some(RequestError::Protocol("server/discover offered no stateless version".into())),
                        Err(e) => probe_err = Some(e),
                    }
                }
                r = &mut init.rx, if init_err.is_none() => {
                    match r.unwrap_or_else(|_| Err(self.closed_error())) {
                        Ok(v) => {
                            let how = match &probe_err {
                                Some(e) => format!("{silent}, then {e}; initialize negotiated"),
                                None => format!("{silent}; initialize negotiated"),
                            };
                            return self.finish_initialize(&v, &offer, false, how, started).await.map_err(|e| Fail(self.connect_error(e)));
                        }
                        Err(e) => init_err = Some(e),
                    }
                }
            }
            if let (Some(p), Some(i)) = (&probe_err, &init_err) {
                if matches!(p, RequestError::Closed { .. }) {
                    return Err(Restart(format!(
                        "{silent}, and the server exited ({p}); restarted straight into initialize"
                    )));
                }
                if let RequestError::Http(f) = i
                    && f.refused()
                {
                    return Err(self.init_failed(i.clone()));
                }
                if i.http().is_some_and(HttpFailure::needs_auth) {
                    return Err(Fail(self.connect_error(i.clone())));
                }
                return Err(Fail(ConnectError::new(format!(
                    "the server refused both eras: {p}; {i}"
                ))));
            }
        }
    }

    fn discovered(
        &self,
        v: &Value,
        detection: String,
        started: Instant,
    ) -> Result<Negotiated, ConnectError> {
        let info = v
            .get("_meta")
            .and_then(|m| m.get("io.modelcontextprotocol/serverInfo"))
            .or_else(|| v.get("serverInfo"))
            .map(ServerInfo::from_value)
            .unwrap_or_default();
        if !v.get("capabilities").is_some_and(Value::is_object) {
            self.inner.finding(Finding::frame(
                Severity::Warning,
                "server/discover result has no `capabilities` object; nothing will be listed",
                &v.to_string(),
            ));
        }
        Ok(Negotiated {
            era: Era::Stateless,
            version: STATELESS_VERSION.to_string(),
            detection,
            server_info: info,
            capabilities: v.get("capabilities").cloned().unwrap_or_else(|| json!({})),
            instructions: v
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
            supported_versions: supported_versions(v),
            connect_time: started.elapsed(),
            transport: self.inner.transport.kind(),
        })
    }

    /// The initialize handshake. `pinned` offers exactly that version.
    async fn initialize(
        &self,
        pinned: Option<String>,
        detection: String,
        started: Instant,
    ) -> Result<Negotiated, RequestError> {
        let offer = pinned
            .clone()
            .unwrap_or_else(|| INITIALIZE_VERSIONS[0].to_string());
        let v = self
            .request(
                "initialize",
                Some(initialize_params(&offer, &self.inner.client)),
            )
            .await?;
        self.finish_initialize(&v, &offer, pinned.is_some(), detection, started)
            .await
    }

    async fn finish_initialize(
        &self,
        v: &Value,
        offer: &str,
        exact: bool,
        detection: String,
        started: Instant,
    ) -> Result<Negotiated, RequestError> {
        let Some(version) = v.get("protocolVersion").and_then(Value::as_str) else {
            return Err(RequestError::Protocol(format!(
                "the initialize result has no protocolVersion: {}",
                jsonrpc::short(v)
            )));
        };
        if version == STATELESS_VERSION {
            return Err(RequestError::Protocol(format!(
                "the server chose {version} in answer to initialize, but that version has no handshake; set protocol = \"stateless\" for this server"
            )));
        }
        if !INITIALIZE_VERSIONS.contains(&version) {
            return Err(RequestError::Protocol(format!(
                "the server chose protocol version {version}, which mcpdeck does not speak (it offered {offer}; mcpdeck speaks {})",
                INITIALIZE_VERSIONS.join(", ")
            )));
        }
        if exact && version != offer {
            return Err(RequestError::Protocol(format!(
                "version {offer} is pinned in the config, but the server chose {version}; pin {version} or use protocol = \"auto\""
            )));
        }
        *self.inner.wire.write().unwrap_or_else(|p| p.into_inner()) =
            Some((Era::Initialize, version.to_string()));
        if let Some(h) = self.inner.transport.http() {
            h.set_protocol(Era::Initialize, version);
        }
        for key in ["serverInfo", "capabilities"] {
            if !v.get(key).is_some_and(Value::is_object) {
                self.inner.finding(Finding::frame(
                    Severity::Warning,
                    format!("the initialize result has no `{key}` object (required by the spec)"),
                    &v.to_string(),
                ));
            }
        }
        self.notify("notifications/initialized", None).await?;
        if let Some(h) = self.inner.transport.http() {
            // Server-initiated messages (and requests such as elicitation
            // that some servers send only there) arrive on the GET stream.
            h.listen();
        }
        let detection = if version == offer {
            detection
        } else {
            format!("{detection}; the server counter-offered {version}")
        };
        Ok(Negotiated {
            era: Era::Initialize,
            version: version.to_string(),
            detection,
            server_info: v
                .get("serverInfo")
                .map(ServerInfo::from_value)
                .unwrap_or_default(),
            capabilities: v.get("capabilities").cloned().unwrap_or_else(|| json!({})),
            instructions: v
                .get("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
            supported_versions: Vec::new(),
            connect_time: started.elapsed(),
            transport: self.inner.transport.kind(),
        })
    }

    fn closed_error(&self) -> RequestError {
        let closed = self
            .inner
            .closed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        match closed {
            Some((description, stderr_tail)) => RequestError::Closed {
                description,
                stderr_tail,
            },
            None => RequestError::Closed {
                description: "the connection closed".into(),
                stderr_tail: self.stderr_tail(20),
            },
        }
    }

    pub fn id(&self) -> u64 {
        self.inner.id
    }

    pub fn name(&self) -> &Arc<str> {
        &self.inner.name
    }

    /// What was negotiated (set once connected).
    pub fn negotiated(&self) -> Option<Negotiated> {
        self.inner
            .negotiated
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn stderr(&self) -> Option<&Arc<StderrBuffer>> {
        self.inner.transport.stderr()
    }

    pub fn stderr_tail(&self, n: usize) -> Vec<String> {
        self.stderr().map(|b| b.tail(n)).unwrap_or_default()
    }

    pub fn findings(&self) -> Vec<Finding> {
        self.inner
            .findings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn frames(&self) -> &Arc<FrameLog> {
        &self.inner.frames
    }

    /// Whether the connection is gone, and why.
    pub fn closed(&self) -> Option<String> {
        self.inner
            .closed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|c| c.0.clone())
    }

    /// Send a request and wait for its answer (timeout from the settings,
    /// reset by progress notifications).
    pub async fn request(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<Value, RequestError> {
        let pending = self.start_request(method, params.clone(), false).await?;
        match pending.wait(self, None).await {
            Err(RequestError::Rpc { error, .. })
                if error.code == codes::UNSUPPORTED_VERSION && self.switch_version(&error) =>
            {
                let pending = self.start_request(method, params, false).await?;
                pending.wait(self, None).await
            }
            other => other,
        }
    }

    /// After -32022 in the stateless era: adopt a supported version we know.
    /// With 2026-07-28 the only stateless version, this fires only once a
    /// later revision is added to `known`; the probe handles -32022 itself.
    fn switch_version(&self, error: &RpcError) -> bool {
        let mut wire = self.inner.wire.write().unwrap_or_else(|p| p.into_inner());
        let Some((Era::Stateless, current)) = wire.as_ref() else {
            return false;
        };
        let supported = error
            .data
            .as_ref()
            .and_then(|d| d.get("supported"))
            .and_then(Value::as_array);
        let known = [STATELESS_VERSION];
        match supported.and_then(|s| {
            s.iter()
                .filter_map(Value::as_str)
                .find(|v| known.contains(v) && v != current)
        }) {
            Some(v) => {
                *wire = Some((Era::Stateless, v.to_string()));
                true
            }
            None => false,
        }
    }

    async fn start_request_enveloped(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> Result<PendingRequest, RequestError> {
        let caps = self.inner.client.capabilities();
        self.start_request(
            method,
            Some(envelope_with(params, STATELESS_VERSION, caps)),
            false,
        )
        .await
    }

    /// Send a request without waiting. `progress_token` asks the server for
    /// progress notifications (which also reset the timeout).
    pub async fn start_request(
        &self,
        method: &str,
        params: Option<Value>,
        with_progress: bool,
    ) -> Result<PendingRequest, RequestError> {
        if let Some(e) = self.closed_error_if_closed() {
            return Err(e);
        }
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        // Kept to send again: after a session expiry (HTTP), or with
        // inputResponses (the stateless era's input_required).
        let stateless = matches!(
            *self.inner.wire.read().unwrap_or_else(|p| p.into_inner()),
            Some((Era::Stateless, _))
        );
        let original = if self.inner.transport.http().is_some() || stateless {
            params.clone()
        } else {
            None
        };
        let mut params = params;
        if with_progress {
            let p = params.get_or_insert_with(|| json!({}));
            if let Some(obj) = p.as_object_mut() {
                let meta = obj.entry("_meta").or_insert_with(|| json!({}));
                if let Some(m) = meta.as_object_mut() {
                    m.insert("progressToken".into(), json!(id));
                }
            }
        }
        let wire = self
            .inner
            .wire
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if let Some((Era::Stateless, version)) = wire {
            let mut p = envelope_with(params, &version, self.inner.client.capabilities());
            let level = self
                .inner
                .log_level
                .read()
                .unwrap_or_else(|p| p.into_inner())
                .clone();
            if let Some(level) = level
                && let Some(meta) = p.get_mut("_meta").and_then(Value::as_object_mut)
            {
                meta.insert("io.modelcontextprotocol/logLevel".into(), json!(level));
            }
            params = Some(p);
        }
        let (tx, rx) = oneshot::channel();
        let progress = Arc::new(Notify::new());
        self.inner
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(
                id,
                PendingEntry {
                    tx,
                    method: method.to_string(),
                    sent: Instant::now(),
                    progress: progress.clone(),
                    wants_progress: with_progress,
                },
            );
        let line = jsonrpc::request(id, method, params.as_ref());
        let meta = FrameMeta {
            method: Some(method.to_string()),
            id: Some(Id::Num(id)),
            latency: None,
        };
        // Writing is under the request's deadline too: a server that stops
        // reading its input cannot hold a request (or the user) for ever.
        let limit = self.inner.request_timeout;
        let written = tokio::time::timeout(limit, self.inner.send_line(line, meta)).await;
        let failure = match written {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(self.write_failed(e).await),
            Err(_) => {
                // Part of the line may be out: the stream cannot be trusted.
                let session = self.clone();
                tokio::spawn(async move { session.close().await });
                Some(RequestError::Closed {
                    description: format!(
                        "the server did not read its input for {} while {method} was being sent; the connection was closed",
                        fmt_duration(limit)
                    ),
                    stderr_tail: self.stderr_tail(20),
                })
            }
        };
        if let Some(e) = failure {
            self.inner
                .pending
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&id);
            return Err(e);
        }
        Ok(PendingRequest {
            id,
            method: method.to_string(),
            rx,
            progress,
            params: original,
            with_progress,
            retried: false,
            input_rounds: 0,
            current: Arc::new(AtomicI64::new(id)),
        })
    }

    fn closed_error_if_closed(&self) -> Option<RequestError> {
        self.inner
            .closed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .map(|(description, stderr_tail)| RequestError::Closed {
                description,
                stderr_tail,
            })
    }

    /// Send a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), RequestError> {
        let line = jsonrpc::notification(method, params.as_ref());
        let meta = FrameMeta {
            method: Some(method.to_string()),
            ..Default::default()
        };
        match self.inner.send_line(line, meta).await {
            Ok(()) => Ok(()),
            Err(e) => Err(self.write_failed(e).await),
        }
    }

    /// A write failed: the server is most likely gone. Wait a moment for
    /// its exit report, so the error names the exit status and stderr
    /// rather than a broken pipe.
    async fn write_failed(&self, e: super::transport::TransportClosed) -> RequestError {
        let mut signal = self.inner.closed_signal.subscribe();
        let _ = tokio::time::timeout(Duration::from_secs(2), signal.wait_for(|c| *c)).await;
        self.closed_error_if_closed()
            .unwrap_or_else(|| RequestError::Closed {
                description: e.to_string(),
                stderr_tail: self.stderr_tail(20),
            })
    }

    /// The server answered 404 to the HTTP session `expired`: initialize a
    /// new one (once, however many requests noticed), with the version
    /// negotiated before.
    async fn recover_session(&self, expired: &str, why: &str) -> Result<(), RequestError> {
        let Some(h) = self.inner.transport.http() else {
            return Err(RequestError::Protocol(why.to_string()));
        };
        let _one = self.inner.reinit.lock().await;
        if !h.reset_session(expired) {
            return Ok(()); // another request already started a new session
        }
        let version = self
            .negotiated()
            .map(|n| n.version)
            .unwrap_or_else(|| INITIALIZE_VERSIONS[0].to_string());
        // Not through `request`: that would wait here again (recursion).
        let pending = self
            .start_request(
                "initialize",
                Some(initialize_params(&version, &self.inner.client)),
                false,
            )
            .await?;
        let limit = self.inner.request_timeout;
        let v = match tokio::time::timeout(limit, pending.rx).await {
            Ok(r) => r.unwrap_or_else(|_| Err(self.closed_error()))?,
            Err(_) => {
                return Err(RequestError::Timeout {
                    method: "initialize".into(),
                    after: limit,
                });
            }
        };
        let n = self
            .finish_initialize(
                &v,
                &version,
                true,
                "re-initialized after the server expired the session".into(),
                Instant::now(),
            )
            .await?;
        let new_id = h.session_id().unwrap_or_else(|| "(none)".into());
        self.inner.finding(Finding::new(
            Severity::Info,
            format!("the server expired HTTP session {expired:?} ({why}); initialized session {new_id:?} and sent the request again"),
        ));
        let keep = self.negotiated().map(|old| old.connect_time);
        let mut n = n;
        if let Some(t) = keep {
            n.connect_time = t;
        }
        self.set_negotiated(n);
        Ok(())
    }

    /// Answer the `inputRequests` of an input_required result, as server
    /// requests are answered (the person, or the automatic policy).
    async fn input_responses(
        &self,
        method: &str,
        v: &Value,
    ) -> Result<Map<String, Value>, RequestError> {
        let mut answers = Map::new();
        let requests = v.get("inputRequests").and_then(Value::as_object);
        if requests.is_none_or(|r| r.is_empty()) && v.get("requestState").is_none() {
            return Err(RequestError::Protocol(format!(
                "{method}: the server answered input_required with neither inputRequests nor requestState"
            )));
        }
        for (key, req) in requests.into_iter().flatten() {
            let asked = req.get("method").and_then(Value::as_str).unwrap_or("");
            let params = req.get("params").cloned();
            let outcome = if let Some(asker) = self
                .inner
                .client
                .ask
                .clone()
                .filter(|_| self.inner.client.asks(asked))
            {
                let rx = (asker.0)(ServerRequest {
                    server: self.inner.name.clone(),
                    method: asked.to_string(),
                    params: params.unwrap_or_else(|| json!({})),
                });
                rx.await
                    .unwrap_or_else(|_| Err(RpcError::new(-1, format!("{asked} was not answered"))))
            } else if asked == "ping" {
                Ok(json!({}))
            } else {
                self.inner.client.answer(asked, params.as_ref())
            };
            match outcome {
                Ok(answer) => {
                    answers.insert(key.clone(), answer);
                }
                Err(e) => {
                    return Err(RequestError::Protocol(format!(
                        "{method}: the server needs {asked} ({key}) first, and it was refused: {e}"
                    )));
                }
            }
        }
        Ok(answers)
    }

    /// Subscribe to a resource's updates (`notifications/resources/updated`):
    /// `resources/subscribe` in the initialize era; in the stateless era the
    /// `subscriptions/listen` stream is reopened with the URI added.
    pub async fn subscribe(&self, uri: &str) -> Result<(), RequestError> {
        let n = self
            .negotiated()
            .ok_or_else(|| RequestError::Protocol("not connected".into()))?;
        let declared = n
            .capabilities
            .get("resources")
            .and_then(|r| r.get("subscribe"))
            .and_then(Value::as_bool)
            == Some(true);
        if !declared {
            return Err(RequestError::Protocol(
                "the server does not declare resources.subscribe, so it offers no resource subscriptions".into(),
            ));
        }
        if n.era == Era::Initialize {
            self.request("resources/subscribe", Some(json!({"uri": uri})))
                .await?;
            self.inner
                .subscriptions
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .0
                .insert(uri.to_string());
            return Ok(());
        }
        self.inner
            .subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .insert(uri.to_string());
        self.listen().await
    }

    /// End a resource subscription.
    pub async fn unsubscribe(&self, uri: &str) -> Result<(), RequestError> {
        let removed = self
            .inner
            .subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .remove(uri);
        if !removed {
            return Ok(());
        }
        match self.negotiated().map(|n| n.era) {
            Some(Era::Initialize) => self
                .request("resources/unsubscribe", Some(json!({"uri": uri})))
                .await
                .map(|_| ()),
            _ => self.listen().await,
        }
    }

    /// The resources subscribed to.
    pub fn subscriptions(&self) -> Vec<String> {
        self.inner
            .subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .0
            .iter()
            .cloned()
            .collect()
    }

    /// (Re)open the stateless era's `subscriptions/listen` stream: list
    /// changes of every kind the server declares, and the subscribed
    /// resources. The request stays open; notifications arrive as events.
    /// The server acknowledges with `notifications/subscriptions/acknowledged`.
    pub async fn listen(&self) -> Result<(), RequestError> {
        let n = self
            .negotiated()
            .ok_or_else(|| RequestError::Protocol("not connected".into()))?;
        if n.era != Era::Stateless {
            return Ok(());
        }
        let _one = self.inner.listen_lock.lock().await;
        let changed = |kind: &str| {
            n.capabilities
                .get(kind)
                .and_then(|c| c.get("listChanged"))
                .and_then(Value::as_bool)
                == Some(true)
        };
        let (uris, old) = {
            let mut subs = self
                .inner
                .subscriptions
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            let uris: Vec<String> = subs.0.iter().cloned().collect();
            (uris, subs.1.take())
        };
        if let Some(old) = old {
            self.cancel(old, "subscriptions changed").await;
        }
        let mut filter = Map::new();
        for (key, kind) in [
            ("toolsListChanged", "tools"),
            ("promptsListChanged", "prompts"),
            ("resourcesListChanged", "resources"),
        ] {
            if changed(kind) {
                filter.insert(key.into(), json!(true));
            }
        }
        if !uris.is_empty() {
            filter.insert("resourceSubscriptions".into(), json!(uris));
        }
        if filter.is_empty() {
            return Ok(());
        }
        let pending = self
            .start_request(
                "subscriptions/listen",
                Some(json!({"notifications": filter})),
                false,
            )
            .await?;
        self.inner
            .subscriptions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .1 = Some(pending.id);
        // No timeout: the stream stays open. An error is a finding.
        let inner = Arc::downgrade(&self.inner);
        tokio::spawn(async move {
            let outcome = pending.rx.await;
            let Some(inner) = inner.upgrade() else { return };
            if let Ok(Err(e)) = outcome
                && !matches!(
                    e,
                    RequestError::Cancelled { .. } | RequestError::Closed { .. }
                )
            {
                inner.finding(Finding::new(
                    Severity::Warning,
                    format!(
                        "subscriptions/listen failed: {e}; no change notifications from this server"
                    ),
                ));
            }
        });
        Ok(())
    }

    /// Ping the server; the round trip time.
    pub async fn ping(&self) -> Result<Duration, RequestError> {
        let started = Instant::now();
        self.request("ping", None).await?;
        Ok(started.elapsed())
    }

    /// Ask the server for log messages at `level` and above: `logging/setLevel`
    /// in the initialize era, the per-request `logLevel` in the stateless era
    /// (from now on, on every request).
    pub async fn set_log_level(&self, level: &str) -> Result<(), RequestError> {
        if !LOG_LEVELS.contains(&level) {
            return Err(RequestError::Protocol(format!(
                "unknown log level {level:?}; use one of {}",
                LOG_LEVELS.join(", ")
            )));
        }
        let n = self
            .negotiated()
            .ok_or_else(|| RequestError::Protocol("not connected".into()))?;
        if n.era == Era::Stateless {
            *self
                .inner
                .log_level
                .write()
                .unwrap_or_else(|p| p.into_inner()) = Some(level.to_string());
            return Ok(());
        }
        if !n.has_capability("logging") {
            return Err(RequestError::Protocol(
                "the server does not declare the logging capability, so it takes no log level"
                    .into(),
            ));
        }
        self.request("logging/setLevel", Some(json!({"level": level})))
            .await
            .map(|_| ())
    }

    /// Cancel a request: its waiter gets `Cancelled` at once, and the server
    /// is told with `notifications/cancelled`. Returns false if it was no
    /// longer pending.
    pub async fn cancel(&self, id: i64, reason: &str) -> bool {
        let entry = self
            .inner
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&id);
        let Some(entry) = entry else { return false };
        if let Some(h) = self.inner.transport.http() {
            // Dropping the POST's stream; in the stateless era this is
            // the cancellation itself.
            h.abort(id);
        }
        let method = entry.method.clone();
        let _ = entry.tx.send(Err(RequestError::Cancelled {
            method: method.clone(),
        }));
        // The spec forbids cancelling initialize. The notification is sent
        // in the background: a server that is not reading its input must
        // not hold up the one who cancels.
        // Over HTTP in the stateless era, dropping the stream (above) is
        // the cancellation; no notification is expected.
        let stateless_http = self.inner.transport.http().is_some()
            && matches!(
                *self.inner.wire.read().unwrap_or_else(|p| p.into_inner()),
                Some((Era::Stateless, _))
            );
        if method != "initialize" && !stateless_http {
            let session = self.clone();
            let params = json!({"requestId": id, "reason": reason});
            tokio::spawn(async move {
                let _ = session
                    .notify("notifications/cancelled", Some(params))
                    .await;
            });
        }
        true
    }

    /// Follow `nextCursor` to the end. A repeated cursor stops with a finding.
    pub async fn list_all(&self, method: &str, key: &str) -> Result<Vec<Value>, RequestError> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        for page in 1..=MAX_PAGES {
            let params = cursor.as_ref().map(|c| json!({"cursor": c}));
            let result = self.request(method, params).await?;
            match result.get(key) {
                Some(Value::Array(page)) => items.extend(page.iter().cloned()),
                _ => self.inner.finding(Finding::frame(
                    Severity::Warning,
                    format!("{method} result has no `{key}` array"),
                    &result.to_string(),
                )),
            }
            match result.get("nextCursor") {
                None | Some(Value::Null) => return Ok(items),
                Some(Value::String(c)) if c.is_empty() => return Ok(items),
                Some(Value::String(c)) => {
                    if !seen.insert(c.clone()) {
                        self.inner.finding(Finding::frame(
                            Severity::Error,
                            format!("{method} repeated the cursor {c:?}; stopped after {page} pages with {} items", items.len()),
                            &result.to_string(),
                        ));
                        return Ok(items);
                    }
                    cursor = Some(c.clone());
                }
                Some(other) => {
                    self.inner.finding(Finding::frame(
                        Severity::Warning,
                        format!(
                            "{method}: `nextCursor` is {}, not a string; stopped paging",
                            jsonrpc::short(other)
                        ),
                        &result.to_string(),
                    ));
                    return Ok(items);
                }
            }
        }
        self.inner.finding(Finding::new(
            Severity::Error,
            format!("{method} had more than {MAX_PAGES} pages; stopped"),
        ));
        Ok(items)
    }

    /// All tools, all pages, parsed (bad entries become findings).
    pub async fn list_tools(&self) -> Result<Vec<Tool>, RequestError> {
        let raw = self.list_all("tools/list", "tools").await?;
        let mut findings = Vec::new();
        let tools: Vec<Tool> = raw
            .iter()
            .filter_map(|t| Tool::parse(t, &mut findings))
            .collect();
        let mut seen = HashSet::new();
        for t in &tools {
            if !seen.insert(t.name.as_str()) {
                findings.push(Finding::frame(
                    Severity::Warning,
                    format!(
                        "tool `{}` is listed more than once; calls go to the first",
                        t.name
                    ),
                    &t.raw.to_string(),
                ));
            }
        }
        for f in findings {
            self.inner.finding(f);
        }
        if let Some(h) = self.inner.transport.http() {
            h.set_tool_headers(
                tools
                    .iter()
                    .filter_map(|t| {
                        let p = super::transport::http::param_headers(t.input_schema.as_ref()?);
                        (!p.is_empty()).then(|| (t.name.clone(), p))
                    })
                    .collect(),
            );
        }
        Ok(tools)
    }

    /// Every list the server declares a capability for.
    pub async fn list_everything(&self) -> Result<Lists, RequestError> {
        let n = self
            .negotiated()
            .ok_or_else(|| RequestError::Protocol("not connected".into()))?;
        let mut lists = Lists::default();
        if n.has_capability("tools") {
            lists.tools = self.lenient(self.list_tools().await)?;
        }
        if n.has_capability("resources") {
            lists.resources = self.lenient(self.list_all("resources/list", "resources").await)?;
            // Templates are optional even for servers with resources.
            lists.templates = match self
                .list_all("resources/templates/list", "resourceTemplates")
                .await
            {
                Err(RequestError::Rpc { error, .. }) if error.code == codes::METHOD_NOT_FOUND => {
                    Vec::new()
                }
                other => self.lenient(other)?,
            };
        }
        if n.has_capability("prompts") {
            lists.prompts = self.lenient(self.list_all("prompts/list", "prompts").await)?;
        }
        Ok(lists)
    }

    /// A list that failed is a finding and an empty list; only a lost
    /// connection fails the whole listing.
    fn lenient<T: Default>(&self, r: Result<T, RequestError>) -> Result<T, RequestError> {
        match r {
            Ok(v) => Ok(v),
            Err(e @ RequestError::Closed { .. }) => Err(e),
            Err(e) => {
                self.inner.finding(Finding::new(
                    Severity::Error,
                    format!("{e}; that list is shown empty"),
                ));
                Ok(T::default())
            }
        }
    }

    /// Call a tool. Progress notifications reset the timeout.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<CallResult, RequestError> {
        let pending = self.start_call(name, arguments).await?;
        self.finish_call(pending).await
    }

    /// Start a `tools/call`; [`Session::finish_call`] waits for it.
    pub async fn start_call(
        &self,
        name: &str,
        arguments: Value,
    ) -> Result<PendingRequest, RequestError> {
        self.start_request(
            "tools/call",
            Some(json!({"name": name, "arguments": arguments})),
            true,
        )
        .await
    }

    pub async fn finish_call(&self, pending: PendingRequest) -> Result<CallResult, RequestError> {
        let v = pending.wait(self, None).await?;
        Ok(self.parse_call(v))
    }

    /// Call a tool as a task (2025-11-25 tasks): `tools/call` with `task`,
    /// then `tasks/get` every `pollInterval` until the task ends or needs
    /// input, then `tasks/result` (which also carries the server's queued
    /// requests, such as elicitation). Each status goes to `status`. When
    /// `cancel` fires, the task is cancelled with `tasks/cancel`.
    pub async fn call_task(
        &self,
        name: &str,
        arguments: Value,
        mut cancel: oneshot::Receiver<()>,
        status: impl Fn(TaskStatus),
    ) -> Result<CallResult, RequestError> {
        let cancelled = || RequestError::Cancelled {
            method: format!("tools/call {name} (task)"),
        };
        // Each step races the cancel: the first request is cancelled like
        // any request, the later ones end the task with tasks/cancel.
        let created = {
            let pending = self
                .start_request(
                    "tools/call",
                    Some(
                        json!({"name": name, "arguments": arguments, "task": {"ttl": TASK_TTL_MS}}),
                    ),
                    true,
                )
                .await?;
            let id = pending.id;
            let wait = pending.wait(self, None);
            tokio::pin!(wait);
            tokio::select! {
                biased;
                r = &mut wait => r?,
                _ = &mut cancel => {
                    if self.cancel(id, "cancelled by the user").await {
                        return Err(cancelled());
                    }
                    wait.await?
                }
            }
        };
        let Some(task) = created.get("task").filter(|t| t.is_object()) else {
            // The server ran it at once: a plain result.
            return Ok(self.parse_call(created));
        };
        let Some(id) = task
            .get("taskId")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            return Err(RequestError::Protocol(format!(
                "tools/call {name} created a task without a taskId: {}",
                jsonrpc::short(&created)
            )));
        };
        let end_task = async |this: &Session| {
            let _ = this
                .request("tasks/cancel", Some(json!({"taskId": id})))
                .await;
        };
        let mut current = TaskStatus::read(&id, task);
        status(current.clone());
        let mut polls = 0u32;
        while !current.done() && current.status != "input_required" {
            let wait = current.poll_interval;
            let step = async {
                tokio::time::sleep(wait).await;
                self.request("tasks/get", Some(json!({"taskId": id}))).await
            };
            let v = tokio::select! {
                biased;
                _ = &mut cancel => {
                    end_task(self).await;
                    return Err(cancelled());
                }
                r = step => match r {
                    Ok(v) => v,
                    Err(e) => {
                        end_task(self).await;
                        return Err(e);
                    }
                },
            };
            let next = TaskStatus::read(&id, &v);
            if next != current {
                status(next.clone());
            }
            current = next;
            polls += 1;
            if polls > MAX_TASK_POLLS {
                end_task(self).await;
                return Err(RequestError::Protocol(format!(
                    "task {id} of {name} was still {} after {MAX_TASK_POLLS} polls; cancelled",
                    current.status
                )));
            }
        }
        if current.status == "cancelled" {
            return Err(cancelled());
        }
        // tasks/result waits for the end (and delivers queued requests): it
        // may take as long as the task may live.
        let fetch = async {
            let pending = self
                .start_request("tasks/result", Some(json!({"taskId": id})), false)
                .await?;
            pending
                .wait(self, Some(Duration::from_millis(TASK_TTL_MS)))
                .await
        };
        let v = tokio::select! {
            biased;
            r = fetch => match r {
                Ok(v) => v,
                Err(e) => {
                    end_task(self).await;
                    return Err(e);
                }
            },
            _ = &mut cancel => {
                end_task(self).await;
                return Err(cancelled());
            }
        };
        if current.status == "input_required" {
            let mut done = current;
            done.status = "completed".into();
            done.message = None;
            status(done);
        }
        Ok(self.parse_call(v))
    }

    fn parse_call(&self, v: Value) -> CallResult {
        let mut findings = Vec::new();
        let result = CallResult::parse(v, &mut findings);
        for f in findings {
            self.inner.finding(f);
        }
        result
    }

    /// Close stdin, then signals; returns when the server is reaped.
    pub async fn close(&self) {
        self.inner.transport.close().await;
        self.inner
            .fail_all("the session was closed by mcpdeck", false);
    }
}

impl PendingRequest {
    /// The id of the request in flight now: retries (input_required, an
    /// expired HTTP session) send it again under a new id.
    pub fn current_id(&self) -> Arc<AtomicI64> {
        self.current.clone()
    }

    /// Wait for the answer. The timeout (the session's unless given) starts
    /// again on each progress notification. On timeout the server is told
    /// with `notifications/cancelled`.
    pub async fn wait(
        mut self,
        session: &Session,
        timeout: Option<Duration>,
    ) -> Result<Value, RequestError> {
        let timeout = timeout.unwrap_or(session.inner.request_timeout);
        let mut deadline = deadline_after(timeout);
        // Progress restarts the clock, but never past this.
        let mut hard = deadline_after(timeout.saturating_mul(MAX_PROGRESS_FACTOR));
        loop {
            tokio::select! {
                biased;
                r = &mut self.rx => {
                    let r = r.unwrap_or_else(|_| Err(session.closed_error()));
                    if let Err(RequestError::Http(f)) = &r
                        && let Some(expired) = &f.session_expired
                        && !self.retried
                        && self.method != "initialize"
                    {
                        // The server forgot the session: initialize again
                        // and ask once more.
                        let (expired, why) = (expired.clone(), f.message.clone());
                        session.recover_session(&expired, &why).await?;
                        let again = session
                            .start_request(&self.method, self.params.take(), self.with_progress)
                            .await?;
                        self.id = again.id;
                        self.rx = again.rx;
                        self.progress = again.progress;
                        self.retried = true;
                        self.current.store(self.id, Ordering::Release);
                        deadline = deadline_after(timeout);
                        hard = deadline_after(timeout.saturating_mul(MAX_PROGRESS_FACTOR));
                        continue;
                    }
                    let v = r?;
                    if v.get("resultType").and_then(Value::as_str) == Some("input_required")
                        && self.input_rounds < MAX_INPUT_ROUNDS
                    {
                        // The server needs input (elicitation, sampling,
                        // roots) first: answer each request, then ask again
                        // with the answers and the opaque requestState.
                        let mut params = self.params.clone().unwrap_or_else(|| json!({}));
                        let answers = session.input_responses(&self.method, &v).await?;
                        if answers.is_empty() {
                            // Only requestState: the server is not ready yet.
                            let wait = 50u64 << self.input_rounds.min(3);
                            tokio::time::sleep(Duration::from_millis(wait.min(250))).await;
                        }
                        if let Some(obj) = params.as_object_mut() {
                            if !answers.is_empty() {
                                obj.insert("inputResponses".into(), Value::Object(answers));
                            }
                            if let Some(state) = v.get("requestState") {
                                obj.insert("requestState".into(), state.clone());
                            }
                        }
                        let keep = self.params.take();
                        let again = session
                            .start_request(&self.method, Some(params), self.with_progress)
                            .await?;
                        self.id = again.id;
                        self.rx = again.rx;
                        self.progress = again.progress;
                        self.params = keep;
                        self.input_rounds += 1;
                        self.current.store(self.id, Ordering::Release);
                        deadline = deadline_after(timeout);
                        hard = deadline_after(timeout.saturating_mul(MAX_PROGRESS_FACTOR));
                        continue;
                    }
                    return session.inner.check_result(&self.method, v);
                }
                _ = self.progress.notified() => {
                    deadline = deadline_after(timeout).min(hard);
                }
                _ = tokio::time::sleep_until(deadline) => {
                    if session.inner.open_asks.load(Ordering::Acquire) > 0 {
                        // A person is answering this server's request: their
                        // time does not count against the call.
                        deadline = deadline_after(timeout);
                        hard = hard.max(deadline);
                        continue;
                    }
                    let (after, reason) = if deadline >= hard {
                        let total = timeout.saturating_mul(MAX_PROGRESS_FACTOR);
                        (total, format!("still running after {} despite progress", fmt_duration(total)))
                    } else {
                        (timeout, format!("timed out after {}", fmt_duration(timeout)))
                    };
                    if session.cancel(self.id, &reason).await {
                        return Err(RequestError::Timeout { method: self.method.clone(), after });
                    }
                    // The answer came in at the same moment: take it.
                }
            }
        }
    }
}

/// The syslog levels MCP uses, least severe first.
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// How long a task may live on the server (tools/call `task.ttl`).
pub const TASK_TTL_MS: u64 = 5 * 60 * 1000;
/// The most `tasks/get` polls for one task.
pub const MAX_TASK_POLLS: u32 = 10_000;

/// A task's state, as `tasks/get` reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskStatus {
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed`, `cancelled`.
    pub status: String,
    pub message: Option<String>,
    /// How long to wait between polls (the server's `pollInterval`,
    /// between 100 ms and 5 s).
    pub poll_interval: Duration,
}

impl TaskStatus {
    fn read(id: &str, v: &Value) -> TaskStatus {
        TaskStatus {
            task_id: id.to_string(),
            status: v
                .get("status")
                .and_then(Value::as_str)
                .unwrap_or("working")
                .to_string(),
            message: v
                .get("statusMessage")
                .and_then(Value::as_str)
                .map(str::to_string),
            poll_interval: Duration::from_millis(
                v.get("pollInterval")
                    .and_then(Value::as_u64)
                    .unwrap_or(1000)
                    .clamp(100, 5000),
            ),
        }
    }

    /// A terminal status.
    pub fn done(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "cancelled")
    }
}

/// The most input_required rounds one request may take.
pub const MAX_INPUT_ROUNDS: u32 = 16;

/// Progress notifications restart a request's timeout, but a request never
/// runs longer than this many timeouts in all.
pub const MAX_PROGRESS_FACTOR: u32 = 10;

/// `now + d`, or a far future when that does not fit.
fn deadline_after(d: Duration) -> tokio::time::Instant {
    let now = tokio::time::Instant::now();
    now.checked_add(d)
        .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600))
}

/// How the probe ended when it did not produce a session.
enum Negotiation {
    Fail(ConnectError),
    /// Start the process again and go straight to initialize.
    Restart(String),
    /// Start again on the legacy HTTP+SSE transport, straight into initialize.
    Legacy(String),
}
use Negotiation::{Fail, Legacy, Restart};

fn supported_versions(v: &Value) -> Vec<String> {
    strings(v.get("supportedVersions"))
}

/// The strings of a JSON array (anything else: none).
fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn initialize_params(version: &str, client: &ClientPolicy) -> Value {
    json!({"protocolVersion": version, "capabilities": client.capabilities(), "clientInfo": client_info()})
}

/// Add the 2026-07-28 `_meta` envelope to request params.
pub fn envelope(params: Option<Value>, version: &str) -> Value {
    envelope_with(params, version, json!({}))
}

/// [`envelope`] with the client capabilities to declare.
pub fn envelope_with(params: Option<Value>, version: &str, capabilities: Value) -> Value {
    let mut params = match params {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let meta = params.entry("_meta").or_insert_with(|| json!({}));
    if let Some(m) = meta.as_object_mut() {
        m.insert(
            "io.modelcontextprotocol/protocolVersion".into(),
            json!(version),
        );
        m.insert(
            "io.modelcontextprotocol/clientCapabilities".into(),
            capabilities,
        );
        m.insert("io.modelcontextprotocol/clientInfo".into(), client_info());
    }
    Value::Object(params)
}

impl Inner {
    fn emit(&self, event: SessionEvent) {
        (self.events)(Tagged {
            session: self.id,
            server: self.name.clone(),
            event,
        });
    }

    fn finding(&self, f: Finding) {
        {
            let mut all = self.findings.lock().unwrap_or_else(|p| p.into_inner());
            if all.len() >= MAX_FINDINGS {
                all.remove(0);
            }
            all.push(f.clone());
        }
        self.emit(SessionEvent::Finding(f));
    }

    /// Record a frame and send it (the newline is added here).
    async fn send_line(
        &self,
        mut line: String,
        meta: FrameMeta,
    ) -> Result<(), super::transport::TransportClosed> {
        self.frames.record(&self.name, Direction::Out, &line, meta);
        line.push('\n');
        self.transport.send(&line).await
    }

    /// Result-level checks shared by every request.
    fn check_result(&self, method: &str, v: Value) -> Result<Value, RequestError> {
        match v.get("resultType").and_then(Value::as_str) {
            None | Some("complete") => {}
            Some("input_required") => {
                return Err(RequestError::Protocol(format!(
                    "the server still needs input to complete {method} after {MAX_INPUT_ROUNDS} rounds of input_required; gave up"
                )));
            }
            Some(other) => self.finding(Finding::frame(
                Severity::Warning,
                format!("{method}: unknown resultType {other:?}; treated as complete"),
                &v.to_string(),
            )),
        }
        if !v.is_object() {
            self.finding(Finding::frame(
                Severity::Warning,
                format!("the result of {method} is not an object"),
                &v.to_string(),
            ));
        }
        Ok(v)
    }

    async fn handle_inbound(self: &Arc<Self>, item: Inbound) {
        match item {
            Inbound::Line(line) => self.handle_line(&line).await,
            Inbound::LineWithFinding(line, f) => {
                self.finding(f);
                self.handle_line(&line).await;
            }
            Inbound::Finding(f) => self.finding(f),
            Inbound::Failed { id, failure } => {
                let entry = self
                    .pending
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&id);
                if let Some(body) = &failure.body {
                    // Every byte the server sent can be seen.
                    self.frames.record(
                        &self.name,
                        Direction::In,
                        body,
                        FrameMeta {
                            method: entry.as_ref().map(|e| e.method.clone()),
                            id: Some(Id::Num(id)),
                            latency: entry.as_ref().map(|e| e.sent.elapsed()),
                        },
                    );
                }
                if let Some(e) = entry {
                    let _ = e.tx.send(Err(RequestError::Http(failure)));
                }
            }
            Inbound::Closed {
                description,
                requested,
                stderr_tail,
            } => {
                *self.closed.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some((description.clone(), stderr_tail.clone()));
                self.closed_signal.send_replace(true);
                if requested {
                    self.fail_all("the session was closed by mcpdeck", false);
                } else {
                    self.fail_all(&description, true);
                }
                self.emit(SessionEvent::Closed {
                    description,
                    requested,
                    stderr_tail,
                });
            }
        }
    }

    fn fail_all(&self, description: &str, with_tail: bool) {
        let entries: Vec<PendingEntry> = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
            .map(|(_, e)| e)
            .collect();
        let tail = if with_tail {
            self.transport
                .stderr()
                .map(|b| b.tail(20))
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        for e in entries {
            let _ = e.tx.send(Err(RequestError::Closed {
                description: format!("{} while waiting for {}", description, e.method),
                stderr_tail: tail.clone(),
            }));
        }
    }

    /// Find the pending request a response id points at. A numeric id that
    /// came back as a string is matched, with a finding.
    fn take_pending(&self, id: &Id, raw: &str) -> Option<(i64, PendingEntry)> {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        match id {
            Id::Num(n) => pending.remove(n).map(|e| (*n, e)),
            Id::Str(s) => {
                let n: i64 = s.parse().ok()?;
                let e = pending.remove(&n)?;
                drop(pending);
                self.finding(Finding::frame(
                    Severity::Warning,
                    format!("the response to request {n} came back with the id as a string ({s:?}); matched anyway"),
                    raw,
                ));
                Some((n, e))
            }
            Id::Other(num) => {
                // 3.0 for 3: matched, with a finding.
                let f = num
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)?;
                let n = f as i64;
                let e = pending.remove(&n)?;
                drop(pending);
                self.finding(Finding::frame(
                    Severity::Warning,
                    format!(
                        "the response to request {n} came back with the id {num}; matched anyway"
                    ),
                    raw,
                ));
                Some((n, e))
            }
            Id::Null => None,
        }
    }

    async fn handle_line(self: &Arc<Self>, line: &str) {
        let parsed = jsonrpc::parse_frame(line);
        // Match responses first so the frame record carries method and latency.
        let mut meta = FrameMeta::default();
        let mut deliveries = Vec::new();
        let mut others = Vec::new();
        for m in parsed.messages {
            match m {
                Message::Response { id, outcome } => match self.take_pending(&id, line) {
                    Some((n, entry)) => {
                        if meta.method.is_none() {
                            meta = FrameMeta {
                                method: Some(entry.method.clone()),
                                id: Some(Id::Num(n)),
                                latency: Some(entry.sent.elapsed()),
                            };
                        }
                        deliveries.push((entry, outcome));
                    }
                    None => {
                        if meta.id.is_none() {
                            meta.id = Some(id.clone());
                        }
                        let what = if outcome.is_err() {
                            "an error response"
                        } else {
                            "a response"
                        };
                        self.finding(Finding::frame(
                            Severity::Warning,
                            format!("{what} with id {id} matches no request in flight (unknown, timed out or cancelled); ignored"),
                            line,
                        ));
                    }
                },
                other => {
                    if meta.method.is_none() {
                        meta.method = other.method().map(str::to_string);
                        if let Message::Request { id, .. } = &other {
                            meta.id = Some(id.clone());
                        }
                    }
                    others.push(other);
                }
            }
        }
        self.frames.record(&self.name, Direction::In, line, meta);
        for f in parsed.findings {
            self.finding(f);
        }
        for (entry, outcome) in deliveries {
            let method = entry.method.clone();
            let _ = entry.tx.send(outcome.map_err(|error| RequestError::Rpc {
                method,
                error: Box::new(error),
            }));
        }
        for m in others {
            match m {
                Message::Request { id, method, params } => self.answer(id, &method, params),
                Message::Notification { method, params } => self.on_notification(method, params),
                Message::Response { .. } => {}
            }
        }
    }

    /// Answer a request from the server. The answer is written by its own
    /// task: the reader never waits on the server's input (a server blocked
    /// writing to us while we wait to write to it would be a deadlock).
    fn answer(self: &Arc<Self>, id: Id, method: &str, params: Option<Value>) {
        let stateless = matches!(
            *self.wire.read().unwrap_or_else(|p| p.into_inner()),
            Some((Era::Stateless, _))
        );
        if stateless {
            self.finding(Finding::new(
                Severity::Warning,
                format!("the server sent a {method} request, but the stateless era has no server-to-client requests (servers ask for input with resultType input_required)"),
            ));
        }
        let meta = FrameMeta {
            method: Some(method.to_string()),
            id: Some(id.clone()),
            latency: None,
        };
        if let Some(asker) = self.client.ask.clone().filter(|_| self.client.asks(method)) {
            // A person answers: the reader goes on meanwhile.
            let rx = (asker.0)(ServerRequest {
                server: self.name.clone(),
                method: method.to_string(),
                params: params.unwrap_or_else(|| json!({})),
            });
            let inner = self.clone();
            let method = method.to_string();
            self.open_asks.fetch_add(1, Ordering::AcqRel);
            tokio::spawn(async move {
                let answered = rx.await;
                inner.open_asks.fetch_sub(1, Ordering::AcqRel);
                let outcome = answered.unwrap_or_else(|_| {
                    Err(RpcError::new(
                        -1,
                        format!("{method} was not answered (mcpdeck closed the request)"),
                    ))
                });
                let line = jsonrpc::response(&id, outcome);
                let _ = inner.send_line(line, meta).await;
            });
            return;
        }
        let outcome = match method {
            "ping" => Ok(json!({})),
            _ => self.client.answer(method, params.as_ref()),
        };
        let line = jsonrpc::response(&id, outcome);
        let inner = self.clone();
        tokio::spawn(async move {
            let _ = inner.send_line(line, meta).await;
        });
    }

    fn on_notification(&self, method: String, params: Option<Value>) {
        if method == "notifications/progress"
            && let Some(token) = params.as_ref().and_then(|p| p.get("progressToken"))
        {
            let n = token
                .as_i64()
                .or_else(|| token.as_str().and_then(|s| s.parse().ok()));
            let pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            match n.and_then(|n| pending.get(&n)) {
                Some(entry) if entry.wants_progress => entry.progress.notify_one(),
                Some(entry) => {
                    let method = entry.method.clone();
                    drop(pending);
                    self.finding(Finding::new(
                        Severity::Warning,
                        format!(
                            "a progress notification names {method} (token {token}), which asked for no progress; it does not extend the timeout"
                        ),
                    ));
                }
                None => {
                    drop(pending);
                    self.finding(Finding::new(
                        Severity::Info,
                        format!(
                            "a progress notification for token {token} matches no request in flight"
                        ),
                    ));
                }
            }
        }
        self.emit(SessionEvent::Notification { method, params });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_keeps_other_meta() {
        let p = envelope(
            Some(json!({"name":"x","_meta":{"progressToken":3}})),
            STATELESS_VERSION,
        );
        assert_eq!(p["name"], "x");
        assert_eq!(p["_meta"]["progressToken"], 3);
        assert_eq!(
            p["_meta"]["io.modelcontextprotocol/protocolVersion"],
            STATELESS_VERSION
        );
        assert!(p["_meta"]["io.modelcontextprotocol/clientCapabilities"].is_object());
        assert_eq!(
            p["_meta"]["io.modelcontextprotocol/clientInfo"]["name"],
            "mcpdeck"
        );
    }
}
