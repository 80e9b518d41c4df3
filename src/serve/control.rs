//! `serve`'s control socket: a Unix socket in the user's runtime
//! directory, owner-only, through which the TUI (or `mcpdeck serves`, or a
//! script) watches a running `serve` and steers it.
//!
//! The socket is `$XDG_RUNTIME_DIR/mcpdeck/serve-<pid>.sock`, or without
//! that variable `<tmp>/mcpdeck-<uid>/serve-<pid>.sock`. The directory is
//! made 0700; one that exists but is not ours, or is writable by others,
//! is refused (serve runs on without a socket, after one warning). The
//! socket is 0600 and removed when serve ends (also on SIGINT/SIGTERM: the
//! work is dropped, and with it the socket's guard).
//!
//! Newline-delimited JSON, one request a line, one answer a line:
//! - `{"op":"status"}` → `{"ok":true,"status":{pid, started, config, agent, servers, calls}}`;
//! - `{"op":"watch"}` → `{"ok":true,"watching":true}`, then events until the
//!   client closes: `{"event":"frame",…}` (the agent's frames and the
//!   servers'), `{"event":"call",…}`, `{"event":"status",…}`, and
//!   `{"event":"dropped",…}` when a slow reader missed some (serve never
//!   waits for a watcher: its queue is bounded);
//! - `{"op":"deny"|"allow","server":S,"tool":T}`,
//!   `{"op":"enable"|"disable","server":S}` → the config file is edited as
//!   `mcpdeck deny/allow/enable/disable` do (comments kept, atomic); serve's
//!   watcher applies it, and the agent gets `list_changed`. `{"ok":true,
//!   "changed":…,"message":…}` or `{"error":…}`.
//!
//! Anything else gets `{"error":…}` and the connection stays open.
//!
//! The serve loop's side ([`Control`]) costs nothing while nobody
//! watches: the taps on the agent's frames return after one atomic load.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, oneshot};

use crate::mcp::framelog::{Direction, Frame, FrameLog};
use crate::mcp::types::INITIALIZE_VERSIONS;

use super::names::Naming;
use super::state::{CallRecord, ServeState};

/// The most events queued for one watcher; more are dropped and counted.
pub const WATCH_QUEUE: usize = 4096;

/// The most of one frame's text a watcher gets (the size says how much
/// there was).
pub const WATCH_FRAME_TEXT: usize = 256 * 1024;

/// The longest request line taken.
const MAX_REQUEST: usize = 64 * 1024;

/// How many of the last calls `status` gives.
pub const STATUS_CALLS: usize = 100;

/// How long one serve has to answer when the running ones are listed.
pub const ASK_TIMEOUT: Duration = Duration::from_millis(1500);

/// The ops, for the error that names them.
const OPS: &str = "status, watch, deny, allow, enable, disable";

// ---------------------------------------------------------------------------
// Where the sockets are.

fn uid() -> u32 {
    // SAFETY: getuid has no preconditions and cannot fail.
    unsafe { libc::getuid() }
}

/// The directory of the control sockets: `$XDG_RUNTIME_DIR/mcpdeck`, else
/// `<tmp>/mcpdeck-<uid>`.
pub fn socket_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir).join("mcpdeck"),
        None => std::env::temp_dir().join(format!("mcpdeck-{}", uid())),
    }
}

/// The socket of serve process `pid`.
pub fn socket_path(dir: &Path, pid: u32) -> PathBuf {
    dir.join(format!("serve-{pid}.sock"))
}

/// Why `dir` may not hold control sockets, if it may not: it must be a
/// directory (not a symlink), ours, and writable by nobody else.
pub fn check_dir(dir: &Path) -> Result<(), String> {
    let m = std::fs::symlink_metadata(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    if !m.file_type().is_dir() {
        return Err(format!(
            "{} is not a directory; remove it so that mcpdeck can make its own",
            dir.display()
        ));
    }
    if m.uid() != uid() {
        return Err(format!(
            "{} belongs to another user (uid {}); remove it, or set XDG_RUNTIME_DIR to a directory of yours",
            dir.display(),
            m.uid()
        ));
    }
    if m.mode() & 0o022 != 0 {
        return Err(format!(
            "{} is writable by others (mode {:o}); `chmod 700 {}`",
            dir.display(),
            m.mode() & 0o777,
            dir.display()
        ));
    }
    Ok(())
}

/// Make the socket directory (0700) unless it is there; check it.
fn prepare_dir(dir: &Path) -> Result<(), String> {
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(format!("cannot make {}: {e}", dir.display())),
    }
    check_dir(dir)
}

/// Whether process `pid` exists (ours or not).
fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

fn millis(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------
// The serve loop's side.

/// A request that needs serve's state (answered by the loop).
#[derive(Debug)]
pub struct Request(oneshot::Sender<Value>);

/// One watcher's queue.
struct Watcher {
    tx: mpsc::Sender<String>,
    dropped: Arc<AtomicU64>,
}

/// What the agent said about itself (seen on its frames).
#[derive(Debug, Default, Clone)]
struct AgentSeen {
    client_info: Option<Value>,
    era: Option<&'static str>,
    /// The version asked for (stateless: the `_meta` one; initialize: the
    /// one answered).
    version: Option<String>,
}

/// What the loop and the connections share.
struct Hub {
    watchers: Mutex<Vec<Watcher>>,
    /// Any watcher: the taps look at this alone when there is none.
    watching: AtomicBool,
    agent: Mutex<AgentSeen>,
    /// The agent is known (no more frames are looked into).
    agent_known: AtomicBool,
    /// Bumped when the agent's info changes (the status follows).
    agent_version: AtomicU64,
}

impl Hub {
    /// Queue `event` for every watcher; a full queue drops it (counted),
    /// a closed one is forgotten.
    fn broadcast(&self, event: &Value) {
        if !self.watching.load(Ordering::Relaxed) {
            return;
        }
        let line = event.to_string();
        let mut watchers = self.watchers.lock().unwrap_or_else(|p| p.into_inner());
        watchers.retain(|w| match w.tx.try_send(line.clone()) {
            Ok(()) => true,
            Err(mpsc::error::TrySendError::Full(_)) => {
                w.dropped.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(mpsc::error::TrySendError::Closed(_)) => false,
        });
        self.watching.store(!watchers.is_empty(), Ordering::Relaxed);
    }

    fn add(&self, w: Watcher) {
        let mut watchers = self.watchers.lock().unwrap_or_else(|p| p.into_inner());
        watchers.push(w);
        self.watching.store(true, Ordering::Relaxed);
    }

    fn prune(&self) {
        let mut watchers = self.watchers.lock().unwrap_or_else(|p| p.into_inner());
        watchers.retain(|w| !w.tx.is_closed());
        self.watching.store(!watchers.is_empty(), Ordering::Relaxed);
    }

    fn agent(&self) -> AgentSeen {
        self.agent.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Fixed facts about this serve.
#[derive(Debug, Clone)]
struct Facts {
    pid: u32,
    started: SystemTime,
    config: Option<PathBuf>,
    transport: String,
}

/// The way for another context of the same serve to tell the watchers of
/// [`Control::start`]'s socket (its agent's frames, its calls). The status
/// a client asks for is the shared context's.
#[derive(Clone)]
pub struct Follow {
    hub: Arc<Hub>,
    facts: Facts,
}

impl Follow {
    /// A control without a socket, telling the same watchers.
    pub fn control(&self) -> Control {
        Control {
            hub: self.hub.clone(),
            facts: self.facts.clone(),
            requests: None,
            listener: None,
            path: None,
            digest: 0,
            told_call: 0,
            in_flight: Vec::new(),
        }
    }
}

/// The control socket, as the serve loop holds it. Without a socket
/// (refused directory, bind failed) it does nothing.
pub struct Control {
    hub: Arc<Hub>,
    facts: Facts,
    requests: Option<mpsc::UnboundedReceiver<Request>>,
    listener: Option<tokio::task::JoinHandle<()>>,
    /// The socket file, removed on drop.
    path: Option<PathBuf>,
    /// The status as last told to watchers.
    digest: u64,
    /// The last call told to watchers, and the ones told in flight.
    told_call: u64,
    in_flight: Vec<u64>,
}

impl Control {
    /// Listen on the control socket. `config`: serve's config file;
    /// `transport`: how the agent reaches serve (`stdio`, `http ADDR`);
    /// `frames`: serve's frame log (the servers' frames, for watchers).
    pub fn start(config: Option<PathBuf>, transport: String, frames: Arc<FrameLog>) -> Control {
        let hub = Arc::new(Hub {
            watchers: Mutex::new(Vec::new()),
            watching: AtomicBool::new(false),
            agent: Mutex::new(AgentSeen::default()),
            agent_known: AtomicBool::new(false),
            agent_version: AtomicU64::new(0),
        });
        let config = config.map(|p| std::path::absolute(&p).unwrap_or(p));
        let facts = Facts {
            pid: std::process::id(),
            started: SystemTime::now(),
            config,
            transport,
        };
        let mut control = Control {
            hub,
            facts,
            requests: None,
            listener: None,
            path: None,
            digest: 0,
            told_call: 0,
            in_flight: Vec::new(),
        };
        let dir = socket_dir();
        let listener = prepare_dir(&dir).and_then(|()| {
            let path = socket_path(&dir, control.facts.pid);
            // A socket left by an earlier process of the same pid.
            let _ = std::fs::remove_file(&path);
            let l = UnixListener::bind(&path)
                .map_err(|e| format!("cannot listen on {}: {e}", path.display()))?;
            if let Err(e) = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
            {
                let _ = std::fs::remove_file(&path);
                return Err(format!("cannot make {} owner-only: {e}", path.display()));
            }
            Ok((l, path))
        });
        match listener {
            Ok((listener, path)) => {
                let (tx, rx) = mpsc::unbounded_channel();
                control.requests = Some(rx);
                control.path = Some(path.clone());
                let hub = control.hub.clone();
                let config = control.facts.config.clone();
                control.listener = Some(tokio::spawn(accept(listener, hub, tx, frames, config)));
            }
            Err(e) => eprintln!(
                "mcpdeck serve: warning: no control socket (the TUI cannot attach to this serve): {e}"
            ),
        }
        control
    }

    /// A handle for the other contexts of this serve (one per HTTP
    /// session): their controls tell the same watchers, without a socket.
    pub fn follow(&self) -> Follow {
        Follow {
            hub: self.hub.clone(),
            facts: self.facts.clone(),
        }
    }

    /// The socket's path, while it listens.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The next request that needs serve's state (never, without a socket).
    pub async fn next(&mut self) -> Option<Request> {
        match self.requests.as_mut() {
            Some(rx) => rx.recv().await,
            None => std::future::pending().await,
        }
    }

    /// Answer a request with serve's state.
    pub fn answer(&self, request: Request, state: &ServeState) {
        let _ = request.0.send(self.status(state, true));
    }

    /// A line the agent sent (its frames for watchers; who it is).
    pub fn agent_line(&self, line: &str) {
        if !self.hub.agent_known.load(Ordering::Relaxed) {
            self.learn_agent(line);
        }
        if self.hub.watching.load(Ordering::Relaxed) {
            self.hub.broadcast(&frame_event(
                "agent",
                None,
                Direction::Out,
                line,
                SystemTime::now(),
            ));
        }
    }

    /// A line serve sent the agent.
    pub fn agent_sent(&self, line: &str) {
        if self.hub.watching.load(Ordering::Relaxed) {
            let line = line.strip_suffix('\n').unwrap_or(line);
            self.hub.broadcast(&frame_event(
                "agent",
                None,
                Direction::In,
                line,
                SystemTime::now(),
            ));
        }
    }

    /// Who the agent is, from its `initialize` or a stateless request's
    /// `_meta`.
    fn learn_agent(&self, line: &str) {
        if !(line.contains("clientInfo") || line.contains("protocolVersion")) {
            return;
        }
        let Ok(frame) = serde_json::from_str::<Value>(line) else {
            return;
        };
        let params = &frame["params"];
        let mut seen = self.hub.agent.lock().unwrap_or_else(|p| p.into_inner());
        let before = (seen.client_info.clone(), seen.era, seen.version.clone());
        if frame["method"] == "initialize" {
            seen.era = Some("initialize");
            let asked = params["protocolVersion"].as_str().unwrap_or_default();
            let answered = if INITIALIZE_VERSIONS.contains(&asked) {
                asked
            } else {
                INITIALIZE_VERSIONS[0]
            };
            seen.version = Some(answered.to_string());
            if params["clientInfo"].is_object() {
                seen.client_info = Some(params["clientInfo"].clone());
            }
        } else if let Some(meta) = params.get("_meta")
            && let Some(v) = meta
                .get("io.modelcontextprotocol/protocolVersion")
                .and_then(Value::as_str)
        {
            seen.era = Some("stateless");
            seen.version = Some(v.to_string());
            if let Some(info) = meta
                .get("io.modelcontextprotocol/clientInfo")
                .filter(|i| i.is_object())
            {
                seen.client_info = Some(info.clone());
            }
        }
        if (seen.client_info.clone(), seen.era, seen.version.clone()) != before {
            self.hub.agent_version.fetch_add(1, Ordering::Relaxed);
        }
        // Known: no more lines are looked into (an initialize-era agent
        // says who it is once; a stateless one on each request).
        if seen.era == Some("initialize") || (seen.era.is_some() && seen.client_info.is_some()) {
            self.hub.agent_known.store(true, Ordering::Relaxed);
        }
    }

    /// After a turn of serve's loop: tell watchers the calls that began or
    /// ended, and the status when it changed.
    pub fn observe(&mut self, state: &ServeState) {
        if !self.hub.watching.load(Ordering::Relaxed) {
            self.told_call = state.last_call;
            self.in_flight.clear();
            self.digest = 0;
            return;
        }
        // Calls that ended since told in flight.
        let mut ended = Vec::new();
        self.in_flight.retain(
            |seq| match state.calls.iter().rev().find(|c| c.seq == *seq) {
                Some(c) if c.elapsed.is_some() => {
                    ended.push(call_json(c));
                    false
                }
                Some(_) => true,
                None => false,
            },
        );
        for c in ended {
            self.hub.broadcast(&json!({"event": "call", "call": c}));
        }
        if state.last_call > self.told_call {
            let new: Vec<&CallRecord> = state
                .calls
                .iter()
                .filter(|c| c.seq > self.told_call)
                .collect();
            for c in new {
                if c.elapsed.is_none() {
                    self.in_flight.push(c.seq);
                }
                self.hub
                    .broadcast(&json!({"event": "call", "call": call_json(c)}));
            }
            self.told_call = state.last_call;
        }
        let digest = self.digest(state);
        if digest != self.digest {
            self.digest = digest;
            self.hub
                .broadcast(&json!({"event": "status", "status": self.status(state, false)}));
        }
    }

    /// What the status shows, hashed (lists by identity: a new list is a
    /// new `Arc`).
    fn digest(&self, state: &ServeState) -> u64 {
        let mut h = DefaultHasher::new();
        self.hub.agent_version.load(Ordering::Relaxed).hash(&mut h);
        for s in &state.servers {
            s.config.name.hash(&mut h);
            s.config.enabled.hash(&mut h);
            s.config.deny_tools.hash(&mut h);
            s.config.allow_tools.hash(&mut h);
            s.status_text().hash(&mut h);
            s.lists
                .as_ref()
                .map(|l| Arc::as_ptr(l) as usize)
                .hash(&mut h);
            s.negotiated.as_ref().map(|n| &n.version).hash(&mut h);
            if let Some(pins) = &state.pins
                && let Some(p) = pins.get(&crate::trust::pin::key_for(&s.config))
            {
                for d in &p.definitions {
                    d.sha256.hash(&mut h);
                }
            }
        }
        state.pins.is_some().hash(&mut h);
        // Never 0 (0 means "not told yet").
        h.finish() | 1
    }

    /// The status: this serve, its agent, each served server with its
    /// tools (visible, refused by a rule, withheld), and the last calls.
    pub fn status(&self, state: &ServeState, calls: bool) -> Value {
        let agent = self.hub.agent();
        let servers: Vec<Value> = state
            .servers
            .iter()
            .map(|s| {
                let name = s.config.name.as_str();
                let tools: Vec<Value> = s
                    .lists
                    .iter()
                    .flat_map(|l| l.tools.iter())
                    .map(|t| {
                        let mut tool = json!({
                            "name": t.name,
                            "as": state.naming.name(name, &t.name),
                        });
                        match state.withheld(s, t) {
                            None => tool["state"] = json!("visible"),
                            Some(super::Withheld::Policy(rule)) => {
                                tool["state"] = json!("refused");
                                tool["rule"] = json!(rule.to_string());
                            }
                            Some(super::Withheld::Pin(why)) => {
                                tool["state"] = json!("withheld");
                                tool["rule"] = json!(why);
                            }
                        }
                        tool
                    })
                    .collect();
                json!({
                    "name": name,
                    "status": s.status_text(),
                    "era": s.negotiated.as_ref().map(|n| n.era.label()),
                    "version": s.negotiated.as_ref().map(|n| n.version.clone()),
                    "deny_tools": s.config.deny_tools,
                    "allow_tools": s.config.allow_tools,
                    "tools": tools,
                })
            })
            .collect();
        let mut status = json!({
            "pid": self.facts.pid,
            "started": crate::trust::pin::rfc3339(self.facts.started),
            "started_ms": millis(self.facts.started),
            "config": self.facts.config.as_ref().map(|p| p.display().to_string()),
            "transport": self.facts.transport,
            "naming": match state.naming {
                Naming::Transparent => "transparent",
                Naming::Aggregated => "aggregated",
            },
            "pinned": state.pins.is_some(),
            "agent": {
                "clientInfo": agent.client_info,
                "era": agent.era,
                "version": agent.version,
            },
            "servers": servers,
            "call_count": state.last_call,
        });
        if calls {
            let skip = state.calls.len().saturating_sub(STATUS_CALLS);
            status["calls"] = state.calls.iter().skip(skip).map(call_json).collect();
        }
        status
    }
}

impl Drop for Control {
    fn drop(&mut self) {
        if let Some(l) = self.listener.take() {
            l.abort();
        }
        if let Some(path) = self.path.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// A call record as JSON.
pub fn call_json(c: &CallRecord) -> Value {
    json!({
        "seq": c.seq,
        "server": c.server,
        "tool": c.tool,
        "at": millis(c.at),
        "elapsed_ms": c.elapsed.map(|d| d.as_secs_f64() * 1000.0),
        "outcome": c.outcome,
    })
}

/// A frame as a watch event. `side`: `agent` (between the agent and serve)
/// or `upstream` (between serve and a server); `dir` as the frame log's:
/// `C->S` from the client (the agent, or serve upstream).
fn frame_event(
    side: &str,
    server: Option<&str>,
    dir: Direction,
    text: &str,
    at: SystemTime,
) -> Value {
    let cut = crate::mcp::finding::truncate(text, WATCH_FRAME_TEXT);
    json!({
        "event": "frame",
        "at": millis(at),
        "side": side,
        "server": server,
        "dir": dir.arrow(),
        "text": cut,
        "size": text.len(),
    })
}

fn upstream_event(f: &Frame) -> Value {
    let mut e = frame_event("upstream", Some(&f.server), f.dir, &f.text, f.at);
    if f.truncated() {
        e["size"] = json!(f.size);
    }
    e
}

// ---------------------------------------------------------------------------
// The connections.

async fn accept(
    listener: UnixListener,
    hub: Arc<Hub>,
    requests: mpsc::UnboundedSender<Request>,
    frames: Arc<FrameLog>,
    config: Option<PathBuf>,
) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // A failed accept (out of descriptors): try again shortly.
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        // The socket is 0600 in a 0700 directory; the peer's uid is
        // checked as well (another user reaching it is refused).
        if stream.peer_cred().ok().map(|c| c.uid()) != Some(uid()) {
            continue;
        }
        tokio::spawn(connection(
            stream,
            hub.clone(),
            requests.clone(),
            frames.clone(),
            config.clone(),
        ));
    }
}

/// One request line as read.
enum Read {
    Line(String),
    /// Not UTF-8: answered with an error, the connection stays.
    NotText,
    /// Longer than [`MAX_REQUEST`]: its end cannot be told from the next
    /// request, so the connection ends.
    TooLong,
    End,
}

/// Read one line of at most [`MAX_REQUEST`] bytes.
async fn read_request<R: AsyncRead + Unpin>(
    r: &mut BufReader<R>,
    buf: &mut Vec<u8>,
) -> std::io::Result<Read> {
    buf.clear();
    let mut limited = r.take(MAX_REQUEST as u64 + 1);
    let n = limited.read_until(b'\n', buf).await?;
    if n == 0 {
        return Ok(Read::End);
    }
    if buf.len() > MAX_REQUEST && buf.last() != Some(&b'\n') {
        return Ok(Read::TooLong);
    }
    Ok(match String::from_utf8(std::mem::take(buf)) {
        Ok(line) => Read::Line(line),
        Err(_) => Read::NotText,
    })
}

async fn connection(
    stream: UnixStream,
    hub: Arc<Hub>,
    requests: mpsc::UnboundedSender<Request>,
    frames: Arc<FrameLog>,
    config: Option<PathBuf>,
) {
    let (r, mut w) = stream.into_split();
    let mut r = BufReader::new(r);
    let mut buf = Vec::new();
    loop {
        let line = match read_request(&mut r, &mut buf).await {
            Ok(Read::Line(line)) => line,
            Ok(Read::NotText) => {
                let answer = json!({"error": "a request must be UTF-8 JSON, one object a line"});
                if write_line(&mut w, &answer).await.is_err() {
                    return;
                }
                continue;
            }
            Ok(Read::TooLong) => {
                let e =
                    format!("a request line is at most {MAX_REQUEST} bytes; the connection ends");
                let _ = write_line(&mut w, &json!({"error": e})).await;
                return;
            }
            Ok(Read::End) | Err(_) => return,
        };
        if line.trim().is_empty() {
            continue;
        }
        let answer = match serde_json::from_str::<Value>(&line) {
            Err(e) => {
                json!({"error": format!("not JSON ({e}); send one object a line, e.g. {{\"op\":\"status\"}}")})
            }
            Ok(req) => match req.get("op").and_then(Value::as_str) {
                Some("status") => {
                    let (tx, rx) = oneshot::channel();
                    if requests.send(Request(tx)).is_err() {
                        json!({"error": "serve is stopping"})
                    } else {
                        match rx.await {
                            Ok(status) => json!({"ok": true, "status": status}),
                            Err(_) => json!({"error": "serve is stopping"}),
                        }
                    }
                }
                Some("watch") => {
                    if write_line(&mut w, &json!({"ok": true, "watching": true}))
                        .await
                        .is_err()
                    {
                        return;
                    }
                    return watch(r, w, &hub, &frames).await;
                }
                Some(op @ ("deny" | "allow" | "enable" | "disable")) => {
                    edit(op, &req, config.clone()).await
                }
                Some(other) => json!({"error": format!(
                    "unknown op {:?}; the ops are {OPS}",
                    crate::sanitize::one_line(other)
                )}),
                None => json!({"error": format!(
                    "a request needs \"op\" (one of {OPS}), e.g. {{\"op\":\"status\"}}"
                )}),
            },
        };
        if write_line(&mut w, &answer).await.is_err() {
            return;
        }
    }
}

async fn write_line(w: &mut tokio::net::unix::OwnedWriteHalf, v: &Value) -> std::io::Result<()> {
    let mut line = v.to_string();
    line.push('\n');
    w.write_all(line.as_bytes()).await
}

/// An edit of the config file, as the CLI's commands make it.
async fn edit(op: &str, req: &Value, config: Option<PathBuf>) -> Value {
    let Some(path) = config else {
        return json!({"error": "this serve has no config file to edit (started with --demo?)"});
    };
    let field = |k: &str| req.get(k).and_then(Value::as_str).map(str::to_string);
    let Some(server) = field("server") else {
        return json!({"error": format!("{op} needs \"server\": {{\"op\":\"{op}\",\"server\":\"NAME\"{}}}",
            if matches!(op, "deny" | "allow") { ",\"tool\":\"TOOL\"" } else { "" })});
    };
    let tool = field("tool");
    if matches!(op, "deny" | "allow") && tool.is_none() {
        return json!({"error": format!("{op} needs \"tool\": {{\"op\":\"{op}\",\"server\":\"NAME\",\"tool\":\"TOOL\"}}")});
    }
    let op = op.to_string();
    let done = tokio::task::spawn_blocking(move || {
        use crate::config;
        let tool = tool.unwrap_or_default();
        match op.as_str() {
            "deny" => config::edit_deny(&path, &server, &tool),
            "allow" => config::edit_allow(&path, &server, &tool),
            "enable" => config::edit_enabled(&path, &server, true),
            _ => config::edit_enabled(&path, &server, false),
        }
    })
    .await;
    match done {
        Ok(Ok(e)) => json!({"ok": true, "changed": e.changed, "message": e.message}),
        Ok(Err(e)) => json!({"error": e.to_string()}),
        Err(e) => json!({"error": format!("the edit failed: {e}")}),
    }
}

/// Stream events to a watcher until it closes the connection.
async fn watch(
    mut r: BufReader<tokio::net::unix::OwnedReadHalf>,
    mut w: tokio::net::unix::OwnedWriteHalf,
    hub: &Hub,
    frames: &FrameLog,
) {
    let (tx, mut rx) = mpsc::channel(WATCH_QUEUE);
    let dropped = Arc::new(AtomicU64::new(0));
    let mut changes = frames.subscribe();
    // Only frames from now on.
    let mut next = frames.last_seq().map_or(0, |s| s + 1);
    hub.add(Watcher {
        tx,
        dropped: dropped.clone(),
    });
    let mut told = 0;
    let mut sink = [0u8; 1024];
    loop {
        let mut out = Vec::new();
        tokio::select! {
            line = rx.recv() => match line {
                Some(line) => {
                    out.push(line);
                    while let Ok(more) = rx.try_recv() {
                        out.push(more);
                        if out.len() >= 256 { break; }
                    }
                }
                None => break,
            },
            _ = changes.changed() => {
                for f in frames.since(next) {
                    // Frames that left the ring before this reader came to
                    // them.
                    dropped.fetch_add(f.seq.saturating_sub(next), Ordering::Relaxed);
                    next = f.seq + 1;
                    out.push(upstream_event(&f).to_string());
                }
            }
            n = tokio::io::AsyncReadExt::read(&mut r, &mut sink) => {
                // Whatever the client sends is ignored; its end ends the watch.
                if matches!(n, Ok(0) | Err(_)) { break; }
            }
        }
        let now = dropped.load(Ordering::Relaxed);
        if now > told {
            out.push(json!({"event": "dropped", "count": now - told, "total": now}).to_string());
            told = now;
        }
        let mut text = String::new();
        for line in out {
            text.push_str(&line);
            text.push('\n');
        }
        if !text.is_empty() && w.write_all(text.as_bytes()).await.is_err() {
            break;
        }
    }
    drop(rx);
    hub.prune();
}

// ---------------------------------------------------------------------------
// The client's side: finding running serves.

/// A running serve, as found by its socket.
#[derive(Debug, Clone)]
pub struct Found {
    pub pid: u32,
    pub socket: PathBuf,
    /// Its status (`status` of the socket), or why it did not answer.
    pub status: Result<Value, String>,
}

/// Ask one socket for its status, within `timeout`.
pub async fn ask_status(socket: &Path, timeout: Duration) -> Result<Value, String> {
    let work = async {
        let stream = UnixStream::connect(socket)
            .await
            .map_err(|e| e.to_string())?;
        let (r, mut w) = stream.into_split();
        w.write_all(b"{\"op\":\"status\"}\n")
            .await
            .map_err(|e| e.to_string())?;
        let mut lines = BufReader::new(r).lines();
        let line = lines
            .next_line()
            .await
            .map_err(|e| e.to_string())?
            .ok_or("it closed the connection")?;
        let v: Value = serde_json::from_str(&line).map_err(|e| format!("a bad answer: {e}"))?;
        match v.get("status") {
            Some(s) => Ok(s.clone()),
            None => Err(v["error"].as_str().unwrap_or("no status").to_string()),
        }
    };
    tokio::time::timeout(timeout, work)
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {} ms", timeout.as_millis())))
}

/// The serves running for this user: each socket in [`socket_dir`] asked
/// for its status; sockets whose process is gone are removed.
pub async fn running(timeout: Duration) -> Result<Vec<Found>, String> {
    let dir = socket_dir();
    match std::fs::symlink_metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        _ => check_dir(&dir)?,
    }
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut sockets: Vec<(u32, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let pid = name
                .strip_prefix("serve-")?
                .strip_suffix(".sock")?
                .parse()
                .ok()?;
            Some((pid, e.path()))
        })
        .collect();
    sockets.sort();
    let asks = sockets.into_iter().map(|(pid, socket)| async move {
        let status = ask_status(&socket, timeout).await;
        (pid, socket, status)
    });
    let mut found = Vec::new();
    for (pid, socket, status) in futures_util::future::join_all(asks).await {
        if status.is_err() && !pid_alive(pid) {
            // Its serve is gone (killed without cleaning up).
            let _ = std::fs::remove_file(&socket);
            continue;
        }
        found.push(Found {
            pid,
            socket,
            status,
        });
    }
    Ok(found)
}

/// The agent's name (and version) from a status, `-` before it spoke.
pub fn agent_name(status: &Value) -> String {
    let info = &status["agent"]["clientInfo"];
    match (info["name"].as_str(), info["version"].as_str()) {
        (Some(n), Some(v)) => crate::sanitize::one_line(&format!("{n} {v}")),
        (Some(n), None) => crate::sanitize::one_line(n),
        _ => "-".into(),
    }
}

/// The served servers' names, comma-separated.
pub fn server_names(status: &Value) -> String {
    let names: Vec<String> = status["servers"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["name"].as_str())
        .map(crate::sanitize::one_line)
        .collect();
    if names.is_empty() {
        "-".into()
    } else {
        names.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_directory_must_be_ours_and_closed_to_others() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("mcpdeck");
        prepare_dir(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        // Made already: fine again.
        prepare_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o770)).unwrap();
        let e = check_dir(&dir).unwrap_err();
        assert!(
            e.contains("writable by others") && e.contains("chmod 700"),
            "{e}"
        );
        let file = tmp.path().join("file");
        std::fs::write(&file, "").unwrap();
        assert!(check_dir(&file).unwrap_err().contains("not a directory"));
        let link = tmp.path().join("link");
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert!(
            check_dir(&link).unwrap_err().contains("not a directory"),
            "a symlink is not followed"
        );
    }

    fn hub() -> Hub {
        Hub {
            watchers: Mutex::new(Vec::new()),
            watching: AtomicBool::new(false),
            agent: Mutex::new(AgentSeen::default()),
            agent_known: AtomicBool::new(false),
            agent_version: AtomicU64::new(0),
        }
    }

    #[test]
    fn a_slow_watcher_loses_events_counted_and_a_gone_one_is_forgotten() {
        let hub = hub();
        let (tx, mut rx) = mpsc::channel(2);
        let dropped = Arc::new(AtomicU64::new(0));
        hub.add(Watcher {
            tx,
            dropped: dropped.clone(),
        });
        for i in 0..5 {
            hub.broadcast(&json!({"event": "call", "n": i}));
        }
        assert_eq!(dropped.load(Ordering::Relaxed), 3, "two fit, three dropped");
        assert!(rx.try_recv().unwrap().contains("\"n\":0"));
        drop(rx);
        hub.broadcast(&json!({"event": "call"}));
        assert!(
            !hub.watching.load(Ordering::Relaxed),
            "the closed watcher is gone"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn request_lines_are_bounded_and_must_be_text() {
        let input: &[u8] = b"{\"op\":\"status\"}\n\xff\xfe\n";
        let mut r = BufReader::new(input);
        let mut buf = Vec::new();
        assert!(
            matches!(read_request(&mut r, &mut buf).await.unwrap(), Read::Line(l) if l.contains("status"))
        );
        assert!(matches!(
            read_request(&mut r, &mut buf).await.unwrap(),
            Read::NotText
        ));
        assert!(matches!(
            read_request(&mut r, &mut buf).await.unwrap(),
            Read::End
        ));
        let long = vec![b'x'; MAX_REQUEST + 10];
        let mut r = BufReader::new(long.as_slice());
        assert!(matches!(
            read_request(&mut r, &mut buf).await.unwrap(),
            Read::TooLong
        ));
    }

    #[test]
    fn the_agent_is_named_from_its_status() {
        let s = json!({"agent": {"clientInfo": {"name": "claude-code", "version": "2.0"}},
                       "servers": [{"name": "a"}, {"name": "b\u{1b}[31m"}]});
        assert_eq!(agent_name(&s), "claude-code 2.0");
        assert_eq!(agent_name(&json!({})), "-");
        let names = server_names(&s);
        assert!(
            names.starts_with("a, b") && !names.contains('\u{1b}'),
            "{names}"
        );
    }
}
