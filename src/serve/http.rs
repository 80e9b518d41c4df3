//! `serve --http ADDR`: the agent's side over Streamable HTTP at `/mcp`,
//! with the same state as on stdio.
//!
//! - POST a request: the answer is a JSON body, or an SSE stream when the
//!   client accepts one (then the notifications and requests for the agent
//!   that come meanwhile go on it too, unless a GET stream is open). A
//!   client that closes the stream before the answer cancels the request.
//! - POST a notification or a response: 202.
//! - GET (with `Accept: text/event-stream`): a stream of what mcpdeck sends
//!   the agent on its own (list changes, log messages, server requests).
//! - One agent, one context. Each `initialize` opens a session
//!   (`Mcp-Session-Id`) with a context of its own: a serve loop with its
//!   own manager, whose upstream sessions speak the initialize era and
//!   declare exactly the client capabilities this agent declared. What
//!   serve keeps for an agent (pending requests, the servers' requests to
//!   it, subscriptions, progress tokens, roots) lives in that context and
//!   nowhere else, and goes with the session. Stateless requests (and
//!   requests of neither era's kind) go to the shared context, where each
//!   request carries its own capabilities.
//! - DELETE with `Mcp-Session-Id`: ends that session (200); the id then
//!   gets 404. A session unused for `--session-idle` seconds (default
//!   1800; 0: never) ends the same way, unless a request or a stream of
//!   it is still open. At most [`MAX_SESSIONS`] are kept (past that the
//!   least recently used ends). The stateless era has no sessions: its
//!   requests' `Mcp-Session-Id` is not looked at.
//! - An event stream for a client of 2025-11-25 or later starts with a
//!   priming event (an id, `retry`, no data) and gives each event an id
//!   (older clients' parsers take an empty event for a broken message).
//!
//! Several agents may use one serve at a time: each POSTed request is
//! given an id of serve's own (`mcpdeck-http-N`) on its way in, and its
//! answer gets the agent's id back, so two agents' requests with the same
//! id never meet; `notifications/cancelled` is mapped the same way.
//!
//! Safety: the address must be loopback unless `--allow-remote`, which
//! needs `Authorization: Bearer TOKEN` on every request (the token from
//! `$MCPDECK_SERVE_TOKEN`, else generated and printed once on stderr). An
//! `Origin` header must name a loopback host (or, with `--allow-remote`,
//! the host the request was sent to): against DNS rebinding.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

use super::ServeError;

mod door;
mod resume;
mod route;

use door::*;
use resume::*;
use route::*;
pub(super) use route::{Door, Opener};

/// The most a request's head may take.
const MAX_HEAD: usize = 64 * 1024;
/// The most a request's body may take.
const MAX_BODY: usize = 64 * 1024 * 1024;
/// How long a client may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(30);
/// The most sessions kept at once; past it the least recently used goes.
/// Each has its own upstream sessions (a stdio server's process each).
const MAX_SESSIONS: usize = 256;
/// The HTTP statuses of the stateless era's errors (2026-07-28): a
/// header mismatch, a missing client capability and an unsupported
/// version are 400 whoever finds them (serve's door or the server).
const BAD_REQUEST_CODES: &[i64] = &[
    crate::mcp::jsonrpc::codes::HEADER_MISMATCH,
    crate::mcp::jsonrpc::codes::MISSING_CLIENT_CAPABILITY,
    crate::mcp::jsonrpc::codes::UNSUPPORTED_VERSION,
];
/// The `retry` (milliseconds) an event stream asks a client to wait
/// before it reconnects.
const RETRY_MS: u64 = 1000;

type Lines = mpsc::UnboundedSender<Result<String, String>>;

/// Where a listen stream's notifications name their subscription.
const SUBSCRIPTION_ID: &str = "/params/_meta/io.modelcontextprotocol~1subscriptionId";

/// A live session.
struct Live {
    door: Door,
    used: std::time::Instant,
    /// Its requests and streams open now (it is not idle while any is).
    open: usize,
}

/// Who may connect, and where each request goes.
struct Guard {
    /// Required bearer token (`--allow-remote`).
    token: Option<String>,
    remote: bool,
    /// The shared context: stateless requests, and any without a session.
    main: Door,
    /// Opens a session's context.
    opener: Opener,
    /// The live sessions (`Mcp-Session-Id`).
    sessions: std::sync::Mutex<HashMap<String, Live>>,
    /// A session unused this long ends (`None`: never).
    idle: Option<Duration>,
    /// The ids of the events on every stream (one count for all).
    next_event: std::sync::atomic::AtomicU64,
    /// The event streams that can be resumed, by number.
    streams: std::sync::Mutex<HashMap<u64, Arc<std::sync::Mutex<Kept>>>>,
    next_stream: std::sync::atomic::AtomicU64,
    /// Serve's own ids for the agents' requests.
    next_id: std::sync::atomic::AtomicU64,
    /// The session and the agent's id (its JSON text) → serve's id, for
    /// `notifications/cancelled` (the latest request with that id).
    ids: std::sync::Mutex<HashMap<String, Value>>,
}

/// A request or stream of a session, open: the session is not idle.
struct Visit<'a> {
    guard: &'a Guard,
    session: Option<String>,
}

impl Drop for Visit<'_> {
    fn drop(&mut self) {
        if let Some(id) = &self.session {
            let mut all = self
                .guard
                .sessions
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if let Some(live) = all.get_mut(id) {
                live.open = live.open.saturating_sub(1);
                live.used = std::time::Instant::now();
            }
        }
    }
}

/// Bind `addr` and serve; the task ends only when aborted.
pub(super) async fn start(
    addr: &str,
    allow_remote: bool,
    idle: Option<Duration>,
    main: Door,
    opener: Opener,
) -> Result<tokio::task::JoinHandle<()>, ServeError> {
    let usage = |m: String| ServeError::Usage(m);
    let resolved: Vec<SocketAddr> = tokio::net::lookup_host(addr)
        .await
        .map_err(|e| usage(format!("--http {addr:?}: not an address to listen on ({e}); write HOST:PORT, e.g. 127.0.0.1:8808")))?
        .collect();
    let Some(at) = resolved.first().copied() else {
        return Err(usage(format!(
            "--http {addr:?}: the name resolves to no address"
        )));
    };
    if !at.ip().is_loopback() && !allow_remote {
        return Err(usage(format!(
            "--http {addr:?} is not a loopback address: serving beyond this machine needs --allow-remote (and then a bearer token)"
        )));
    }
    let token = if !allow_remote {
        None
    } else if let Some(t) = std::env::var("MCPDECK_SERVE_TOKEN")
        .ok()
        .filter(|t| !t.trim().is_empty())
    {
        Some(t.trim().to_string())
    } else {
        let t = random_hex(32)?;
        eprintln!(
            "mcpdeck serve: clients must send `Authorization: Bearer {t}` (shown once; set $MCPDECK_SERVE_TOKEN to choose it)"
        );
        Some(t)
    };
    let listener = TcpListener::bind(at)
        .await
        .map_err(|e| ServeError::Io(format!("--http {addr:?}: cannot listen on {at}: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| ServeError::Io(format!("--http: {e}")))?;
    eprintln!("mcpdeck serve: listening on http://{bound}/mcp");
    let guard = Arc::new(Guard {
        token,
        remote: allow_remote,
        main,
        opener,
        sessions: std::sync::Mutex::new(HashMap::new()),
        idle,
        next_event: std::sync::atomic::AtomicU64::new(0),
        streams: std::sync::Mutex::new(HashMap::new()),
        next_stream: std::sync::atomic::AtomicU64::new(0),
        next_id: std::sync::atomic::AtomicU64::new(0),
        ids: std::sync::Mutex::new(HashMap::new()),
    });
    if let Some(idle) = idle {
        // Idle sessions end; the sweep stops with the server's task.
        let weak = Arc::downgrade(&guard);
        tokio::spawn(async move {
            let every = (idle / 4).clamp(Duration::from_millis(250), Duration::from_secs(60));
            loop {
                tokio::time::sleep(every).await;
                let Some(guard) = weak.upgrade() else { return };
                guard.sweep();
            }
        });
    }
    Ok(tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                // Out of descriptors, most likely: breathe.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let guard = guard.clone();
            tokio::spawn(async move {
                let _ = connection(stream, guard).await;
            });
        }
    }))
}

/// `bytes` random bytes from the system's generator, in hex.
fn random_hex(bytes: usize) -> Result<String, ServeError> {
    use ring::rand::{SecureRandom, SystemRandom};
    let mut buf = vec![0u8; bytes];
    // A token must not be guessable: no weaker fallback.
    SystemRandom::new().fill(&mut buf).map_err(|_| {
        ServeError::Io(
            "--http: the system's random generator failed; no token could be made".into(),
        )
    })?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// One request's head.
struct Head {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
}

impl Head {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

async fn read_head(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<(Head, usize)> {
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let text = std::str::from_utf8(&buf[..end]).ok()?;
            let mut lines = text.split("\r\n");
            let mut first = lines.next()?.split(' ');
            let method = first.next()?.to_string();
            let target = first.next()?;
            let path = target.split('?').next().unwrap_or_default().to_string();
            let headers = lines
                .filter_map(|l| l.split_once(':'))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .collect();
            return Some((
                Head {
                    method,
                    path,
                    headers,
                },
                end + 4,
            ));
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

async fn respond(stream: &mut TcpStream, status: &str, headers: &[(&str, &str)], body: &str) {
    let mut text = format!(
        "HTTP/1.1 {status}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        text.push_str(&format!("{k}: {v}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    let _ = stream.write_all(text.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Answer with a JSON body (a refusal's error) and close.
async fn respond_json(stream: &mut TcpStream, status: &str, body: &str) {
    respond(
        stream,
        status,
        &[("Content-Type", "application/json")],
        body,
    )
    .await;
}

/// A JSON-RPC error body (for requests refused before they reach serve).
fn rpc_error(code: i64, message: &str) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}})
        .to_string()
}

impl Guard {
    /// A new session with the context behind `door`, kept as used now; the
    /// least recently used goes past [`MAX_SESSIONS`].
    fn open_session(&self, door: Door) -> Option<String> {
        let id = random_hex(16).ok()?;
        let now = std::time::Instant::now();
        let mut all = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        if all.len() >= MAX_SESSIONS {
            // The least recently used of those not in use; when every one
            // is, no new session (the agent is told to come back later).
            let oldest = all
                .iter()
                .filter(|(_, live)| live.open == 0)
                .min_by_key(|(_, live)| live.used)
                .map(|(k, _)| k.clone())?;
            all.remove(&oldest);
        }
        all.insert(
            id.clone(),
            Live {
                door,
                used: now,
                open: 0,
            },
        );
        Some(id)
    }

    /// Session `id`'s door, if it is live; it counts as in use until the
    /// visit is dropped.
    fn enter(&self, id: &str) -> Option<(Door, Visit<'_>)> {
        let mut all = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        let live = all.get_mut(id)?;
        live.used = std::time::Instant::now();
        live.open += 1;
        let door = live.door.clone();
        Some((
            door,
            Visit {
                guard: self,
                session: Some(id.to_string()),
            },
        ))
    }

    /// End session `id` (its context stops once its last request is
    /// done); false when there was none.
    fn end_session(&self, id: &str) -> bool {
        let mut all = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        all.remove(id).is_some()
    }

    /// End the sessions idle for longer than the limit.
    fn sweep(&self) {
        let Some(idle) = self.idle else { return };
        // A request whose client is away (and may resume) is a use too.
        let waiting: std::collections::HashSet<String> = self
            .streams
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .filter_map(|k| {
                let k = k.lock().unwrap_or_else(|p| p.into_inner());
                (!k.done).then(|| k.session.clone())
            })
            .collect();
        let mut all = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        all.retain(|id, live| live.open > 0 || live.used.elapsed() < idle || waiting.contains(id));
    }

    /// The next event id.
    fn event_id(&self) -> u64 {
        self.next_event
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    }
}

/// The head of an event stream's answer, with `extra` headers.
fn sse_head(extra: &[(&str, &str)]) -> String {
    let mut start = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n".to_string();
    for (k, v) in extra {
        start.push_str(&format!("{k}: {v}\r\n"));
    }
    start.push_str("\r\n");
    start
}

/// Whether a client of protocol `version` takes a priming event (those
/// of 2025-11-25 and later: the revision that brought it).
fn primes(version: Option<&str>) -> bool {
    version.is_some_and(|v| v >= "2025-11-25")
}

/// The priming event a stream starts with: an id and `retry`, no message.
fn sse_priming(id: impl std::fmt::Display) -> String {
    format!("id: {id}\nretry: {RETRY_MS}\ndata:\n\n")
}

/// One message as an event, with its id.
fn sse_event(id: impl std::fmt::Display, line: &str) -> String {
    format!("id: {id}\nevent: message\ndata: {line}\n\n")
}

/// Whether the `Origin` may call: a loopback host, or (remote) the host
/// the request was sent to.
fn origin_ok(head: &Head, remote: bool) -> bool {
    let Some(origin) = head.header("origin") else {
        return true;
    };
    let Ok(url) = url::Url::parse(origin) else {
        return false;
    };
    let host = url.host_str().unwrap_or_default();
    if matches!(host, "localhost" | "127.0.0.1" | "[::1]" | "::1") {
        return true;
    }
    remote
        && head
            .header("host")
            .map(|h| h.rsplit_once(':').map_or(h, |(name, _)| name))
            .is_some_and(|h| h.eq_ignore_ascii_case(host))
}

async fn connection(mut stream: TcpStream, arc: Arc<Guard>) -> Option<()> {
    let guard: &Guard = &arc;
    let mut buf = Vec::new();
    let (head, body_at) = tokio::time::timeout(READ_TIMEOUT, read_head(&mut stream, &mut buf))
        .await
        .ok()??;
    if head.path != "/mcp" {
        respond(
            &mut stream,
            "404 Not Found",
            &[],
            "the MCP endpoint is /mcp\n",
        )
        .await;
        return None;
    }
    if let Some(token) = &guard.token {
        let sent = head
            .header("authorization")
            .and_then(|a| a.strip_prefix("Bearer "))
            .map(str::trim);
        if sent != Some(token.as_str()) {
            let body = rpc_error(
                -32001,
                "a bearer token is needed (Authorization: Bearer TOKEN)",
            );
            respond(
                &mut stream,
                "401 Unauthorized",
                &[
                    ("WWW-Authenticate", "Bearer"),
                    ("Content-Type", "application/json"),
                ],
                &body,
            )
            .await;
            return None;
        }
    }
    if !origin_ok(&head, guard.remote) {
        let body = rpc_error(-32000, "this Origin may not call mcpdeck serve");
        respond_json(&mut stream, "403 Forbidden", &body).await;
        return None;
    }
    let sse = head
        .header("accept")
        .is_some_and(|a| a.contains("text/event-stream"));
    // A session named must be live: an ended one is 404, and the agent
    // initializes again. The stateless era has no sessions.
    let stateless =
        head.header("mcp-protocol-version") == Some(crate::mcp::types::STATELESS_VERSION);
    let session = head
        .header("mcp-session-id")
        .filter(|_| !stateless)
        .map(str::to_string);
    let (mut door, mut _visit) = match &session {
        Some(id) => match guard.enter(id) {
            Some(entered) => entered,
            None => {
                let body = rpc_error(-32001, "no such session (it ended): initialize again");
                respond_json(&mut stream, "404 Not Found", &body).await;
                return None;
            }
        },
        None => (
            guard.main.clone(),
            Visit {
                guard,
                session: None,
            },
        ),
    };
    match head.method.as_str() {
        "POST" => {}
        "GET" if sse => {
            // Only a session has streams of its own: a stateless agent's
            // notifications come on its requests' streams.
            if session.is_none() {
                respond(
                    &mut stream,
                    "405 Method Not Allowed",
                    &[("Allow", "POST")],
                    "a GET stream belongs to a session: send Mcp-Session-Id\n",
                )
                .await;
                return None;
            }
            if let Some(last) = head.header("last-event-id")
                && let Some((number, seen)) = parse_event_id(last)
                && let Some(kept) = guard.kept(number, session.as_deref())
            {
                drop(door);
                return resume(stream, kept, number, seen).await;
            }
            let (tx, mut rx) = mpsc::unbounded_channel();
            let _ = door.routes.send(Route::Stream(tx));
            // The stream does not keep the context alive: when the session
            // ends, so does its context, its router and this stream.
            drop(door);
            let (mut read, mut write) = stream.into_split();
            write.write_all(sse_head(&[]).as_bytes()).await.ok()?;
            if primes(head.header("mcp-protocol-version")) {
                write
                    .write_all(sse_priming(guard.event_id()).as_bytes())
                    .await
                    .ok()?;
            }
            let mut closed = [0u8; 1];
            loop {
                tokio::select! {
                    line = rx.recv() => {
                        let Some(line) = line else {
                            let _ = write.shutdown().await;
                            return Some(());
                        };
                        let event = sse_event(guard.event_id(), &line);
                        write.write_all(event.as_bytes()).await.ok()?;
                    }
                    // The client went away (or sent what a GET may not).
                    _ = read.read(&mut closed) => return None,
                }
            }
        }
        "DELETE" => {
            drop(_visit);
            match &session {
                // Checked live above.
                Some(id) if guard.end_session(id) => {
                    respond(&mut stream, "200 OK", &[], "").await;
                }
                _ => {
                    let body = rpc_error(
                        -32600,
                        "DELETE names the session to end with Mcp-Session-Id",
                    );
                    respond_json(&mut stream, "400 Bad Request", &body).await;
                }
            }
            return Some(());
        }
        _ => {
            respond(
                &mut stream,
                "405 Method Not Allowed",
                &[("Allow", "GET, POST, DELETE")],
                "",
            )
            .await;
            return None;
        }
    }
    let Some(length) = head
        .header("content-length")
        .and_then(|l| l.parse::<usize>().ok())
    else {
        respond(&mut stream, "411 Length Required", &[], "").await;
        return None;
    };
    if length > MAX_BODY {
        respond(&mut stream, "413 Content Too Large", &[], "").await;
        return None;
    }
    let mut body = buf.split_off(body_at);
    while body.len() < length {
        let mut chunk = vec![0u8; (length - body.len()).min(64 * 1024)];
        let n = tokio::time::timeout(READ_TIMEOUT, stream.read(&mut chunk))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(length);
    let text = String::from_utf8_lossy(&body).replace(['\n', '\r'], " ");
    let mut frame: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            let body = rpc_error(-32700, &format!("not JSON: {e}"));
            respond_json(&mut stream, "400 Bad Request", &body).await;
            return None;
        }
    };
    if let Err(r) = stateless_check(&head, &frame) {
        let mut error = serde_json::json!({"code": r.code, "message": r.message});
        if let Some(d) = r.data {
            error["data"] = d;
        }
        let body = serde_json::json!({"jsonrpc": "2.0", "id": frame.get("id").cloned().unwrap_or(Value::Null), "error": error})
            .to_string();
        respond_json(&mut stream, r.status, &body).await;
        return None;
    }
    let agents_id = frame
        .get("id")
        .filter(|_| frame.get("method").is_some())
        .cloned();
    let session_key = |agents: &str| format!("{}|{agents}", session.as_deref().unwrap_or(""));
    let Some(agents_id) = agents_id else {
        // A notification or a response: taken. A cancellation names the
        // request by serve's id; one that names no request of this
        // session's (or comes without a session: a stateless agent cancels
        // by closing its request's stream) is not passed on, so it can
        // never reach another agent's request.
        let mut text = text;
        // An answer without a session answers nothing of its own (serve
        // asks stateless agents through input_required): not passed on.
        if frame.get("method").is_none() && session.is_none() {
            respond(&mut stream, "202 Accepted", &[], "").await;
            return Some(());
        }
        if frame.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
            let ours = session.as_ref().and_then(|_| {
                let asked = frame.pointer("/params/requestId").map(Value::to_string)?;
                guard
                    .ids
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get(&session_key(&asked))
                    .cloned()
            });
            let Some(ours) = ours else {
                respond(&mut stream, "202 Accepted", &[], "").await;
                return Some(());
            };
            frame["params"]["requestId"] = ours;
            text = frame.to_string();
        }
        door.lines.send(Ok(text)).ok()?;
        respond(&mut stream, "202 Accepted", &[], "").await;
        return Some(());
    };
    let initialize = frame.get("method").and_then(Value::as_str) == Some("initialize");
    // A new agent: a context of its own, from what it says of itself.
    let new_session = if initialize && session.is_none() {
        door = (guard.opener)(frame.get("params"));
        let Some(id) = guard.open_session(door.clone()) else {
            let body = rpc_error(
                -32000,
                &format!(
                    "mcpdeck serve has {MAX_SESSIONS} sessions in use: try again later, or end one with DELETE"
                ),
            );
            respond(
                &mut stream,
                "503 Service Unavailable",
                &[("Retry-After", "5"), ("Content-Type", "application/json")],
                &body,
            )
            .await;
            return None;
        };
        if let Some((_, v)) = guard.enter(&id) {
            _visit = v;
        }
        Some(id)
    } else {
        None
    };
    // A stateless request's answer waits for its first frame: an error
    // alone goes as JSON, with the era's HTTP status for it.
    let lazy = sse && stateless;
    // The client's protocol version: its header, or what it asks for in
    // `initialize` (which comes before any header).
    let version = head
        .header("mcp-protocol-version")
        .map(str::to_string)
        .or_else(|| {
            frame
                .pointer("/params/protocolVersion")
                .and_then(Value::as_str)
                .filter(|_| initialize)
                .map(str::to_string)
        });
    // Serve's own id for it, so that agents' ids never meet.
    let n = guard
        .next_id
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let ours = Value::String(format!("mcpdeck-http-{n}"));
    frame["id"] = ours.clone();
    let text = frame.to_string();
    let id = ours.to_string();
    let agents_key = session_key(&agents_id.to_string());
    {
        let mut ids = guard.ids.lock().unwrap_or_else(|p| p.into_inner());
        if ids.len() > 10_000 {
            ids.clear(); // a cancellation of a request that old is moot
        }
        ids.insert(agents_key.clone(), ours.clone());
    }
    let asked = Asked {
        guard: arc.clone(),
        key: agents_key,
        ours: ours.clone(),
        id: id.clone(),
        agents_id: agents_id.clone(),
    };
    let (tx, mut rx) = mpsc::unbounded_channel();
    door.routes
        .send(Route::Wait {
            id: id.clone(),
            tx,
            sse,
        })
        .ok()?;
    door.lines.send(Ok(text)).ok()?;
    let session_header = new_session.as_deref().map(|id| [("Mcp-Session-Id", id)]);
    let extra: &[(&str, &str)] = match &session_header {
        Some(h) => h,
        None => &[],
    };
    let (mut read, mut write) = stream.into_split();
    let mut closed = [0u8; 1];
    // A session's client of 2025-11-25 or later may come back for what it
    // missed: its stream is kept, and its request lives on when it goes.
    let resumable = sse && !stateless && primes(version.as_deref());
    if let Some(session) = session.clone().or(new_session.clone())
        && resumable
    {
        let number = guard
            .next_stream
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let (to_writer, mut writes) = mpsc::unbounded_channel();
        let kept = Arc::new(std::sync::Mutex::new(Kept {
            session,
            events: std::collections::VecDeque::new(),
            writer: Some(to_writer),
            done: false,
            away: None,
            generation: 0,
        }));
        guard
            .streams
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(number, kept.clone());
        tokio::spawn(keep(asked, rx, kept.clone(), number, door.clone()));
        write.write_all(sse_head(extra).as_bytes()).await.ok()?;
        write
            .write_all(sse_priming(event_id(number, 0)).as_bytes())
            .await
            .ok()?;
        return write_kept(&mut read, write, &mut writes, &kept, 0).await;
    }
    let mut streaming = false;
    if sse && !lazy {
        start_stream(&mut write, extra, version.as_deref(), guard).await?;
        streaming = true;
    }
    loop {
        tokio::select! {
            line = rx.recv() => {
                let (line, frame, done) = asked.outgoing(line?);
                if sse && !streaming && !done {
                    start_stream(&mut write, extra, version.as_deref(), guard).await?;
                    streaming = true;
                }
                if streaming {
                    let event = sse_event(guard.event_id(), &line);
                    write.write_all(event.as_bytes()).await.ok()?;
                    if done {
                        let _ = write.shutdown().await;
                        return Some(());
                    }
                } else if done {
                    let status = match frame.pointer("/error/code").and_then(Value::as_i64) {
                        Some(code) if stateless && BAD_REQUEST_CODES.contains(&code) => {
                            "400 Bad Request"
                        }
                        _ => "200 OK",
                    };
                    let mut head = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: {}\r\n",
                        line.len()
                    );
                    for (k, v) in extra {
                        head.push_str(&format!("{k}: {v}\r\n"));
                    }
                    head.push_str("\r\n");
                    write.write_all(head.as_bytes()).await.ok()?;
                    write.write_all(line.as_bytes()).await.ok()?;
                    let _ = write.shutdown().await;
                    return Some(());
                }
            }
            n = read.read(&mut closed) => {
                if matches!(n, Ok(0) | Err(_)) {
                    // The client went away: the request is cancelled.
                    asked.cancel(&door, "the HTTP client closed the stream");
                    return None;
                }
            }
        }
    }
}

/// Start an event stream's answer: its head, and for a client of
/// `version` that takes one, the priming event.
async fn start_stream(
    write: &mut (impl tokio::io::AsyncWrite + Unpin),
    extra: &[(&str, &str)],
    version: Option<&str>,
    guard: &Guard,
) -> Option<()> {
    write.write_all(sse_head(extra).as_bytes()).await.ok()?;
    if primes(version) {
        write
            .write_all(sse_priming(guard.event_id()).as_bytes())
            .await
            .ok()?;
    }
    Some(())
}

/// One agent request through the HTTP side.
struct Asked {
    guard: Arc<Guard>,
    /// The session and the agent's id, its key in [`Guard::ids`].
    key: String,
    /// Serve's id for it, and that as JSON text.
    ours: Value,
    id: String,
    /// The agent's own id.
    agents_id: Value,
}

impl Asked {
    /// Its entry in [`Guard::ids`] goes (the request ended).
    fn forget(&self) {
        let mut ids = self.guard.ids.lock().unwrap_or_else(|p| p.into_inner());
        if ids.get(&self.key) == Some(&self.ours) {
            ids.remove(&self.key);
        }
    }

    /// A line for this request's stream as the agent must see it: the
    /// answer under the agent's own id, and so a listen stream's
    /// subscription id (its request's id). Also the frame, and whether it
    /// is the answer (then the request is forgotten).
    fn outgoing(&self, line: String) -> (String, Value, bool) {
        let mut frame: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        let done = frame.get("method").is_none()
            && frame.get("id").map(Value::to_string).as_deref() == Some(self.id.as_str());
        if done {
            self.forget();
            frame["id"] = self.agents_id.clone();
            return (frame.to_string(), frame, true);
        }
        if frame.pointer(SUBSCRIPTION_ID) == Some(&self.ours) {
            if let Some(sub) = frame.pointer_mut(SUBSCRIPTION_ID) {
                *sub = self.agents_id.clone();
            }
            return (frame.to_string(), frame, false);
        }
        (line, frame, false)
    }

    /// Nobody waits for it any more: the context is told to cancel it.
    fn cancel(&self, door: &Door, reason: &str) {
        let _ = door.routes.send(Route::Gone(self.id.clone()));
        self.forget();
        let cancel = serde_json::json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": self.ours, "reason": reason},
        });
        let _ = door.lines.send(Ok(cancel.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(headers: &[(&str, &str)]) -> Head {
        Head {
            method: "POST".into(),
            path: "/mcp".into(),
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// A door to nowhere (the unit tests only count sessions).
    fn door() -> Door {
        let (lines, _) = mpsc::unbounded_channel();
        let (routes, _) = mpsc::unbounded_channel();
        Door { lines, routes }
    }

    fn guard(idle: Option<Duration>) -> Guard {
        Guard {
            token: None,
            remote: false,
            main: door(),
            opener: Arc::new(|_| door()),
            sessions: std::sync::Mutex::new(HashMap::new()),
            idle,
            next_event: std::sync::atomic::AtomicU64::new(0),
            streams: std::sync::Mutex::new(HashMap::new()),
            next_stream: std::sync::atomic::AtomicU64::new(0),
            next_id: std::sync::atomic::AtomicU64::new(0),
            ids: std::sync::Mutex::new(HashMap::new()),
        }
    }

    #[test]
    fn sessions_open_live_and_end_and_the_oldest_goes_first() {
        let g = guard(None);
        let a = g.open_session(door()).unwrap();
        let b = g.open_session(door()).unwrap();
        assert_ne!(a, b);
        assert!(g.enter(&a).is_some() && g.enter(&b).is_some());
        assert!(g.end_session(&a));
        assert!(g.enter(&a).is_none() && !g.end_session(&a));
        // Past the bound, the least recently used goes.
        std::thread::sleep(Duration::from_millis(2));
        for _ in 0..MAX_SESSIONS {
            g.open_session(door()).unwrap();
        }
        assert_eq!(g.sessions.lock().unwrap().len(), MAX_SESSIONS);
        assert!(g.enter(&b).is_none(), "the oldest was dropped");
        assert_eq!(sse_priming(7), "id: 7\nretry: 1000\ndata:\n\n");
        assert!(primes(Some("2025-11-25")) && primes(Some("2026-07-28")));
        assert!(!primes(Some("2025-06-18")) && !primes(Some("2025-03-26")) && !primes(None));
    }

    #[tokio::test]
    async fn what_belongs_to_a_request_goes_on_its_stream_and_a_listen_on_its_own() {
        let (out, out_rx) = mpsc::unbounded_channel();
        let (routes, routes_rx) = mpsc::unbounded_channel();
        tokio::spawn(route(out_rx, routes_rx, false));
        let (a_tx, mut a) = mpsc::unbounded_channel();
        let (b_tx, mut b) = mpsc::unbounded_channel();
        let id = |n: &str| serde_json::json!(n).to_string();
        for (key, tx) in [("a", a_tx), ("b", b_tx)] {
            routes
                .send(Route::Wait {
                    id: id(key),
                    tx,
                    sse: true,
                })
                .unwrap();
        }
        // a's progress, sent while b is the latest request: on a's stream.
        let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#;
        out.send((progress.to_string(), Some(serde_json::json!("a"))))
            .unwrap();
        // A listen's notification: on the listen's stream only, here b's.
        let listen = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"b"}}}"#;
        out.send((listen.to_string(), None)).unwrap();
        // Belonging to nothing: the latest request's stream (no GET open).
        let log = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#;
        out.send((log.to_string(), None)).unwrap();
        let got = |rx: &mut mpsc::UnboundedReceiver<String>| {
            let mut all = Vec::new();
            while let Ok(l) = rx.try_recv() {
                all.push(l);
            }
            all
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(got(&mut a), vec![progress.to_string()]);
        assert_eq!(got(&mut b), vec![listen.to_string(), log.to_string()]);
    }

    #[test]
    fn idle_sessions_end_unless_a_request_or_stream_is_open() {
        let g = guard(Some(Duration::from_millis(30)));
        let busy = g.open_session(door()).unwrap();
        let idle = g.open_session(door()).unwrap();
        let visit = g.enter(&busy).map(|(_, v)| v);
        std::thread::sleep(Duration::from_millis(60));
        g.sweep();
        assert!(g.enter(&idle).is_none(), "idle: ended");
        drop(visit);
        // The visit's end counts as a use: not idle yet.
        g.sweep();
        assert!(g.enter(&busy).is_some(), "in use a moment ago");
        assert_eq!(parse_event_id(&event_id(3, 14)), Some((3, 14)));
        assert_eq!(parse_event_id("17"), None);
        assert_eq!(parse_event_id("s3-x"), None);
    }

    #[test]
    fn the_stateless_front_door_refuses_what_the_spec_refuses() {
        use crate::mcp::jsonrpc::codes;
        let modern = |method: &str, extra: &[(&str, &str)]| {
            let mut h = vec![
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", method),
            ];
            h.extend_from_slice(extra);
            head(&h)
        };
        let meta = serde_json::json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let call = |name: &str| {
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": name, "arguments": {}, "_meta": meta}})
        };
        let code = |h: &Head, f: &Value| stateless_check(h, f).err().map(|r| (r.status, r.code));
        // Whole and right: passes; a name in base64 too.
        assert_eq!(
            code(
                &modern("tools/call", &[("Mcp-Name", "echo")]),
                &call("echo")
            ),
            None
        );
        assert_eq!(
            code(
                &modern("tools/call", &[("Mcp-Name", "=?base64?w6ljaG8=?=")]),
                &call("écho")
            ),
            None
        );
        let bad = "400 Bad Request";
        // Mcp-Name missing or another.
        assert_eq!(
            code(&modern("tools/call", &[]), &call("echo")),
            Some((bad, codes::HEADER_MISMATCH))
        );
        assert_eq!(
            code(
                &modern("tools/call", &[("Mcp-Name", "other")]),
                &call("echo")
            ),
            Some((bad, codes::HEADER_MISMATCH))
        );
        // Mcp-Method another.
        assert_eq!(
            code(
                &modern("tools/list", &[("Mcp-Name", "echo")]),
                &call("echo")
            ),
            Some((bad, codes::HEADER_MISMATCH))
        );
        // No _meta, or without capabilities: invalid params.
        let bare =
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
        assert_eq!(
            code(&modern("tools/list", &[]), &bare),
            Some((bad, codes::INVALID_PARAMS))
        );
        let no_caps = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        assert_eq!(
            code(&modern("tools/list", &[]), &no_caps),
            Some((bad, codes::INVALID_PARAMS))
        );
        // The header and _meta disagree, or the header is missing.
        let old_meta = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-11-25",
                                 "io.modelcontextprotocol/clientCapabilities": {}}}});
        assert_eq!(
            code(&modern("tools/list", &[]), &old_meta),
            Some((bad, codes::HEADER_MISMATCH))
        );
        let list = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}});
        assert_eq!(code(&head(&[]), &list), Some((bad, codes::HEADER_MISMATCH)));
        // A version nobody speaks: -32022 with the supported ones.
        let r =
            stateless_check(&head(&[("MCP-Protocol-Version", "2031-01-01")]), &list).unwrap_err();
        assert_eq!((r.status, r.code), (bad, codes::UNSUPPORTED_VERSION));
        assert_eq!(r.data.unwrap()["supported"][0], "2026-07-28");
        // A method the era removed.
        let ping = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"_meta": meta}});
        assert_eq!(
            code(&modern("ping", &[]), &ping),
            Some(("404 Not Found", codes::METHOD_NOT_FOUND))
        );
        // A method serve does not offer.
        let other = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "foo/bar", "params": {"_meta": meta}});
        assert_eq!(
            code(&modern("foo/bar", &[]), &other),
            Some(("404 Not Found", codes::METHOD_NOT_FOUND))
        );
        // The initialize era passes as it was, with or without its header.
        let init_ping = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        assert_eq!(code(&head(&[]), &init_ping), None);
        assert_eq!(
            code(&head(&[("MCP-Protocol-Version", "2025-11-25")]), &init_ping),
            None
        );
        // A notification is not checked as a request.
        let note = serde_json::json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {}});
        assert_eq!(code(&modern("notifications/cancelled", &[]), &note), None);
    }

    #[test]
    fn origins_are_checked() {
        assert!(origin_ok(&head(&[]), false), "no Origin: not a browser");
        assert!(origin_ok(
            &head(&[("Origin", "http://localhost:3000")]),
            false
        ));
        assert!(origin_ok(&head(&[("origin", "http://127.0.0.1:9")]), false));
        assert!(!origin_ok(
            &head(&[("Origin", "https://evil.example")]),
            false
        ));
        assert!(!origin_ok(&head(&[("Origin", "null")]), false));
        let remote = head(&[
            ("Origin", "https://deck.example"),
            ("Host", "deck.example:8808"),
        ]);
        assert!(origin_ok(&remote, true));
        assert!(!origin_ok(&remote, false));
        let rebound = head(&[
            ("Origin", "https://evil.example"),
            ("Host", "deck.example:8808"),
        ]);
        assert!(!origin_ok(&rebound, true));
    }
}
