//! The background task that owns every session: its state (one slot per
//! server), its ordered message stream, and the server list it keeps.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinSet};

use crate::config::{ServerConfig, Settings};
use crate::mcp::framelog::FrameLog;
use crate::mcp::session::ClientPolicy;
use crate::mcp::session::{
    ConnectError, EventSink, Lists, Negotiated, RequestError, Session, Tagged,
};
use crate::mcp::transport::stdio::Children;

use super::model::*;
use super::queue;

pub(super) struct Slot {
    pub(super) config: ServerConfig,
    pub(super) status: ServerStatus,
    pub(super) session: Option<Session>,
    pub(super) negotiated: Option<Negotiated>,
    pub(super) lists: Arc<Lists>,
    /// Bumped on every (re)connect, so late results of old attempts are dropped.
    pub(super) generation: u64,
    /// The connect attempt in flight.
    pub(super) connecting: Option<AbortHandle>,
    /// A re-list is in flight; `relist_again` asks for one more after it.
    pub(super) relisting: bool,
    pub(super) relist_again: bool,
    /// Sessions with a smaller id were replaced or closed by the manager
    /// (their late events are the previous session's).
    pub(super) floor: u64,
    /// The roots its session offers (when roots are declared): its own
    /// `roots`, else a copy of the global ones. Changed in place, and the
    /// server told, when either changes.
    pub(super) roots: Option<crate::mcp::session::SharedRoots>,
    /// Its roots changed while it was connecting: it is told once it is
    /// connected (it may have asked for them already).
    pub(super) roots_changed: bool,
}

/// What the manager's tasks and sessions tell it, in one ordered stream:
/// a call's findings always arrive before its result.
pub(super) enum Msg {
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
    /// A login or log-out finished: connect the server again.
    Reconnect(String),
    /// The session events of a server dropped on the way (a storm).
    Dropped {
        server: String,
        counts: super::queue::DropCounts,
    },
}

pub(super) struct Task {
    pub(super) settings: Settings,
    pub(super) slots: Vec<Slot>,
    pub(super) events: queue::Sender<Event>,
    pub(super) sink: EventSink,
    pub(super) msgs: queue::Sender<Msg>,
    pub(super) frames: Arc<FrameLog>,
    pub(super) children: Arc<Children>,
    /// Calls in flight: tag -> (call number, cancel).
    pub(super) calls: HashMap<u64, (u64, oneshot::Sender<()>)>,
    pub(super) next_call: u64,
    pub(super) generation: u64,
    /// Sessions being closed in the background; awaited at shutdown.
    pub(super) closing: JoinSet<()>,
    /// Connect attempts, calls and re-lists; aborted or awaited at shutdown.
    pub(super) tasks: JoinSet<()>,
    /// Sessions that announced a list change while connecting.
    pub(super) early_list_changed: HashSet<u64>,
    /// The lists a connect and a re-list ask for.
    pub(super) lists: crate::mcp::session::ListSet,
    /// How server requests are answered (declared capabilities).
    pub(super) client: ClientPolicy,
    /// Ping a server once it connects, so its latency is known (the
    /// TUI's and serve's managers, which answer as a person would; a
    /// one-shot command has no use for it).
    pub(super) ping_on_connect: bool,
    /// Open a stateless-era server's `subscriptions/listen` stream once it
    /// connects, to hear of its list changes: only a long-lived client (the
    /// TUI, serve) has use for them. A one-shot command answers and goes;
    /// a subscription (`read --watch`) opens the stream by itself.
    pub(super) listen_on_connect: bool,
    /// Server requests waiting for the UI's answer.
    pub(super) asks: Asks,
}

/// The server requests handed to the UI, by id: (last id, senders).
pub(super) type Asks = Arc<
    std::sync::Mutex<(
        u64,
        HashMap<u64, oneshot::Sender<Result<Value, crate::mcp::jsonrpc::RpcError>>>,
    )>,
>;

impl Task {
    pub(super) async fn run(
        mut self,
        servers: Vec<ServerConfig>,
        mut commands: mpsc::UnboundedReceiver<Command>,
        mut msgs: queue::Receiver<Msg>,
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
            if let Msg::Session(_) | Msg::Dropped { .. } = msg {
                self.message(msg);
            }
        }
        if let Some(reply) = shutdown_reply {
            let _ = reply.send(());
        }
    }

    pub(super) fn emit(&self, ev: Event) {
        let _ = self.events.send(ev);
    }

    pub(super) fn slot(&mut self, name: &str) -> Option<&mut Slot> {
        self.slots.iter_mut().find(|s| s.config.name == name)
    }

    pub(super) fn set_status(&mut self, name: &str, status: ServerStatus) {
        let Some(slot) = self.slot(name) else { return };
        slot.status = status.clone();
        let negotiated = slot.negotiated.clone().map(Box::new);
        match &status {
            ServerStatus::Failed(reason) => {
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

    pub(super) fn set_servers(&mut self, servers: Vec<ServerConfig>) {
        let mut old: Vec<Slot> = std::mem::take(&mut self.slots);
        let mut dropped = Vec::new();
        let mut to_connect = Vec::new();
        for config in servers {
            match old.iter().position(|s| s.config.name == config.name) {
                Some(i) if old[i].config == config => self.slots.push(old.remove(i)),
                // Only its policy changed (deny_tools, allow_tools, lint):
                // applied in place, the connection and a call in flight
                // kept.
                // Only its policy or its roots changed (deny_tools,
                // allow_tools, lint, roots): applied in place, the
                // connection and a call in flight kept; new roots are
                // announced (`notifications/roots/list_changed`).
                Some(i) if old[i].config.same_connection(&config) => {
                    let mut slot = old.remove(i);
                    let deny = (slot.config.deny_tools != config.deny_tools)
                        .then(|| config.deny_tools.clone());
                    let roots = (slot.config.roots != config.roots).then(|| config.roots.clone());
                    slot.config = config;
                    if let Some(tools) = deny {
                        self.emit(Event::DenyList {
                            server: slot.config.name.clone(),
                            tools,
                        });
                    }
                    self.slots.push(slot);
                    if let Some(roots) = roots {
                        let name = self.slots.last().map(|s| s.config.name.clone());
                        if let Some(name) = name {
                            self.set_server_roots(&name, roots);
                        }
                    }
                }
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
    pub(super) fn stop(&mut self, slot: &mut Slot) {
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
    pub(super) fn reset(&mut self, name: &str) -> Option<u64> {
        self.generation += 1;
        let generation = self.generation;
        let i = self.slots.iter().position(|s| s.config.name == name)?;
        let mut slot = self.slots.remove(i);
        self.stop(&mut slot);
        slot.generation = generation;
        slot.floor = crate::mcp::session::next_session_id();
        slot.lists = Arc::new(Lists::default());
        self.slots.insert(i, slot);
        Some(generation)
    }

    pub(super) async fn close_all(&mut self) {
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
    pub(super) fn close_later(&mut self, session: Session) {
        while self.closing.try_join_next().is_some() {}
        self.closing.spawn(async move { session.close().await });
    }
}

/// Runs a future, turning a panic inside it into `Err(message)` (without
/// the cost of a separate task on the hot path of every call).
pub(super) struct CatchUnwind<F>(pub(super) std::pin::Pin<Box<F>>);

thread_local! {
    /// How many [`CatchUnwind`] polls are running on this thread.
    static CATCHING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Whether a panic on this thread now would be caught by the manager (it
/// happens inside a [`CatchUnwind`]): a panic hook can tell a panic that
/// ends the program from one the manager turns into an error.
pub fn panic_is_caught() -> bool {
    CATCHING.with(|c| c.get() > 0)
}

/// Counts a [`CatchUnwind`] poll while it runs, unwinding included.
struct Catching;

impl Catching {
    fn enter() -> Catching {
        CATCHING.with(|c| c.set(c.get().saturating_add(1)));
        Catching
    }
}

impl Drop for Catching {
    fn drop(&mut self) {
        CATCHING.with(|c| c.set(c.get().saturating_sub(1)));
    }
}

/// A panic caught in a background task: its message.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub(super) struct Panicked(pub(super) String);

impl<F: std::future::Future> std::future::Future for CatchUnwind<F> {
    type Output = Result<F::Output, Panicked>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let inner = self.0.as_mut();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _catching = Catching::enter();
            inner.poll(cx)
        }));
        match caught {
            Ok(std::task::Poll::Ready(v)) => std::task::Poll::Ready(Ok(v)),
            Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
            Err(p) => std::task::Poll::Ready(Err(Panicked(
                p.downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| p.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into()),
            ))),
        }
    }
}

pub(super) fn is_list_changed(method: &str) -> bool {
    matches!(
        method,
        "notifications/tools/list_changed"
            | "notifications/resources/list_changed"
            | "notifications/prompts/list_changed"
    )
}

pub(super) fn new_slot(config: ServerConfig) -> Slot {
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
        floor: crate::mcp::session::next_session_id(),
        roots: None,
        roots_changed: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_catch_unwind_is_known_to_be_caught() {
        assert!(!panic_is_caught());
        let work = async {
            assert!(panic_is_caught());
            panic!("caught on purpose")
        };
        let mut caught = CatchUnwind(Box::pin(work));
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        let polled = std::future::Future::poll(std::pin::Pin::new(&mut caught), &mut cx);
        assert!(matches!(
            polled,
            std::task::Poll::Ready(Err(Panicked(message))) if message == "caught on purpose"
        ));
        // Unwinding left the count as it was.
        assert!(!panic_is_caught());
    }
}
