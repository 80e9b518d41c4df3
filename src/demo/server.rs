//! The demo server's connection loop: one reader that parses lines, applies the
//! era rules and spawns a task per request; one writer that owns the output.
//!
//! Era rules (see `/work/shared/PROTOCOL.md` and transcripts 08-10):
//! - `dual`: the first request decides. `initialize` locks the connection to the
//!   handshake era; `server/discover` or any request carrying the 2026-07-28
//!   `_meta` envelope locks it to the stateless era. Afterwards `initialize` on a
//!   modern connection gets -32022 and an enveloped request on a legacy
//!   connection gets -32600.
//! - `stateless`: only 2026-07-28; `initialize` gets -32022.
//! - `initialize`: only the handshake era; `server/discover` gets -32601.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::sync::{Notify, mpsc};
use tokio::task::AbortHandle;

use super::catalog::{self, ToolDef, ToolKind};
use super::skills::{self, Skills};
use super::{DemoArgs, Era};

mod handlers;

/// The stateless protocol revision this server speaks.
pub const MODERN_VERSION: &str = "2026-07-28";
/// Handshake-era versions accepted by `initialize`, newest first.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
const META_LOG: &str = "io.modelcontextprotocol/logLevel";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const CONNECTION_CLOSED: i64 = -32000;
const RESOURCE_NOT_FOUND_LEGACY: i64 = -32002;
const UNSUPPORTED_VERSION: i64 = -32022;

/// How long in-flight (non-slow) requests may keep running after stdin EOF.
const EOF_GRACE: Duration = Duration::from_secs(2);

#[derive(Debug)]
struct RpcError {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }
    fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    fn method_not_found(method: &str) -> Self {
        RpcError::new(METHOD_NOT_FOUND, "Method not found").with_data(json!(method))
    }
    fn invalid_params(message: impl Into<String>) -> Self {
        RpcError::new(INVALID_PARAMS, message)
    }
    fn to_json(&self) -> Value {
        let mut e = Map::new();
        e.insert("code".into(), json!(self.code));
        e.insert("message".into(), json!(self.message));
        if let Some(d) = &self.data {
            e.insert("data".into(), d.clone());
        }
        Value::Object(e)
    }
}

/// Syslog severities used by MCP logging, least severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl Level {
    const ALL: [Level; 8] = [
        Level::Debug,
        Level::Info,
        Level::Notice,
        Level::Warning,
        Level::Error,
        Level::Critical,
        Level::Alert,
        Level::Emergency,
    ];
    fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Notice => "notice",
            Level::Warning => "warning",
            Level::Error => "error",
            Level::Critical => "critical",
            Level::Alert => "alert",
            Level::Emergency => "emergency",
        }
    }
    fn parse(s: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.as_str() == s)
    }
    fn from_u8(v: u8) -> Level {
        Level::ALL[usize::from(v).min(Level::ALL.len() - 1)]
    }
}

/// Which era a request is served in.
#[derive(Debug, Clone, Copy)]
enum Ctx {
    Legacy,
    /// 2026-07-28; `log` is the request's `io.modelcontextprotocol/logLevel`.
    Modern {
        log: Option<Level>,
    },
}

enum Outgoing {
    Line(String),
    Shutdown,
}

#[derive(Clone)]
struct Out(mpsc::UnboundedSender<Outgoing>);

impl Out {
    fn send(&self, msg: &Value) {
        match serde_json::to_string(msg) {
            Ok(line) => {
                let _ = self.0.send(Outgoing::Line(line));
            }
            Err(e) => tracing::error!("demo-server: cannot serialize a message: {e}"),
        }
    }
    fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }
    fn error(&self, id: &Value, e: &RpcError) {
        self.send(&error_message(id, e));
    }
    fn result(&self, id: &Value, result: Map<String, Value>) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "result": result}));
    }
}

fn error_message(id: &Value, e: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": e.to_json()})
}

struct InFlight {
    seq: u64,
    id: Value,
    abort: AbortHandle,
    /// Long-running work that is abandoned (not awaited) at stdin EOF.
    slow: bool,
}

/// State shared by the reader and the request tasks.
struct Server {
    args: DemoArgs,
    tools: Vec<ToolDef>,
    tool_index: HashMap<String, usize>,
    capabilities: Value,
    instructions: String,
    /// The Agent Skills served through `io.modelcontextprotocol/skills`
    /// (`None` without resources: the extension requires them).
    skills: Option<Skills>,
    out: Out,
    inflight: Mutex<HashMap<String, InFlight>>,
    inflight_changed: Notify,
    next_seq: AtomicU64,
    /// Handshake-era log level set by `logging/setLevel` (a `Level` as u8).
    legacy_log_level: AtomicU8,
}

/// Era lock of the connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lock {
    Unlocked,
    Legacy,
    Modern,
}

/// Serve one connection until `input` reaches EOF.
pub async fn serve<R, W>(args: DemoArgs, input: R, output: W) -> anyhow::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel();
    let writer = tokio::spawn(write_loop(output, rx));
    let out = Out(tx.clone());
    let srv = Arc::new(Server::new(args, out));
    let mut lock = match srv.args.era {
        Era::Stateless => Lock::Modern,
        Era::Dual | Era::Initialize => Lock::Unlocked,
    };

    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut buf = Vec::with_capacity(1 << 12);
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf).await {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                tracing::warn!("demo-server: reading input failed: {e}");
                break;
            }
        }
        let line = buf.trim_ascii();
        if !line.is_empty() {
            srv.handle_line(line, &mut lock);
        }
    }

    srv.shutdown().await;
    let _ = tx.send(Outgoing::Shutdown);
    drop(tx);
    let _ = writer.await;
    Ok(())
}

async fn write_loop<W: AsyncWrite + Unpin>(output: W, mut rx: mpsc::UnboundedReceiver<Outgoing>) {
    let mut w = BufWriter::with_capacity(1 << 16, output);
    while let Some(first) = rx.recv().await {
        let mut next = Some(first);
        while let Some(msg) = next.take() {
            match msg {
                Outgoing::Line(line) => {
                    let res = async {
                        w.write_all(line.as_bytes()).await?;
                        w.write_all(b"\n").await
                    }
                    .await;
                    if let Err(e) = res {
                        tracing::warn!("demo-server: writing output failed: {e}");
                        return;
                    }
                }
                Outgoing::Shutdown => {
                    let _ = w.flush().await;
                    return;
                }
            }
            // Batch whatever is already queued, then flush once.
            next = rx.try_recv().ok();
        }
        if let Err(e) = w.flush().await {
            tracing::warn!("demo-server: flushing output failed: {e}");
            return;
        }
    }
    let _ = w.flush().await;
}

fn id_key(id: &Value) -> String {
    // Distinguishes 1 from "1".
    id.to_string()
}

fn str_param<'a>(params: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    params.get(key).and_then(Value::as_str)
}

fn meta(params: &Map<String, Value>) -> Option<&Map<String, Value>> {
    params.get("_meta").and_then(Value::as_object)
}

fn encode_cursor(kind: &str, offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{kind}:{offset}"))
}

fn decode_cursor(kind: &str, cursor: &str) -> Option<usize> {
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    let text = String::from_utf8(raw).ok()?;
    let (k, offset) = text.split_once(':')?;
    if k != kind {
        return None;
    }
    offset.parse().ok()
}

impl Server {
    fn new(args: DemoArgs, out: Out) -> Server {
        let tools = catalog::build_tools(args.tools);
        let tool_index = catalog::tool_index(&tools);

        let mut caps = Map::new();
        caps.insert("logging".into(), json!({}));
        if !args.no_prompts || !args.no_resources {
            caps.insert("completions".into(), json!({}));
        }
        if !args.no_prompts {
            caps.insert("prompts".into(), json!({"listChanged": false}));
        }
        if !args.no_resources {
            caps.insert(
                "resources".into(),
                json!({"subscribe": false, "listChanged": false}),
            );
        }
        caps.insert("tools".into(), json!({"listChanged": false}));
        if !args.no_resources {
            caps.insert(
                "extensions".into(),
                json!({skills::EXTENSION: {"directoryRead": true}}),
            );
        }

        let mut instructions = String::from(
            "mcpdeck's built-in demo server: everything is synthetic and local. Tools: echo and add \
             (text and structured results), get_weather (structured content with an outputSchema), \
             render_image (PNG) and make_sound (WAV), link_resource and embed_resource, slow_task \
             (progress notifications; cancel it with notifications/cancelled), fail (a tool-level \
             error), log_messages (log notifications) and everything_mixed (one block of every \
             content type).",
        );
        if !args.no_resources {
            instructions.push_str(
                " Resources: demo://readme, demo://logo.png and the template demo://greeting/{name}. \
                 Skills (the io.modelcontextprotocol/skills extension: skills/list, skills/get, \
                 resources/directory/read): skill://demo-tour/SKILL.md and \
                 skill://docs/release-notes/SKILL.md.",
            );
        }
        if !args.no_prompts {
            instructions.push_str(
                " Prompts: review_code (with completion for its language argument) and greeting.",
            );
        }

        let skills = (!args.no_resources).then(Skills::build);
        Server {
            args,
            skills,
            tools,
            tool_index,
            capabilities: Value::Object(caps),
            instructions,
            out,
            inflight: Mutex::new(HashMap::new()),
            inflight_changed: Notify::new(),
            next_seq: AtomicU64::new(1),
            legacy_log_level: AtomicU8::new(Level::Debug as u8),
        }
    }

    fn inflight(&self) -> MutexGuard<'_, HashMap<String, InFlight>> {
        self.inflight.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn server_info(&self) -> Value {
        json!({"name": self.args.name, "version": env!("CARGO_PKG_VERSION")})
    }

    // --- reader side ------------------------------------------------------

    fn handle_line(self: &Arc<Self>, line: &[u8], lock: &mut Lock) {
        let msg: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                let err = RpcError::new(PARSE_ERROR, "Parse error").with_data(json!(e.to_string()));
                self.out.error(&Value::Null, &err);
                return;
            }
        };
        let mut obj = match msg {
            Value::Object(m) => m,
            Value::Array(_) => {
                let err = RpcError::new(
                    INVALID_REQUEST,
                    "Invalid Request: batches are not supported",
                );
                self.out.error(&Value::Null, &err);
                return;
            }
            _ => {
                let err = RpcError::new(INVALID_REQUEST, "Invalid Request: expected a JSON object");
                self.out.error(&Value::Null, &err);
                return;
            }
        };
        let id = obj.remove("id");
        let Some(method) = obj.get("method").and_then(Value::as_str).map(str::to_owned) else {
            if obj.contains_key("result") || obj.contains_key("error") {
                // A response; this server never sends requests, so nothing waits for it.
                return;
            }
            let err = RpcError::new(INVALID_REQUEST, "Invalid Request: missing method");
            self.out.error(&id.unwrap_or(Value::Null), &err);
            return;
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            if let Some(id) = id {
                let err =
                    RpcError::new(INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"");
                self.out.error(&id, &err);
            }
            return;
        }
        let params = match obj.remove("params") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(p)) => p,
            Some(_) => {
                if let Some(id) = id {
                    self.out
                        .error(&id, &RpcError::invalid_params("params must be an object"));
                }
                return;
            }
        };
        match id {
            None => self.handle_notification(&method, &params),
            Some(id @ (Value::String(_) | Value::Number(_))) => {
                self.handle_request(id, method, params, lock)
            }
            Some(_) => {
                let err = RpcError::new(
                    INVALID_REQUEST,
                    "Invalid Request: id must be a string or a number",
                );
                self.out.error(&Value::Null, &err);
            }
        }
    }

    fn handle_notification(&self, method: &str, params: &Map<String, Value>) {
        match method {
            "notifications/cancelled" => {
                let Some(request_id) = params.get("requestId") else {
                    return;
                };
                let removed = self.inflight().remove(&id_key(request_id));
                if let Some(f) = removed {
                    f.abort.abort();
                    tracing::debug!("demo-server: cancelled request {request_id}");
                    self.inflight_changed.notify_waiters();
                }
            }
            "notifications/initialized" => {}
            other => tracing::debug!("demo-server: ignoring notification {other}"),
        }
    }

    fn handle_request(
        self: &Arc<Self>,
        id: Value,
        method: String,
        params: Map<String, Value>,
        lock: &mut Lock,
    ) {
        let enveloped = meta(&params)
            .is_some_and(|m| m.contains_key(META_VERSION) || m.contains_key(META_CAPS));
        match self.args.era {
            Era::Initialize => {
                if method == "server/discover" {
                    self.out
                        .error(&id, &RpcError::new(METHOD_NOT_FOUND, "Method not found"));
                } else {
                    self.legacy_request(id, method, params, lock);
                }
            }
            Era::Stateless => {
                if method == "initialize" {
                    let err = self.initialize_refused(
                        &params,
                        "this server speaks only the 2026-07-28 protocol; the initialize handshake is not accepted",
                    );
                    self.out.error(&id, &err);
                } else {
                    self.modern_request(id, method, params);
                }
            }
            Era::Dual => match *lock {
                Lock::Unlocked if method == "initialize" => {
                    self.legacy_request(id, method, params, lock);
                }
                Lock::Unlocked if method == "server/discover" || enveloped => {
                    *lock = Lock::Modern;
                    self.modern_request(id, method, params);
                }
                Lock::Unlocked | Lock::Legacy if !enveloped => {
                    if method == "server/discover" {
                        self.out.error(&id, &RpcError::method_not_found(&method));
                    } else {
                        self.legacy_request(id, method, params, lock);
                    }
                }
                Lock::Unlocked | Lock::Legacy => {
                    let err = RpcError::new(
                        INVALID_REQUEST,
                        "this connection serves the handshake protocol era; requests carrying \
                         the 2026-07-28 envelope are not accepted on it",
                    );
                    self.out.error(&id, &err);
                }
                Lock::Modern => {
                    if method == "initialize" {
                        let err = self.initialize_refused(
                            &params,
                            "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
                        );
                        self.out.error(&id, &err);
                    } else {
                        self.modern_request(id, method, params);
                    }
                }
            },
        }
    }

    fn initialize_refused(&self, params: &Map<String, Value>, message: &str) -> RpcError {
        let requested = params
            .get("protocolVersion")
            .cloned()
            .unwrap_or(Value::Null);
        RpcError::new(UNSUPPORTED_VERSION, message)
            .with_data(json!({"supported": [MODERN_VERSION], "requested": requested}))
    }

    /// Handshake era (also the not-yet-locked state of `dual` and `initialize`).
    fn legacy_request(
        self: &Arc<Self>,
        id: Value,
        method: String,
        params: Map<String, Value>,
        lock: &mut Lock,
    ) {
        match method.as_str() {
            "initialize" => match str_param(&params, "protocolVersion") {
                Some(requested) => {
                    let version = if LEGACY_VERSIONS.contains(&requested) {
                        requested
                    } else {
                        LEGACY_VERSIONS[0]
                    };
                    *lock = Lock::Legacy;
                    let mut info = self.server_info();
                    info["title"] = json!("mcpdeck demo server");
                    let mut r = Map::new();
                    r.insert("protocolVersion".into(), json!(version));
                    r.insert("capabilities".into(), self.capabilities.clone());
                    r.insert("serverInfo".into(), info);
                    r.insert("instructions".into(), json!(self.instructions));
                    self.out.result(&id, r);
                }
                None => self.out.error(
                    &id,
                    &RpcError::invalid_params("initialize requires params.protocolVersion (a string)"),
                ),
            },
            "ping" => self.out.result(&id, Map::new()),
            _ if *lock == Lock::Unlocked => {
                let err = RpcError::new(
                    INVALID_REQUEST,
                    format!("received request '{method}' before initialization was complete; send initialize first"),
                );
                self.out.error(&id, &err);
            }
            "logging/setLevel" => match str_param(&params, "level").and_then(Level::parse) {
                Some(level) => {
                    self.legacy_log_level.store(level as u8, Ordering::Relaxed);
                    self.out.result(&id, Map::new());
                }
                None => self.out.error(
                    &id,
                    &RpcError::invalid_params(
                        "params.level must be one of debug, info, notice, warning, error, critical, alert, emergency",
                    ),
                ),
            },
            _ => self.spawn_request(id, method, params, Ctx::Legacy),
        }
    }

    /// 2026-07-28: check the `_meta` envelope, then serve.
    fn modern_request(self: &Arc<Self>, id: Value, method: String, params: Map<String, Value>) {
        let log = match check_envelope(&params) {
            Ok(log) => log,
            Err(e) => return self.out.error(&id, &e),
        };
        match method.as_str() {
            // Removed in 2026-07-28.
            "ping" | "logging/setLevel" => {
                self.out.error(&id, &RpcError::method_not_found(&method))
            }
            "server/discover" => {
                let mut r = Map::new();
                r.insert("supportedVersions".into(), json!([MODERN_VERSION]));
                r.insert("capabilities".into(), self.capabilities.clone());
                r.insert("instructions".into(), json!(self.instructions));
                self.out.result(&id, self.modern_result(r, true));
            }
            _ => self.spawn_request(id, method, params, Ctx::Modern { log }),
        }
    }

    /// Add the 2026-07-28 result fields.
    fn modern_result(&self, mut r: Map<String, Value>, cacheable: bool) -> Map<String, Value> {
        r.insert("resultType".into(), json!("complete"));
        if cacheable {
            r.insert("ttlMs".into(), json!(self.args.ttl_ms));
            r.insert("cacheScope".into(), json!(self.args.cache_scope));
        }
        let mut m = match r.remove("_meta") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        m.insert(META_SERVER_INFO.into(), self.server_info());
        r.insert("_meta".into(), Value::Object(m));
        r
    }

    fn spawn_request(
        self: &Arc<Self>,
        id: Value,
        method: String,
        params: Map<String, Value>,
        ctx: Ctx,
    ) {
        let slow = method == "tools/call" && str_param(&params, "name") == Some("slow_task");
        let key = id_key(&id);
        let seq = self.next_seq.fetch_add(1, Ordering::Relaxed);
        let srv = Arc::clone(self);
        let task_key = key.clone();
        let task_id = id.clone();

        // Hold the map while spawning so the task cannot finish before it is registered.
        let mut inflight = self.inflight();
        let handle = tokio::spawn(async move {
            let outcome = srv.handle(&method, params, ctx).await;
            let msg = match outcome {
                Ok(result) => {
                    let result = match ctx {
                        Ctx::Legacy => result,
                        Ctx::Modern { .. } => {
                            let cacheable = matches!(
                                method.as_str(),
                                "tools/list"
                                    | "resources/list"
                                    | "resources/templates/list"
                                    | "prompts/list"
                                    | "resources/read"
                                    | "skills/list"
                                    | "skills/get"
                            );
                            srv.modern_result(result, cacheable)
                        }
                    };
                    json!({"jsonrpc": "2.0", "id": task_id, "result": result})
                }
                Err(e) => error_message(&task_id, &e),
            };
            // Whoever removes the entry owns the response: a cancelled request is
            // never answered, and nothing is answered twice.
            let mut inflight = srv.inflight();
            if inflight.get(&task_key).is_some_and(|f| f.seq == seq) {
                inflight.remove(&task_key);
                srv.out.send(&msg);
            }
            drop(inflight);
            srv.inflight_changed.notify_waiters();
        });
        let previous = inflight.insert(
            key,
            InFlight {
                seq,
                id,
                abort: handle.abort_handle(),
                slow,
            },
        );
        drop(inflight);
        if let Some(p) = previous {
            tracing::warn!(
                "demo-server: request id {} reused while still in flight",
                p.id
            );
        }
    }

    /// At stdin EOF: abandon slow work (answering "Connection closed", as the
    /// Python SDK does), give quick requests a short grace period, then stop.
    async fn shutdown(&self) {
        let closed = RpcError::new(CONNECTION_CLOSED, "Connection closed");
        self.inflight().retain(|_, f| {
            if f.slow {
                f.abort.abort();
                self.out.error(&f.id, &closed);
            }
            !f.slow
        });
        let wait = async {
            loop {
                let changed = self.inflight_changed.notified();
                tokio::pin!(changed);
                changed.as_mut().enable();
                if self.inflight().is_empty() {
                    break;
                }
                changed.await;
            }
        };
        let _ = tokio::time::timeout(EOF_GRACE, wait).await;
        for (_, f) in self.inflight().drain() {
            f.abort.abort();
            self.out.error(&f.id, &closed);
        }
    }

    // --- request tasks ------------------------------------------------------

    /// Send a log notification if the request's level allows it.
    fn log(&self, ctx: Ctx, level: Level, data: &str) -> bool {
        let threshold = match ctx {
            Ctx::Legacy => Level::from_u8(self.legacy_log_level.load(Ordering::Relaxed)),
            Ctx::Modern { log: Some(l) } => l,
            Ctx::Modern { log: None } => return false,
        };
        if level < threshold {
            return false;
        }
        self.out.notify(
            "notifications/message",
            json!({"level": level.as_str(), "logger": "mcpdeck-demo", "data": data}),
        );
        true
    }
}

/// Validate the 2026-07-28 request envelope; returns the requested log level.
fn check_envelope(params: &Map<String, Value>) -> Result<Option<Level>, RpcError> {
    let meta = meta(params);
    let mut missing = Vec::new();
    match meta.and_then(|m| m.get(META_VERSION)) {
        None | Some(Value::Null) => missing.push(META_VERSION),
        Some(Value::String(v)) if v == MODERN_VERSION => {}
        Some(Value::String(v)) => {
            return Err(
                RpcError::new(UNSUPPORTED_VERSION, "Unsupported protocol version")
                    .with_data(json!({"supported": [MODERN_VERSION], "requested": v})),
            );
        }
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "params._meta[\"{META_VERSION}\"] must be a string"
            )));
        }
    }
    match meta.and_then(|m| m.get(META_CAPS)) {
        None | Some(Value::Null) => missing.push(META_CAPS),
        Some(Value::Object(_)) => {}
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "params._meta[\"{META_CAPS}\"] must be an object"
            )));
        }
    }
    if !missing.is_empty() {
        return Err(RpcError::invalid_params(format!(
            "params._meta is missing the required envelope key(s): {}",
            missing.join(", ")
        )));
    }
    match meta.and_then(|m| m.get(META_LOG)) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Level::parse(s).map(Some).ok_or_else(|| {
            RpcError::invalid_params(format!(
                "params._meta[\"{META_LOG}\"] must be a log level (debug … emergency), got {s:?}"
            ))
        }),
        Some(_) => Err(RpcError::invalid_params(format!(
            "params._meta[\"{META_LOG}\"] must be a string"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_are_kind_specific() {
        let c = encode_cursor("tools", 42);
        assert_eq!(decode_cursor("tools", &c), Some(42));
        assert_eq!(decode_cursor("prompts", &c), None);
        assert_eq!(decode_cursor("tools", "!!!"), None);
    }

    #[test]
    fn envelope_errors() {
        let p = |v: Value| v.as_object().unwrap().clone();
        let e = check_envelope(&p(
            json!({"_meta": {META_VERSION: "2099-01-01", META_CAPS: {}}}),
        ))
        .unwrap_err();
        assert_eq!(e.code, UNSUPPORTED_VERSION);
        let e = check_envelope(&p(json!({"_meta": {META_VERSION: MODERN_VERSION}}))).unwrap_err();
        assert_eq!(e.code, INVALID_PARAMS);
        assert!(e.message.contains(META_CAPS));
        let ok = check_envelope(&p(
            json!({"_meta": {META_VERSION: MODERN_VERSION, META_CAPS: {}, META_LOG: "warning"}}),
        ));
        assert_eq!(ok.unwrap(), Some(Level::Warning));
    }
}
