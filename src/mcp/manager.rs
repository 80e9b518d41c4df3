//! The manager: one background task that owns every session. Commands go
//! in, events come out; nothing the UI does ever waits on a server.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinSet};

use super::finding::Finding;
use super::framelog::FrameLog;
use super::session::{Asker, ClientPolicy, ServerRequest, SharedRoots, TransportSpec};
use super::session::{
    ConnectError, EventSink, Lists, Negotiated, Pin, RequestError, Session, SessionEvent,
    SessionSpec, Tagged,
};
use super::transport::StdioSpec;
use super::transport::http::{HttpKind, HttpSpec};
use super::transport::stdio::Children;
use super::types::{CallResult, Tool};
use crate::config::{HttpTransportKind, ProtocolPin, ServerConfig, Settings, TransportConfig};

/// Separator of qualified tool names: `server__tool`.
pub const QUALIFIER: &str = "__";

/// A server's state.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerStatus {
    /// Connecting.
    Pending,
    Connected,
    Failed {
        reason: String,
        stderr_tail: Vec<String>,
    },
    /// The server answered 401 or 403: it needs credentials.
    NeedsAuth {
        reason: String,
    },
    Disabled,
    /// Enabled but not connected (after a disconnect command).
    Disconnected,
}

impl ServerStatus {
    pub fn label(&self) -> &'static str {
        match self {
            ServerStatus::Pending => "pending",
            ServerStatus::Connected => "connected",
            ServerStatus::Failed { .. } => "failed",
            ServerStatus::NeedsAuth { .. } => "needs auth",
            ServerStatus::Disabled => "disabled",
            ServerStatus::Disconnected => "disconnected",
        }
    }

    /// Whether this state is final until someone acts.
    pub fn settled(&self) -> bool {
        !matches!(self, ServerStatus::Pending)
    }
}

/// Commands to the manager.
#[derive(Debug)]
pub enum Command {
    /// Diff a new server list against the current one.
    SetServers(Vec<ServerConfig>),
    Connect(String),
    Disconnect(String),
    Reconnect(String),
    SetEnabled(String, bool),
    SetDenyList(String, Vec<String>),
    /// List tools, resources and prompts again.
    Refresh(String),
    /// Ping the server now.
    Ping(String),
    /// The roots offered to servers changed (the config's `roots`; empty
    /// means the current directory): servers are told with
    /// `notifications/roots/list_changed`.
    SetRoots(Vec<std::path::PathBuf>),
    /// Any request (`resources/read`, `prompts/get`, `completion/complete`,
    /// …) to a connected server; answered with [`Event::Response`] `tag`.
    /// The stateless era's envelope and input_required rounds are handled.
    Request {
        tag: u64,
        server: String,
        method: String,
        params: Value,
    },
    /// Subscribe to a resource's updates (server, uri).
    Subscribe(String, String),
    /// End a resource subscription (server, uri).
    Unsubscribe(String, String),
    /// Ask the server for log messages at this level and above.
    SetLogLevel(String, String),
    /// The person's answer to [`Event::ServerRequest`] `id`: a result
    /// (`{"action": "accept", "content": …}`, a sampling result) or an error.
    AnswerServerRequest {
        id: u64,
        result: Result<Value, super::jsonrpc::RpcError>,
    },
    Call {
        tag: u64,
        server: String,
        tool: String,
        arguments: Value,
    },
    Cancel {
        tag: u64,
    },
    Snapshot(oneshot::Sender<Vec<ServerSnapshot>>),
    Shutdown(oneshot::Sender<()>),
}

/// Why a call did not produce a result.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CallError {
    #[error("there is no server named {0:?} in the configuration")]
    UnknownServer(String),
    #[error("server {server:?} is {status}; connect it first")]
    NotConnected { server: String, status: String },
    #[error(
        "tool {tool:?} is denied on server {server:?} (deny_tools in the config); remove it from deny_tools to call it"
    )]
    Denied { server: String, tool: String },
    #[error(transparent)]
    Request(#[from] RequestError),
}

/// Events from the manager.
#[derive(Debug, Clone)]
pub enum Event {
    /// The set or order of servers changed.
    Servers(Vec<String>),
    Status {
        server: String,
        status: ServerStatus,
        negotiated: Option<Box<Negotiated>>,
    },
    Lists {
        server: String,
        lists: Arc<Lists>,
    },
    DenyList {
        server: String,
        tools: Vec<String>,
    },
    CallStarted {
        tag: u64,
        server: String,
        tool: String,
        request_id: i64,
    },
    CallFinished {
        tag: u64,
        server: String,
        tool: String,
        result: Result<CallResult, CallError>,
        elapsed: Duration,
    },
    Finding {
        server: String,
        finding: Finding,
    },
    Stderr {
        server: String,
        line: String,
    },
    Notification {
        server: String,
        method: String,
        params: Option<Value>,
    },
    /// The answer to [`Command::Ping`] (`requested`), or the ping made
    /// right after connecting: the round trip, or why it failed.
    Ping {
        server: String,
        result: Result<Duration, String>,
        requested: bool,
    },
    /// The answer to [`Command::Request`] `tag`.
    Response {
        tag: u64,
        server: String,
        method: String,
        result: Result<Value, RequestError>,
    },
    /// The answer to [`Command::Subscribe`] / [`Command::Unsubscribe`].
    Subscription {
        server: String,
        uri: String,
        subscribed: bool,
        result: Result<(), String>,
    },
    /// A call that runs as a task changed state.
    TaskStatus {
        tag: u64,
        server: String,
        status: super::session::TaskStatus,
    },
    /// The server asks the person (sampling, elicitation): answer with
    /// [`Command::AnswerServerRequest`].
    ServerRequest {
        id: u64,
        server: String,
        method: String,
        params: Value,
    },
    /// The answer to [`Command::SetLogLevel`].
    LogLevel {
        server: String,
        level: String,
        result: Result<(), String>,
    },
}

/// A server as the manager sees it now.
#[derive(Debug, Clone)]
pub struct ServerSnapshot {
    pub config: ServerConfig,
    pub status: ServerStatus,
    pub negotiated: Option<Negotiated>,
    pub lists: Arc<Lists>,
}

/// A tool in the aggregate list.
#[derive(Debug, Clone)]
pub struct QualifiedTool {
    /// `server__tool`
    pub qualified: String,
    pub server: String,
    pub tool: Tool,
}

/// The aggregate tool list of all connected servers, qualified as
/// `server__tool`, with denied tools left out.
pub fn aggregate_tools(servers: &[ServerSnapshot]) -> Vec<QualifiedTool> {
    servers
        .iter()
        .filter(|s| s.status == ServerStatus::Connected)
        .flat_map(|s| {
            s.lists
                .tools
                .iter()
                .filter(|t| !s.config.is_tool_denied(&t.name))
                .map(|t| QualifiedTool {
                    qualified: format!("{}{QUALIFIER}{}", s.config.name, t.name),
                    server: s.config.name.clone(),
                    tool: t.clone(),
                })
        })
        .collect()
}

/// Split `server__tool` at the first separator (server names cannot hold it).
pub fn split_qualified(name: &str) -> Option<(&str, &str)> {
    name.split_once(QUALIFIER)
        .filter(|(s, t)| !s.is_empty() && !t.is_empty())
}

/// Build a session spec from the config. `children` registers the
/// server's process so its owner can always reap it.
pub fn session_spec(
    config: &ServerConfig,
    settings: &Settings,
    children: Option<Arc<Children>>,
) -> Result<SessionSpec, ConnectError> {
    let transport = match &config.transport {
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => TransportSpec::Stdio(StdioSpec {
            command: command.clone(),
            args: args.clone(),
            env: env.clone(),
            cwd: cwd.clone(),
            stderr_lines: settings.stderr_lines,
            grace: settings.shutdown_grace,
            children,
        }),
        TransportConfig::Http {
            url,
            headers,
            transport,
            ca_file,
            insecure,
        } => TransportSpec::Http(HttpSpec {
            url: url.clone(),
            headers: headers.clone(),
            kind: match transport {
                HttpTransportKind::Auto => HttpKind::Auto,
                HttpTransportKind::StreamableHttp => HttpKind::StreamableHttp,
                HttpTransportKind::Sse => HttpKind::Sse,
            },
            ca_file: ca_file.clone(),
            insecure: *insecure,
            connect_timeout: settings.connect_timeout,
        }),
    };
    let pin = match &config.protocol {
        ProtocolPin::Auto => Pin::Auto,
        ProtocolPin::Stateless => Pin::Stateless,
        ProtocolPin::Initialize => Pin::Initialize,
        ProtocolPin::Version(v) => Pin::Version(v.clone()),
    };
    Ok(SessionSpec {
        name: Arc::from(config.name.as_str()),
        transport,
        client: ClientPolicy::default(),
        pin,
        request_timeout: config.request_timeout(settings),
        connect_timeout: settings.connect_timeout,
        probe_timeout: settings.probe_timeout,
    })
}

/// The handle the UI and the CLI hold.
#[derive(Clone, Debug)]
pub struct Manager {
    tx: mpsc::UnboundedSender<Command>,
    frames: Arc<FrameLog>,
    children: Arc<Children>,
}

impl Manager {
    /// Start the manager task with these servers; every enabled server
    /// connects at once, concurrently.
    pub fn start(
        settings: Settings,
        servers: Vec<ServerConfig>,
        frames: Arc<FrameLog>,
    ) -> (Manager, mpsc::UnboundedReceiver<Event>) {
        Self::start_with_children(settings, servers, frames, Children::new())
    }

    /// Like [`Manager::start`], registering every server process in
    /// `children` (so a signal handler can reap them).
    pub fn start_with_children(
        settings: Settings,
        servers: Vec<ServerConfig>,
        frames: Arc<FrameLog>,
        children: Arc<Children>,
    ) -> (Manager, mpsc::UnboundedReceiver<Event>) {
        Self::start_full(settings, servers, frames, children, false)
    }

    /// Like [`Manager::start_with_children`]; `interactive` declares the
    /// sampling, elicitation and roots capabilities and hands every
    /// sampling and elicitation request to the UI as
    /// [`Event::ServerRequest`], to be answered with
    /// [`Command::AnswerServerRequest`] (the TUI does this).
    pub fn start_full(
        settings: Settings,
        servers: Vec<ServerConfig>,
        frames: Arc<FrameLog>,
        children: Arc<Children>,
        interactive: bool,
    ) -> (Manager, mpsc::UnboundedReceiver<Event>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let (ev_tx, ev_rx) = mpsc::unbounded_channel();
        let asks: Asks = Arc::new(std::sync::Mutex::new((0, HashMap::new())));
        let client = if interactive {
            let (events, asks) = (ev_tx.clone(), asks.clone());
            let ask = Asker(Arc::new(move |req: ServerRequest| {
                let (reply, rx) = oneshot::channel();
                let id = {
                    let mut a = asks.lock().unwrap_or_else(|p| p.into_inner());
                    a.0 += 1;
                    let id = a.0;
                    a.1.insert(id, reply);
                    id
                };
                let _ = events.send(Event::ServerRequest {
                    id,
                    server: req.server.to_string(),
                    method: req.method,
                    params: req.params,
                });
                rx
            }));
            let mut policy = ClientPolicy::automatic();
            policy.roots = Some(SharedRoots::new(&settings.roots));
            policy.elicitation_defaults = false;
            policy.ask = Some(ask);
            policy
        } else {
            ClientPolicy::default()
        };
        let (msg_tx, msg_rx) = mpsc::unbounded_channel();
        let sink_tx = msg_tx.clone();
        let sink: EventSink = Arc::new(move |t| {
            let _ = sink_tx.send(Msg::Session(t));
        });
        let task = Task {
            settings,
            slots: Vec::new(),
            events: ev_tx,
            sink,
            msgs: msg_tx,
            frames: frames.clone(),
            children: children.clone(),
            calls: HashMap::new(),
            next_call: 0,
            generation: 0,
            closing: JoinSet::new(),
            tasks: JoinSet::new(),
            early_list_changed: HashSet::new(),
            client,
            asks,
        };
        tokio::spawn(task.run(servers, rx, msg_rx));
        (
            Manager {
                tx,
                frames,
                children,
            },
            ev_rx,
        )
    }

    pub fn send(&self, cmd: Command) {
        let _ = self.tx.send(cmd);
    }

    pub fn frames(&self) -> &Arc<FrameLog> {
        &self.frames
    }

    /// The server processes not reaped yet.
    pub fn children(&self) -> &Arc<Children> {
        &self.children
    }

    pub async fn snapshot(&self) -> Vec<ServerSnapshot> {
        let (tx, rx) = oneshot::channel();
        self.send(Command::Snapshot(tx));
        rx.await.unwrap_or_default()
    }

    /// Close every session, stop every attempt to connect, and wait until
    /// every server process is reaped.
    pub async fn shutdown(&self) {
        let (tx, rx) = oneshot::channel();
        self.send(Command::Shutdown(tx));
        let _ = rx.await;
    }
}

struct Slot {
    config: ServerConfig,
    status: ServerStatus,
    session: Option<Session>,
    negotiated: Option<Negotiated>,
    lists: Arc<Lists>,
    /// Bumped on every (re)connect, so late results of old attempts are dropped.
    generation: u64,
    /// The connect attempt in flight.
    connecting: Option<AbortHandle>,
    /// A re-list is in flight; `relist_again` asks for one more after it.
    relisting: bool,
    relist_again: bool,
}

/// What the manager's tasks and sessions tell it, in one ordered stream:
/// a call's findings always arrive before its result.
enum Msg {
    Session(Tagged),
    Connected {
        server: String,
        generation: u64,
        result: Result<(Session, Lists), ConnectError>,
    },
    Relisted {
        server: String,
        session: u64,
        result: Result<Lists, RequestError>,
    },
    CallDone {
        call: u64,
        event: Event,
    },
}

struct Task {
    settings: Settings,
    slots: Vec<Slot>,
    events: mpsc::UnboundedSender<Event>,
    sink: EventSink,
    msgs: mpsc::UnboundedSender<Msg>,
    frames: Arc<FrameLog>,
    children: Arc<Children>,
    /// Calls in flight: tag -> (call number, cancel).
    calls: HashMap<u64, (u64, oneshot::Sender<()>)>,
    next_call: u64,
    generation: u64,
    /// Sessions being closed in the background; awaited at shutdown.
    closing: JoinSet<()>,
    /// Connect attempts, calls and re-lists; aborted or awaited at shutdown.
    tasks: JoinSet<()>,
    /// Sessions that announced a list change while connecting.
    early_list_changed: HashSet<u64>,
    /// How server requests are answered (declared capabilities).
    client: ClientPolicy,
    /// Server requests waiting for the UI's answer.
    asks: Asks,
}

/// The server requests handed to the UI, by id: (last id, senders).
type Asks = Arc<
    std::sync::Mutex<(
        u64,
        HashMap<u64, oneshot::Sender<Result<Value, super::jsonrpc::RpcError>>>,
    )>,
>;

impl Task {
    async fn run(
        mut self,
        servers: Vec<ServerConfig>,
        mut commands: mpsc::UnboundedReceiver<Command>,
        mut msgs: mpsc::UnboundedReceiver<Msg>,
    ) {
        self.set_servers(servers);
        let mut shutdown_reply = None;
        loop {
            tokio::select! {
                cmd = commands.recv() => match cmd {
                    None => break,
                    Some(Command::Shutdown(reply)) => { shutdown_reply = Some(reply); break; }
                    Some(cmd) => self.command(cmd),
                },
                Some(msg) = msgs.recv() => self.message(msg),
                Some(_) = self.tasks.join_next(), if !self.tasks.is_empty() => {}
            }
        }
        self.close_all().await;
        // Whatever arrived meanwhile (the last findings, stderr lines).
        while let Ok(msg) = msgs.try_recv() {
            if let Msg::Session(t) = msg {
                self.session_event(t);
            }
        }
        if let Some(reply) = shutdown_reply {
            let _ = reply.send(());
        }
    }

    fn emit(&self, ev: Event) {
        let _ = self.events.send(ev);
    }

    fn slot(&mut self, name: &str) -> Option<&mut Slot> {
        self.slots.iter_mut().find(|s| s.config.name == name)
    }

    fn set_status(&mut self, name: &str, status: ServerStatus) {
        let Some(slot) = self.slot(name) else { return };
        slot.status = status.clone();
        let negotiated = slot.negotiated.clone().map(Box::new);
        match &status {
            ServerStatus::Failed { reason, .. } => {
                tracing::warn!(server = name, %reason, "server failed")
            }
            other => tracing::info!(server = name, status = other.label(), "server status"),
        }
        self.emit(Event::Status {
            server: name.to_string(),
            status,
            negotiated,
        });
    }

    fn set_servers(&mut self, servers: Vec<ServerConfig>) {
        let mut old: Vec<Slot> = std::mem::take(&mut self.slots);
        let mut dropped = Vec::new();
        let mut to_connect = Vec::new();
        for config in servers {
            match old.iter().position(|s| s.config.name == config.name) {
                Some(i) if old[i].config == config => self.slots.push(old.remove(i)),
                Some(i) => {
                    dropped.push(old.remove(i));
                    to_connect.push(config.name.clone());
                    self.slots.push(new_slot(config));
                }
                None => {
                    to_connect.push(config.name.clone());
                    self.slots.push(new_slot(config));
                }
            }
        }
        dropped.extend(old);
        for mut slot in dropped {
            self.stop(&mut slot);
        }
        self.emit(Event::Servers(
            self.slots.iter().map(|s| s.config.name.clone()).collect(),
        ));
        for name in to_connect {
            self.start_connect(&name);
        }
    }

    /// Stop a slot's connect attempt and close its session.
    fn stop(&mut self, slot: &mut Slot) {
        if let Some(attempt) = slot.connecting.take() {
            // Dropping the half-made session closes its server.
            attempt.abort();
        }
        if let Some(session) = slot.session.take() {
            self.close_later(session);
        }
        slot.negotiated = None;
        slot.relisting = false;
        slot.relist_again = false;
    }

    /// Stop what a slot is doing and mark it with a new generation.
    fn reset(&mut self, name: &str) -> Option<u64> {
        self.generation += 1;
        let generation = self.generation;
        let i = self.slots.iter().position(|s| s.config.name == name)?;
        let mut slot = self.slots.remove(i);
        self.stop(&mut slot);
        slot.generation = generation;
        slot.lists = Arc::new(Lists::default());
        self.slots.insert(i, slot);
        Some(generation)
    }

    /// Begin connecting (or mark disabled) without waiting.
    fn start_connect(&mut self, name: &str) {
        let Some(generation) = self.reset(name) else {
            return;
        };
        let Some(slot) = self.slot(name) else { return };
        if !slot.config.enabled {
            self.set_status(name, ServerStatus::Disabled);
            return;
        }
        let config = slot.config.clone();
        let settings = self.settings.clone();
        let frames = self.frames.clone();
        let sink = self.sink.clone();
        let children = self.children.clone();
        let msgs = self.msgs.clone();
        let server = name.to_string();
        let client = self.client.clone();
        let attempt = async move {
            let mut spec = session_spec(&config, &settings, Some(children))?;
            spec.client = client;
            let session = Session::connect(&spec, frames, sink).await?;
            let listed =
                tokio::time::timeout(settings.connect_timeout, session.list_everything()).await;
            match listed {
                Ok(Ok(lists)) => Ok((session, lists)),
                failed => {
                    let tail = session.stderr_tail(20);
                    session.close().await;
                    let message = match failed {
                        Ok(Err(e)) => format!("connected, but listing failed: {e}"),
                        _ => format!(
                            "connected, but listing did not finish within {} (connect_timeout)",
                            crate::text::fmt_duration(settings.connect_timeout)
                        ),
                    };
                    Err(ConnectError {
                        needs_auth: false,
                        message,
                        stderr_tail: tail,
                    })
                }
            }
        };
        let handle = self.tasks.spawn(async move {
            // A panic inside becomes a failure, not a server stuck pending.
            let result = match CatchUnwind(Box::pin(attempt)).await {
                Ok(result) => result,
                Err(panic) => Err(ConnectError {
                    needs_auth: false,
                    message: format!("internal error while connecting: {panic}"),
                    stderr_tail: Vec::new(),
                }),
            };
            let _ = msgs.send(Msg::Connected {
                server,
                generation,
                result,
            });
        });
        if let Some(slot) = self.slot(name) {
            slot.connecting = Some(handle);
        }
        self.set_status(name, ServerStatus::Pending);
    }

    fn command(&mut self, cmd: Command) {
        match cmd {
            Command::SetServers(servers) => self.set_servers(servers),
            Command::Connect(name) | Command::Reconnect(name) => self.start_connect(&name),
            Command::Disconnect(name) => {
                if self.reset(&name).is_some() {
                    let enabled = self.slot(&name).is_some_and(|s| s.config.enabled);
                    let status = if enabled {
                        ServerStatus::Disconnected
                    } else {
                        ServerStatus::Disabled
                    };
                    self.set_status(&name, status);
                }
            }
            Command::SetEnabled(name, enabled) => {
                let Some(slot) = self.slot(&name) else { return };
                if slot.config.enabled == enabled {
                    return;
                }
                slot.config.enabled = enabled;
                if enabled {
                    self.start_connect(&name);
                } else {
                    self.reset(&name);
                    self.set_status(&name, ServerStatus::Disabled);
                }
            }
            Command::SetDenyList(name, tools) => {
                if let Some(slot) = self.slot(&name) {
                    slot.config.deny_tools = tools.clone();
                    self.emit(Event::DenyList {
                        server: name,
                        tools,
                    });
                }
            }
            Command::Refresh(name) => self.relist(&name),
            Command::AnswerServerRequest { id, result } => {
                let reply = self
                    .asks
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .1
                    .remove(&id);
                if let Some(reply) = reply {
                    let _ = reply.send(result);
                }
            }
            Command::Request {
                tag,
                server,
                method,
                params,
            } => {
                let session = self.live_session(&server);
                let events = self.events.clone();
                self.tasks.spawn(async move {
                    let result = match session {
                        Ok(s) => s.request(&method, Some(params)).await,
                        Err(e) => Err(RequestError::Protocol(e)),
                    };
                    let _ = events.send(Event::Response {
                        tag,
                        server,
                        method,
                        result,
                    });
                });
            }
            Command::SetRoots(dirs) => {
                let changed = self.client.roots.as_ref().is_some_and(|r| r.set(&dirs));
                if changed {
                    for slot in &self.slots {
                        let Some(session) = slot.session.clone() else {
                            continue;
                        };
                        let initialize_era = slot
                            .negotiated
                            .as_ref()
                            .is_some_and(|n| n.era == super::types::Era::Initialize);
                        if initialize_era && slot.status == ServerStatus::Connected {
                            self.tasks.spawn(async move {
                                let _ = session
                                    .notify("notifications/roots/list_changed", None)
                                    .await;
                            });
                        }
                    }
                }
            }
            Command::Subscribe(name, uri) => self.subscription(name, uri, true),
            Command::Unsubscribe(name, uri) => self.subscription(name, uri, false),
            Command::Ping(name) => {
                let session = self.live_session(&name);
                let events = self.events.clone();
                self.tasks.spawn(async move {
                    let result = match session {
                        Ok(s) => s.ping().await.map_err(|e| e.to_string()),
                        Err(e) => Err(e),
                    };
                    let _ = events.send(Event::Ping {
                        server: name,
                        result,
                        requested: true,
                    });
                });
            }
            Command::SetLogLevel(name, level) => {
                let session = self.live_session(&name);
                let events = self.events.clone();
                self.tasks.spawn(async move {
                    let result = match session {
                        Ok(s) => s.set_log_level(&level).await.map_err(|e| e.to_string()),
                        Err(e) => Err(e),
                    };
                    let _ = events.send(Event::LogLevel {
                        server: name,
                        level,
                        result,
                    });
                });
            }
            Command::Call {
                tag,
                server,
                tool,
                arguments,
            } => self.call(tag, server, tool, arguments),
            Command::Cancel { tag } => {
                if let Some((_, tx)) = self.calls.remove(&tag) {
                    let _ = tx.send(());
                }
            }
            Command::Snapshot(reply) => {
                let snap = self
                    .slots
                    .iter()
                    .map(|s| ServerSnapshot {
                        config: s.config.clone(),
                        status: s.status.clone(),
                        negotiated: s.negotiated.clone(),
                        lists: s.lists.clone(),
                    })
                    .collect();
                let _ = reply.send(snap);
            }
            Command::Shutdown(_) => {}
        }
    }

    /// List again; one re-list per server at a time (a burst of
    /// list_changed becomes at most one more).
    fn relist(&mut self, name: &str) {
        let msgs = self.msgs.clone();
        let Some(slot) = self.slot(name) else { return };
        let Some(session) = slot.session.clone() else {
            return;
        };
        if slot.relisting {
            slot.relist_again = true;
            return;
        }
        slot.relisting = true;
        let server = name.to_string();
        self.tasks.spawn(async move {
            let result = session.list_everything().await;
            let _ = msgs.send(Msg::Relisted {
                server,
                session: session.id(),
                result,
            });
        });
    }

    fn subscription(&mut self, name: String, uri: String, on: bool) {
        let session = self.live_session(&name);
        let events = self.events.clone();
        self.tasks.spawn(async move {
            let result = match session {
                Ok(s) if on => s.subscribe(&uri).await.map_err(|e| e.to_string()),
                Ok(s) => s.unsubscribe(&uri).await.map_err(|e| e.to_string()),
                Err(e) => Err(e),
            };
            let _ = events.send(Event::Subscription {
                server: name,
                uri,
                subscribed: on,
                result,
            });
        });
    }

    /// The session of a connected server, or why there is none.
    fn live_session(&self, name: &str) -> Result<Session, String> {
        let slot = self
            .slots
            .iter()
            .find(|s| s.config.name == name)
            .ok_or_else(|| format!("there is no server named {name:?}"))?;
        slot.session
            .clone()
            .filter(|_| slot.status == ServerStatus::Connected)
            .ok_or_else(|| format!("server {name:?} is {}", slot.status.label()))
    }

    fn call(&mut self, tag: u64, server: String, tool: String, arguments: Value) {
        let refuse = |this: &Self, server: String, tool: String, e: CallError| {
            this.emit(Event::CallFinished {
                tag,
                server,
                tool,
                result: Err(e),
                elapsed: Duration::ZERO,
            });
        };
        let Some(slot) = self.slots.iter().find(|s| s.config.name == server) else {
            return refuse(self, server.clone(), tool, CallError::UnknownServer(server));
        };
        if slot.config.is_tool_denied(&tool) {
            return refuse(
                self,
                server.clone(),
                tool.clone(),
                CallError::Denied { server, tool },
            );
        }
        let Some(session) = slot
            .session
            .clone()
            .filter(|_| slot.status == ServerStatus::Connected)
        else {
            let status = slot.status.label().to_string();
            return refuse(
                self,
                server.clone(),
                tool,
                CallError::NotConnected { server, status },
            );
        };
        // A tool that must run as a task (2025-11-25 tasks).
        let as_task = slot
            .lists
            .tools
            .iter()
            .find(|t| t.name == tool)
            .and_then(|t| t.raw.get("execution"))
            .and_then(|e| e.get("taskSupport"))
            .and_then(Value::as_str)
            == Some("required");
        let (cancel_tx, cancel_rx) = oneshot::channel();
        self.next_call += 1;
        let call = self.next_call;
        self.calls.insert(tag, (call, cancel_tx));
        let events = self.events.clone();
        let msgs = self.msgs.clone();
        self.tasks.spawn(async move {
            let started = Instant::now();
            let (s, t) = (server.clone(), tool.clone());
            let work = async move {
                if as_task {
                    let _ = events.send(Event::CallStarted {
                        tag,
                        server: server.clone(),
                        tool: tool.clone(),
                        request_id: -1,
                    });
                    let ev = events.clone();
                    return session
                        .call_task(&tool, arguments, cancel_rx, move |status| {
                            let _ = ev.send(Event::TaskStatus {
                                tag,
                                server: server.clone(),
                                status,
                            });
                        })
                        .await;
                }
                let pending = session.start_call(&tool, arguments).await?;
                let id = pending.id;
                // Retries (input_required rounds) change the id in flight.
                let current = pending.current_id();
                let _ = events.send(Event::CallStarted {
                    tag,
                    server,
                    tool: tool.clone(),
                    request_id: id,
                });
                let fut = session.finish_call(pending);
                tokio::pin!(fut);
                tokio::select! {
                    biased;
                    r = &mut fut => r,
                    Ok(()) = cancel_rx => {
                        let now = current.load(std::sync::atomic::Ordering::Acquire);
                        if session.cancel(now, "cancelled by the user").await {
                            // If the answer was already in, it is kept.
                            fut.await
                        } else {
                            // Between rounds (a person answering the
                            // server's input request): stop here, unless
                            // the answer is just arriving.
                            match tokio::time::timeout(Duration::from_millis(50), &mut fut).await {
                                Ok(r) => r,
                                Err(_) => Err(RequestError::Cancelled {
                                    method: format!("tools/call {tool}"),
                                }),
                            }
                        }
                    }
                }
            };
            let result = match CatchUnwind(Box::pin(work)).await {
                Ok(r) => r.map_err(CallError::Request),
                Err(panic) => Err(CallError::Request(RequestError::Protocol(format!(
                    "internal error during the call: {panic}"
                )))),
            };
            let event = Event::CallFinished {
                tag,
                server: s,
                tool: t,
                result,
                elapsed: started.elapsed(),
            };
            let _ = msgs.send(Msg::CallDone { call, event });
        });
    }

    fn session_event(&mut self, ev: Tagged) {
        let Some(idx) = self
            .slots
            .iter()
            .position(|s| s.session.as_ref().is_some_and(|x| x.id() == ev.session))
        else {
            // A session still connecting (or closing): its findings, stderr
            // and notifications are still the server's.
            match ev.event {
                SessionEvent::Finding(f) => self.emit(Event::Finding {
                    server: ev.server.to_string(),
                    finding: f,
                }),
                SessionEvent::Stderr(line) => self.emit(Event::Stderr {
                    server: ev.server.to_string(),
                    line,
                }),
                SessionEvent::Notification { method, params } => {
                    // A list changed while the lists were being fetched:
                    // fetch again once the session is in place.
                    if is_list_changed(&method) {
                        self.early_list_changed.insert(ev.session);
                    }
                    self.emit(Event::Notification {
                        server: ev.server.to_string(),
                        method,
                        params,
                    });
                }
                SessionEvent::Closed { .. } => {
                    self.early_list_changed.remove(&ev.session);
                }
            }
            return;
        };
        let server = self.slots[idx].config.name.clone();
        match ev.event {
            SessionEvent::Finding(finding) => self.emit(Event::Finding { server, finding }),
            SessionEvent::Stderr(line) => self.emit(Event::Stderr { server, line }),
            SessionEvent::Notification { method, params } => {
                if is_list_changed(&method) {
                    self.relist(&server);
                }
                self.emit(Event::Notification {
                    server,
                    method,
                    params,
                });
            }
            SessionEvent::Closed {
                description,
                requested,
                stderr_tail,
            } => {
                self.slots[idx].session = None;
                self.slots[idx].relisting = false;
                if !requested {
                    self.set_status(
                        &server,
                        ServerStatus::Failed {
                            reason: description,
                            stderr_tail,
                        },
                    );
                }
            }
        }
    }

    fn message(&mut self, msg: Msg) {
        match msg {
            Msg::Session(t) => self.session_event(t),
            Msg::Connected {
                server,
                generation,
                result,
            } => self.connected(server, generation, result),
            Msg::Relisted {
                server,
                session,
                result,
            } => {
                let Some(slot) = self.slot(&server) else {
                    return;
                };
                if slot.session.as_ref().map(Session::id) != Some(session) {
                    return;
                }
                slot.relisting = false;
                let again = std::mem::take(&mut slot.relist_again);
                match result {
                    Ok(lists) => {
                        slot.lists = Arc::new(lists);
                        let lists = slot.lists.clone();
                        self.emit(Event::Lists {
                            server: server.clone(),
                            lists,
                        });
                    }
                    Err(e) => self.emit(Event::Finding {
                        server: server.clone(),
                        finding: Finding::new(
                            super::finding::Severity::Error,
                            format!("listing again failed: {e}"),
                        ),
                    }),
                }
                if again {
                    self.relist(&server);
                }
            }
            Msg::CallDone { call, event } => {
                if let Event::CallFinished { tag, .. } = &event
                    && self.calls.get(tag).is_some_and(|(c, _)| *c == call)
                {
                    self.calls.remove(tag);
                }
                self.emit(event);
            }
        }
    }

    fn connected(
        &mut self,
        server: String,
        generation: u64,
        result: Result<(Session, Lists), ConnectError>,
    ) {
        let Some(slot) = self.slot(&server).filter(|s| s.generation == generation) else {
            if let Ok((session, _)) = result {
                self.close_later(session);
            }
            return;
        };
        slot.connecting = None;
        match result {
            Ok((session, lists)) => {
                let relist = self.early_list_changed.remove(&session.id());
                // The server may have died between listing and now.
                if let Some(reason) = session.closed() {
                    let tail = session.stderr_tail(20);
                    self.set_status(
                        &server,
                        ServerStatus::Failed {
                            reason,
                            stderr_tail: tail,
                        },
                    );
                    return;
                }
                let Some(slot) = self.slot(&server) else {
                    return;
                };
                slot.negotiated = session.negotiated();
                // The stateless era sends list changes only on a
                // subscriptions/listen stream: open it.
                let listener = slot
                    .negotiated
                    .as_ref()
                    .is_some_and(|n| n.era == super::types::Era::Stateless)
                    .then(|| session.clone());
                slot.session = Some(session);
                slot.lists = Arc::new(lists);
                let lists = slot.lists.clone();
                if let Some(listener) = listener {
                    self.tasks.spawn(async move {
                        let _ = listener.listen().await;
                    });
                }
                // One ping right away, so the server's latency is known.
                if let Some(pinger) = self.slot(&server).and_then(|s| s.session.clone()) {
                    let events = self.events.clone();
                    let name = server.clone();
                    self.tasks.spawn(async move {
                        let result = pinger.ping().await.map_err(|e| e.to_string());
                        let _ = events.send(Event::Ping {
                            server: name,
                            result,
                            requested: false,
                        });
                    });
                }
                self.set_status(&server, ServerStatus::Connected);
                self.emit(Event::Lists {
                    server: server.clone(),
                    lists,
                });
                if relist {
                    self.relist(&server);
                }
            }
            Err(e) if e.needs_auth => {
                self.set_status(&server, ServerStatus::NeedsAuth { reason: e.message });
            }
            Err(e) => {
                self.set_status(
                    &server,
                    ServerStatus::Failed {
                        reason: e.message,
                        stderr_tail: e.stderr_tail,
                    },
                );
            }
        }
    }

    async fn close_all(&mut self) {
        let mut slots = std::mem::take(&mut self.slots);
        for slot in &mut slots {
            self.stop(slot);
        }
        // Calls and re-lists end once their sessions close; connect
        // attempts were aborted, which closes their half-made sessions.
        while self.closing.join_next().await.is_some() {}
        self.tasks.abort_all();
        while self.tasks.join_next().await.is_some() {}
        // Every server process is reaped before shutdown returns.
        let grace = self.settings.shutdown_grace;
        self.children
            .settle(grace.saturating_mul(2) + Duration::from_millis(500))
            .await;
    }

    /// Close a session in the background: the manager loop never waits on
    /// a server, but shutdown waits for these too.
    fn close_later(&mut self, session: Session) {
        while self.closing.try_join_next().is_some() {}
        self.closing.spawn(async move { session.close().await });
    }
}

/// Runs a future, turning a panic inside it into `Err(message)` (without
/// the cost of a separate task on the hot path of every call).
struct CatchUnwind<F>(std::pin::Pin<Box<F>>);

impl<F: std::future::Future> std::future::Future for CatchUnwind<F> {
    type Output = Result<F::Output, String>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let inner = self.0.as_mut();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| inner.poll(cx))) {
            Ok(std::task::Poll::Ready(v)) => std::task::Poll::Ready(Ok(v)),
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Err(p) => std::task::Poll::Ready(Err(p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into()))),
        }
    }
}

fn is_list_changed(method: &str) -> bool {
    matches!(
        method,
        "notifications/tools/list_changed"
            | "notifications/resources/list_changed"
            | "notifications/prompts/list_changed"
    )
}

fn new_slot(config: ServerConfig) -> Slot {
    let status = if config.enabled {
        ServerStatus::Pending
    } else {
        ServerStatus::Disabled
    };
    Slot {
        config,
        status,
        session: None,
        negotiated: None,
        lists: Arc::new(Lists::default()),
        generation: 0,
        connecting: None,
        relisting: false,
        relist_again: false,
    }
}
