//! Spans over OTLP/HTTP: one CLIENT span per MCP request mcpdeck sends
//! (the handshake, lists, reads, prompts, tool calls, every other
//! request), exported over OTLP/HTTP in protobuf ([`otlp`] encodes it,
//! [`client`] batches and sends it).
//!
//! On when `[telemetry] otlp_endpoint` or `OTEL_EXPORTER_OTLP_ENDPOINT` /
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (and `OTEL_SDK_DISABLED` is
//! not `true`). Off, nothing changes: [`active`] is one atomic load, and
//! no request carries a `traceparent`.
//!
//! How a span lives: the session starts it when it sends the request
//! ([`Telemetry::start`]), puts its W3C trace context in the request's
//! `params._meta`, and keeps it with the request in flight; it ends when
//! the answer (or the timeout, the cancel, the closed connection) settles
//! the request ([`RequestSpan::end`]). A request dropped without an
//! answer ends its span on drop, as `error.type = transport`: no span is
//! left open.
//!
//! One resource for the process, the same for every server
//! (`service.name = mcpdeck`, `service.version`); the server's name is the
//! span attribute `mcp.server.name`.
//!
//! Export runs on a thread of its own, through mcpdeck's own reqwest (one
//! HTTP and TLS stack in the binary), so that neither the UI nor the
//! sessions ever wait for the collector. At exit [`shutdown`] flushes
//! within [`FLUSH_LIMIT`]. A collector that cannot be reached (or
//! refuses) gives one warning for the whole run.

mod client;
pub(crate) mod content;
mod context;
mod otlp;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, RwLock};
use std::time::Duration;

use serde_json::Value;

use context::{SAMPLED, SpanContext};
use otlp::{Attr, SpanData};

use crate::config::{ServerConfig, TelemetryConfig, TransportConfig};

pub use content::{CONTENT_LIMIT, masked};

/// The longest wait for the last spans at exit.
pub const FLUSH_LIMIT: Duration = Duration::from_secs(2);

/// The spans in progress, once [`init`] found an endpoint.
pub struct Telemetry {
    exporter: client::Exporter,
    ids: context::Ids,
    capture_content: bool,
    /// Per server name: address and port (HTTP servers).
    servers: RwLock<HashMap<String, ServerInfo>>,
    endpoint: String,
}

#[derive(Debug, Clone)]
struct ServerInfo {
    address: Option<String>,
    port: Option<u16>,
}

static TELEMETRY: OnceLock<Telemetry> = OnceLock::new();
/// Set once the one warning was given.
static WARNED: AtomicBool = AtomicBool::new(false);
/// Set by the TUI: the warning is kept for the status bar, not printed.
static QUIET: AtomicBool = AtomicBool::new(false);
static WARNING: Mutex<Option<String>> = Mutex::new(None);

/// The telemetry in force, if on.
#[inline]
pub fn active() -> Option<&'static Telemetry> {
    TELEMETRY.get()
}

/// Where spans go: `[telemetry] otlp_endpoint` (with `/v1/traces`
/// appended unless it ends so), else the standard variables (the traces
/// one as it is, the generic one with `/v1/traces`); `None` when
/// telemetry is off.
pub fn endpoint(config: &TelemetryConfig, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    let set = |name: &str| {
        env(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    if set("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
        return None;
    }
    let with_path = |base: &str| {
        if base.trim_end_matches('/').ends_with("/v1/traces") {
            base.to_string()
        } else {
            format!("{}/v1/traces", base.trim_end_matches('/'))
        }
    };
    if let Some(url) = &config.otlp_endpoint {
        return Some(with_path(url));
    }
    if let Some(url) = set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
        return Some(url);
    }
    set("OTEL_EXPORTER_OTLP_ENDPOINT").map(|u| with_path(&u))
}

/// Turn telemetry on when an endpoint is configured (see [`endpoint`]).
/// Call once, after the config is read; later calls do nothing. An error
/// names what to fix; telemetry stays off then.
pub fn init(config: &TelemetryConfig) -> Result<bool, String> {
    if TELEMETRY.get().is_some() {
        return Ok(true);
    }
    let Some(endpoint) = endpoint(config, &|k| std::env::var(k).ok()) else {
        return Ok(false);
    };
    let service = std::env::var("OTEL_SERVICE_NAME")
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| "mcpdeck".into());
    let resource = vec![
        Attr::new("service.name", service),
        Attr::new("service.version", env!("CARGO_PKG_VERSION")),
    ];
    let exporter = client::Exporter::start(&endpoint, resource)?;
    let _ = TELEMETRY.set(Telemetry {
        exporter,
        ids: context::Ids::new(),
        capture_content: config.capture_content,
        servers: RwLock::new(HashMap::new()),
        endpoint,
    });
    Ok(true)
}

/// Name the servers spans may be about (address, port, transport).
pub fn attach(servers: &[ServerConfig]) {
    let Some(t) = active() else { return };
    let mut known = t.servers.write().unwrap_or_else(|p| p.into_inner());
    for s in servers {
        let info = match &s.transport {
            TransportConfig::Stdio { .. } => ServerInfo {
                address: None,
                port: None,
            },
            TransportConfig::Http { url, .. } => {
                let parsed = url::Url::parse(url).ok();
                ServerInfo {
                    address: parsed
                        .as_ref()
                        .and_then(|u| u.host_str().map(str::to_string)),
                    port: parsed.as_ref().and_then(url::Url::port_or_known_default),
                }
            }
        };
        known.insert(s.name.clone(), info);
    }
}

/// The TUI: the warning goes to its status bar ([`warning`]), not stderr.
pub fn quiet_stderr() {
    QUIET.store(true, Ordering::Relaxed);
}

/// The one warning given, if any (for the TUI's status bar).
pub fn warning() -> Option<String> {
    WARNING.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// Whether the export warning was given (the TUI's status bar says so).
pub fn failed() -> bool {
    WARNED.load(Ordering::Relaxed)
}

/// A telemetry setting that cannot be used as it is (a malformed header
/// entry): said at once, on stderr and in the log, and not counted as the
/// export warning (which stays free for a collector that fails).
pub(crate) fn config_warning(message: String) {
    eprintln!("mcpdeck: {message}");
    tracing::warn!("{message}");
}

/// Give the warning, once a run.
pub(crate) fn warn_once(message: String) {
    if WARNED.swap(true, Ordering::SeqCst) {
        return;
    }
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("mcpdeck: {message}");
    }
    tracing::warn!("{message}");
    *WARNING.lock().unwrap_or_else(|p| p.into_inner()) = Some(message);
}

/// Send the spans still queued, waiting at most [`FLUSH_LIMIT`] (on a
/// thread of its own: a stuck collector never holds the exit longer).
pub fn shutdown() {
    let Some(t) = active() else { return };
    if !t.exporter.flush(FLUSH_LIMIT) {
        warn_once(format!(
            "telemetry: spans not all sent to {} within {}; the rest are dropped",
            crate::mcp::netlog::shown_url(&t.endpoint),
            crate::text::fmt_duration(FLUSH_LIMIT)
        ));
    }
}

/// What the session knows about a request when it sends it.
pub struct RequestInfo<'a> {
    pub server: &'a str,
    pub method: &'a str,
    pub id: i64,
    pub params: Option<&'a Value>,
    /// The protocol version negotiated (or asked for, in the handshake).
    pub protocol_version: Option<&'a str>,
    /// The HTTP session id, when there is one.
    pub session_id: Option<String>,
    /// Over HTTP (streamable or legacy SSE), not stdio.
    pub http: bool,
}

impl Telemetry {
    /// Start the span of a request being sent; with its `traceparent`.
    pub fn start(&self, req: RequestInfo<'_>) -> RequestSpan {
        let params = req.params;
        let field = |k: &str| params.and_then(|p| p.get(k)).and_then(Value::as_str);
        let target = match req.method {
            "tools/call" | "prompts/get" => field("name"),
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => field("uri"),
            _ => None,
        };
        let name = match target {
            Some(t) => format!("{} {t}", req.method),
            None => req.method.to_string(),
        };
        let mut attrs = vec![
            Attr::new("mcp.method.name", req.method.to_string()),
            Attr::new("mcp.server.name", req.server.to_string()),
            Attr::new("jsonrpc.request.id", req.id.to_string()),
            Attr::new("jsonrpc.protocol.version", "2.0"),
        ];
        match (req.method, target) {
            ("tools/call", Some(tool)) => {
                attrs.push(Attr::new("gen_ai.tool.name", tool.to_string()));
                attrs.push(Attr::new("gen_ai.operation.name", "execute_tool"));
            }
            ("prompts/get", Some(prompt)) => {
                attrs.push(Attr::new("gen_ai.prompt.name", prompt.to_string()));
            }
            (m, Some(uri)) if m.starts_with("resources/") => {
                attrs.push(Attr::new("mcp.resource.uri", uri.to_string()));
            }
            _ => {}
        }
        if let Some(v) = req.protocol_version {
            attrs.push(Attr::new("mcp.protocol.version", v.to_string()));
        }
        if let Some(sid) = req.session_id {
            attrs.push(Attr::new("mcp.session.id", sid));
        }
        let info = self
            .servers
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(req.server)
            .cloned();
        if req.http {
            attrs.push(Attr::new("network.transport", "tcp"));
            attrs.push(Attr::new("network.protocol.name", "http"));
            if let Some(ServerInfo { address, port, .. }) = info {
                if let Some(a) = address {
                    attrs.push(Attr::new("server.address", a));
                }
                if let Some(p) = port {
                    attrs.push(Attr::new("server.port", i64::from(p)));
                }
            }
        } else {
            attrs.push(Attr::new("network.transport", "pipe"));
        }
        if self.capture_content
            && req.method == "tools/call"
            && let Some(args) = params.and_then(|p| p.get("arguments"))
        {
            attrs.push(Attr::new(
                "gen_ai.tool.call.arguments",
                content::captured(args),
            ));
        }
        // Parent-based sampling, always on for a new trace: a span whose
        // parent was not sampled is not recorded either (its context still
        // goes to the server, unsampled).
        let parent = parent_context(params);
        let context = match &parent {
            Some((p, _)) => SpanContext {
                trace_id: p.trace_id,
                span_id: self.ids.span_id(),
                flags: p.flags,
            },
            None => SpanContext {
                trace_id: self.ids.trace_id(),
                span_id: self.ids.span_id(),
                flags: SAMPLED,
            },
        };
        let trace_state = parent
            .as_ref()
            .map(|(_, ts)| ts.clone())
            .unwrap_or_default();
        let span = context.sampled().then(|| SpanData {
            context,
            parent: parent.as_ref().map(|(p, _)| p.span_id),
            trace_state: trace_state.clone(),
            name,
            start: otlp::now_nanos(),
            end: 0,
            attrs,
            error: None,
        });
        RequestSpan {
            span,
            traceparent: context.traceparent(),
            tracestate: (!trace_state.is_empty()).then_some(trace_state),
            capture: self.capture_content && req.method == "tools/call",
        }
    }
}

/// The span of one request in flight. Ends once: by [`RequestSpan::end`],
/// or, dropped unanswered, as `error.type = transport`.
pub struct RequestSpan {
    /// `None` when not recorded, or once ended.
    span: Option<SpanData>,
    traceparent: String,
    tracestate: Option<String>,
    capture: bool,
}

impl std::fmt::Debug for RequestSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RequestSpan")
            .field("traceparent", &self.traceparent)
            .finish()
    }
}

/// How a request ended, for its span.
pub enum Outcome<'a> {
    /// A result (a tool's `isError: true` included).
    Result(&'a Value),
    /// A JSON-RPC error with this code.
    RpcError(i64, &'a str),
    /// No answer in time.
    Timeout,
    /// Cancelled by mcpdeck.
    Cancelled,
    /// The connection failed or closed.
    Transport(&'a str),
    /// An answer that was not a valid one.
    Protocol(&'a str),
}

impl RequestSpan {
    /// Put the trace context in `params._meta` (`traceparent`, and
    /// `tracestate` when there is one).
    pub fn inject(&self, params: &mut Option<Value>) {
        let p = params.get_or_insert_with(|| Value::Object(Default::default()));
        let Some(obj) = p.as_object_mut() else { return };
        let meta = obj
            .entry("_meta")
            .or_insert_with(|| Value::Object(Default::default()));
        if let Some(m) = meta.as_object_mut() {
            m.insert(
                "traceparent".into(),
                Value::String(self.traceparent.clone()),
            );
            if let Some(ts) = &self.tracestate {
                m.insert("tracestate".into(), Value::String(ts.clone()));
            }
        }
    }

    pub fn traceparent(&self) -> &str {
        &self.traceparent
    }

    /// The request's size on the wire, in bytes.
    pub fn request_size(&mut self, bytes: usize) {
        if let Some(s) = &mut self.span {
            s.set(Attr::new("mcp.request.size", bytes as i64));
        }
    }

    /// The answer's size on the wire, in bytes.
    pub fn response_size(&mut self, bytes: usize) {
        if let Some(s) = &mut self.span {
            s.set(Attr::new("mcp.response.size", bytes as i64));
        }
    }

    /// End the span with how the request ended.
    pub fn end(mut self, outcome: Outcome<'_>) {
        self.finish(outcome);
    }

    fn finish(&mut self, outcome: Outcome<'_>) {
        let Some(mut span) = self.span.take() else {
            return;
        };
        let error = |span: &mut SpanData, kind: String, why: &str| {
            span.set(Attr::new("error.type", kind));
            span.error = Some(crate::mcp::finding::truncate(why, 512).to_string());
        };
        match outcome {
            Outcome::Result(v) => {
                if self.capture {
                    span.set(Attr::new("gen_ai.tool.call.result", content::captured(v)));
                }
                if v.get("isError").and_then(Value::as_bool) == Some(true) {
                    error(
                        &mut span,
                        "tool_error".into(),
                        "the tool returned isError: true",
                    );
                }
            }
            Outcome::RpcError(code, message) => {
                span.set(Attr::new("rpc.response.status_code", code.to_string()));
                error(&mut span, code.to_string(), message);
            }
            Outcome::Timeout => error(&mut span, "timeout".into(), "no answer in time"),
            Outcome::Cancelled => error(&mut span, "cancelled".into(), "cancelled"),
            Outcome::Transport(why) => error(&mut span, "transport".into(), why),
            Outcome::Protocol(why) => error(&mut span, "protocol".into(), why),
        }
        span.end = otlp::now_nanos().max(span.start);
        if let Some(t) = active() {
            t.exporter.send(span);
        }
    }
}

impl Drop for RequestSpan {
    fn drop(&mut self) {
        self.finish(Outcome::Transport("the request ended without an answer"));
    }
}

/// The trace a request joins: the W3C trace context already in its
/// `params._meta` (an agent's, passed on by `mcpdeck serve`), with its
/// `tracestate` (empty when absent or invalid), else none (a new trace).
/// The request then carries this span's context instead, so the server's
/// spans are children of mcpdeck's, and mcpdeck's of the agent's.
fn parent_context(params: Option<&Value>) -> Option<(SpanContext, String)> {
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)?;
    let parent = context::parse_traceparent(meta.get("traceparent")?.as_str()?)?;
    let state = meta
        .get("tracestate")
        .and_then(Value::as_str)
        .and_then(context::parse_tracestate)
        .unwrap_or_default();
    Some((parent, state))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn a_valid_trace_context_in_meta_is_joined_and_others_are_not() {
        let joined = |tp: &str| {
            let params = serde_json::json!({"_meta": {"traceparent": tp, "tracestate": "a=1"}});
            parent_context(Some(&params)).map(|(cx, ts)| (context::hex(&cx.trace_id), ts))
        };
        assert_eq!(
            joined("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
            Some(("0af7651916cd43dd8448eb211c80319c".into(), "a=1".into()))
        );
        for bad in [
            "garbage",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
        ] {
            assert_eq!(joined(bad), None, "{bad}");
        }
        assert!(parent_context(None).is_none());
        // A bad tracestate is dropped; the trace is still joined.
        let params = serde_json::json!({"_meta": {
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "tracestate": "A=1"}});
        assert_eq!(
            parent_context(Some(&params)).map(|(_, ts)| ts),
            Some(String::new())
        );
    }

    fn telemetry() -> Telemetry {
        Telemetry {
            // Nothing is flushed here: the endpoint is never reached.
            exporter: client::Exporter::start("http://127.0.0.1:9/v1/traces", Vec::new())
                .expect("export thread"),
            ids: context::Ids::new(),
            capture_content: false,
            servers: RwLock::new(HashMap::new()),
            endpoint: "http://127.0.0.1:9/v1/traces".into(),
        }
    }

    fn info<'a>(params: Option<&'a Value>) -> RequestInfo<'a> {
        RequestInfo {
            server: "s",
            method: "tools/call",
            id: 7,
            params,
            protocol_version: None,
            session_id: None,
            http: false,
        }
    }

    #[test]
    fn spans_join_the_callers_trace_and_follow_its_sampling() {
        let t = telemetry();
        // A new trace: sampled, recorded.
        let mut fresh = t.start(info(None));
        let cx = context::parse_traceparent(fresh.traceparent()).expect("valid");
        assert!(cx.sampled());
        let span = fresh.span.take().expect("recorded");
        assert_eq!(span.parent, None);
        assert_eq!(span.context, cx);
        assert!(fresh.tracestate.is_none());
        // A sampled parent: same trace, a new span, the parent's state.
        let params = serde_json::json!({"name": "echo", "_meta": {
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "tracestate": "agent=1"}});
        let mut child = t.start(info(Some(&params)));
        let span = child.span.take().expect("recorded");
        assert_eq!(
            context::hex(&span.context.trace_id),
            "0af7651916cd43dd8448eb211c80319c"
        );
        assert_eq!(
            span.parent,
            Some([0xb7, 0xad, 0x6b, 0x71, 0x69, 0x20, 0x33, 0x31])
        );
        assert_ne!(span.context.span_id, span.parent.unwrap_or_default());
        assert_eq!(span.name, "tools/call echo");
        assert_eq!(child.tracestate.as_deref(), Some("agent=1"));
        // An unsampled parent: not recorded, passed on unsampled.
        let params = serde_json::json!({"_meta": {
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"}});
        let quiet = t.start(info(Some(&params)));
        assert!(quiet.span.is_none());
        assert!(
            quiet
                .traceparent()
                .starts_with("00-0af7651916cd43dd8448eb211c80319c-")
        );
        assert!(quiet.traceparent().ends_with("-00"));
    }

    /// A stand-in for the process environment.
    pub(super) fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn endpoint_follows_the_config_then_the_standard_variables() {
        let off = TelemetryConfig::default();
        assert_eq!(endpoint(&off, &env(&[])), None);
        assert_eq!(
            endpoint(
                &off,
                &env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318/")])
            ),
            Some("http://h:4318/v1/traces".into())
        );
        assert_eq!(
            endpoint(
                &off,
                &env(&[
                    ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318"),
                    ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://t:1/custom")
                ])
            ),
            Some("http://t:1/custom".into())
        );
        let on = TelemetryConfig {
            otlp_endpoint: Some("http://c:4318/v1/traces".into()),
            capture_content: false,
        };
        assert_eq!(
            endpoint(
                &on,
                &env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318")])
            ),
            Some("http://c:4318/v1/traces".into())
        );
        assert_eq!(endpoint(&on, &env(&[("OTEL_SDK_DISABLED", "TRUE")])), None);
    }
}
