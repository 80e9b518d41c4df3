//! The manager: one background task that owns every session. Commands go
//! in, events come out; nothing the UI does ever waits on a server.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use super::finding::Finding;
use super::framelog::FrameLog;
use super::session::{
    ConnectError, Lists, Negotiated, Pin, RequestError, Session, SessionEvent, SessionSpec, Tagged,
};
use super::transport::StdioSpec;
use super::types::{CallResult, Tool};
use crate::config::{ProtocolPin, ServerConfig, Settings, TransportConfig};

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

/// Build a session spec from the config.
pub fn session_spec(
    config: &ServerConfig,
    settings: &Settings,
) -> Result<SessionSpec, ConnectError> {
    let stdio = match &config.transport {
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => StdioSpec {
            command: command.clone(),
            args: args.clone(),
            env: env.clone(),
            cwd: cwd.clone(),
            stderr_lines: settings.stderr_lines,
            grace: settings.shutdown_grace,
        },
        TransportConfig::Http { url, .. } => {
            return Err(ConnectError {
                message: format!(
                    "{url}: the HTTP transport is not available in this version of mcpdeck yet; use a stdio server (`command`)"
                ),
                stderr_tail: Vec::new(),
            });
        }
    };
    let pin = match &config.protocol {
        ProtocolPin::Auto => Pin::Auto,
        ProtocolPin::Stateless => Pin::Stateless,
        ProtocolPin::Initialize => Pin::Initialize,
        ProtocolPin::Version(v) => Pin::Version(v.clone()),
    };
    Ok(SessionSpec {
        name: Arc::from(config.name.as_str()),
        stdio,
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
}

impl Manager {
    /// Start the manager task with these servers; every enabled server
    /// connects at once, concurrently.
    pub fn start(
        settings: Settings,
        servers: Vec<ServerConfig>,
        frames: Arc<FrameLog>,
    ) -> (Manager, mpsc::UnboundedReceiver<Event>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let (ev_tx, ev_rx) = mpsc::unbounded_channel();
        let (sess_tx, sess_rx) = mpsc::unbounded_channel();
        let (int_tx, int_rx) = mpsc::unbounded_channel();
        let task = Task {
            settings,
            slots: Vec::new(),
            events: ev_tx,
            session_events: sess_tx,
            internal: int_tx,
            frames: frames.clone(),
            calls: HashMap::new(),
            generation: 0,
            closing: JoinSet::new(),
            early_list_changed: HashSet::new(),
        };
        tokio::spawn(task.run(servers, rx, sess_rx, int_rx));
        (Manager { tx, frames }, ev_rx)
    }

    pub fn send(&self, cmd: Command) {
        let _ = self.tx.send(cmd);
    }

    pub fn frames(&self) -> &Arc<FrameLog> {
        &self.frames
    }

    pub async fn snapshot(&self) -> Vec<ServerSnapshot> {
        let (tx, rx) = oneshot::channel();
        self.send(Command::Snapshot(tx));
        rx.await.unwrap_or_default()
    }

    /// Close every session and wait until every server is reaped.
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
}

enum Internal {
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
        tag: u64,
    },
}

struct Task {
    settings: Settings,
    slots: Vec<Slot>,
    events: mpsc::UnboundedSender<Event>,
    session_events: mpsc::UnboundedSender<Tagged>,
    internal: mpsc::UnboundedSender<Internal>,
    frames: Arc<FrameLog>,
    calls: HashMap<u64, oneshot::Sender<()>>,
    generation: u64,
    /// Sessions being closed in the background; awaited at shutdown.
    closing: JoinSet<()>,
    /// Sessions that announced a list change while connecting.
    early_list_changed: HashSet<u64>,
}

impl Task {
    async fn run(
        mut self,
        servers: Vec<ServerConfig>,
        mut commands: mpsc::UnboundedReceiver<Command>,
        mut session_events: mpsc::UnboundedReceiver<Tagged>,
        mut internal: mpsc::UnboundedReceiver<Internal>,
    ) {
        self.set_servers(servers).await;
        let mut shutdown_reply = None;
        loop {
            tokio::select! {
                cmd = commands.recv() => match cmd {
                    None => break,
                    Some(Command::Shutdown(reply)) => { shutdown_reply = Some(reply); break; }
                    Some(cmd) => self.command(cmd).await,
                },
                Some(ev) = session_events.recv() => self.session_event(ev),
                Some(msg) = internal.recv() => self.internal(msg).await,
            }
        }
        self.close_all().await;
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
        match &status {
            ServerStatus::Failed { reason, .. } => {
                tracing::warn!(server = name, %reason, "server failed")
            }
            other => tracing::info!(server = name, status = other.label(), "server status"),
        }
        let Some(slot) = self.slot(name) else { return };
        slot.status = status.clone();
        let negotiated = slot.negotiated.clone().map(Box::new);
        self.emit(Event::Status {
            server: name.to_string(),
            status,
            negotiated,
        });
    }

    async fn set_servers(&mut self, servers: Vec<ServerConfig>) {
        let mut old: Vec<Slot> = std::mem::take(&mut self.slots);
        let mut to_close = Vec::new();
        let mut to_connect = Vec::new();
        for config in servers {
            match old.iter().position(|s| s.config.name == config.name) {
                Some(i) if old[i].config == config => self.slots.push(old.remove(i)),
                Some(i) => {
                    let prev = old.remove(i);
                    to_close.extend(prev.session);
                    to_connect.push(config.name.clone());
                    self.slots.push(new_slot(config));
                }
                None => {
                    to_connect.push(config.name.clone());
                    self.slots.push(new_slot(config));
                }
            }
        }
        to_close.extend(old.into_iter().filter_map(|s| s.session));
        self.emit(Event::Servers(
            self.slots.iter().map(|s| s.config.name.clone()).collect(),
        ));
        self.close_later(to_close);
        for name in to_connect {
            self.start_connect(&name);
        }
    }

    /// Begin connecting (or mark disabled) without waiting.
    fn start_connect(&mut self, name: &str) {
        self.generation += 1;
        let generation = self.generation;
        let settings = self.settings.clone();
        let frames = self.frames.clone();
        let events = self.session_events.clone();
        let internal = self.internal.clone();
        let Some(slot) = self.slot(name) else { return };
        let old = slot.session.take();
        slot.generation = generation;
        slot.negotiated = None;
        slot.lists = Arc::new(Lists::default());
        let enabled = slot.config.enabled;
        let config = slot.config.clone();
        self.close_later(old.into_iter().collect());
        if !enabled {
            self.set_status(name, ServerStatus::Disabled);
            return;
        }
        self.set_status(name, ServerStatus::Pending);
        let server = name.to_string();
        tokio::spawn(async move {
            let result = async {
                let spec = session_spec(&config, &settings)?;
                let session = Session::connect(&spec, frames, events).await?;
                match session.list_everything().await {
                    Ok(lists) => Ok((session, lists)),
                    Err(e) => {
                        let tail = session.stderr_tail(20);
                        session.close().await;
                        Err(ConnectError {
                            message: format!("connected, but listing failed: {e}"),
                            stderr_tail: tail,
                        })
                    }
                }
            }
            .await;
            let _ = internal.send(Internal::Connected {
                server,
                generation,
                result,
            });
        });
    }

    async fn command(&mut self, cmd: Command) {
        match cmd {
            Command::SetServers(servers) => self.set_servers(servers).await,
            Command::Connect(name) | Command::Reconnect(name) => self.start_connect(&name),
            Command::Disconnect(name) => {
                self.generation += 1;
                let g = self.generation;
                if let Some(slot) = self.slot(&name) {
                    slot.generation = g;
                    let old = slot.session.take();
                    let status = if slot.config.enabled {
                        ServerStatus::Disconnected
                    } else {
                        ServerStatus::Disabled
                    };
                    self.close_later(old.into_iter().collect());
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
                    self.generation += 1;
                    let g = self.generation;
                    if let Some(slot) = self.slot(&name) {
                        slot.generation = g;
                        slot.negotiated = None;
                        let old = slot.session.take();
                        self.close_later(old.into_iter().collect());
                    }
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
            Command::Call {
                tag,
                server,
                tool,
                arguments,
            } => self.call(tag, server, tool, arguments),
            Command::Cancel { tag } => {
                if let Some(tx) = self.calls.remove(&tag) {
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

    fn relist(&mut self, name: &str) {
        let internal = self.internal.clone();
        let Some(slot) = self.slot(name) else { return };
        let Some(session) = slot.session.clone() else {
            return;
        };
        let server = name.to_string();
        tokio::spawn(async move {
            let result = session.list_everything().await;
            let _ = internal.send(Internal::Relisted {
                server,
                session: session.id(),
                result,
            });
        });
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
        let (cancel_tx, cancel_rx) = oneshot::channel();
        self.calls.insert(tag, cancel_tx);
        let events = self.events.clone();
        let internal = self.internal.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let result = match session.start_call(&tool, arguments).await {
                Err(e) => Err(CallError::Request(e)),
                Ok(pending) => {
                    let id = pending.id;
                    let _ = events.send(Event::CallStarted {
                        tag,
                        server: server.clone(),
                        tool: tool.clone(),
                        request_id: id,
                    });
                    let fut = session.finish_call(pending);
                    tokio::pin!(fut);
                    tokio::select! {
                        r = &mut fut => r.map_err(CallError::Request),
                        Ok(()) = cancel_rx => {
                            session.cancel(id, "cancelled by the user").await;
                            fut.await.map_err(CallError::Request)
                        }
                    }
                }
            };
            let _ = events.send(Event::CallFinished {
                tag,
                server,
                tool,
                result,
                elapsed: started.elapsed(),
            });
            let _ = internal.send(Internal::CallDone { tag });
        });
    }

    fn session_event(&mut self, ev: Tagged) {
        let Some(idx) = self
            .slots
            .iter()
            .position(|s| s.session.as_ref().is_some_and(|x| x.id() == ev.session))
        else {
            // Events from a session being set up still carry useful findings and stderr.
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
                        if self.early_list_changed.len() > 1000 {
                            self.early_list_changed.clear();
                        }
                        self.early_list_changed.insert(ev.session);
                    }
                    self.emit(Event::Notification {
                        server: ev.server.to_string(),
                        method,
                        params,
                    });
                }
                SessionEvent::Closed { .. } => {}
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

    async fn internal(&mut self, msg: Internal) {
        match msg {
            Internal::Connected {
                server,
                generation,
                result,
            } => {
                if !self
                    .slot(&server)
                    .is_some_and(|s| s.generation == generation)
                {
                    if let Ok((session, _)) = result {
                        self.close_later(vec![session]);
                    }
                    return;
                }
                match result {
                    Ok((session, lists)) => {
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
                        let relist = self.early_list_changed.remove(&session.id());
                        let Some(slot) = self.slot(&server) else {
                            return;
                        };
                        slot.negotiated = session.negotiated();
                        slot.session = Some(session);
                        slot.lists = Arc::new(lists);
                        let lists = slot.lists.clone();
                        self.set_status(&server, ServerStatus::Connected);
                        self.emit(Event::Lists {
                            server: server.clone(),
                            lists,
                        });
                        if relist {
                            self.relist(&server);
                        }
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
            Internal::Relisted {
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
                match result {
                    Ok(lists) => {
                        slot.lists = Arc::new(lists);
                        let lists = slot.lists.clone();
                        self.emit(Event::Lists { server, lists });
                    }
                    Err(e) => self.emit(Event::Finding {
                        server,
                        finding: Finding::new(
                            super::finding::Severity::Error,
                            format!("listing again failed: {e}"),
                        ),
                    }),
                }
            }
            Internal::CallDone { tag } => {
                self.calls.remove(&tag);
            }
        }
    }

    async fn close_all(&mut self) {
        let mut set = JoinSet::new();
        for slot in &mut self.slots {
            if let Some(s) = slot.session.take() {
                set.spawn(async move { s.close().await });
            }
        }
        while set.join_next().await.is_some() {}
        while self.closing.join_next().await.is_some() {}
    }

    /// Close sessions in the background: the manager loop never waits on a
    /// server, but shutdown waits for these too.
    fn close_later(&mut self, sessions: Vec<Session>) {
        while self.closing.try_join_next().is_some() {}
        for s in sessions {
            self.closing.spawn(async move { s.close().await });
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
    }
}
